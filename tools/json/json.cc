#include "tools/json/json.h"

#include <algorithm>

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/generated/request_header.h"
#include "codec/generated/response_header.h"
#include "codec/protocol/registry.h"

namespace kwire {
namespace {

using json_internal::Context;
using json_internal::FindJsonOps;
using json_internal::JsonOps;

const JsonOps& OpsOf(const MessageSpec& spec) {
  const JsonOps* ops = FindJsonOps(&spec);
  // Every generated request, response and header type is in the table (gen_ops_table.py).
  if (ops == nullptr) __builtin_trap();
  return *ops;
}

absl::StatusOr<Json> ToJson(const MessageSpec& spec, const void* m, int16_t version,
                            std::string_view where, const ToJsonOptions& options) {
  Context c{VersionRule::Of(spec, version), std::string(where), {}};
  c.java_strings = options.java_strings;
  Json j = OpsOf(spec).to_json(c, m);
  if (!c.ok()) return absl::InvalidArgumentError(c.error);
  return j;
}

absl::Status FromJson(const Json& j, const MessageSpec& spec, void* m, int16_t version,
                      std::string_view where) {
  Context c{VersionRule::Of(spec, version), std::string(where), {}};
  OpsOf(spec).from_json(c, j, m);
  if (!c.ok()) return absl::InvalidArgumentError(c.error);
  return absl::OkStatus();
}

Json FrameObject(const ApiInfo* api, int16_t api_key, int16_t version, Direction d,
                 int16_t header_version, Json header, Json body) {
  Json j = Json::object();
  j["api_key"] = api_key;
  j["api_name"] = api != nullptr ? api->name : "";
  j["version"] = version;
  j["direction"] = DirectionName(d);
  j["header_version"] = header_version;
  j["header"] = std::move(header);
  j["body"] = std::move(body);
  return j;
}

// `j[name]` as an int16 number; fails naming the member.
absl::StatusOr<int16_t> Int16Member(const Json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return absl::InvalidArgumentError(absl::StrCat("missing member \"", name, "\""));
  Context c{{0, false}, name, {}};
  int16_t v = 0;
  json_internal::FromJson(c, *it, v);
  if (!c.ok()) return absl::InvalidArgumentError(c.error);
  return v;
}

}  // namespace

absl::StatusOr<Json> MessageToJson(const AnyMessage& m, int16_t version,
                                   const ToJsonOptions& options) {
  return ToJson(m.spec(), m.raw(), version, "", options);
}

absl::Status MessageFromJson(const Json& j, int16_t version, AnyMessage* m) {
  return FromJson(j, m->spec(), m->raw(), version, "");
}

absl::StatusOr<Json> RequestFrameToJson(const RequestFrame& frame, const ToJsonOptions& options) {
  absl::StatusOr<Json> header = ToJson(RequestHeader::kMessage, &frame.header,
                                       frame.header_version, "header", options);
  if (!header.ok()) return header.status();
  absl::StatusOr<Json> body = ToJson(frame.body.spec(), frame.body.raw(), frame.api_version(),
                                     "body", options);
  if (!body.ok()) return body.status();
  return FrameObject(FindApi(frame.api_key()), frame.api_key(), frame.api_version(),
                     Direction::kRequest, frame.header_version, *std::move(header),
                     *std::move(body));
}

absl::StatusOr<Json> ResponseFrameToJson(const ResponseFrame& frame, int16_t api_key,
                                         int16_t api_version, const ToJsonOptions& options) {
  absl::StatusOr<Json> header = ToJson(ResponseHeader::kMessage, &frame.header,
                                       frame.header_version, "header", options);
  if (!header.ok()) return header.status();
  // The body at the version it was read at (KIP-511's ApiVersions v0 fallback: 0, said by
  // "body_version"), so that the object encodes back to the same bytes.
  absl::StatusOr<Json> body =
      ToJson(frame.body.spec(), frame.body.raw(), frame.body_version, "body", options);
  if (!body.ok()) return body.status();
  Json j = FrameObject(FindApi(api_key), api_key, api_version, Direction::kResponse,
                       frame.header_version, *std::move(header), *std::move(body));
  if (ApiVersionsFallback(api_key, api_version, frame.body_version)) {
    j["body_version"] = frame.body_version;
  }
  return j;
}

absl::StatusOr<std::vector<uint8_t>> FrameFromJson(const Json& j, const EncodeOptions& options) {
  if (!j.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  absl::StatusOr<int16_t> api_key = Int16Member(j, "api_key");
  if (!api_key.ok()) return api_key.status();
  absl::StatusOr<int16_t> version = Int16Member(j, "version");
  if (!version.ok()) return version.status();
  auto dir_it = j.find("direction");
  if (dir_it == j.end() || !dir_it->is_string() ||
      (*dir_it != "request" && *dir_it != "response")) {
    return absl::InvalidArgumentError("member \"direction\" must be \"request\" or \"response\"");
  }
  const Direction d = *dir_it == "request" ? Direction::kRequest : Direction::kResponse;
  const ApiInfo* api = FindApi(*api_key);
  if (api == nullptr) {
    return absl::UnimplementedError(absl::StrCat("unknown API key ", *api_key));
  }
  if (auto it = j.find("api_name"); it != j.end()) {
    if (!it->is_string() || !absl::EqualsIgnoreCase(it->get<std::string>(), api->name)) {
      return absl::InvalidArgumentError(absl::StrCat("api_name ", it->dump(), " but API key ",
                                                     *api_key, " is ", api->name));
    }
  }
  const MessageOps& ops = api->ops(d);
  if (!ops.spec->valid.Contains(*version)) {
    return absl::UnimplementedError(absl::StrCat(ops.spec->name, " has no version ", *version));
  }
  const int16_t header_version = d == Direction::kRequest
                                     ? RequestHeaderVersion(*api_key, *version)
                                     : ResponseHeaderVersion(*api_key, *version);
  if (j.contains("header_version")) {
    absl::StatusOr<int16_t> hv = Int16Member(j, "header_version");
    if (!hv.ok()) return hv.status();
    if (*hv != header_version) {
      return absl::InvalidArgumentError(absl::StrCat(
          "header_version ", *hv, " but ", ops.spec->name, " v", *version, " uses header v",
          header_version));
    }
  }
  auto header_it = j.find("header");
  auto body_it = j.find("body");
  if (header_it == j.end() || body_it == j.end()) {
    return absl::InvalidArgumentError("missing member \"header\" or \"body\"");
  }
  // "body_version": an ApiVersions response body that a broker sent at v0 for a request
  // of a later version (KIP-511's fallback); the only body version other than "version".
  int16_t body_version = *version;
  if (j.contains("body_version")) {
    absl::StatusOr<int16_t> bv = Int16Member(j, "body_version");
    if (!bv.ok()) return bv.status();
    if (*bv != *version && !(d == Direction::kResponse && ApiVersionsFallback(*api_key, *version, *bv))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "body_version ", *bv, " with version ", *version,
          ": only an ApiVersions response to a request above v0 has another body version, 0 "
          "(KIP-511)"));
    }
    body_version = *bv;
  }
  AnyMessage body(ops);
  if (absl::Status s = FromJson(*body_it, *ops.spec, body.raw(), body_version, "body");
      !s.ok()) {
    return s;
  }
  if (d == Direction::kRequest) {
    RequestHeader header;
    header.request_api_key = *api_key;
    header.request_api_version = *version;
    if (absl::Status s = FromJson(*header_it, RequestHeader::kMessage, &header, header_version,
                                  "header");
        !s.ok()) {
      return s;
    }
    if (header.request_api_key != *api_key || header.request_api_version != *version) {
      return absl::InvalidArgumentError(absl::StrCat(
          "header names API key ", header.request_api_key, " v", header.request_api_version,
          " but the frame is API key ", *api_key, " v", *version));
    }
    return EncodeRequestFrame(header, body, options);
  }
  ResponseHeader header;
  if (absl::Status s = FromJson(*header_it, ResponseHeader::kMessage, &header, header_version,
                                "header");
      !s.ok()) {
    return s;
  }
  return EncodeResponseFrame(header, *api_key, body_version, body, options);
}

Json RefusalJson(const Refusal& r) {
  Json j = {{"part", r.part},
            {"error_code", r.error_code},
            {"error", r.error_name},
            {"kind", ErrorKindName(r.fault.kind)},
            {"offset", r.fault.offset},
            {"path", r.fault.path}};
  if (r.whole_request) j["whole_request"] = true;
  return j;
}

}  // namespace kwire
