// The frame commands' shared input (decode, explain): <request|response> --api --version,
// a frame or a vector from stdin, streams of frames, --requests correlation, hints.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/harness/diagnose.h"
#include "codec/harness/explain.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "codec/wire/plural.h"
#include "tools/json/json.h"

namespace kwire::cli::internal {

// Parses <request|response> --api --version --quirks (false: usage error in `u`).
bool ParseFrameArgs(const Args& a, FrameInput& f, Usage& u) {
  if (a.positional.empty()) return u.Fail("expected 'request' or 'response'");
  if (!RequireNoPositional(a, 1, u) || !ResolveDirection(a.positional[0], f.dir, u)) {
    return false;
  }
  if (auto api = a.Get("api"); api && !ResolveApi(*api, f.api, u)) return false;
  if (auto v = a.Get("version"); v && *v == "auto") {
    if (f.dir == Direction::kRequest) {
      return u.Fail("--version auto is for responses (a request's header names its version)");
    }
    if (f.api == nullptr) return u.Fail("--version auto needs --api");
    f.version_auto = true;
  } else if (v) {
    int16_t version = 0;
    if (f.api == nullptr) {
      auto n = ParseNumber(*v);
      if (!n || *n < INT16_MIN || *n > INT16_MAX) return u.Fail("bad --version '" + *v + "'");
      version = static_cast<int16_t>(*n);
    } else if (!ResolveVersion(*f.api, f.dir, *v, version, u)) {
      return false;
    }
    f.version = version;
  }
  if (f.dir == Direction::kResponse && (f.api == nullptr || (!f.version && !f.version_auto)) &&
      !a.Get("requests")) {
    return u.Fail(
        "a response needs --api and --version, or --requests (its header does not name them)");
  }
  if (a.Get("requests") && (f.api != nullptr || f.version || f.version_auto)) {
    return u.Fail("--requests and --api/--version exclude each other");
  }
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, f.quirks, u)) return false;
  return ResolveRecords(a, f.records, u);
}

// Parses the arguments and reads stdin. Returns an exit status to stop with, or -1.
// --vector FILE:LINE: the frame of one conformance vector (conformance/FORMAT.md), with
// its direction, API and version, instead of stdin and <request|response> --api --version
// (what `kwire conformance --testee` prints beside a failure). Returns an exit status to
// stop with, or -1.
int ReadVectorInput(const Args& a, const std::string& spec, std::ostream& err, const char* cmd,
                    FrameInput& f, Usage& u) {
  if (!a.positional.empty() || a.Get("api") || a.Get("version") || a.Get("requests")) {
    u.Fail("--vector names the direction, API and version: give none of them");
    return kExitUsage;
  }
  const size_t colon = spec.rfind(':');
  const std::optional<long> line =
      colon == std::string::npos ? std::nullopt : ParseNumber(spec.substr(colon + 1));
  if (!line || *line < 1) {
    u.Fail("--vector takes FILE:LINE (a line of a conformance/vectors/*.jsonl file)");
    return kExitUsage;
  }
  const std::string file = spec.substr(0, colon);
  std::ifstream in(file);
  std::string text;
  for (long i = 0; i < *line && std::getline(in, text);) ++i;
  Json record = Json::parse(text, nullptr, false);
  if (!in || record.is_discarded() || !record.is_object() || !record.contains("frame") ||
      !record["frame"].is_string()) {
    err << "kwire " << cmd << ": " << spec << ": not a vector line with a \"frame\"\n";
    return kExitFailure;
  }
  f.dir = record.value("direction", std::string()) == "response" ? Direction::kResponse
                                                                   : Direction::kRequest;
  f.api = FindApi(static_cast<int16_t>(record.value("api_key", -1)));
  if (f.api != nullptr) f.version = static_cast<int16_t>(record.value("version", 0));
  const std::string hex = record["frame"].get<std::string>();
  if (!ParseHex(hex, f.bytes)) {
    err << "kwire " << cmd << ": " << spec << ": the frame is not hex\n";
    return kExitFailure;
  }
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, f.quirks, u)) return kExitUsage;
  if (!ResolveRecords(a, f.records, u)) return kExitUsage;
  err << "kwire " << cmd << ": " << record.value("id", spec)
      << (record.contains("mutation") ? " (" + record["mutation"].get<std::string>() + ")" : "")
      << "\n";
  return -1;
}

int ReadFrameInput(const Args& a, std::istream& in, std::ostream& err, const char* cmd,
                   FrameInput& f, Usage& u) {
  if (auto vector = a.Get("vector")) return ReadVectorInput(a, *vector, err, cmd, f, u);
  if (!ParseFrameArgs(a, f, u)) return kExitUsage;
  std::string error;
  if (!ReadInput(in, a.flags.count("binary") > 0, f.bytes, error)) {
    err << "kwire " << cmd << ": " << error << "\n";
    return kExitFailure;
  }
  return -1;
}

// For requests: checks that the header agrees with --api / --version.
bool CheckRequestHeader(const FrameInput& f, int16_t key, int16_t version, std::ostream& err,
                        const char* cmd) {
  if ((f.api != nullptr && f.api->api_key != key) || (f.version && *f.version != version)) {
    const ApiInfo* actual = FindApi(key);
    err << "kwire " << cmd << ": "
        << absl::StrFormat("the frame is %s v%d (api key %d), but --api/--version say %s v%d\n",
                           actual ? actual->name : "?", version, key,
                           f.api ? f.api->name : (actual ? actual->name : "?"),
                           f.version.value_or(version));
    return false;
  }
  return true;
}

// ---- Streams of frames.

// Splits `in` into size-prefixed frames (SplitFrame). When the first frame is not whole
// (size prefix cut, negative, too large or past the input), the whole input is the one
// "frame", so that the decoder reports the fault precisely. When a later one is not,
// `error` says why and `frames` holds the whole ones before it.
std::vector<StreamFrame> SplitStream(std::span<const uint8_t> in, std::string& error) {
  std::vector<StreamFrame> frames;
  size_t pos = 0;
  while (pos < in.size()) {
    const SplitResult r = SplitFrame(in.subspan(pos));
    if (r.status == SplitResult::kFrame) {
      frames.push_back({pos, r.frame});
      pos += r.frame.size();
      continue;
    }
    if (frames.empty()) {
      frames.push_back({0, in});
    } else if (r.status == SplitResult::kNeedMore) {
      error = absl::StrFormat("the stream ends inside frame %d: %s from byte %d, %d more %s",
                              frames.size() + 1, CountOf(in.size() - pos, "byte"), pos, r.need,
                              r.need == 1 ? "is needed" : "are needed");
    } else {
      // No frame starts here (a size prefix that cannot be one): the stream cannot be
      // split any further, whatever an earlier frame's size should have been.
      error = absl::StrFormat("after frame %d, no frame starts at byte %d of the stream: %s",
                              frames.size(), pos, r.error.ToString());
    }
    break;
  }
  return frames;
}

// "frame 2 at byte 140: " for streams of several frames (or of one and a rest that does
// not split), "" for one.
std::string FramePrefix(const std::vector<StreamFrame>& frames, size_t i, bool split_error) {
  return frames.size() > 1 || split_error
             ? absl::StrFormat("frame %d at byte %d: ", i + 1, frames[i].at)
             : "";
}

// What each response of a stream answers, from the requests in --requests FILE: how
// `kwire decode/explain response` types them (codec/protocol/correlator.h, by correlation
// id in any order; a response settles its request).
bool ReadRequests(const std::string& file, bool binary, Correlator& requests,
                  std::string& error) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    error = "cannot read --requests file " + file;
    return false;
  }
  std::vector<uint8_t> bytes;
  if (!ReadInput(in, binary, bytes, error)) {
    error = file + ": " + error;
    return false;
  }
  std::string split_error;
  const std::vector<StreamFrame> frames = SplitStream(bytes, split_error);
  if (!split_error.empty()) {
    error = absl::StrFormat("%s: %s", file, split_error);
    return false;
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    if (absl::Status added = requests.AddRequestFrame(frames[i].bytes); !added.ok()) {
      error = absl::StrFormat("%s: request frame %d: %s", file, i + 1, added.message());
      return false;
    }
  }
  return true;
}

// The FrameOptions of the frame commands' --quirks and --records.
FrameOptions FrameOptionsOf(const FrameInput& f) {
  FrameOptions options;
  options.quirks = f.quirks;
  options.records_mode = f.records;
  return options;
}

// --version auto: the newest response version of `key` at which `bytes` decodes cleanly;
// when none does, the one that reads furthest (its error is then the frame's). `note`
// says which versions decode ("--version auto: ...").
int16_t AutoResponseVersion(const FrameInput& f, int16_t key, std::span<const uint8_t> bytes,
                            std::string& note) {
  const FrameOptions options = FrameOptionsOf(f);
  const ApiInfo& api = *FindApi(key);
  const std::vector<int16_t> good = ResponseVersionsThatDecode(bytes, key, options);
  if (!good.empty()) {
    std::vector<std::string> names;
    for (int16_t v : good) names.push_back(absl::StrFormat("v%d", v));
    note = absl::StrFormat("--version auto: %sResponse %s %s; read as v%d", api.name,
                           good.size() == 1 ? "decodes at" : "decodes at each of",
                           absl::StrJoin(names, ", "), good.back());
    return good.back();
  }
  const VersionRange valid = api.response_versions();
  int16_t best = valid.hi;
  size_t furthest = 0;
  for (int v = valid.hi; v >= valid.lo; --v) {
    const auto r = DecodeResponseFrame(bytes, key, static_cast<int16_t>(v), options);
    const std::optional<Error> e = ErrorFromStatus(r.status());
    if (e && e->offset > furthest) {
      furthest = e->offset;
      best = static_cast<int16_t>(v);
    }
  }
  note = absl::StrFormat("--version auto: no version of %sResponse (v%d-v%d) decodes this "
                         "frame; v%d reads furthest",
                         api.name, valid.lo, valid.hi, best);
  return best;
}

// For responses: the (api, version) of frame `bytes`, from --api/--version (or --version
// auto: `note` says what it chose) or the --requests correlator.
bool ResponseApi(const FrameInput& f, Correlator* requests, std::span<const uint8_t> bytes,
                 int16_t& key, int16_t& version, std::string& error, std::string& note) {
  if (requests == nullptr) {
    key = f.api->api_key;
    version = f.version_auto ? AutoResponseVersion(f, key, bytes, note) : *f.version;
    return true;
  }
  absl::StatusOr<Correlator::Match> match = requests->TakeResponseFrame(bytes);
  if (!match.ok()) {
    error = match.status().code() == absl::StatusCode::kNotFound
                ? absl::StrFormat("no request with correlation id %d in --requests (or one "
                                  "answered by an earlier response)",
                                  *PeekResponseCorrelationId(bytes))
                : std::string(match.status().message());
    return false;
  }
  key = match->request.api_key;
  version = match->request.api_version;
  return true;
}

// The error of a frame that failed to decode with `status`, as printed: with the count of
// the array element it failed in (diagnose.h's ErrorInContext, from the frame's
// explanation).
std::string FailureText(const FrameInput& f, std::span<const uint8_t> bytes, int16_t key,
                        int16_t version, const absl::Status& status) {
  PrintOptions po;
  po.decode.quirks = f.quirks;
  po.records_mode = f.records;
  const FrameExplanation ex = f.dir == Direction::kRequest
                                  ? ExplainRequestFrame(bytes, po)
                                  : ExplainResponseFrame(bytes, key, version, po);
  if (ex.status != status) return std::string(status.message());
  return ErrorInContext(ex).ToString();
}

// After a frame failed: the hints of codec/harness/diagnose.h on `err`, one line each
// ("kwire decode: hint: ..."). `following`: the stream after the frame.
std::vector<std::string> HintTexts(const FrameInput& f, std::span<const uint8_t> bytes,
                                   std::span<const uint8_t> following, int16_t key,
                                   int16_t version) {
  DiagnoseOptions d;
  d.following = following;
  const FrameOptions options = FrameOptionsOf(f);
  const std::vector<DecodeHint> hints =
      f.dir == Direction::kRequest ? DiagnoseRequestFrame(bytes, options, d)
                                   : DiagnoseResponseFrame(bytes, key, version, options, d);
  std::vector<std::string> out;
  for (const DecodeHint& h : hints) {
    std::string text = h.text;
    if (h.kind == DecodeHint::Kind::kVersion && f.dir == Direction::kResponse &&
        !f.version_auto && f.api != nullptr) {
      text += " (--version auto reads it so)";
    }
    out.push_back(std::move(text));
  }
  return out;
}

void PrintHints(const FrameInput& f, const char* cmd, const std::string& prefix,
                std::span<const uint8_t> bytes, std::span<const uint8_t> following,
                int16_t key, int16_t version, std::ostream& err) {
  for (const std::string& text : HintTexts(f, bytes, following, key, version)) {
    err << "kwire " << cmd << ": " << prefix << "hint: " << text << "\n";
  }
}

// Reads --requests (if given) into `requests` (`use` points at it then, else null).
// Returns an exit status to stop with, or -1.
int LoadRequests(const Args& a, const FrameInput& f, std::ostream& err, const char* cmd,
                 Correlator& requests, Correlator*& use, Usage& u) {
  use = nullptr;
  auto file = a.Get("requests");
  if (!file) return -1;
  if (f.dir != Direction::kResponse) {
    u.Fail("--requests is for responses");
    return kExitUsage;
  }
  std::string error;
  if (!ReadRequests(*file, a.flags.count("binary") > 0, requests, error)) {
    err << "kwire " << cmd << ": " << error << "\n";
    return kExitFailure;
  }
  use = &requests;
  return -1;
}

// The line after a refused request's refusals: what the broker does with the request.

}  // namespace kwire::cli::internal
