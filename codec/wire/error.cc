#include "codec/wire/error.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kwire {
namespace {

// The payload's kind byte: 1 .. kLastKind (kOk is never attached).
constexpr uint8_t kLastKind = static_cast<uint8_t>(ErrorKind::kAllocationBudget);

void AppendLeb128(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Reads an unsigned LEB128 of at most 10 bytes whose value fits 64 bits.
bool ReadLeb128(absl::string_view& in, uint64_t* v) {
  uint64_t out = 0;
  for (int i = 0; i < 10 && i < static_cast<int>(in.size()); ++i) {
    const uint64_t b = static_cast<uint8_t>(in[i]);
    if (i == 9 && b > 1) return false;
    out |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      in.remove_prefix(i + 1);
      *v = out;
      return true;
    }
  }
  return false;
}

}  // namespace

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
    case ErrorKind::kCorruptRecords: return "corrupt records";
    case ErrorKind::kCrcMismatch: return "crc mismatch";
    case ErrorKind::kCompressionError: return "compression error";
    case ErrorKind::kRecordsNotAllowed: return "records not allowed";
    case ErrorKind::kAllocationBudget: return "allocation budget exceeded";
  }
  return "unknown error";
}

absl::StatusCode ErrorKindStatusCode(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return absl::StatusCode::kOk;
    case ErrorKind::kUnknownApiKey:
    case ErrorKind::kUnsupportedVersion: return absl::StatusCode::kUnimplemented;
    case ErrorKind::kFrameTooLarge:
    case ErrorKind::kAllocationBudget: return absl::StatusCode::kResourceExhausted;
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
  absl::Status status(ErrorKindStatusCode(kind), ToString());
  std::string payload;
  payload.reserve(1 + 10 + 5 + path.size() + detail.size());
  payload.push_back(static_cast<char>(kind));
  AppendLeb128(payload, offset);
  AppendLeb128(payload, path.size());
  payload += path;
  payload += detail;
  status.SetPayload(kErrorPayloadTypeUrl, absl::Cord(std::move(payload)));
  return status;
}

std::optional<Error> ErrorFromStatus(const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  const auto payload = status.GetPayload(kErrorPayloadTypeUrl);  // absl::optional<Cord>
  if (!payload.has_value()) return std::nullopt;
  const std::string bytes(*payload);
  absl::string_view in = bytes;
  if (in.empty()) return std::nullopt;
  const uint8_t kind = static_cast<uint8_t>(in[0]);
  if (kind == 0 || kind > kLastKind) return std::nullopt;
  in.remove_prefix(1);
  uint64_t offset = 0, path_size = 0;
  if (!ReadLeb128(in, &offset) || !ReadLeb128(in, &path_size) || path_size > in.size()) {
    return std::nullopt;
  }
  if constexpr (sizeof(size_t) < sizeof(uint64_t)) {
    if (offset > SIZE_MAX) return std::nullopt;
  }
  Error e;
  e.kind = static_cast<ErrorKind>(kind);
  e.offset = static_cast<size_t>(offset);
  e.path = std::string(in.substr(0, path_size));
  e.detail = std::string(in.substr(path_size));
  return e;
}

}  // namespace kwire
