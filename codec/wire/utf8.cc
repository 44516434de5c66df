#include "codec/wire/utf8.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "codec/wire/hex.h"

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

std::string HexBytes(const uint8_t* p, size_t n) { return HexString(std::span(p, n), " "); }

}  // namespace

namespace utf8_internal {

// The shift-based DFA (states as bit offsets into one 64-bit row per byte value:
// next = (kDfa[byte] >> state) & 63). States, each 6 bits: ACCEPT 0, ERROR 6 (a sink),
// then what is still needed: one continuation (12), two (18), three (24), after E0
// A0..BF then one (30), after ED 80..9F then one (36), after F0 90..BF then two (42),
// after F4 80..8F then two (48). Unicode Table 3-7.
constexpr uint64_t kAccept = 0, kError = 6, kNeed1 = 12, kNeed2 = 18, kNeed3 = 24,
                   kE0 = 30, kED = 36, kF0 = 42, kF4 = 48;

struct DfaTable {
  uint64_t row[256];
};

constexpr DfaTable MakeDfa() {
  DfaTable t{};
  for (int b = 0; b < 256; ++b) {
    auto set = [&](uint64_t from, uint64_t to) { t.row[b] |= to << from; };
    // From ACCEPT.
    uint64_t next = kError;
    if (b < 0x80) next = kAccept;
    else if (b >= 0xc2 && b <= 0xdf) next = kNeed1;
    else if (b == 0xe0) next = kE0;
    else if (b == 0xed) next = kED;
    else if (b >= 0xe1 && b <= 0xef) next = kNeed2;
    else if (b == 0xf0) next = kF0;
    else if (b >= 0xf1 && b <= 0xf3) next = kNeed3;
    else if (b == 0xf4) next = kF4;
    set(kAccept, next);
    set(kError, kError);
    const bool cont = b >= 0x80 && b <= 0xbf;
    set(kNeed1, cont ? kAccept : kError);
    set(kNeed2, cont ? kNeed1 : kError);
    set(kNeed3, cont ? kNeed2 : kError);
    set(kE0, b >= 0xa0 && b <= 0xbf ? kNeed1 : kError);
    set(kED, b >= 0x80 && b <= 0x9f ? kNeed1 : kError);
    set(kF0, b >= 0x90 && b <= 0xbf ? kNeed2 : kError);
    set(kF4, b >= 0x80 && b <= 0x8f ? kNeed2 : kError);
  }
  return t;
}

constexpr DfaTable kDfa = MakeDfa();

inline uint64_t Step(uint64_t s, uint8_t b) { return (kDfa.row[b] >> s) & 63; }

// Runs the DFA over [p, p+n) from state `s`, skipping ASCII 16 bytes at a time while
// between characters; returns the final state (kError as soon as a chunk ends in it).
uint64_t Run(const uint8_t* p, size_t n, uint64_t s) {
  size_t i = 0;
  while (i < n) {
    if (s == kAccept) {
      while (i + 16 <= n && ((Load64(p + i) | Load64(p + i + 8)) & kHighBits) == 0) i += 16;
    }
    const size_t end = std::min(n, i + 16);
    for (; i < end; ++i) s = Step(s, p[i]);
    if (s == kError) return s;
  }
  return s;
}

bool DfaValid(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i + 16 <= n && ((Load64(p + i) | Load64(p + i + 8)) & kHighBits) == 0) i += 16;
  const size_t rest = n - i;
  if (rest < 64) return Run(p + i, rest, kAccept) == kAccept;
  // Two interleaved DFAs (twice the throughput of one dependency chain): [i, mid) and
  // [mid, n), split before a byte that is not a continuation byte, where a well-formed
  // string has a character boundary. Four continuation bytes in a row: ill-formed.
  size_t mid = i + rest / 2;
  for (int k = 0; (p[mid] & 0xc0) == 0x80; ++k, --mid) {
    if (k == 3) return false;
  }
  const size_t l1 = mid - i;  // ≤ n − mid
  uint64_t s1 = kAccept, s2 = kAccept;
  for (size_t k = 0; k < l1; ++k) {
    s1 = Step(s1, p[i + k]);
    s2 = Step(s2, p[mid + k]);
  }
  return s1 == kAccept && Run(p + mid + l1, n - mid - l1, s2) == kAccept;
}

// The branchy checker: index of the first bad byte, or n.
size_t Locate(const uint8_t* p, size_t n) {
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

size_t FindInvalidUtf8Slow(const uint8_t* p, size_t n) {
  return DfaValid(p, n) ? n : Locate(p, n);
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
