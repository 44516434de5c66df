// kwire error vocabulary.
//
// Every failure the codec can report is one `ErrorKind`, recorded together with the
// absolute byte offset where it was detected and the field path being decoded or
// encoded (e.g. `FetchRequest.Topics[0].Partitions[2].FetchOffset`). At the public
// boundary an `Error` becomes an `absl::Status` (Error::ToStatus, the only place one is
// made) whose message reads like
//   truncated at byte 17 in FetchRequest.Topics[0].FetchOffset (need 8, have 3)
// and which carries the Error itself as a payload: ErrorFromStatus gives it back, so a
// program branches on the kind, offset and path without parsing the message.
//
// Every kind has one name, its enumerator in snake_case (kCountTooLarge is
// "count_too_large"): in messages, in the payload, on the CLI, in the conformance vectors
// and in every testee's answers (conformance/FORMAT.md, "Error kinds of negative vectors").
//
// Kafka's own int16 error codes (ErrorCode fields in responses) are data, not decode
// failures, and never use this type.
#ifndef KWIRE_CODEC_WIRE_ERROR_H_
#define KWIRE_CODEC_WIRE_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kwire {

/// What went wrong. Stable names; the numeric values are not part of the API.
enum class ErrorKind : uint8_t {
  kOk = 0,               ///< No error.
  kTruncated,            ///< Input ended inside a value (detail: bytes needed vs left).
  kVarintTooLong,        ///< uvarint/varint longer than 5 bytes, varlong longer than 10.
  kVarintOverflow,       ///< Last varint byte sets bits beyond 32 (uvarint/varint) or 64 bits.
  kVarintNonCanonical,   ///< Overlong varint (ends in a zero continuation group); strict mode.
  kInvalidBool,          ///< Bool byte other than 0 or 1; strict mode.
  /// A STRING / COMPACT_STRING value (or record header key) that is not well-formed
  /// UTF-8 (RFC 3629), at its first bad byte; strict mode (kQuirkInvalidUtf8 accepts it).
  /// Encode: a string that is not UTF-8 unless EncodeOptions allow kQuirkInvalidUtf8.
  kInvalidUtf8,
  kInvalidLength,        ///< Negative length other than −1, or a length the type cannot hold.
  kUnexpectedNull,       ///< Null (−1 / compact 0 / marker −1) in a non-nullable field.
  kCountTooLarge,        ///< Array count exceeds bytes left / minimum element size.
  /// Tagged field numbers not strictly ascending; strict mode. Encode: unknown tags
  /// (UnknownTaggedFields) out of order.
  kTagOutOfOrder,
  /// The same tag twice in one tagged-field section; strict mode. Encode: an unknown tag
  /// repeated, or numbered like a known tagged field of the version (present or not).
  kTagDuplicate,
  kTagSizeMismatch,      ///< A known tag's payload used fewer or more bytes than declared.
  kInvalidValue,         ///< A value outside its domain (e.g. struct presence marker not ±1).
  kTrailingBytes,        ///< Bytes left over after a complete message or frame.
  kUnknownApiKey,        ///< API key not in the registry.
  kUnsupportedVersion,   ///< Version outside the API's valid versions.
  kInvalidFrameSize,     ///< Frame size prefix negative.
  kFrameTooLarge,        ///< Frame size prefix above the configured maximum.
  kStringTooLong,        ///< Encode: string/bytes/array too long for its length prefix.
  kNonDefaultField,      ///< Encode: a field absent in the target version holds a non-default value.
  kNullNotAllowed,       ///< Encode: null value in a version where the field is not nullable.
  kCorruptRecords,       ///< RecordBatch framing inconsistent (magic, lengths, counts).
  kCrcMismatch,          ///< RecordBatch / message CRC does not match its bytes.
  kCompressionError,     ///< Decompression failed, or output would exceed the cap.
  /// Record batches sound in themselves but not allowed in their field at this version
  /// (its RecordsPolicy: e.g. a Produce v3+ partition with two batches, or zstd in
  /// Produce v3–6; codec/records/validate.h).
  kRecordsNotAllowed,
  /// Decoding would allocate more memory than DecodeOptions::max_alloc_bytes allows for
  /// one message or frame (detail: bytes wanted vs budget left). Charged where the
  /// decoder sizes an array, copies a string, bytes or records value, or keeps an
  /// unknown tag, before it allocates; records validation runs within what is left.
  kAllocationBudget,
};

/// The one stable name of an ErrorKind: its enumerator without the `k`, in snake_case
/// ("truncated", "count_too_large", "varint_non_canonical", "invalid_utf8"); "ok" for
/// kOk and "unknown_error" for a value outside the enum. The same names are the
/// conformance format's error kinds (conformance/FORMAT.md).
const char* ErrorKindName(ErrorKind kind);

/// The ErrorKind named `name` (as ErrorKindName spells it, kOk included), or
/// std::nullopt for any other text. Exact match: no case folding, no spaces.
std::optional<ErrorKind> ErrorKindFromName(absl::string_view name);

/// The absl::StatusCode an ErrorKind maps to at the public boundary.
/// Decode failures are kInvalidArgument (kDataLoss for CRC), unknown API / version
/// kUnimplemented, size limits kResourceExhausted, encode failures kFailedPrecondition;
/// kInvalidUtf8 is kInvalidArgument on both sides (the string is the caller's argument).
absl::StatusCode ErrorKindStatusCode(ErrorKind kind);

/// One recorded failure: kind, absolute byte offset, field path and detail text
/// (e.g. "need 8, have 3"). `path` may be empty when no field is being processed.
/// [[nodiscard]]: a function that returns an Error reports a failure that must be looked
/// at (as absl::Status is); `(void)` says a caller drops one on purpose.
struct [[nodiscard]] Error {
  ErrorKind kind = ErrorKind::kOk;
  size_t offset = 0;
  std::string path;
  std::string detail;

  bool ok() const { return kind == ErrorKind::kOk; }
  /// "truncated at byte 17 in Foo.Bar (need 8, have 3)": the kind's name, the offset,
  /// then " in <path>" and " (<detail>)" when they are not empty.
  std::string ToString() const;
  /// OkStatus() for kOk, else a Status with ErrorKindStatusCode(kind), ToString() as its
  /// message, and this Error as the payload kErrorPayloadTypeUrl (see ErrorFromStatus).
  [[nodiscard]] absl::Status ToStatus() const;

  bool operator==(const Error&) const = default;
};

/// Type URL under which Error::ToStatus attaches the Error to a Status
/// (absl::Status::GetPayload). The payload is one line of text, so that a logged Status
/// (operator<<, Status::ToString) stays readable:
///   kind=count_too_large offset=46 path=MetadataResponse.Topics[0].Partitions detail=...
/// `kind` is ErrorKindName (never "ok"); `offset` decimal digits; `path` the path with
/// '%', space and bytes below 0x20 or above 0x7e written as %XX (upper-case hex; field
/// paths need none); `detail` the rest of the payload, verbatim (it may be empty).
/// ErrorFromStatus reads exactly this shape.
inline constexpr absl::string_view kErrorPayloadTypeUrl = "type.kwire.dev/kwire.Error";

/// The Error behind a Status returned by kwire: every failing Status from the codec's
/// public calls (frame decode/encode, message decode/encode, record batch decode/encode,
/// explain; and SplitResult::error.ToStatus()) carries one.
///   kind    what went wrong (never kOk in a returned value)
///   offset  absolute byte offset where it was detected: from the first byte of the
///           frame (size prefix included) for frame calls, of the message for
///           DecodeMessage/EncodeMessage, of the record set for DecodeRecordSet; for
///           encode, the output position
///   path    field path, e.g. "FetchResponse.Responses[0].Partitions[0].Records"
///           (may be empty); detail: free text such as "need 8, have 3" (may be empty)
/// Returns std::nullopt for an ok Status and for a Status without a well-formed kwire
/// payload (not made by Error::ToStatus). Round trip: for every Error `e` with
/// e.kind != kOk, ErrorFromStatus(e.ToStatus()) == e, and the Status's code is
/// ErrorKindStatusCode(e.kind). The status code is not checked here, so a caller that
/// copies the payload onto a Status of its own still gets the Error back.
///
///   auto frame = kwire::DecodeRequestFrame(bytes);
///   if (!frame.ok()) {
///     if (auto e = kwire::ErrorFromStatus(frame.status());
///         e && e->kind == kwire::ErrorKind::kTruncated) { /* read e->offset ... */ }
///   }
std::optional<Error> ErrorFromStatus(const absl::Status& status);

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_ERROR_H_
