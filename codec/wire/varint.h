// Raw uvarint / varint / varlong encoders and size functions (Kafka protocol guide,
// "Protocol Primitive Types": unsigned LEB128; varint/varlong are zigzag-encoded).
//
// These are the unchecked building blocks: the caller guarantees room in `dst`
// (kMaxUvarintBytes / kMaxVarlongBytes). Decoding is bounds-checked and lives only in
// Reader (reader.h).
#ifndef KWIRE_CODEC_WIRE_VARINT_H_
#define KWIRE_CODEC_WIRE_VARINT_H_

#include <cstddef>
#include <cstdint>

namespace kwire {

/// Longest legal uvarint / varint (32-bit) encoding, in bytes.
inline constexpr size_t kMaxUvarintBytes = 5;
/// Longest legal varlong (64-bit) encoding, in bytes.
inline constexpr size_t kMaxVarlongBytes = 10;

/// Zigzag maps signed to unsigned so small magnitudes encode short: 0,-1,1,-2 -> 0,1,2,3.
constexpr uint32_t ZigZagEncode32(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
constexpr uint64_t ZigZagEncode64(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
constexpr int32_t ZigZagDecode32(uint32_t v) {
  return static_cast<int32_t>((v >> 1) ^ (~(v & 1) + 1));
}
constexpr int64_t ZigZagDecode64(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

/// Bytes needed to encode `v` as a uvarint: 1..5.
constexpr size_t UvarintSize(uint32_t v) {
  // 1 + floor(bit_length(v|1) - 1) / 7, computed without a loop.
  const int bits = 32 - __builtin_clz(v | 1u);
  return static_cast<size_t>((bits * 9 + 64) / 64);
}
/// Bytes needed to encode `v` as an unsigned 64-bit LEB128: 1..10.
constexpr size_t Uvarint64Size(uint64_t v) {
  const int bits = 64 - __builtin_clzll(v | 1u);
  return static_cast<size_t>((bits * 9 + 64) / 64);
}
constexpr size_t VarintSize(int32_t v) { return UvarintSize(ZigZagEncode32(v)); }
constexpr size_t VarlongSize(int64_t v) { return Uvarint64Size(ZigZagEncode64(v)); }

/// Writes `v` as a uvarint at `dst` (room for 5 bytes required). Returns bytes written.
inline size_t EncodeUvarint(uint8_t* dst, uint32_t v) {
  if (v < 0x80) {
    dst[0] = static_cast<uint8_t>(v);
    return 1;
  }
  size_t n = 0;
  do {
    dst[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  } while (v >= 0x80);
  dst[n++] = static_cast<uint8_t>(v);
  return n;
}

/// Writes `v` as an unsigned 64-bit LEB128 at `dst` (room for 10 bytes). Returns bytes.
inline size_t EncodeUvarint64(uint8_t* dst, uint64_t v) {
  if (v < 0x80) {
    dst[0] = static_cast<uint8_t>(v);
    return 1;
  }
  size_t n = 0;
  do {
    dst[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  } while (v >= 0x80);
  dst[n++] = static_cast<uint8_t>(v);
  return n;
}

/// Zigzag varint (int32) at `dst`, room for 5 bytes. Returns bytes written.
inline size_t EncodeVarint(uint8_t* dst, int32_t v) { return EncodeUvarint(dst, ZigZagEncode32(v)); }
/// Zigzag varlong (int64) at `dst`, room for 10 bytes. Returns bytes written.
inline size_t EncodeVarlong(uint8_t* dst, int64_t v) {
  return EncodeUvarint64(dst, ZigZagEncode64(v));
}

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_VARINT_H_
