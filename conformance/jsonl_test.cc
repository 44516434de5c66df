// kwire against the language-neutral vectors (conformance/vectors/*.jsonl, FORMAT.md),
// which the independent reference tool (tools/conformance_ref.py) writes:
//   accept: the frame decodes (strict), its header version is the stated one, its JSON
//           mapping equals the vector's header and body, it re-encodes byte-identically,
//           and the vector's JSON encodes (FrameFromJson) to the frame;
//   refuse: a broker reads it (ReadRequestAsBroker) and refuses the stated partitions
//           with the stated error codes and faults; otherwise as accept;
//   reject: the strict decoder refuses it with the stated kind, byte offset and field
//           path, and the Java-compatible decoder (kQuirksJava) accepts it exactly when
//           the vector is marked `lenient` (Apache Kafka's Java decoder accepts it).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/protocol/frame_test_util.h"
#include "tools/json/json.h"
#include "tools/json/json_test_util.h"

namespace kwire {
namespace {

struct Line {
  std::string file;
  int number;
  nlohmann::json v;  // sorted members: equality ignores member order
};

std::vector<Line> LoadAll(std::map<std::string, size_t>& per_set) {
  std::vector<Line> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(KWIRE_CONFORMANCE_DIR)) {
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string text;
    int number = 0;
    while (std::getline(in, text)) {
      ++number;
      nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
      EXPECT_TRUE(v.is_object()) << path << ":" << number << ": not a JSON object";
      if (!v.is_object()) continue;
      ++per_set[v.value("set", "?")];
      out.push_back({path.filename().string(), number, std::move(v)});
    }
  }
  return out;
}

std::vector<uint8_t> Bytes(const nlohmann::json& hex) {
  const std::string raw = absl::HexStringToBytes(hex.get<std::string>());
  return {raw.begin(), raw.end()};
}

// The vector's API, direction and version as a test case; nullptr api for an unknown key.
frame_testing::Case CaseOf(const nlohmann::json& v) {
  return {FindApi(v["api_key"].get<int16_t>()),
          v["direction"] == "request" ? Direction::kRequest : Direction::kResponse,
          v["version"].get<int16_t>()};
}

void CompareWithVector(const Json& decoded, const nlohmann::json& v,
                       const std::vector<uint8_t>& frame, std::vector<std::string>& failures);

std::vector<std::string> CheckAccept(const nlohmann::json& v) {
  std::vector<std::string> failures;
  const std::vector<uint8_t> frame = Bytes(v["frame"]);
  const frame_testing::Case c = CaseOf(v);
  if (c.api == nullptr) return {"unknown API key"};
  const frame_testing::Decoded d = frame_testing::DecodeFrame(c, frame);
  if (!d.ok()) return {absl::StrCat("does not decode: ", d.error.ToString())};
  if (d.reencoded != frame) failures.push_back("re-encodes differently");
  absl::StatusOr<Json> j = json_testing::FrameJson(c, frame);
  if (!j.ok()) return {absl::StrCat("no JSON form: ", j.status().message())};
  CompareWithVector(*j, v, frame, failures);
  return failures;
}

// The checks an accept and a refuse vector share: kwire's JSON of the frame `j` against
// the vector, and the vector's JSON encoded back to `frame`.
void CompareWithVector(const Json& decoded, const nlohmann::json& v,
                       const std::vector<uint8_t>& frame, std::vector<std::string>& failures) {
  const Json* j = &decoded;
  if ((*j)["api_key"] != v["api_key"] || (*j)["version"] != v["version"]) {
    failures.push_back(absl::StrCat("decoded as API ", (*j)["api_key"].dump(), " v",
                                    (*j)["version"].dump()));
  }
  if ((*j)["header_version"] != v["header_version"]) {
    failures.push_back(absl::StrCat("header version ", (*j)["header_version"].dump()));
  }
  for (const char* part : {"header", "body"}) {
    const nlohmann::json mine = nlohmann::json::parse((*j)[part].dump());
    if (mine != v[part]) {
      failures.push_back(absl::StrCat(part, " differs: kwire ", mine.dump(), " vector ",
                                      v[part].dump()));
    }
  }
  absl::StatusOr<std::vector<uint8_t>> built = FrameFromJson(Json::parse(v.dump()));
  if (!built.ok()) {
    failures.push_back(absl::StrCat("its JSON does not encode: ", built.status().message()));
  } else if (*built != frame) {
    failures.push_back("its JSON encodes to other bytes");
  }
}

// refuse: a broker reads the request (ReadRequestAsBroker, strict) and refuses exactly
// the vector's parts with its error codes and faults (kind, offset, path); the rest is as
// for accept; DecodeRequestFrame, which takes no partition apart, fails on the first.
std::vector<std::string> CheckRefuse(const nlohmann::json& v) {
  std::vector<std::string> failures;
  const std::vector<uint8_t> frame = Bytes(v["frame"]);
  if (v["direction"] != "request") return {"a refuse vector that is not a request"};
  absl::StatusOr<BrokerRead> read = ReadRequestAsBroker(frame);
  if (!read.ok()) return {absl::StrCat("does not read: ", read.status().message())};
  nlohmann::json mine = nlohmann::json::array();
  bool kafka_appends = true;
  for (const Refusal& r : read->refusals) {
    mine.push_back(nlohmann::json(RefusalJson(r)));
    kafka_appends = kafka_appends && r.kafka_appends;
  }
  if (mine != v["refusals"]) {
    failures.push_back(absl::StrCat("refusals differ: kwire ", mine.dump(), " vector ",
                                    v["refusals"].dump()));
  }
  // lenient: Apache Kafka's broker appends what kwire refuses (Refusal::kafka_appends).
  if (kafka_appends != v["lenient"].get<bool>()) {
    failures.push_back(absl::StrCat("kafka_appends is ", kafka_appends, ", lenient ",
                                    v["lenient"].dump()));
  }
  // Under Java's rules (kQuirksJava, records validated with them) a non-lenient vector is
  // refused alike; a lenient one is read whole, but for a batch cut short after complete
  // ones, which kwire refuses under every rule (codec/records/README.md).
  FrameOptions java;
  java.quirks = kQuirksJava;
  absl::StatusOr<BrokerRead> as_java = ReadRequestAsBroker(frame, java);
  if (!as_java.ok()) {
    failures.push_back(absl::StrCat("kQuirksJava: does not read: ", as_java.status().message()));
  } else if (!v["lenient"].get<bool>()) {
    if (as_java->refusals.size() != read->refusals.size() ||
        (!as_java->refusals.empty() &&
         as_java->refusals[0].error_code != read->refusals[0].error_code)) {
      failures.push_back("kQuirksJava refuses it otherwise");
    }
  } else if (!as_java->refusals.empty() && !as_java->refusals[0].kafka_appends) {
    failures.push_back("kQuirksJava refuses a lenient vector");
  }
  absl::StatusOr<std::vector<uint8_t>> again =
      EncodeRequestFrame(read->frame.header, read->frame.body);
  if (!again.ok() || *again != frame) failures.push_back("re-encodes differently");
  absl::StatusOr<Json> j = RequestFrameToJson(read->frame);
  if (!j.ok()) return {absl::StrCat("no JSON form: ", j.status().message())};
  CompareWithVector(*j, v, frame, failures);
  auto whole = DecodeRequestFrame(frame);
  if (whole.ok() || read->refusals.empty() ||
      frame_testing::ErrorOf(whole.status()) != read->refusals[0].fault) {
    failures.push_back(absl::StrCat("DecodeRequestFrame does not fail with the first refusal's "
                                    "fault: ", whole.status().ToString()));
  }
  return failures;
}

std::vector<std::string> CheckReject(const nlohmann::json& v) {
  std::vector<std::string> failures;
  const std::vector<uint8_t> frame = Bytes(v["frame"]);
  const frame_testing::Case c = CaseOf(v);
  if (c.api == nullptr && !c.request()) return {"unknown API key for a response"};
  const frame_testing::Decoded strict = frame_testing::DecodeFrame(c, frame);
  if (strict.ok()) return {"accepted by the strict decoder"};
  const Error& e = strict.error;
  const nlohmann::json& want = v["error"];
  if (ErrorKindName(e.kind) != want["kind"] || e.offset != want["offset"].get<size_t>() ||
      e.path != want["path"]) {
    failures.push_back(absl::StrCat("rejected as ", ErrorKindName(e.kind), " at ", e.offset, " in '",
                                    e.path, "' (", e.ToString(), "), the vector says ",
                                    want.dump()));
  }
  // Java's decoders keep a records field as unparsed MemoryRecords (faults inside a
  // batch surface later, per partition), so the Java-rules check leaves records opaque.
  FrameOptions java;
  java.records_mode = RecordsMode::kOpaque;
  const bool java_accepts = frame_testing::DecodeFrame(c, frame, kQuirksJava, java).ok();
  if (java_accepts != v["lenient"].get<bool>()) {
    failures.push_back(absl::StrCat("kQuirksJava ", java_accepts ? "accepts" : "rejects",
                                    " it, but lenient is ", v["lenient"].dump()));
  }
  return failures;
}

// conformance/jsonl_expected_failures.txt: `<vector id>  # reason` per line, the vectors
// where kwire and the reference are known to disagree. A listed vector that passes is an
// error, so the list only shrinks.
std::map<std::string, std::string> LoadExpected() {
  std::map<std::string, std::string> out;
  std::ifstream in(KWIRE_JSONL_EXPECTED_FAILURES);
  EXPECT_TRUE(in.good()) << KWIRE_JSONL_EXPECTED_FAILURES;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    const size_t hash = text.find('#');
    std::string id = text.substr(0, text.find_first_of(" \t"));
    EXPECT_NE(hash, std::string::npos) << "no reason given: " << text;
    out[id] = hash == std::string::npos ? "" : text.substr(hash + 1);
  }
  return out;
}

TEST(JsonlVectors, KwireAgreesWithTheReference) {
  std::map<std::string, size_t> per_set;
  const std::vector<Line> lines = LoadAll(per_set);
  std::map<std::string, std::string> expected = LoadExpected();
  // The sets of conformance/README.md (counts checked there and by conformance_ref.py).
  EXPECT_EQ(per_set["minimal"], 618u);
  EXPECT_EQ(per_set["minimal-removed"], 118u);
  EXPECT_EQ(per_set["seeds"], 4u);
  EXPECT_EQ(per_set["rich"], 736u);
  EXPECT_GT(per_set["negative"], 3000u);
  EXPECT_EQ(per_set["records"], 80u);
  EXPECT_EQ(per_set["kip511"], 15u);  // ApiVersions v1-5: fallback, empty, error 0
  EXPECT_EQ(per_set["java"], 1236u);  // written by kafka-clients 4.4.0: 618 x full, sparse
  size_t failed = 0, expected_failed = 0, accepted = 0, rejected = 0, refused = 0;
  std::map<std::string, size_t> failed_by_kind;
  for (const Line& l : lines) {
    const bool accept = l.v["expect"] == "accept";
    const bool refuse = l.v["expect"] == "refuse";
    const std::string id = l.v["id"].get<std::string>();
    std::vector<std::string> failures =
        accept ? CheckAccept(l.v) : refuse ? CheckRefuse(l.v) : CheckReject(l.v);
    (accept ? accepted : refuse ? refused : rejected)++;
    auto listed = expected.find(id);
    if (listed != expected.end()) {
      EXPECT_FALSE(failures.empty()) << id << " passes now: take it off the expected failures";
      expected_failed += !failures.empty();
      expected.erase(listed);
      continue;
    }
    if (failures.empty()) continue;
    ++failed;
    if (!accept && !refuse) ++failed_by_kind[l.v["error"]["kind"].get<std::string>()];
    ADD_FAILURE() << l.file << ":" << l.number << " " << id << ": "
                  << absl::StrJoin(failures, "; ");
  }
  EXPECT_EQ(failed, 0u) << "of " << lines.size() << " vectors; rejects failing by kind: "
                        << absl::StrJoin(failed_by_kind, ", ", absl::PairFormatter("="));
  for (const auto& [id, reason] : expected) ADD_FAILURE() << "listed vector " << id << " not found";
  EXPECT_EQ(accepted + rejected + refused, lines.size());
  // The records set's Produce faults: 36 partitions a broker refuses (FORMAT.md, "refuse").
  EXPECT_EQ(refused, 36u);
  // The known disagreements (conformance/jsonl_expected_failures.txt), all rejects.
  EXPECT_EQ(expected_failed, 0u);
}

}  // namespace
}  // namespace kwire
