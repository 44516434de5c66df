// Unsigned LEB128 decoding primitives behind Reader::ReadUvarint / ReadVarint /
// ReadVarlong (reader.h) and the record fast path of codec/records. These functions take
// a pointer and a limit (or a byte count the caller has checked) and never look past
// the bytes stated in their contracts.
//
// Three layers:
//  - TryDecodeUvarint: an inline entry point for local-pointer decoders. A predicted
//    1-byte path, then the fast tails when enough bytes are left; returns 0 ("not
//    answered here") for everything else, which the caller re-reads with the Reader.
//    (The Reader's own inline reads take the same steps, written out.)
//  - Fast tails (DecodeUvarint32Tail, DecodeUvarint64Tail): for an encoding whose first
//    byte has the continuation bit set and with at least kUvarint32TailBytes /
//    kUvarint64TailBytes readable bytes. One
//    unaligned 8-byte load; a predicted branch for 2 bytes, else the terminator found
//    with a count-trailing-zeros and the 7-bit groups gathered with SWAR shifts and
//    masks (PEXT when the build targets BMI2). They accept only canonical encodings in
//    range and return 0 for anything else (too long, bits beyond 32/64, overlong), so
//    the caller re-reads those with DecodeLeb128 for the exact error or quirk.
//  - DecodeLeb128: the byte-at-a-time strict decoder with exact failure classification
//    (which check failed, at which byte), used near the end of the input and for
//    malformed or quirk-admitted encodings.
//
// Little-endian hosts only for the fast tails (x86-64, AArch64); elsewhere
// kVarintFastTails is false and the Reader uses DecodeLeb128 alone.
#ifndef KWIRE_CODEC_WIRE_VARINT_DECODE_H_
#define KWIRE_CODEC_WIRE_VARINT_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__BMI2__)
#include <immintrin.h>
#endif

#include "codec/wire/port.h"

// Last include: kwire's hints, removed again at the end of this file.
#include "codec/wire/port_def.inc"

namespace kwire {
namespace varint_internal {

/// True when the fast tails are available (little-endian host).
inline constexpr bool kVarintFastTails = kLittleEndianHost;

/// Readable bytes DecodeUvarint32Tail needs at `p` (one 8-byte load).
inline constexpr size_t kUvarint32TailBytes = 8;
/// Readable bytes DecodeUvarint64Tail needs at `p` (an 8-byte and a 2-byte load).
inline constexpr size_t kUvarint64TailBytes = 10;

/// Continuation bits of eight bytes.
inline constexpr uint64_t kHighBits = 0x8080808080808080ull;

/// Gathers the low 7 bits of each byte of `x` (byte i → bits 7i..7i+6); the high bit of
/// every byte is ignored. 56 bits out.
KWIRE_ALWAYS_INLINE uint64_t Gather7x8(uint64_t x) {
#if defined(__BMI2__)
  return _pext_u64(x, 0x7f7f7f7f7f7f7f7full);
#else
  x &= 0x7f7f7f7f7f7f7f7full;
  x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
  x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
  return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
#endif
}

/// Gathers the low 7 bits of bytes 0..4 of `x` (35 bits out); bytes 5..7 are ignored.
KWIRE_ALWAYS_INLINE uint64_t Gather7x5(uint64_t x) {
#if defined(__BMI2__)
  return _pext_u64(x, 0x0000007f7f7f7f7full);
#else
  return (x & 0x7f) | ((x >> 1) & 0x3f80) | ((x >> 2) & 0x1fc000) | ((x >> 3) & 0xfe00000) |
         ((x >> 4) & 0x7f0000000ull);
#endif
}

/// Decodes a canonical uvarint/varint (1–5 bytes, value < 2^32) at `p`, whose first
/// byte is ≥ 0x80. Requires kUvarint32TailBytes readable bytes at `p` (bytes after the
/// encoding are loaded but do not affect the result). Returns the encoded length (2–5)
/// and sets `*out`, or returns 0 (and leaves `*out` alone) when the encoding continues
/// past 5 bytes, sets bits beyond 32 or ends in a zero group: the caller then decodes it
/// with DecodeLeb128 for the exact error.
KWIRE_ALWAYS_INLINE size_t DecodeUvarint32Tail(const uint8_t* p, uint32_t* out) {
  const uint64_t w = LoadUnaligned<uint64_t>(p);
  // Two bytes (second byte 0x01..0x7f): a separate predicted branch, so that a stream of
  // 1- and 2-byte values (Kafka's common case) advances by a predicted constant rather
  // than by a length computed from the loaded bytes.
  if (__builtin_expect(((w & 0xff00) - 0x100) < 0x7f00, 1)) {
    *out = static_cast<uint32_t>((w & 0x7f) | ((w >> 1) & 0x3f80));
    return 2;
  }
  const uint64_t stop = ~w & 0x0000008080808080ull;  // terminators among bytes 0..4
  if (__builtin_expect(stop == 0, 0)) return 0;      // continues past 5 bytes
  const unsigned tz = static_cast<unsigned>(__builtin_ctzll(stop));  // 8·len − 1
  const uint64_t x = w & ((uint64_t{2} << tz) - 1);  // the encoding's bytes only
  const uint64_t v = Gather7x5(x);
  // Last byte zero (overlong; len ≥ 2 here) or bits beyond 32.
  if (__builtin_expect(((x >> (tz - 7)) == 0) | ((v >> 32) != 0), 0)) return 0;
  *out = static_cast<uint32_t>(v);
  return (tz + 1) >> 3;
}

/// Decodes a canonical varlong-style unsigned LEB128 (1–10 bytes, value < 2^64) at `p`,
/// whose first byte is ≥ 0x80. Requires kUvarint64TailBytes readable bytes at `p`.
/// Returns the encoded length (2–10) and sets `*out`, or 0 for an encoding that
/// continues past 10 bytes, sets bits beyond 64 or ends in a zero group.
KWIRE_ALWAYS_INLINE size_t DecodeUvarint64Tail(const uint8_t* p, uint64_t* out) {
  const uint64_t w = LoadUnaligned<uint64_t>(p);
  if (__builtin_expect(((w & 0xff00) - 0x100) < 0x7f00, 1)) {  // two bytes, as above
    *out = (w & 0x7f) | ((w >> 1) & 0x3f80);
    return 2;
  }
  const uint64_t stop = ~w & kHighBits;
  if (__builtin_expect(stop != 0, 1)) {  // 2–8 bytes
    const unsigned tz = static_cast<unsigned>(__builtin_ctzll(stop));
    const uint64_t x = w & (~uint64_t{0} >> (63 - tz));
    if (__builtin_expect((x >> (tz - 7)) == 0, 0)) return 0;  // overlong
    *out = Gather7x8(x);
    return (tz + 1) >> 3;
  }
  // 9 or 10 bytes, told apart without a branch: `ten` is byte 8's continuation bit and
  // `last` the terminating byte (byte 8 or 9). Byte 8 of a 9-byte encoding must be
  // 0x01..0x7f (0 is overlong); byte 9 of a 10-byte one must be exactly 0x01 (0 is
  // overlong; more sets bits beyond 64 or continues past 10 bytes).
  const uint32_t hi = LoadUnaligned<uint16_t>(p + 8);
  const uint32_t ten = (hi >> 7) & 1;
  const uint32_t last = (hi >> (8 * ten)) & 0xff;
  if (__builtin_expect(last - 1 >= (0x7fu >> (6 * ten)), 0)) return 0;
  *out = Gather7x8(w) | (static_cast<uint64_t>(hi & 0x7f) << 56) |
         (static_cast<uint64_t>(ten) << 63);
  return 9 + ten;
}

/// Decodes a canonical unsigned LEB128 into `*out` (uint32_t: 1–5 bytes, value < 2^32;
/// uint64_t: 1–10 bytes) that must end at or before `limit`, reading nothing at or past
/// `limit`. Returns its length and sets `*out`, or returns 0 when `p == limit`, when the
/// encoding is not canonical or in range, or when a multi-byte encoding has fewer than
/// kUvarint32TailBytes / kUvarint64TailBytes bytes before `limit` (an answer this
/// function does not give): the caller then re-reads it with the Reader, which reports
/// the exact outcome. For decoders that keep their cursor in a local pointer
/// (codec/records). The Reader's inline reads take the same two steps written out, with
/// the 1-byte return and cursor increment on their own path: expressed through this
/// function, g++ merges the paths and the 1-byte loops run 5–15% more instructions
/// (bench/compare callgrind).
template <typename T>
KWIRE_ALWAYS_INLINE size_t TryDecodeUvarint(const uint8_t* p, const uint8_t* limit, T* out) {
  static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>);
  constexpr size_t kTailBytes =
      sizeof(T) == 4 ? kUvarint32TailBytes : kUvarint64TailBytes;
  if (__builtin_expect(p == limit, 0)) return 0;
  const uint8_t b = *p;
  if (__builtin_expect(b < 0x80, 1)) {
    *out = b;
    return 1;
  }
  if (!kVarintFastTails || static_cast<size_t>(limit - p) < kTailBytes) return 0;
  if constexpr (sizeof(T) == 4) {
    return DecodeUvarint32Tail(p, out);
  } else {
    return DecodeUvarint64Tail(p, out);
  }
}

/// Outcome of DecodeLeb128.
enum class Leb128Status : uint8_t {
  kOk,
  kTruncated,     ///< input ended before the terminating byte
  kTooLong,       ///< every one of max_bytes bytes had the continuation bit
  kOverflow,      ///< the max_bytes-th byte sets bits beyond the type's width
  kNonCanonical,  ///< overlong: ends in a zero group
};

struct Leb128Result {
  uint64_t value = 0;      ///< decoded value (0 on failure)
  size_t length = 0;       ///< kOk: bytes consumed; kTruncated: bytes available;
                           ///< kOverflow / kNonCanonical: index + 1 of the last byte
  Leb128Status status = Leb128Status::kOk;
  uint8_t last_byte = 0;   ///< the terminating byte (kOk, kOverflow, kNonCanonical)
};

/// Strict byte-at-a-time decoder of an unsigned LEB128 of at most `max_bytes` bytes
/// whose final byte may carry at most `last_bits` payload bits, over [p, end).
/// `allow_extra_bits` admits (and drops) bits beyond the width in the last byte;
/// `allow_overlong` admits encodings ending in a zero group.
inline Leb128Result DecodeLeb128(const uint8_t* p, const uint8_t* end, size_t max_bytes,
                                 unsigned last_bits, bool allow_extra_bits,
                                 bool allow_overlong) {
  Leb128Result r;
  uint64_t value = 0;
  for (size_t i = 0; i < max_bytes; ++i) {
    if (p + i == end) {
      r.status = Leb128Status::kTruncated;
      r.length = i;
      return r;
    }
    const uint8_t b = p[i];
    const unsigned shift = static_cast<unsigned>(7 * i);
    if ((b & 0x80) == 0) {
      r.length = i + 1;
      r.last_byte = b;
      if (i + 1 == max_bytes && (b >> last_bits) != 0 && !allow_extra_bits) {
        r.status = Leb128Status::kOverflow;
        return r;
      }
      if (b == 0 && i > 0 && !allow_overlong) {
        r.status = Leb128Status::kNonCanonical;
        return r;
      }
      r.value = value | (static_cast<uint64_t>(b) << shift);
      return r;
    }
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
  }
  r.status = Leb128Status::kTooLong;
  r.length = max_bytes;
  return r;
}

}  // namespace varint_internal
}  // namespace kwire

#include "codec/wire/port_undef.inc"

#endif  // KWIRE_CODEC_WIRE_VARINT_DECODE_H_
