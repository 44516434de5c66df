// Growable big-endian writer for Kafka wire bytes (protocol guide, "Protocol Primitive
// Types"; KIP-482 compact types and tagged fields).
//
// Writer is the only code in kwire that writes raw output bytes. Writes never fail at
// the byte level (the buffer grows); encode-level failures (a string too long for its
// prefix, a non-default value in an absent field, null where not nullable) are recorded
// with Fail(), sticky like Reader's, with the byte offset and field path.
#ifndef KWIRE_CODEC_WIRE_WRITER_H_
#define KWIRE_CODEC_WIRE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/wire/error.h"
#include "codec/wire/reader.h"
#include "codec/wire/types.h"
#include "codec/wire/varint.h"

namespace kwire {

/// Appends wire values to an owned byte buffer.
class Writer {
 public:
  Writer() = default;
  /// Pre-allocates `capacity` bytes.
  explicit Writer(size_t capacity) { buf_.resize(capacity); }

  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Bytes written so far.
  size_t size() const { return size_; }
  const uint8_t* data() const { return buf_.data(); }
  std::span<const uint8_t> bytes() const { return {buf_.data(), size_}; }
  /// Moves the bytes out; the writer is empty afterwards.
  std::vector<uint8_t> Release() {
    buf_.resize(size_);
    size_ = 0;
    return std::move(buf_);
  }

  /// Empties the writer (size 0, no error, no path) and keeps its capacity.
  void Clear() {
    size_ = 0;
    error_ = Error{};
    path_ = nullptr;
  }

  /// True while no encode failure has been recorded.
  bool ok() const { return error_.kind == ErrorKind::kOk; }
  const Error& error() const { return error_; }
  /// The field path recorded with errors; encoders set it as they descend.
  const PathNode* path() const { return path_; }
  void set_path(const PathNode* node) { path_ = node; }
  /// Records an encode failure at the current output offset (first failure wins).
  void Fail(ErrorKind kind, std::string detail = {});

  void WriteInt8(int8_t v) { *Grow(1) = static_cast<uint8_t>(v); }
  void WriteUint8(uint8_t v) { *Grow(1) = v; }
  void WriteInt16(int16_t v) { WriteBig<uint16_t>(static_cast<uint16_t>(v)); }
  void WriteUint16(uint16_t v) { WriteBig<uint16_t>(v); }
  void WriteInt32(int32_t v) { WriteBig<uint32_t>(static_cast<uint32_t>(v)); }
  void WriteUint32(uint32_t v) { WriteBig<uint32_t>(v); }
  void WriteInt64(int64_t v) { WriteBig<uint64_t>(static_cast<uint64_t>(v)); }
  /// IEEE 754 binary64, big-endian, bit pattern preserved.
  void WriteFloat64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    WriteBig<uint64_t>(bits);
  }
  void WriteBool(bool b) { *Grow(1) = b ? 1 : 0; }
  void WriteUuid(const Uuid& u) { WriteRaw(u.bytes.data(), 16); }

  /// Unsigned LEB128, 1–5 bytes (canonical).
  void WriteUvarint(uint32_t v) {
    if (v < 0x80) {
      *Grow(1) = static_cast<uint8_t>(v);
      return;
    }
    Ensure(kMaxUvarintBytes);
    size_ += EncodeUvarint(buf_.data() + size_, v);
  }
  /// Zigzag int32, 1–5 bytes.
  void WriteVarint(int32_t v) { WriteUvarint(ZigZagEncode32(v)); }
  /// Zigzag int64, 1–10 bytes.
  void WriteVarlong(int64_t v) {
    Ensure(kMaxVarlongBytes);
    size_ += EncodeVarlong(buf_.data() + size_, v);
  }

  void WriteRaw(const void* p, size_t n) {
    if (n == 0) return;
    std::memcpy(Grow(n), p, n);
  }
  void WriteRaw(std::string_view s) { WriteRaw(s.data(), s.size()); }

  /// Length prefix of a string (int16, or compact uvarint len+1); −1 writes null.
  void WriteStringLength(bool compact, int64_t len) {
    if (compact) {
      WriteUvarint(static_cast<uint32_t>(len + 1));
    } else {
      WriteInt16(static_cast<int16_t>(len));
    }
  }
  /// Length prefix of bytes/records (int32, or compact uvarint len+1); −1 writes null.
  void WriteBytesLength(bool compact, int64_t len) {
    if (compact) {
      WriteUvarint(static_cast<uint32_t>(len + 1));
    } else {
      WriteInt32(static_cast<int32_t>(len));
    }
  }
  /// Array count (int32, or compact uvarint n+1); −1 writes null.
  void WriteArrayCount(bool compact, int64_t n) { WriteBytesLength(compact, n); }

  /// Reserves 4 bytes for an int32 written later with PatchInt32 (frame size, batch
  /// length). Returns the position of the reserved bytes.
  size_t ReserveInt32() {
    const size_t pos = size_;
    WriteInt32(0);
    return pos;
  }
  /// Overwrites the int32 at `pos` (from ReserveInt32) with `v`, big-endian.
  void PatchInt32(size_t pos, int32_t v) {
    const uint32_t be = __builtin_bswap32(static_cast<uint32_t>(v));
    std::memcpy(buf_.data() + pos, &be, 4);
  }
  /// Mutable access to already-written bytes (CRC patching).
  uint8_t* MutableAt(size_t pos) { return buf_.data() + pos; }

  /// Makes room for `n` more bytes without writing them.
  void Ensure(size_t n) {
    if (KWIRE_UNLIKELY(buf_.size() - size_ < n)) GrowSlow(n);
  }

 private:
  uint8_t* Grow(size_t n) {
    Ensure(n);
    uint8_t* p = buf_.data() + size_;
    size_ += n;
    return p;
  }
  void GrowSlow(size_t n);
  template <typename T>
  void WriteBig(T v) {
    if constexpr (sizeof(T) == 2) v = __builtin_bswap16(v);
    if constexpr (sizeof(T) == 4) v = __builtin_bswap32(v);
    if constexpr (sizeof(T) == 8) v = __builtin_bswap64(v);
    std::memcpy(Grow(sizeof(T)), &v, sizeof(T));
  }

  std::vector<uint8_t> buf_;  // buf_.size() is the capacity; size_ bytes are written
  size_t size_ = 0;
  const PathNode* path_ = nullptr;
  Error error_;
};

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_WRITER_H_
