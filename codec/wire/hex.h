// Hex text of bytes and back: the one hex helper of the tree (frames in vectors, JSON
// and reports; bytes in error details and explanations). Lowercase, two digits a byte.
#ifndef KWIRE_CODEC_WIRE_HEX_H_
#define KWIRE_CODEC_WIRE_HEX_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kwire {

/// `bytes` as lowercase hex, `separator` between bytes: "0a1b", or "0a 1b" with " ".
std::string HexString(std::string_view bytes, std::string_view separator = "");
/// HexString of a byte span (a frame, a std::vector<uint8_t>).
std::string HexString(std::span<const uint8_t> bytes, std::string_view separator = "");

/// Strict hex text (either case, no separators) → bytes. False, with `out` unchanged, on
/// an odd length or a character that is not a hex digit.
bool ParseHex(std::string_view hex, std::vector<uint8_t>& out);
/// ParseHex into a byte string.
bool ParseHex(std::string_view hex, std::string& out);

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_HEX_H_
