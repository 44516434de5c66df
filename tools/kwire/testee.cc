// `kwire testee` (testee.h).
#include "tools/kwire/testee.h"

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "tools/json/json.h"

namespace kwire::cli {
namespace {

using Json = nlohmann::json;

Json Rejected(const absl::Status& s) {
  Json a = {{"result", "rejected"}, {"error", std::string(s.message())}};
  if (std::optional<Error> e = ErrorFromStatus(s)) {
    a["kind"] = ErrorKindName(e->kind);
    a["offset"] = e->offset;
    a["path"] = e->path;
  }
  return a;
}

Json Answer(const Json& q, uint32_t quirks, RecordsMode records) {
  const std::string op = q.value("op", "");
  const bool request = q.value("direction", "") == "request";
  const int16_t key = q.value("api_key", int16_t{-1});
  const int16_t version = q.value("version", int16_t{-1});
  if (op == "encode") {
    absl::StatusOr<std::vector<uint8_t>> frame = FrameFromJson(q);
    if (!frame.ok()) return Rejected(frame.status());
    return {{"result", "ok"}, {"frame", HexString(*frame)}};
  }
  if (op != "decode" && op != "roundtrip" && op != "validate") {
    return {{"result", "unsupported"}, {"reason", absl::StrCat("no operation '", op, "'")}};
  }
  const std::string hex = q.value("frame", "");
  std::string raw;
  if (!ParseHex(hex, raw)) {
    return {{"result", "rejected"}, {"error", "the request's frame is not hex"}};
  }
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  FrameOptions options;
  options.quirks = quirks;
  options.records_mode = records;
  absl::StatusOr<std::vector<uint8_t>> again;
  absl::StatusOr<Json> json = Json();
  // Under kQuirkInvalidUtf8 (--quirks java) a string is answered as Java reads it.
  const ToJsonOptions json_options = ToJsonOptions::ForQuirks(quirks);
  // A request is read as a broker reads it: a Produce partition whose records are faulty
  // is refused, not the frame (the testee protocol's "refused": conformance/README.md).
  Json refusals = Json::array();
  if (request) {
    absl::StatusOr<BrokerRead> read = ReadRequestAsBroker(bytes, options);
    if (!read.ok()) return Rejected(read.status());
    for (const Refusal& r : read->refusals) refusals.push_back(Json(RefusalJson(r)));
    const RequestFrame& f = read->frame;
    if (op == "validate") {
      if (read->refused()) return {{"result", "refused"}, {"refusals", refusals}};
      return {{"result", "ok"}};
    }
    if (op == "roundtrip") again = EncodeRequestFrame(f.header, f.body, EncodeOptions{quirks});
    else json = RequestFrameToJson(f, json_options);
  } else {
    if (FindApi(key) == nullptr) {
      return {{"result", "unsupported"}, {"reason", absl::StrCat("no API key ", key)}};
    }
    absl::StatusOr<ResponseFrame> f = DecodeResponseFrame(bytes, key, version, options);
    if (!f.ok()) return Rejected(f.status());
    if (op == "validate") return {{"result", "ok"}};
    if (op == "roundtrip") {
      again = EncodeResponseFrame(f->header, key, f->body_version, f->body, EncodeOptions{quirks});
    } else {
      json = ResponseFrameToJson(*f, key, version, json_options);
    }
    // KIP-511: an ApiVersions response read as its v0 fallback says so (testee protocol,
    // conformance/README.md: "body_version").
    if (op == "decode" && ApiVersionsFallback(key, version, f->body_version) && json.ok()) {
      return {{"result", "ok"}, {"header", (*json)["header"]}, {"body", (*json)["body"]},
              {"body_version", f->body_version}};
    }
  }
  if (op == "roundtrip") {
    if (!again.ok()) return Rejected(again.status());
    return {{"result", "ok"}, {"frame", HexString(*again)}};
  }
  // decode. Under quirks a decoded string may not be UTF-8 and so have no JSON form:
  // the frame was accepted all the same, and the answer says so.
  const char* result = refusals.empty() ? "ok" : "refused";
  if (!json.ok()) {
    Json a = {{"result", result}, {"note", absl::StrCat("no JSON form: ", json.status().message())}};
    if (!refusals.empty()) a["refusals"] = refusals;
    return a;
  }
  Json a = {{"result", result}, {"header", (*json)["header"]}, {"body", (*json)["body"]}};
  if (!refusals.empty()) a["refusals"] = refusals;
  return a;
}

}  // namespace

int ServeTestee(std::istream& in, std::ostream& out, uint32_t quirks, RecordsMode records) {
  std::string line;
  while (std::getline(in, line)) {
    Json q = Json::parse(line, nullptr, false);
    Json a;
    if (!q.is_object()) {
      a = {{"type", "error"}, {"error", "not a JSON object"}};
    } else if (q.value("type", "") == "hello") {
      a = {{"type", "hello"},
           {"protocol", 1},
           {"name", "kwire"},
           {"version", KWIRE_VERSION_STRING},
           {"operations", {"decode", "encode", "roundtrip", "validate"}}};
      if (quirks != 0) a["quirks"] = quirks == kQuirksJava ? "java" : absl::StrCat(quirks);
    } else if (q.value("type", "") != "request" || !q.contains("seq")) {
      a = {{"type", "error"}, {"error", "expected a hello or a request with a seq"}};
    } else {
      a = Answer(q, quirks, records);
      a["seq"] = q["seq"];
    }
    out << a.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n" << std::flush;
  }
  return 0;
}

}  // namespace kwire::cli
