// UTF-8 validation for STRING / COMPACT_STRING values (protocol guide, "Protocol
// Primitive Types": a string is "a sequence of characters ... encoded using UTF-8";
// RFC 3629 section 4 and the Unicode Standard's Table 3-7 "Well-Formed UTF-8 Byte
// Sequences").
//
// Well-formed means: no overlong encodings (C0, C1, E0 80..9F, F0 80..8F), no UTF-16
// surrogates (ED A0..BF, U+D800..U+DFFF), nothing above U+10FFFF (F4 90..BF, F5..FF),
// no continuation byte (80..BF) without its lead byte, and no sequence cut short by a
// non-continuation byte or by the end of the string. Java's decoder replaces each bad
// sequence with U+FFFD; kwire rejects it (ErrorKind::kInvalidUtf8) unless
// kQuirkInvalidUtf8, which keeps the bytes.
//
// The first bad byte is the first byte of the first ill-formed sequence, as Rust's
// Utf8Error::valid_up_to() and Python's UnicodeDecodeError.start count it: the lead
// byte of an overlong, surrogate, too-large or truncated sequence, or the stray byte.
//
// Speed: ASCII is checked 8 bytes per load (a mask test), strings of 8..64 bytes with
// eight overlapping loads and no length-dependent branch, inline; only input with a byte ≥ 0x80 reaches the
// out-of-line sequence checker (a shift-based DFA, ASCII runs skipped 16 bytes at a
// time). Figures: bench/README.md, "UTF-8 validation".
#ifndef KWIRE_CODEC_WIRE_UTF8_H_
#define KWIRE_CODEC_WIRE_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "codec/wire/port.h"

namespace kwire {

namespace utf8_internal {

inline constexpr uint64_t kHighBits = 0x8080808080808080ull;

// Fixed-size unaligned loads (port.h), one instruction each.
inline uint64_t Load64(const uint8_t* p) { return LoadUnaligned<uint64_t>(p); }
inline uint32_t Load32(const uint8_t* p) { return LoadUnaligned<uint32_t>(p); }
inline uint16_t Load16(const uint8_t* p) { return LoadUnaligned<uint16_t>(p); }

/// True when every byte of [p, p+n) is below 0x80. Never reads outside the range.
/// 8..64 bytes: eight 8-byte loads at min(8k, n − 8), overlapping, with no branch on the
/// length (random lengths would mispredict a size-class branch or a loop exit); longer
/// runs 32 bytes per step; under 8 bytes two overlapping 4- or 2-byte loads.
inline bool IsAscii(const uint8_t* p, size_t n) {
  if (n >= 8) [[likely]] {
    const size_t last = n - 8;
    if (n <= 64) [[likely]] {
      uint64_t acc = Load64(p) | Load64(p + last);
#define KWIRE_UTF8_AT(k) Load64(p + ((k) < last ? (k) : last))
      acc |= KWIRE_UTF8_AT(8) | KWIRE_UTF8_AT(16) | KWIRE_UTF8_AT(24) | KWIRE_UTF8_AT(32) |
             KWIRE_UTF8_AT(40) | KWIRE_UTF8_AT(48);
#undef KWIRE_UTF8_AT
      return (acc & kHighBits) == 0;
    }
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      acc |= Load64(p + i) | Load64(p + i + 8) | Load64(p + i + 16) | Load64(p + i + 24);
      if ((acc & kHighBits) != 0) return false;
    }
    // The last 0..31 bytes: four loads ending at n (n > 64: all in range).
    acc |= Load64(p + n - 32) | Load64(p + n - 24) | Load64(p + n - 16) | Load64(p + last);
    return (acc & kHighBits) == 0;
  }
  if (n >= 4) return ((Load32(p) | Load32(p + n - 4)) & 0x80808080u) == 0;
  if (n >= 2) return ((Load16(p) | Load16(p + n - 2)) & 0x8080u) == 0;
  return n == 0 || p[0] < 0x80;
}

/// The sequence checker: index of the first bad byte of [p, p+n), or n. A shift-based
/// DFA (one table load, shift and mask per byte, no data-dependent branches) decides
/// validity, skipping ASCII 16 bytes at a time; only ill-formed input is walked again by
/// a branchy checker that finds the first bad byte.
size_t FindInvalidUtf8Slow(const uint8_t* p, size_t n);
/// The DFA alone: true when [p, p+n) is well-formed (for tests).
bool DfaValid(const uint8_t* p, size_t n);

}  // namespace utf8_internal

/// Index of the first byte of the first ill-formed UTF-8 sequence in [p, p+n), or `n`
/// when the whole range is well-formed UTF-8 (RFC 3629). Reads only [p, p+n).
inline size_t FindInvalidUtf8(const uint8_t* p, size_t n) {
  if (utf8_internal::IsAscii(p, n)) [[likely]] return n;
  return utf8_internal::FindInvalidUtf8Slow(p, n);
}
inline size_t FindInvalidUtf8(std::string_view s) {
  return FindInvalidUtf8(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

/// True when `s` is well-formed UTF-8 (RFC 3629).
inline bool IsValidUtf8(std::string_view s) { return FindInvalidUtf8(s) == s.size(); }

/// What is wrong with the ill-formed sequence starting at `s[at]` (`at` as returned by
/// FindInvalidUtf8), for error details: "byte 0xff cannot start a sequence",
/// "continuation byte 0x80 without a lead byte", "overlong 2-byte encoding c0 af",
/// "surrogate U+D800", "above U+10FFFF", "sequence truncated: lead byte 0xe2 needs 3
/// bytes, the string ends after 2", "byte 0x41 after lead byte 0xe2 is not a
/// continuation byte". Out of line; for error paths only.
std::string DescribeInvalidUtf8(std::string_view s, size_t at);

/// `s` with every byte of an ill-formed sequence escaped as \xNN, backslash as \\, and
/// the ASCII control characters (and DEL) as \n, \t, \r or \xNN; well-formed multi-byte
/// characters are kept. For display (`kwire explain`): the result is valid UTF-8 and has
/// no raw control bytes.
std::string EscapeUtf8ForDisplay(std::string_view s);

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_UTF8_H_
