// Byte order and unaligned access: the one place kwire turns bytes into integers and
// back (the protocol guide, "Protocol Primitive Types": INT16/INT32/INT64 and the
// record batch header are big-endian; the LZ4 frame format is little-endian).
//
// Every function is a fixed-size memcpy (one load or store; no alignment needed, no
// aliasing violation) plus a byte swap only where the host's order differs, so the
// result is right on big- and little-endian hosts alike. The caller guarantees that
// sizeof(T) bytes are readable (or writable) at `p`; these are the unchecked building
// blocks of Reader and Writer, which check.
#ifndef KWIRE_CODEC_WIRE_PORT_H_
#define KWIRE_CODEC_WIRE_PORT_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kwire {

/// True on a little-endian host (every platform kwire is tested on).
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr bool kLittleEndianHost = true;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
inline constexpr bool kLittleEndianHost = false;
#else
#error "kwire: unknown byte order (__BYTE_ORDER__ undefined)"
#endif

/// `v` with its bytes reversed. T: an integer of 1, 2, 4 or 8 bytes.
template <typename T>
[[gnu::always_inline]] constexpr T ByteSwap(T v) {
  static_assert(std::is_integral_v<T>, "ByteSwap: integers only");
  using U = std::make_unsigned_t<T>;
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<U>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<U>(v)));
  } else {
    static_assert(sizeof(T) == 8, "ByteSwap: 1, 2, 4 or 8 bytes");
    return static_cast<T>(__builtin_bswap64(static_cast<U>(v)));
  }
}

/// The T stored at `p` in the host's byte order (no alignment needed).
template <typename T>
[[gnu::always_inline]] inline T LoadUnaligned(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Stores `v` at `p` in the host's byte order (no alignment needed).
template <typename T>
[[gnu::always_inline]] inline void StoreUnaligned(void* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof v);
}

/// The big-endian (network order, Kafka's) integer T at `p`; signed T reads two's
/// complement, e.g. LoadBigEndian<int32_t> of `ff ff ff fe` is −2.
template <typename T>
[[gnu::always_inline]] inline T LoadBigEndian(const void* p) {
  const T v = LoadUnaligned<T>(p);
  if constexpr (kLittleEndianHost) {
    return ByteSwap(v);
  } else {
    return v;
  }
}

/// Stores `v` big-endian at `p`.
template <typename T>
[[gnu::always_inline]] inline void StoreBigEndian(void* p, T v) {
  if constexpr (kLittleEndianHost) v = ByteSwap(v);
  StoreUnaligned(p, v);
}

/// The little-endian integer T at `p` (the LZ4 frame format's fields).
template <typename T>
[[gnu::always_inline]] inline T LoadLittleEndian(const void* p) {
  const T v = LoadUnaligned<T>(p);
  if constexpr (kLittleEndianHost) {
    return v;
  } else {
    return ByteSwap(v);
  }
}

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_PORT_H_
