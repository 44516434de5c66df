// Helpers shared by the wire-layer tests: literal bytes written as hex, and hex
// rendering for readable failure messages.
#ifndef KWIRE_CODEC_WIRE_TEST_UTIL_H_
#define KWIRE_CODEC_WIRE_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/wire/error.h"
#include "codec/wire/hex.h"

namespace kwire {

/// GoogleTest printer: failures show "truncated" rather than a byte dump.
inline void PrintTo(ErrorKind kind, std::ostream* os) { *os << ErrorKindName(kind); }

namespace wire_testing {

/// Parses "00 ff 7f" (spaces optional, between bytes only) into bytes with ParseHex
/// (codec/wire/hex.h). Aborts on malformed input so that a typo in a test literal cannot
/// silently shorten an encoding.
inline std::vector<uint8_t> Hex(std::string_view hex) {
  std::string digits;
  for (const char c : hex) {
    if (c == ' ') {
      if (digits.size() % 2 != 0) std::abort();  // a space inside a byte
      continue;
    }
    digits += c;
  }
  std::vector<uint8_t> out;
  if (!ParseHex(digits, out)) std::abort();
  return out;
}

/// Renders bytes as lowercase hex separated by spaces: "00 ff 7f" (HexString).
inline std::string ToHex(std::span<const uint8_t> bytes) { return HexString(bytes, " "); }

/// Concatenates byte vectors.
inline std::vector<uint8_t> Cat(std::vector<uint8_t> a, std::span<const uint8_t> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Reference unsigned LEB128, written independently of varint.h.
inline std::vector<uint8_t> RefLeb128(uint64_t v) {
  std::vector<uint8_t> out;
  for (;;) {
    const uint8_t low = static_cast<uint8_t>(v & 0x7f);
    v >>= 7;
    if (v == 0) {
      out.push_back(low);
      return out;
    }
    out.push_back(low | 0x80);
  }
}

}  // namespace wire_testing
}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_TEST_UTIL_H_
