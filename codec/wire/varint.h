// Raw uvarint / varint / varlong encoders and size functions (Kafka protocol guide,
// "Protocol Primitive Types": unsigned LEB128; varint/varlong are zigzag-encoded).
//
// These are the unchecked building blocks: the caller guarantees room in `dst`
// (kMaxUvarintBytes / kMaxVarlongBytes). Decoding is bounds-checked and lives only in
// Reader (reader.h), with its primitives in varint_decode.h.
#ifndef KWIRE_CODEC_WIRE_VARINT_H_
#define KWIRE_CODEC_WIRE_VARINT_H_

#include <cstddef>
#include <cstdint>

#include "codec/wire/port.h"

// Last include: kwire's hints, removed again at the end of this file.
#include "codec/wire/port_def.inc"

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

namespace varint_internal {

/// Spreads the low 35 bits of `v` into 7-bit groups, one per byte: byte i holds bits
/// 7i..7i+6 (continuation bits clear).
constexpr uint64_t Spread7x5(uint64_t v) {
  return (v & 0x7f) | ((v << 1) & 0x7f00) | ((v << 2) & 0x7f0000) | ((v << 3) & 0x7f000000) |
         ((v << 4) & 0x7f00000000ull);
}
/// Spreads the low 56 bits of `v` into eight 7-bit groups, one per byte.
constexpr uint64_t Spread7x8(uint64_t v) {
  uint64_t x = v & 0x00ffffffffffffffull;
  x = (x & 0x000000000fffffffull) | ((x & 0x00fffffff0000000ull) << 4);
  x = (x & 0x00003fff00003fffull) | ((x & 0x0fffc0000fffc000ull) << 2);
  return (x & 0x007f007f007f007full) | ((x & 0x3f803f803f803f80ull) << 1);
}
/// Continuation bits of the bytes below the highest non-zero byte of `x` (x ≠ 0), and
/// that byte's index (encoded length − 1) in `*top`.
inline uint64_t ContinuationBits(uint64_t x, unsigned* top) {
  const unsigned bit = 63u - static_cast<unsigned>(__builtin_clzll(x));
  *top = bit >> 3;
  return 0x8080808080808080ull & ((uint64_t{1} << (bit & 0x38)) - 1);
}
/// The 2-byte encoding of 0x80 ≤ v < 0x4000: on little-endian hosts one 16-bit store of
/// v + (v & 0x3f80) + 0x80 (low 7 bits, continuation bit, the next 7 bits shifted up by
/// one), built in a full register; two byte stores elsewhere.
inline void Store2(uint8_t* dst, uint64_t v) {
  if constexpr (kLittleEndianHost) {
    StoreUnaligned(dst, static_cast<uint16_t>(v + (v & 0x3f80) + 0x80));
  } else {
    dst[0] = static_cast<uint8_t>(v | 0x80);
    dst[1] = static_cast<uint8_t>(v >> 7);
  }
}

/// One byte per loop iteration (big-endian hosts).
inline size_t EncodeLeb128Loop(uint8_t* dst, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    dst[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  dst[n++] = static_cast<uint8_t>(v);
  return n;
}

}  // namespace varint_internal

/// Writes `v` as a uvarint at `dst` (room for 5 bytes required: bytes past the encoding
/// may be overwritten). Returns bytes written. 1 and 2 bytes: predicted branches
/// (Kafka's common lengths, often in runs; a branch-free 1-or-2-byte select measured
/// 4× slower on runs of 1-byte values, bench/README.md); 3–5 bytes: no branch on the
/// length (the 7-bit groups are spread with shifts and masks, the continuation bits set
/// from the highest non-zero byte, 4 + 1 bytes stored).
inline size_t EncodeUvarint(uint8_t* dst, uint32_t v) {
  if (v < 0x80) {
    dst[0] = static_cast<uint8_t>(v);
    return 1;
  }
  if (KWIRE_LIKELY(v < 0x4000)) {
    varint_internal::Store2(dst, v);
    return 2;
  }
  if constexpr (!kLittleEndianHost) return varint_internal::EncodeLeb128Loop(dst, v);
  const uint64_t x = varint_internal::Spread7x5(v);
  unsigned top;
  const uint64_t y = x | varint_internal::ContinuationBits(x, &top);
  StoreUnaligned(dst, static_cast<uint32_t>(y));
  dst[4] = static_cast<uint8_t>(y >> 32);
  return top + 1;
}

/// Writes `v` as an unsigned 64-bit LEB128 at `dst` (room for 10 bytes required, bytes
/// past the encoding may be overwritten). Returns bytes. As EncodeUvarint; 3–10 bytes
/// are stored as 8 + 2 bytes without a branch on the length (one predicted branch
/// separates values below 2^56).
inline size_t EncodeUvarint64(uint8_t* dst, uint64_t v) {
  if (v < 0x80) {
    dst[0] = static_cast<uint8_t>(v);
    return 1;
  }
  if (KWIRE_LIKELY(v < 0x4000)) {
    varint_internal::Store2(dst, v);
    return 2;
  }
  if constexpr (!kLittleEndianHost) return varint_internal::EncodeLeb128Loop(dst, v);
  const uint64_t x = varint_internal::Spread7x8(v);
  const uint32_t high = static_cast<uint32_t>(v >> 56);  // bits 56..63: bytes 8 and 9
  unsigned top;
  uint64_t cont = varint_internal::ContinuationBits(x | 1, &top);  // x is 0 for v = 2^56
  size_t len = top + 1;
  if (high != 0) {  // 9 or 10 bytes
    cont = 0x8080808080808080ull;
    len = 9 + (high >> 7);
  }
  StoreUnaligned(dst, x | cont);
  // Byte 8: bits 56..62, and its continuation bit is bit 63 itself; byte 9: bit 63.
  dst[8] = static_cast<uint8_t>(high);
  dst[9] = static_cast<uint8_t>(high >> 7);
  return len;
}

/// Zigzag varint (int32) at `dst`, room for 5 bytes. Returns bytes written.
inline size_t EncodeVarint(uint8_t* dst, int32_t v) { return EncodeUvarint(dst, ZigZagEncode32(v)); }
/// Zigzag varlong (int64) at `dst`, room for 10 bytes. Returns bytes written.
inline size_t EncodeVarlong(uint8_t* dst, int64_t v) {
  return EncodeUvarint64(dst, ZigZagEncode64(v));
}

}  // namespace kwire

#include "codec/wire/port_undef.inc"

#endif  // KWIRE_CODEC_WIRE_VARINT_H_
