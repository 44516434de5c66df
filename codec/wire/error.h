// kwire error vocabulary.
//
// Every failure the codec can report is one `ErrorKind`, recorded together with the
// absolute byte offset where it was detected and the field path being decoded or
// encoded (e.g. `FetchRequest.Topics[0].Partitions[2].FetchOffset`). At the public
// boundary an `Error` becomes an `absl::Status` whose message reads like
//   truncated at byte 17 in FetchRequest.Topics[0].FetchOffset (need 8, have 3)
//
// Kafka's own int16 error codes (ErrorCode fields in responses) are data, not decode
// failures, and never use this type.
#ifndef KWIRE_CODEC_WIRE_ERROR_H_
#define KWIRE_CODEC_WIRE_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"

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
  kTagOutOfOrder,        ///< Tagged field numbers not strictly ascending; strict mode.
  kTagDuplicate,         ///< The same tag twice in one tagged-field section; strict mode.
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
  kNestingTooDeep,       ///< Structure nesting beyond the decoder's fixed depth limit.
  kCorruptRecords,       ///< RecordBatch framing inconsistent (magic, lengths, counts).
  kCrcMismatch,          ///< RecordBatch / message CRC does not match its bytes.
  kCompressionError,     ///< Decompression failed, or output would exceed the cap.
  /// Record batches sound in themselves but not allowed in their field at this version
  /// (its RecordsPolicy: e.g. a Produce v3+ partition with two batches, or zstd in
  /// Produce v3–6; codec/records/validate.h).
  kRecordsNotAllowed,
};

/// Short stable name of an ErrorKind, e.g. "truncated", "varint too long".
const char* ErrorKindName(ErrorKind kind);

/// The absl::StatusCode an ErrorKind maps to at the public boundary.
/// Decode failures are kInvalidArgument (kDataLoss for CRC), unknown API / version
/// kUnimplemented, size limits kResourceExhausted, encode failures kFailedPrecondition;
/// kInvalidUtf8 is kInvalidArgument on both sides (the string is the caller's argument).
absl::StatusCode ErrorKindStatusCode(ErrorKind kind);

/// One recorded failure: kind, absolute byte offset, field path and detail text
/// (e.g. "need 8, have 3"). `path` may be empty when no field is being processed.
struct Error {
  ErrorKind kind = ErrorKind::kOk;
  size_t offset = 0;
  std::string path;
  std::string detail;

  bool ok() const { return kind == ErrorKind::kOk; }
  /// "truncated at byte 17 in Foo.Bar (need 8, have 3)".
  std::string ToString() const;
  /// OkStatus() for kOk, else a Status with ErrorKindStatusCode(kind) and ToString().
  absl::Status ToStatus() const;
};

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_ERROR_H_
