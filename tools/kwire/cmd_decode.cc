// `kwire decode` and `kwire encode`.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/wire/byte_diff.h"
#include "codec/wire/hex.h"
#include "tools/json/json.h"

namespace kwire::cli::internal {

namespace {

// The sentence under a request's `refused:` lines: how a broker answers it, and what kwire
// refuses that Kafka 4.4 appends.
std::string RefusalSummary(const BrokerRead& read) {
  if (const Refusal* whole = read.WholeRequest()) {
    return absl::StrFormat("a broker reads this request and answers every partition with %s "
                           "(%d), appending none",
                           whole->error_name, whole->error_code);
  }
  size_t answered = 0;
  for (const Refusal& r : read.refusals) answered += !r.kafka_appends;
  const size_t own = read.refusals.size() - answered;
  std::string s;
  if (answered > 0) {
    s = absl::StrFormat("a broker reads this request and answers %d partition%s with the error "
                        "code%s above, appending the others",
                        answered, answered == 1 ? "" : "s", answered == 1 ? "" : "s");
  }
  if (own > 0) {
    absl::StrAppend(&s, s.empty() ? "" : "; ",
                    absl::StrFormat("kwire refuses %d partition%s that Kafka 4.4 appends (stricter "
                                    "on purpose: codec/records/README.md)",
                                    own, own == 1 ? "" : "s"));
  }
  return s;
}

}  // namespace

std::string RefusalVerdict(const BrokerRead& read, const std::string& prefix,
                           const std::string& summary_note) {
  std::string out;
  for (const Refusal& r : read.refusals) out += prefix + "refused: " + r.ToString() + "\n";
  if (read.refused()) out += prefix + RefusalSummary(read) + summary_note + "\n";
  return out;
}

// What became of one frame of a stream.
enum class FrameVerdict { kRead, kRefused, kFailed };

// The JSON of a broker's refusals (codec/protocol/refusal.h), for --json.
Json RefusalsJson(const std::vector<Refusal>& refusals) {
  Json a = Json::array();
  for (const Refusal& r : refusals) {
    Json j = RefusalJson(r);
    j["detail"] = r.fault.detail;
    j["whole_request"] = r.whole_request;
    j["kafka_appends"] = r.kafka_appends;
    j["source"] = r.source;
    a.push_back(std::move(j));
  }
  return a;
}

// Decodes one frame of the stream; prints its re-encoding and a summary. kRead when it
// decodes and re-encodes to the same bytes, kRefused when it does but a broker refuses
// part of it (each refusal on `err`).
FrameVerdict DecodeOne(const FrameInput& f, Correlator* requests,
                       std::span<const uint8_t> bytes, std::span<const uint8_t> following,
                       const std::string& prefix, bool quiet, std::ostream& out,
                       std::ostream& err) {
  const FrameOptions options = FrameOptionsOf(f);
  absl::StatusOr<std::vector<uint8_t>> again;
  absl::StatusOr<Json> json = Json();
  std::string what;
  std::vector<Refusal> refusals;
  std::string refused_lines;
  if (f.dir == Direction::kRequest) {
    auto read = ReadRequestAsBroker(bytes, options);
    if (!read.ok()) {
      err << "kwire decode: " << prefix << FailureText(f, bytes, 0, 0, read.status()) << "\n";
      PrintHints(f, "decode", prefix, bytes, following, 0, 0, err);
      return FrameVerdict::kFailed;
    }
    // The verdict's lines, printed before anything can fail below (a re-encoding that
    // differs under --quirks is reported, and the refusals with it); even with --quiet:
    // they are the verdict, as errors are.
    refused_lines = RefusalVerdict(*read, prefix);
    refusals = std::move(read->refusals);
    const RequestFrame* frame = &read->frame;
    if (!CheckRequestHeader(f, frame->api_key(), frame->api_version(), err, "decode")) {
      return FrameVerdict::kFailed;
    }
    what = absl::StrFormat("%s v%d, request header v%d", frame->body.spec().name,
                           frame->api_version(), frame->header_version);
    again = EncodeRequestFrame(frame->header, frame->body, EncodeOptions{f.quirks});
    if (f.json) json = RequestFrameToJson(*frame, ToJsonOptions::ForQuirks(f.quirks));
  } else {
    int16_t key = 0, version = 0;
    std::string error, note;
    if (!ResponseApi(f, requests, bytes, key, version, error, note)) {
      err << "kwire decode: " << prefix << error << "\n";
      return FrameVerdict::kFailed;
    }
    auto frame = DecodeResponseFrame(bytes, key, version, options);
    if (!note.empty() && (!quiet || !frame.ok())) err << "kwire decode: " << prefix << note << "\n";
    if (!frame.ok()) {
      err << "kwire decode: " << prefix << FailureText(f, bytes, key, version, frame.status())
          << "\n";
      PrintHints(f, "decode", prefix, bytes, following, key, version, err);
      return FrameVerdict::kFailed;
    }
    what = ApiVersionsFallback(key, version, frame->body_version)
               ? absl::StrFormat("%s v%d (ApiVersions v0 fallback, KIP-511: the request was "
                                 "v%d), response header v%d",
                                 frame->body.spec().name, frame->body_version, version,
                                 frame->header_version)
               : absl::StrFormat("%s v%d, response header v%d", frame->body.spec().name,
                                 version, frame->header_version);
    again = EncodeResponseFrame(frame->header, key, frame->body_version, frame->body,
                                EncodeOptions{f.quirks});
    if (f.json) json = ResponseFrameToJson(*frame, key, version, ToJsonOptions::ForQuirks(f.quirks));
  }
  if (!again.ok()) {
    err << "kwire decode: " << prefix << what
        << " decoded, but re-encoding failed: " << again.status().message() << "\n";
    return FrameVerdict::kFailed;
  }
  if (!json.ok()) {
    err << "kwire decode: " << prefix << what
        << " decoded, but has no JSON form: " << json.status().message() << "\n";
    return FrameVerdict::kFailed;
  }
  if (f.json) {
    (*json)["frame"] = HexString(bytes);
    if (!refusals.empty()) (*json)["refusals"] = RefusalsJson(refusals);
    out << json->dump() << "\n";
  } else {
    out << HexString(*again) << "\n";
  }
  if (!std::equal(again->begin(), again->end(), bytes.begin(), bytes.end())) {
    err << "kwire decode: " << prefix << what
        << absl::StrFormat(
               " decoded, but re-encodes differently (%s): the input is not canonical%s\n",
               DescribeFrameDifference(bytes, *again, "re-encoded"),
               f.quirks != 0 ? " (accepted under --quirks)" : "");
    err << refused_lines;
    return FrameVerdict::kFailed;
  }
  if (!quiet) err << prefix << what << absl::StrFormat(", %d bytes, re-encoding identical\n", bytes.size());
  err << refused_lines;
  return refusals.empty() ? FrameVerdict::kRead : FrameVerdict::kRefused;
}

int Decode(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u) {
  FrameInput f;
  if (int rc = ReadFrameInput(a, in, err, "decode", f, u); rc >= 0) return rc;
  f.json = a.flags.count("json") > 0;
  Correlator requests(kFileRequests);
  Correlator* use = nullptr;
  if (int rc = LoadRequests(a, f, err, "decode", requests, use, u); rc >= 0) return rc;
  std::string split_error;
  const std::vector<StreamFrame> frames = SplitStream(f.bytes, split_error);
  const bool quiet = a.flags.count("quiet") > 0;
  size_t good = 0, refused = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const size_t next = frames[i].at + frames[i].bytes.size();
    const std::span<const uint8_t> following =
        std::span<const uint8_t>(f.bytes).subspan(std::min(next, f.bytes.size()));
    switch (DecodeOne(f, use, frames[i].bytes, following,
                      FramePrefix(frames, i, !split_error.empty()), quiet, out, err)) {
      case FrameVerdict::kRead: ++good; break;
      case FrameVerdict::kRefused: ++good; ++refused; break;
      case FrameVerdict::kFailed: break;
    }
  }
  if (!split_error.empty()) err << "kwire decode: " << split_error << "\n";
  if (frames.size() > 1 && !quiet) {
    err << absl::StrFormat("%d frames, %d decoded and re-encoded identically", frames.size(),
                           good)
        << (refused > 0 ? absl::StrFormat(" (%d of them refused in part by a broker)", refused)
                        : std::string())
        << "\n";
  }
  if (good != frames.size() || !split_error.empty()) return kExitFailure;
  return refused > 0 ? kExitRefused : kExitOk;
}

// The JSON objects of `text`: the whole text when it is one JSON value, else one per
// non-blank line (JSON Lines). Each with its 1-based line number.
struct JsonInput {
  size_t line;
  std::string text;
};
std::vector<JsonInput> SplitJsonInput(const std::string& text) {
  if (Json::accept(text)) return {{1, text}};
  std::vector<JsonInput> out;
  size_t line = 1, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string piece = text.substr(start, end - start);
    if (piece.find_first_not_of(" \t\r") != std::string::npos) out.push_back({line, piece});
    ++line;
    start = end + 1;
  }
  return out;
}

int Encode(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u) {
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  const bool binary = a.flags.count("binary") > 0;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<JsonInput> inputs = SplitJsonInput(text);
  if (inputs.empty()) {
    err << "kwire encode: no input: expected JSON objects on stdin (kwire encode --help)\n";
    return kExitFailure;
  }
  size_t good = 0;
  for (const JsonInput& input : inputs) {
    absl::StatusOr<std::vector<uint8_t>> frame;
    try {
      frame = FrameFromJson(Json::parse(input.text));
    } catch (const Json::parse_error& e) {
      // e.g. "[json.exception.parse_error.101] parse error at line 1, column 40: syntax
      // error while parsing value - invalid string: ...": keep from "parse error".
      const std::string what = e.what();
      const size_t at = what.find("parse error");
      frame = absl::InvalidArgumentError(
          "not valid JSON: " + (at == std::string::npos ? what : what.substr(at)));
    }
    if (!frame.ok()) {
      err << "kwire encode: line " << input.line << ": " << frame.status().message() << "\n";
      continue;
    }
    if (binary) {
      out.write(reinterpret_cast<const char*>(frame->data()),
                static_cast<std::streamsize>(frame->size()));
    } else {
      out << HexString(*frame) << "\n";
    }
    ++good;
  }
  return good == inputs.size() ? kExitOk : kExitFailure;
}

// Writes `text` to the file `path` ("-": to `out`); false, with a message, when it cannot.
bool WriteText(const std::string& path, const std::string& text, std::ostream& out,
               std::ostream& err, const char* cmd) {
  if (path == "-") {
    out << text;
    return true;
  }
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  o << text;
  o.close();
  if (!o) err << "kwire " << cmd << ": cannot write " << path << "\n";
  return static_cast<bool>(o);
}

}  // namespace kwire::cli::internal
