#include "codec/wire/utf8.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace kwire {
namespace {

// The length of the sequence lead byte `b` starts and the range its second byte must
// lie in (Unicode Table 3-7), or len 0 for a byte that cannot start a multi-byte
// sequence (80..C1, F5..FF).
struct Lead {
  uint8_t len;
  uint8_t lo;
  uint8_t hi;
};

Lead LeadOf(uint8_t b) {
  if (b >= 0xc2 && b <= 0xdf) return {2, 0x80, 0xbf};
  if (b == 0xe0) return {3, 0xa0, 0xbf};          // E0 80..9F: overlong
  if (b == 0xed) return {3, 0x80, 0x9f};          // ED A0..BF: surrogates
  if (b >= 0xe1 && b <= 0xef) return {3, 0x80, 0xbf};
  if (b == 0xf0) return {4, 0x90, 0xbf};          // F0 80..8F: overlong
  if (b >= 0xf1 && b <= 0xf3) return {4, 0x80, 0xbf};
  if (b == 0xf4) return {4, 0x80, 0x8f};          // F4 90..BF: above U+10FFFF
  return {0, 0, 0};
}

std::string HexBytes(const uint8_t* p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) absl::StrAppendFormat(&out, "%s%02x", i ? " " : "", p[i]);
  return out;
}

}  // namespace

namespace utf8_internal {

size_t FindInvalidUtf8Slow(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    while (i + 8 <= n && (Load64(p + i) & kHighBits) == 0) i += 8;  // ASCII runs
    if (i == n) break;
    const uint8_t b = p[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    const Lead l = LeadOf(b);
    if (l.len == 0 || n - i < l.len) return i;
    const uint8_t c1 = p[i + 1];
    if (c1 < l.lo || c1 > l.hi) return i;
    if (l.len >= 3 && (p[i + 2] & 0xc0) != 0x80) return i;
    if (l.len == 4 && (p[i + 3] & 0xc0) != 0x80) return i;
    i += l.len;
  }
  return n;
}

}  // namespace utf8_internal

std::string DescribeInvalidUtf8(std::string_view s, size_t at) {
  if (at >= s.size()) return "well-formed";
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data()) + at;
  const size_t left = s.size() - at;
  const uint8_t b = p[0];
  if (b < 0x80) return "well-formed";
  if (b <= 0xbf) return absl::StrFormat("continuation byte 0x%02x without a lead byte", b);
  if (b == 0xc0 || b == 0xc1) {
    return absl::StrFormat("overlong 2-byte encoding (%s)", HexBytes(p, std::min<size_t>(left, 2)));
  }
  if (b >= 0xf5) {
    return b <= 0xf7 ? absl::StrFormat("byte 0x%02x cannot start a sequence (above U+10FFFF)", b)
                     : absl::StrFormat("byte 0x%02x cannot start a sequence", b);
  }
  const Lead l = LeadOf(b);
  for (size_t k = 1; k < l.len; ++k) {
    if (k >= left) {
      return absl::StrFormat(
          "sequence truncated: lead byte 0x%02x needs %d bytes, the string ends after %d", b,
          l.len, left);
    }
    const uint8_t c = p[k];
    if ((c & 0xc0) != 0x80) {
      return absl::StrFormat("byte 0x%02x after lead byte 0x%02x is not a continuation byte", c,
                             b);
    }
    if (k == 1 && (c < l.lo || c > l.hi)) {
      const size_t shown = std::min<size_t>(left, l.len);
      if (b == 0xe0) return absl::StrFormat("overlong 3-byte encoding (%s)", HexBytes(p, shown));
      if (b == 0xf0) return absl::StrFormat("overlong 4-byte encoding (%s)", HexBytes(p, shown));
      if (b == 0xed) {
        uint32_t cp = 0xd000u | (uint32_t{c & 0x3fu} << 6);
        if (left >= 3 && (p[2] & 0xc0) == 0x80) cp |= p[2] & 0x3fu;
        return absl::StrFormat("surrogate U+%04X", cp);
      }
      return absl::StrFormat("above U+10FFFF (%s)", HexBytes(p, shown));  // F4 90..BF
    }
  }
  return "well-formed";
}

std::string EscapeUtf8ForDisplay(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = p[i];
    if (b < 0x80) {
      switch (b) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        default:
          if (b < 0x20 || b == 0x7f) {
            absl::StrAppendFormat(&out, "\\x%02x", b);
          } else {
            out += static_cast<char>(b);
          }
      }
      ++i;
      continue;
    }
    // One well-formed sequence is kept (C1 controls U+0080..U+009F escaped as \u00NN);
    // anything else escapes its first byte and resumes after it.
    const size_t len = LeadOf(b).len;
    if (len != 0 && n - i >= len && FindInvalidUtf8(p + i, len) == len) {
      if (b == 0xc2 && p[i + 1] < 0xa0) {
        absl::StrAppendFormat(&out, "\\u%04x", p[i + 1]);
      } else {
        out.append(s.data() + i, len);
      }
      i += len;
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", b);
      ++i;
    }
  }
  return out;
}

}  // namespace kwire
