#include "codec/wire/error.h"

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kwire {
namespace {

// ErrorKindName's table, indexed by the enum's value: kOk .. kAllocationBudget.
constexpr const char* kKindNames[] = {
    "ok",
    "truncated",
    "varint_too_long",
    "varint_overflow",
    "varint_non_canonical",
    "invalid_bool",
    "invalid_utf8",
    "invalid_length",
    "unexpected_null",
    "count_too_large",
    "tag_out_of_order",
    "tag_duplicate",
    "tag_size_mismatch",
    "invalid_value",
    "trailing_bytes",
    "unknown_api_key",
    "unsupported_version",
    "invalid_frame_size",
    "frame_too_large",
    "string_too_long",
    "non_default_field",
    "null_not_allowed",
    "corrupt_records",
    "crc_mismatch",
    "compression_error",
    "records_not_allowed",
    "allocation_budget",
};
constexpr size_t kKindCount = sizeof(kKindNames) / sizeof(kKindNames[0]);
static_assert(kKindCount == static_cast<size_t>(ErrorKind::kAllocationBudget) + 1,
              "a new ErrorKind needs its name in kKindNames");

constexpr absl::string_view kKindKey = "kind=";
constexpr absl::string_view kOffsetKey = " offset=";
constexpr absl::string_view kPathKey = " path=";
constexpr absl::string_view kDetailKey = " detail=";

bool PathByteNeedsEscape(uint8_t b) { return b == '%' || b <= 0x20 || b > 0x7e; }

void AppendEscapedPath(std::string& out, absl::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char ch : path) {
    const uint8_t b = static_cast<uint8_t>(ch);
    if (PathByteNeedsEscape(b)) {
      out.push_back('%');
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 0xf]);
    } else {
      out.push_back(ch);
    }
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The inverse of AppendEscapedPath: false for a '%' not followed by two upper-case hex
// digits, a byte that should have been escaped, or an escape of a byte that need not be.
bool UnescapePath(absl::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      if (PathByteNeedsEscape(static_cast<uint8_t>(in[i]))) return false;
      out->push_back(in[i]);
      continue;
    }
    if (in.size() - i < 3) return false;  // "%XX" needs two more bytes
    const int hi = HexDigit(in[i + 1]), lo = HexDigit(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    const uint8_t b = static_cast<uint8_t>(hi << 4 | lo);
    if (!PathByteNeedsEscape(b)) return false;
    out->push_back(static_cast<char>(b));
    i += 2;
  }
  return true;
}

// Decimal digits (at least one, no sign, no leading zero but "0") whose value fits size_t.
bool ParseOffset(absl::string_view digits, size_t* out) {
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return false;
  size_t v = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
    const size_t d = static_cast<size_t>(c - '0');
    if (v > (SIZE_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// Removes `prefix` from the front of `in`; false when `in` does not start with it.
bool Consume(absl::string_view& in, absl::string_view prefix) {
  if (!absl::StartsWith(in, prefix)) return false;
  in.remove_prefix(prefix.size());
  return true;
}

}  // namespace

const char* ErrorKindName(ErrorKind kind) {
  const size_t i = static_cast<size_t>(kind);
  return i < kKindCount ? kKindNames[i] : "unknown_error";
}

std::optional<ErrorKind> ErrorKindFromName(absl::string_view name) {
  for (size_t i = 0; i < kKindCount; ++i) {
    if (name == kKindNames[i]) return static_cast<ErrorKind>(i);
  }
  return std::nullopt;
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
  payload.reserve(64 + path.size() + detail.size());
  absl::StrAppend(&payload, kKindKey, ErrorKindName(kind), kOffsetKey, offset, kPathKey);
  AppendEscapedPath(payload, path);
  absl::StrAppend(&payload, kDetailKey, detail);
  status.SetPayload(kErrorPayloadTypeUrl, absl::Cord(std::move(payload)));
  return status;
}

std::optional<Error> ErrorFromStatus(const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  const auto payload = status.GetPayload(kErrorPayloadTypeUrl);  // absl::optional<Cord>
  if (!payload.has_value()) return std::nullopt;
  const std::string text(*payload);
  absl::string_view in = text;
  if (!Consume(in, kKindKey)) return std::nullopt;
  const size_t kind_end = in.find(' ');
  if (kind_end == absl::string_view::npos) return std::nullopt;
  const std::optional<ErrorKind> kind = ErrorKindFromName(in.substr(0, kind_end));
  if (!kind.has_value() || *kind == ErrorKind::kOk) return std::nullopt;
  in.remove_prefix(kind_end);
  Error e;
  e.kind = *kind;
  if (!Consume(in, kOffsetKey)) return std::nullopt;
  const size_t offset_end = in.find(' ');
  if (offset_end == absl::string_view::npos ||
      !ParseOffset(in.substr(0, offset_end), &e.offset)) {
    return std::nullopt;
  }
  in.remove_prefix(offset_end);
  if (!Consume(in, kPathKey)) return std::nullopt;
  const size_t path_end = in.find(' ');  // an escaped path holds no space
  if (path_end == absl::string_view::npos || !UnescapePath(in.substr(0, path_end), &e.path)) {
    return std::nullopt;
  }
  in.remove_prefix(path_end);
  if (!Consume(in, kDetailKey)) return std::nullopt;
  e.detail = std::string(in);
  return e;
}

}  // namespace kwire
