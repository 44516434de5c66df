// `kwire diff` (tools/diff): seeds, mutants, comparisons, minimization, and whole
// campaigns against small python3 testees written by the test that disagree on purpose
// (one takes trailing bytes, one crashes or hangs on a field value, one decodes a value
// otherwise): findings, their classes, minimized frames, deduplication, the expected file
// and reproducibility from the seed.
#include "tools/diff/diff.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/diff/minimize.h"
#include "tools/diff/seeds.h"

#ifndef KWIRE_TEST_VECTORS_DIR
#error "KWIRE_TEST_VECTORS_DIR must name conformance/vectors"
#endif

namespace kwire::diff {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> Bytes(const std::string& hex) {
  const std::string b = absl::HexStringToBytes(hex);
  return std::vector<uint8_t>(b.begin(), b.end());
}

std::string Hex(const std::vector<uint8_t>& b) {
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

// ApiVersions requests v0-v2 with client id "producer-1" and correlation id 7: header v1,
// empty body.
constexpr const char* kSeedFrames[] = {
    "000000140012000000000007000a70726f64756365722d31",
    "000000140012000100000007000a70726f64756365722d31",
    "000000140012000200000007000a70726f64756365722d31",
};

// The testee of the tests: ApiVersions requests v0-v2 only (else "unsupported"), by MODE:
//   exact    validate: size prefix, header, client id, nothing after it
//   lenient  the same, but bytes after the client id are taken
//   crashy   exact, but killed by SIGSEGV when the correlation id is negative
//   hangs    exact, but never answers when the correlation id is negative
//   upper    exact, and decode answers the client id in upper case (exact's decode does not)
constexpr const char* kTestee = R"PY(
import json, os, struct, sys, time
MODE = sys.argv[1]

def answer(q):
    if q["api_key"] != 18 or q["direction"] != "request" or q["version"] > 2:
        return {"result": "unsupported", "reason": "ApiVersions requests v0-v2 only"}
    b = bytes.fromhex(q["frame"])
    if len(b) < 14 or struct.unpack(">i", b[:4])[0] != len(b) - 4:
        return {"result": "rejected", "error": "short frame or wrong size prefix"}
    key, version, cid, n = struct.unpack(">hhih", b[4:14])
    if key != 18 or version != q["version"]:
        return {"result": "rejected", "error": "another API or version"}
    if cid < 0 and MODE == "crashy":
        os.kill(os.getpid(), 11)
    if cid < 0 and MODE == "hangs":
        time.sleep(3600)
    if n < -1 or 14 + max(n, 0) > len(b):
        return {"result": "rejected", "error": "bad client id length"}
    if 14 + max(n, 0) != len(b) and MODE != "lenient":
        return {"result": "rejected", "error": "trailing bytes", "kind": "trailing_bytes"}
    a = {"result": "ok"}
    if q["op"] == "decode":
        client = None if n < 0 else b[14:14 + n].decode("utf-8", "replace")
        if MODE == "upper" and client is not None:
            client = client.upper()
        a["header"] = {"RequestApiKey": key, "RequestApiVersion": version, "CorrelationId": cid,
                       "ClientId": client}
        a["body"] = {}
    return a

for line in sys.stdin:
    q = json.loads(line)
    if q["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": MODE, "version": "1",
                          "operations": ["decode", "validate"]}), flush=True)
        continue
    a = answer(q)
    a["seq"] = q["seq"]
    print(json.dumps(a), flush=True)
)PY";

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("kwire_diff_test_", ::testing::UnitTest::GetInstance()->current_test_info()->name(), "_",
                        getpid());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "testee.py") << kTestee;
    std::ofstream seeds(dir_ / "seeds.jsonl");
    for (int v = 0; v < 3; ++v) {
      seeds << "{\"format\":1,\"id\":\"test/ApiVersions/v" << v
            << "/request\",\"set\":\"test\",\"api_key\":18,\"api_name\":\"ApiVersions\",\"version\":" << v
            << ",\"direction\":\"request\",\"header_version\":1,\"frame\":\"" << kSeedFrames[v]
            << "\",\"expect\":\"accept\"}\n";
    }
    options_.seeds = {(dir_ / "seeds.jsonl").string()};
    options_.time_seconds = 0;
    options_.progress_seconds = 0;
    options_.timeout_seconds = 10;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Testee(const std::string& mode) { return absl::StrCat("python3 ", (dir_ / "testee.py").string(), " ", mode); }

  DiffReport Run() {
    std::ostringstream progress;
    return RunDiff(options_, progress);
  }

  const Finding* FindSignature(const DiffReport& r, const std::string& sig) {
    for (const Finding& f : r.findings) {
      if (f.signature == sig) return &f;
    }
    return nullptr;
  }

  fs::path dir_;
  DiffOptions options_;
};

TEST(DiffSeeds, VectorsAndCorpusFoldersWithFilters) {
  std::vector<std::string> errors;
  size_t skipped = 0;
  const std::string vectors = KWIRE_TEST_VECTORS_DIR;
  std::vector<Seed> s = LoadSeeds({vectors + "/minimal.jsonl"}, {}, errors, &skipped);
  ASSERT_TRUE(errors.empty()) << errors[0];
  EXPECT_EQ(s.size(), 618u);  // every frame of the file, requests and responses
  SeedFilter only;
  only.api_keys = {18};
  only.request = false;
  s = LoadSeeds({vectors + "/minimal.jsonl", vectors + "/rich.jsonl"}, only, errors);
  ASSERT_FALSE(s.empty());
  for (const Seed& x : s) {
    EXPECT_TRUE(x.response);
    EXPECT_EQ(x.api_key, 18);
  }
  // The same file twice: each frame once.
  EXPECT_EQ(LoadSeeds({vectors + "/minimal.jsonl", vectors + "/minimal.jsonl"}, only, errors).size(),
            LoadSeeds({vectors + "/minimal.jsonl"}, only, errors).size());
  // A corpus folder: a response input starts with the API key and version.
  const fs::path corpus = fs::temp_directory_path() / absl::StrCat("kwire_diff_corpus_", getpid());
  fs::create_directories(corpus / "response_frame_fuzzer");
  fs::create_directories(corpus / "other");
  std::ofstream(corpus / "response_frame_fuzzer" / "a", std::ios::binary) << absl::HexStringToBytes("00120000" "0000000a0000002a002300000000");
  std::ofstream(corpus / "other" / "b", std::ios::binary) << absl::HexStringToBytes(kSeedFrames[1]);
  std::ofstream(corpus / "other" / "junk", std::ios::binary) << "not a frame";
  skipped = 0;
  s = LoadSeeds({corpus.string()}, {}, errors, &skipped);
  fs::remove_all(corpus);
  ASSERT_TRUE(errors.empty()) << errors[0];
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(skipped, 1u);
  EXPECT_FALSE(s[0].response);  // other/b, guessed by its size prefix
  EXPECT_EQ(s[0].version, 1);
  EXPECT_TRUE(s[1].response);
  EXPECT_EQ(s[1].api_key, 18);
  EXPECT_EQ(Hex(s[1].frame), "0000000a0000002a002300000000");
  LoadSeeds({"/no/such/path"}, {}, errors);
  ASSERT_EQ(errors.size(), 1u);
}

TEST(DiffMutants, AMutantDependsOnlyOnTheSeedAndItsIndex) {
  std::vector<std::string> errors;
  const std::vector<Seed> seeds = LoadSeeds({std::string(KWIRE_TEST_VECTORS_DIR) + "/rich.jsonl"}, {}, errors);
  size_t changed = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const Mutant a = MakeMutant(seeds, 7, i);
    const Mutant b = MakeMutant(seeds, 7, i);
    EXPECT_EQ(a.frame, b.frame);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_FALSE(a.steps.empty());
    if (a.frame != seeds[a.seed].frame) ++changed;
    if (!a.response && a.frame.size() >= 8) {
      EXPECT_EQ(a.api_key, static_cast<int16_t>(a.frame[4] << 8 | a.frame[5]));
    }
  }
  EXPECT_GT(changed, 180u);
  EXPECT_NE(MakeMutant(seeds, 7, 3).frame, MakeMutant(seeds, 8, 3).frame);
}

TEST(DiffCompare, VerdictsValuesAndSignatures) {
  EXPECT_EQ(NormalizePath("P.TopicData[0].PartitionData[12].Records.Batch[1]"),
            "P.TopicData[].PartitionData[].Records.Batch[]");
  EXPECT_EQ(NormalizePath("a[x]"), "a[x]");
  Answer ok{Verdict::kOk, "decode", {{"result", "ok"}, {"header", {{"A", "5"}}}, {"body", {{"B", 1}}}}, ""};
  Answer ok_number = ok;
  ok_number.json["header"]["A"] = 5;  // an int64 as a number
  EXPECT_FALSE(Differ(ok, ok_number));
  Answer other = ok;
  other.json["body"]["B"] = 2;
  ASSERT_TRUE(Differ(ok, other));
  EXPECT_EQ(Differ(ok, other)->what, "value");
  EXPECT_EQ(Differ(ok, other)->where, "body.B");
  Answer rejected{Verdict::kRejected, "decode", {{"result", "rejected"}}, ""};
  EXPECT_EQ(Differ(ok, rejected)->what, "verdict");
  Answer validate_ok{Verdict::kOk, "validate", {{"result", "ok"}}, ""};
  EXPECT_FALSE(Differ(ok, validate_ok));  // nothing to compare but the verdict
  // Re-encodings: the first difference after the size prefix.
  Answer frame_a{Verdict::kOk, "roundtrip", {{"result", "ok"}, {"frame", "0000000d00000000000000000001010000"}}, ""};
  Answer frame_b{Verdict::kOk, "roundtrip", {{"result", "ok"}, {"frame", "0000000B0000000000000000000100"}}, ""};
  ASSERT_TRUE(Differ(frame_a, frame_b));
  EXPECT_EQ(Differ(frame_a, frame_b)->what, "reencoding");
  EXPECT_EQ(Differ(frame_a, frame_b)->where, "byte 14");
  frame_b.json["frame"] = "0000000D00000000000000000001010000";  // case does not matter
  EXPECT_FALSE(Differ(frame_a, frame_b));

  Mutant m;
  m.api_key = 18;
  m.frame = Bytes("0000000b00120000000000000000" "00");
  const LocalView view = KwireView(m);
  EXPECT_EQ(view.kind, "trailing_bytes");
  EXPECT_EQ(view.offset, 14u);
  const std::vector<std::string> labels = {"a", "b", "c"};
  Outcome o = Classify(m, {ok, rejected, other}, labels, view);
  EXPECT_EQ(o.signature, "ApiVersions request | a=ok:a b=rejected c=ok:b | trailing_bytes");
  ASSERT_EQ(o.classes.size(), 3u);
  EXPECT_EQ(o.classes[0].cls, "ok vs rejected: trailing_bytes");
  EXPECT_EQ(o.classes[1].cls, "ok vs ok: value @ B");
  EXPECT_TRUE(o.fault_signatures.empty());
  Answer died{Verdict::kDied, "decode", nullptr, "killed by signal 11"};
  o = Classify(m, {ok, died, ok_number}, labels, view);
  EXPECT_EQ(o.signature, "");  // a and c agree; b is a fault of its own
  ASSERT_EQ(o.fault_signatures.size(), 1u);
  EXPECT_EQ(o.fault_signatures[0], "ApiVersions request | b=died | trailing_bytes");
  // Held to the testees named: c's other value no longer counts.
  const std::vector<bool> ab = {true, true, false};
  EXPECT_EQ(Classify(m, {ok, rejected, other}, labels, view, &ab).signature,
            "ApiVersions request | a=ok b=rejected | trailing_bytes");
}

TEST(DiffMinimize, StructureThenBytesWhileThePredicateHolds) {
  // A Produce v9 request with two topics and trailing bytes: "still fails" while kwire
  // finds trailing bytes. The structure pass empties the topics and the client id, the
  // byte pass leaves one trailing byte.
  std::vector<std::string> errors;
  const std::vector<Seed> seeds = LoadSeeds({std::string(KWIRE_TEST_VECTORS_DIR) + "/rich.jsonl"}, {}, errors);
  const Seed* produce = nullptr;
  for (const Seed& s : seeds) {
    if (s.id == "rich/Produce/v9/request") produce = &s;
  }
  ASSERT_NE(produce, nullptr);
  Mutant m;
  m.api_key = 0;
  m.version = 9;
  m.frame = produce->frame;
  m.frame.insert(m.frame.end(), {1, 2, 3, 4, 5});
  FixSizePrefix(m.frame);
  auto trailing = [&](const std::vector<uint8_t>& c) {
    Mutant x = m;
    x.frame = c;
    return KwireView(x).kind == "trailing_bytes";
  };
  const Minimized r = Minimize(m, trailing, 400);
  EXPECT_GT(r.structural, 0u);
  EXPECT_GT(r.bytes, 0u);
  EXPECT_LE(r.evaluations, 400u);
  EXPECT_TRUE(trailing(r.frame));
  Mutant x = m;
  x.frame = r.frame;
  x.frame.pop_back();
  FixSizePrefix(x.frame);
  EXPECT_EQ(KwireView(x).kind, "accepted") << Hex(r.frame);  // one trailing byte left
  EXPECT_LT(r.frame.size(), 40u) << Hex(r.frame);
  EXPECT_EQ(Minimize(m, trailing, 400).frame, r.frame);  // deterministic
  EXPECT_EQ(Minimize(m, trailing, 0).frame, m.frame);
}

TEST_F(DiffTest, TrailingBytesFoundClassifiedMinimizedAndDeduplicated) {
  options_.testees = {Testee("exact"), Testee("lenient")};
  options_.count = 400;
  options_.seed = 3;
  const DiffReport r = Run();
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  EXPECT_EQ(r.mutants, 400u);
  EXPECT_EQ(r.labels, (std::vector<std::string>{"exact", "lenient"}));
  const Finding* f = FindSignature(r, "ApiVersions request | exact=rejected lenient=ok | trailing_bytes");
  ASSERT_NE(f, nullptr) << RenderDiffSummary(r);
  EXPECT_FALSE(f->fault);
  // Minimized: header with correlation id 0, a 2-byte client id (null or empty), one byte
  // after it.
  ASSERT_EQ(f->minimized.size(), 15u) << Hex(f->minimized);
  EXPECT_EQ(Hex(f->minimized).substr(0, 12), "0000000b0012");
  EXPECT_EQ(Hex(f->minimized).substr(16, 8), "00000000");
  EXPECT_EQ(f->view.kind, "trailing_bytes");
  EXPECT_EQ(f->view.offset, 14u);
  EXPECT_EQ(f->answers[0].verdict, Verdict::kRejected);
  EXPECT_EQ(f->answers[1].verdict, Verdict::kOk);
  EXPECT_GT(f->count, 1u);
  // Every disagreement is exact rejecting what lenient takes; one finding per signature.
  std::set<std::string> signatures;
  uint64_t counted = 0;
  for (const Finding& x : r.findings) {
    EXPECT_TRUE(absl::StartsWith(x.signature, "ApiVersions request | exact=rejected lenient=ok | ")) << x.signature;
    EXPECT_TRUE(signatures.insert(x.signature).second);
    counted += x.count;
  }
  EXPECT_EQ(counted, r.disagreeing);
  const auto row = r.classes.find({"exact / lenient", "rejected vs ok: trailing_bytes"});
  ASSERT_NE(row, r.classes.end()) << RenderDiffSummary(r);
  EXPECT_EQ(row->second.example, f->id);
  EXPECT_GE(row->second.mutants, f->count);
  EXPECT_EQ(r.verdicts[0].at(Verdict::kUnsupported), r.verdicts[1].at(Verdict::kUnsupported));
  EXPECT_EQ(DiffExitStatus(r), 1);
  const std::string summary = RenderDiffSummary(r);
  EXPECT_TRUE(absl::StrContains(summary, "| exact / lenient | rejected vs ok: trailing_bytes |")) << summary;
  EXPECT_TRUE(absl::StrContains(summary, "unexpected findings:")) << summary;

  // Written out: one vector record per finding; signatures.txt is an expected file that
  // makes the same run pass.
  std::string error;
  ASSERT_TRUE(WriteDiffOutputs(r, (dir_ / "out").string(), error)) << error;
  std::ifstream in(dir_ / "out" / "findings.jsonl");
  size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const Json j = Json::parse(line);
    EXPECT_EQ(j["set"], "diff");
    EXPECT_TRUE(j["answers"].contains("exact") && j["answers"].contains("lenient"));
    if (j["signature"] == f->signature) {
      EXPECT_EQ(j["frame"], Hex(f->minimized));
      EXPECT_EQ(j["expect"], "reject");
      EXPECT_EQ(j["error"]["kind"], "trailing_bytes");
      EXPECT_EQ(j["answers"]["lenient"]["result"], "ok");
      EXPECT_EQ(j["original_frame"], Hex(f->mutant.frame));
    }
  }
  EXPECT_EQ(lines, r.findings.size());
  options_.expected_file = (dir_ / "out" / "signatures.txt").string();
  const DiffReport again = Run();
  EXPECT_EQ(again.Unexpected(), 0u);
  EXPECT_EQ(DiffExitStatus(again), 0);
  // A wildcard pattern.
  std::ofstream(dir_ / "expected.txt") << "# known\n*exact=rejected lenient=ok*  # reason\n";
  options_.expected_file = (dir_ / "expected.txt").string();
  EXPECT_EQ(DiffExitStatus(Run()), 0);
}

TEST_F(DiffTest, ReproducibleFromTheSeed) {
  options_.testees = {Testee("exact"), Testee("lenient")};
  options_.count = 150;
  options_.seed = 11;
  const DiffReport a = Run();
  const DiffReport b = Run();
  ASSERT_TRUE(a.errors.empty() && b.errors.empty());
  ASSERT_FALSE(a.findings.empty());
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].id, b.findings[i].id);
    EXPECT_EQ(a.findings[i].signature, b.findings[i].signature);
    EXPECT_EQ(a.findings[i].mutant.frame, b.findings[i].mutant.frame);
    EXPECT_EQ(a.findings[i].minimized, b.findings[i].minimized);
    EXPECT_EQ(a.findings[i].count, b.findings[i].count);
    EXPECT_EQ(FindingRecord(a, a.findings[i]).dump(), FindingRecord(b, b.findings[i]).dump());
  }
  EXPECT_EQ(a.verdicts, b.verdicts);
}

TEST_F(DiffTest, ACrashIsAFindingOfItsOwnAndTheTesteeIsRestarted) {
  options_.testees = {Testee("exact"), Testee("crashy")};
  options_.count = 100;
  options_.seed = 21;  // mutant 18: a negative correlation id in an otherwise sound frame
  const DiffReport r = Run();
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  const Finding* f = FindSignature(r, "ApiVersions request | crashy=died | accepted");
  ASSERT_NE(f, nullptr) << RenderDiffSummary(r);
  EXPECT_TRUE(f->fault);
  ASSERT_EQ(f->answers.size(), 2u);
  EXPECT_EQ(f->answers[1].verdict, Verdict::kDied);
  EXPECT_TRUE(absl::StrContains(f->answers[1].detail, "killed by signal 11")) << f->answers[1].detail;
  // Minimized to the header alone, the negative correlation id kept.
  ASSERT_EQ(f->minimized.size(), 14u) << Hex(f->minimized);
  EXPECT_GE(f->minimized[8], 0x80);
  ASSERT_GE(r.restarts.size(), 2u);
  EXPECT_EQ(r.restarts[0], 0);
  EXPECT_GE(static_cast<uint64_t>(r.restarts[1]), r.verdicts[1].at(Verdict::kDied));
  for (const Finding& x : r.findings) {
    if (x.fault) {
      EXPECT_TRUE(absl::StrContains(x.signature, "| crashy=died |")) << x.signature;
    } else {
      ADD_FAILURE() << "exact and crashy agree on every frame crashy answers: " << x.signature;
    }
  }
  const auto row = r.classes.find({"crashy", "died: accepted"});
  ASSERT_NE(row, r.classes.end()) << RenderDiffSummary(r);
}

TEST_F(DiffTest, AHangIsAFindingAndNotMinimized) {
  options_.testees = {Testee("exact"), Testee("hangs")};
  options_.count = 40;
  options_.seed = 25;  // mutant 7: a negative correlation id
  options_.timeout_seconds = 0.3;
  const DiffReport r = Run();
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  size_t hangs = 0;
  for (const Finding& f : r.findings) {
    ASSERT_TRUE(f.fault) << f.signature;
    EXPECT_TRUE(absl::StrContains(f.signature, "| hangs=hang |")) << f.signature;
    EXPECT_EQ(f.minimized, f.mutant.frame);
    EXPECT_EQ(f.evaluations, 0u);
    ++hangs;
  }
  EXPECT_GT(hangs, 0u) << RenderDiffSummary(r);
}

TEST_F(DiffTest, DecodedValuesAreCompared) {
  options_.testees = {Testee("exact"), Testee("upper")};
  options_.op = "decode";
  options_.count = 100;
  const DiffReport r = Run();
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  EXPECT_EQ(r.ops, (std::vector<std::string>{"decode", "decode"}));
  const Finding* f = FindSignature(r, "ApiVersions request | exact=ok:a upper=ok:b | value @ header.ClientId");
  ASSERT_NE(f, nullptr) << RenderDiffSummary(r);
  EXPECT_NE(r.classes.find({"exact / upper", "ok vs ok: value @ ClientId"}), r.classes.end());
  // A testee without the operation is asked validate, with a warning.
  options_.op = "roundtrip";
  const DiffReport v = Run();
  EXPECT_EQ(v.ops, (std::vector<std::string>{"validate", "validate"}));
  EXPECT_EQ(v.warnings.size(), 2u);
}

TEST_F(DiffTest, RunErrors) {
  options_.testees = {Testee("exact")};
  options_.op = "bogus";
  EXPECT_FALSE(Run().errors.empty());
  options_.op = "validate";
  options_.seeds = {(dir_ / "none.jsonl").string()};
  EXPECT_FALSE(Run().errors.empty());
  options_.seeds = {(dir_ / "seeds.jsonl").string()};
  options_.testees = {"sh -c 'exit 3'"};
  const DiffReport r = Run();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "ended before answering the hello (exit status 3)")) << r.errors[0];
  EXPECT_EQ(DiffExitStatus(r), 1);
}

}  // namespace
}  // namespace kwire::diff
