#include "codec/wire/error.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kwire {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return "ok";
    case ErrorKind::kTruncated: return "truncated";
    case ErrorKind::kVarintTooLong: return "varint too long";
    case ErrorKind::kVarintOverflow: return "varint overflow";
    case ErrorKind::kVarintNonCanonical: return "non-canonical varint";
    case ErrorKind::kInvalidBool: return "invalid bool";
    case ErrorKind::kInvalidUtf8: return "invalid utf-8";
    case ErrorKind::kInvalidLength: return "invalid length";
    case ErrorKind::kUnexpectedNull: return "unexpected null";
    case ErrorKind::kCountTooLarge: return "count too large";
    case ErrorKind::kTagOutOfOrder: return "tag out of order";
    case ErrorKind::kTagDuplicate: return "duplicate tag";
    case ErrorKind::kTagSizeMismatch: return "tag size mismatch";
    case ErrorKind::kInvalidValue: return "invalid value";
    case ErrorKind::kTrailingBytes: return "trailing bytes";
    case ErrorKind::kUnknownApiKey: return "unknown api key";
    case ErrorKind::kUnsupportedVersion: return "unsupported version";
    case ErrorKind::kInvalidFrameSize: return "invalid frame size";
    case ErrorKind::kFrameTooLarge: return "frame too large";
    case ErrorKind::kStringTooLong: return "too long";
    case ErrorKind::kNonDefaultField: return "non-default field";
    case ErrorKind::kNullNotAllowed: return "null not allowed";
    case ErrorKind::kNestingTooDeep: return "nesting too deep";
    case ErrorKind::kCorruptRecords: return "corrupt records";
    case ErrorKind::kCrcMismatch: return "crc mismatch";
    case ErrorKind::kCompressionError: return "compression error";
    case ErrorKind::kRecordsNotAllowed: return "records not allowed";
  }
  return "unknown error";
}

absl::StatusCode ErrorKindStatusCode(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return absl::StatusCode::kOk;
    case ErrorKind::kUnknownApiKey:
    case ErrorKind::kUnsupportedVersion: return absl::StatusCode::kUnimplemented;
    case ErrorKind::kFrameTooLarge: return absl::StatusCode::kResourceExhausted;
    case ErrorKind::kCrcMismatch: return absl::StatusCode::kDataLoss;
    case ErrorKind::kStringTooLong:
    case ErrorKind::kNonDefaultField:
    case ErrorKind::kNullNotAllowed: return absl::StatusCode::kFailedPrecondition;
    default: return absl::StatusCode::kInvalidArgument;
  }
}

std::string Error::ToString() const {
  if (kind == ErrorKind::kOk) return "ok";
  std::string s = absl::StrFormat("%s at byte %d", ErrorKindName(kind), offset);
  if (!path.empty()) absl::StrAppend(&s, " in ", path);
  if (!detail.empty()) absl::StrAppend(&s, " (", detail, ")");
  return s;
}

absl::Status Error::ToStatus() const {
  if (kind == ErrorKind::kOk) return absl::OkStatus();
  return absl::Status(ErrorKindStatusCode(kind), ToString());
}

}  // namespace kwire
