// Kafka messages and frames as JSON: the language-neutral mapping of the conformance
// suite (conformance/FORMAT.md, format 1), used by `kwire decode --json`,
// `kwire encode` and conformance testees.
//
// Mapping in short: one member per field that exists at the version, named as in
// Apache Kafka's message definitions, in definition order; int8/16/32 and uint16 as
// numbers, int64 as a decimal string (numbers accepted on input), float64 as a number
// or "Infinity"/"-Infinity"/"NaN"/"NaN:0x<16 hex digits>", uuid as 32 hex digits,
// bytes and records as hex, null for null; known tagged fields only when present;
// unknown tags as "_unknownTaggedFields": [{"tag": N, "data": hex}].
//
// Every call is safe from many threads at once on distinct arguments.
#ifndef KWIRE_TOOLS_JSON_JSON_H_
#define KWIRE_TOOLS_JSON_JSON_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/schema/message.h"
#include "tools/json/message_json.h"

namespace kwire {

/// How the values a strict decode never yields are written.
struct ToJsonOptions {
  /// A string that is not UTF-8 (kept by kQuirkInvalidUtf8) is written as Java reads it,
  /// each ill-formed sequence as U+FFFD (JavaStringOf), instead of failing: the value
  /// Apache Kafka's Readable.readString returns, so that `--quirks java` shows what Java
  /// reads. The JSON then no longer encodes back to the frame's bytes.
  bool java_strings = false;

  /// The options that show what a decode under `quirks` (DecodeOptions::quirks) read:
  /// java_strings when kQuirkInvalidUtf8 kept strings that are not UTF-8.
  static ToJsonOptions ForQuirks(uint32_t quirks) {
    ToJsonOptions o;
    o.java_strings = (quirks & kQuirkInvalidUtf8) != 0;
    return o;
  }
};

/// `m` (a body or header) at `version` as a JSON object. Fails (kInvalidArgument)
/// only when a string is not UTF-8, which a strict decode never yields (only
/// DecodeOptions::quirks with kQuirkInvalidUtf8 keeps such bytes), unless
/// `options.java_strings`; the error names it.
absl::StatusOr<Json> MessageToJson(const AnyMessage& m, int16_t version,
                                   const ToJsonOptions& options = {});

/// Reads the JSON object `j` into `*m` at `version` (m's type is the caller's choice,
/// e.g. AnyMessage(*api->request)). A member missing for a field that exists at the
/// version leaves the field's default. Fails with kInvalidArgument, naming the JSON
/// path (e.g. "Topics[0].Partitions: expected an array"), on a member that is not a
/// field at this version, a value of the wrong JSON type or out of its Kafka type's
/// range, null where the field is not nullable at this version, malformed hex / uuid /
/// int64 text, or unknown tags that are not ascending or name a known tag.
absl::Status MessageFromJson(const Json& j, int16_t version, AnyMessage* m);

/// A decoded request frame as the object of a vector record (FORMAT.md), without
/// `frame`: {"api_key", "api_name", "version", "direction": "request",
/// "header_version", "header", "body"}.
absl::StatusOr<Json> RequestFrameToJson(const RequestFrame& frame,
                                        const ToJsonOptions& options = {});

/// A decoded response frame of (api_key, api_version), as RequestFrameToJson. An
/// ApiVersions response read as the KIP-511 v0 fallback adds `"body_version": 0`, the
/// version of its body (conformance/FORMAT.md); FrameFromJson encodes the body at it.
absl::StatusOr<Json> ResponseFrameToJson(const ResponseFrame& frame, int16_t api_key,
                                         int16_t api_version,
                                         const ToJsonOptions& options = {});

/// Encodes the frame described by `j`, an object with "api_key" (number), "version",
/// "direction" ("request"/"response"), "header" and "body"; "api_name" and
/// "header_version" are optional and, when given, must agree with the registry (the
/// request header's RequestApiKey / RequestApiVersion likewise; when missing they are
/// taken from "api_key" / "version"); "body_version" is optional: 0 for an ApiVersions
/// response to a request above v0 (KIP-511), whose body is then encoded at v0, and
/// otherwise must equal "version". Other members (id, set, frame, expect, ...) are
/// ignored, so a vector record encodes as it is. Errors: kInvalidArgument for what
/// MessageFromJson refuses or a missing/contradictory member, kUnimplemented for an
/// unknown API key or version, and the encoder's own errors (codec/protocol/frame.h).
absl::StatusOr<std::vector<uint8_t>> FrameFromJson(const Json& j,
                                                   const EncodeOptions& options = {});

/// A broker's refusal (codec/protocol/refusal.h) as the vectors' and the testee protocol's
/// `refusals` carry it (conformance/FORMAT.md): {"part", "error_code", "error", "kind",
/// "offset", "path"}, and "whole_request": true when it is.
Json RefusalJson(const Refusal& r);

}  // namespace kwire

#endif  // KWIRE_TOOLS_JSON_JSON_H_
