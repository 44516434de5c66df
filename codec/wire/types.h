// Small value types shared by the wire layer and the generated messages.
#ifndef KWIRE_CODEC_WIRE_TYPES_H_
#define KWIRE_CODEC_WIRE_TYPES_H_

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kwire {

/// Kafka `uuid`: 16 raw bytes, most significant byte first (as on the wire).
/// The all-zero value is Kafka's `Uuid.ZERO_UUID`.
struct Uuid {
  std::array<uint8_t, 16> bytes{};
  friend auto operator<=>(const Uuid&, const Uuid&) = default;
};

/// One tagged field that the decoder did not recognise at this version, kept verbatim
/// so that it is written back (KIP-482). `data` is the raw payload, without tag or size.
struct UnknownTaggedField {
  uint32_t tag = 0;
  std::string data;
  friend bool operator==(const UnknownTaggedField&, const UnknownTaggedField&) = default;
};

/// Unknown tagged fields of one struct, in ascending tag order (decode order; strict
/// decoding rejects unordered tags, so this order is the wire order).
using UnknownTaggedFields = std::vector<UnknownTaggedField>;

/// The bytes of a text buffer (std::string, std::string_view, a string literal) as the
/// std::span<const uint8_t> kwire's decode calls take: no copy, valid while the buffer
/// is. frame.h and message.h take std::string_view directly as well.
inline std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/// The bytes of a std::byte buffer (std::as_bytes of a span) as a std::span<const uint8_t>.
inline std::span<const uint8_t> AsBytes(std::span<const std::byte> s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/// Which kind of bytes a message is: request or response.
enum class Direction : uint8_t { kRequest, kResponse };

/// "request" / "response".
inline const char* DirectionName(Direction d) {
  return d == Direction::kRequest ? "request" : "response";
}

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_TYPES_H_
