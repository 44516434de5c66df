#include "codec/wire/hex.h"

#include <utility>

namespace kwire {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

int Nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <class Out>
bool Parse(std::string_view hex, Out& out) {
  if (hex.size() % 2 != 0) return false;
  Out bytes(hex.size() / 2, 0);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int hi = Nibble(hex[2 * i]);
    const int lo = Nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    bytes[i] = static_cast<typename Out::value_type>(hi << 4 | lo);
  }
  out = std::move(bytes);
  return true;
}

}  // namespace

std::string HexString(std::string_view bytes, std::string_view separator) {
  std::string out;
  out.reserve(bytes.size() * (2 + separator.size()));
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += separator;
    const auto b = static_cast<uint8_t>(bytes[i]);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

std::string HexString(std::span<const uint8_t> bytes, std::string_view separator) {
  return HexString(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                   separator);
}

bool ParseHex(std::string_view hex, std::vector<uint8_t>& out) { return Parse(hex, out); }

bool ParseHex(std::string_view hex, std::string& out) { return Parse(hex, out); }

}  // namespace kwire
