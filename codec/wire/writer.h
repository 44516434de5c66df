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
#include <type_traits>
#include <vector>

#include "codec/wire/error.h"
#include "codec/wire/path.h"
#include "codec/wire/port.h"
#include "codec/wire/quirks.h"
#include "codec/wire/types.h"
#include "codec/wire/utf8.h"
#include "codec/wire/varint.h"

// Last include: kwire's hints, removed again at the end of this file.
#include "codec/wire/port_def.inc"

namespace kwire {

/// Options for encoding. Default: strict (what the encoder writes decodes strictly).
struct EncodeOptions {
  /// Quirk bits (quirks.h) that also apply to encoding; only kQuirkInvalidUtf8 does:
  /// strings that are not well-formed UTF-8 are written as they are instead of failing
  /// kInvalidUtf8, so that a message decoded under that quirk re-encodes byte-exactly.
  /// Other bits are ignored: callers may pass the DecodeOptions::quirks they decoded with.
  uint32_t quirks = 0;
};

/// Appends wire values to an owned byte buffer.
class Writer {
 public:
  Writer() = default;
  /// Pre-allocates `capacity` bytes.
  explicit Writer(size_t capacity) {
    buf_.resize(capacity);
    Rebase(0);
  }

  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Bytes written so far.
  size_t size() const { return static_cast<size_t>(cur_ - buf_.data()); }
  const uint8_t* data() const { return buf_.data(); }
  std::span<const uint8_t> bytes() const { return {buf_.data(), size()}; }
  /// Moves the bytes out; the writer is empty afterwards.
  std::vector<uint8_t> Release() {
    buf_.resize(size());
    std::vector<uint8_t> out = std::move(buf_);
    buf_.clear();
    Rebase(0);
    return out;
  }

  /// The EncodeOptions in force (default strict). Kept by Clear().
  const EncodeOptions& options() const { return options_; }
  void set_options(const EncodeOptions& options) { options_ = options; }

  /// Empties the writer (size 0, no error, no path) and keeps its capacity and options.
  void Clear() {
    cur_ = buf_.data();
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
  /// Checks a string value before it is written: true if it is well-formed UTF-8
  /// (RFC 3629) or options() allow kQuirkInvalidUtf8; else records kInvalidUtf8 at the
  /// current output offset (detail: the first bad byte's index in the string and what
  /// is wrong) and returns false. ASCII is checked inline, 8 bytes at a time.
  bool CheckUtf8(std::string_view s) {
    const size_t bad = FindInvalidUtf8(s);
    if (KWIRE_LIKELY(bad == s.size())) return true;
    return InvalidUtf8(s, bad);
  }

  void WriteInt8(int8_t v) { WriteUint8(static_cast<uint8_t>(v)); }
  void WriteUint8(uint8_t v) {
    Ensure(1);
    uint8_t* p = cur_;
    cur_ = p + 1;
    *p = v;
  }
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
  void WriteBool(bool b) { WriteUint8(b ? 1 : 0); }
  void WriteUuid(const Uuid& u) { WriteRaw(u.bytes.data(), 16); }

  /// Unsigned LEB128, 1–5 bytes (canonical).
  void WriteUvarint(uint32_t v) {
    Ensure(kMaxUvarintBytes);
    uint8_t* p = cur_;
    cur_ = p + EncodeUvarint(p, v);
  }
  /// Zigzag int32, 1–5 bytes.
  void WriteVarint(int32_t v) { WriteUvarint(ZigZagEncode32(v)); }
  /// Zigzag int64, 1–10 bytes.
  void WriteVarlong(int64_t v) {
    Ensure(kMaxVarlongBytes);
    uint8_t* p = cur_;
    cur_ = p + EncodeVarlong(p, v);
  }

  /// Copies `n` bytes. Up to 64 bytes are copied inline with two overlapping fixed-size
  /// loads and stores (no call, no loop); longer runs go to memcpy.
  KWIRE_ALWAYS_INLINE void WriteRaw(const void* p, size_t n) {
    if (n == 0) return;  // also keeps `p` (null for an empty view) out of memcpy
    Ensure(n);
    uint8_t* d = cur_;
    cur_ = d + n;
    CopyBytes(d, static_cast<const uint8_t*>(p), n);
  }
  KWIRE_ALWAYS_INLINE void WriteRaw(std::string_view s) { WriteRaw(s.data(), s.size()); }

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
  /// A non-null compact string or compact bytes value (KIP-482): uvarint length+1, then
  /// the bytes; one capacity check and one cursor update for both. The caller has
  /// checked the length against the type's limit (32767 for strings, 2^31−1 for bytes),
  /// so length+1 fits the uvarint's 32 bits.
  KWIRE_ALWAYS_INLINE void WriteCompactString(std::string_view s) {
    const size_t n = s.size();
    const uint32_t prefix = static_cast<uint32_t>(n + 1);
    Ensure(n + kMaxUvarintBytes);
    uint8_t* d = cur_;
    d += EncodeUvarint(d, prefix);
    cur_ = d + n;
    CopyBytes(d, reinterpret_cast<const uint8_t*>(s.data()), n);
  }

  /// Array count (int32, or compact uvarint n+1); −1 writes null.
  void WriteArrayCount(bool compact, int64_t n) { WriteBytesLength(compact, n); }

  /// Reserves 4 bytes for an int32 written later with PatchInt32 (frame size, batch
  /// length). Returns the position of the reserved bytes.
  size_t ReserveInt32() {
    const size_t pos = size();
    WriteInt32(0);
    return pos;
  }
  /// Overwrites the int32 at `pos` (from ReserveInt32) with `v`, big-endian.
  void PatchInt32(size_t pos, int32_t v) {
    StoreBigEndian(buf_.data() + pos, v);
  }
  /// Reserves one byte for a uvarint written later with PatchUvarint (a tagged field's
  /// size, KIP-482, written before its value is). Returns the position of the byte.
  size_t ReserveUvarint() {
    const size_t pos = size();
    WriteUint8(0);
    return pos;
  }
  /// Writes uvarint `v` at `pos` (from ReserveUvarint). A value of 128 or more needs 2–5
  /// bytes: the bytes written after `pos` move up to make room (one memmove; a tagged
  /// field's value is rarely that long).
  void PatchUvarint(size_t pos, uint32_t v) {
    if (KWIRE_LIKELY(v < 0x80)) {
      buf_[pos] = static_cast<uint8_t>(v);
    } else {
      PatchLongUvarint(pos, v);
    }
  }
  /// Mutable access to already-written bytes (CRC patching).
  uint8_t* MutableAt(size_t pos) { return buf_.data() + pos; }

  /// Writes `n` signed integers of T (int8/int16/int32/int64: the elements of a Kafka
  /// array of them) big-endian, with one capacity check for all n·sizeof(T) bytes.
  template <typename T>
  void WriteBigEndianArray(const T* v, size_t n) {
    static_assert(std::is_integral_v<T> && std::is_signed_v<T>);
    if (n == 0) return;
    Ensure(n * sizeof(T));
    uint8_t* p = cur_;
    cur_ = p + n * sizeof(T);
    for (size_t i = 0; i < n; ++i) StoreBigEndian(p + i * sizeof(T), v[i]);
  }

  /// Makes room for `n` more bytes without writing them.
  void Ensure(size_t n) {
    if (KWIRE_UNLIKELY(static_cast<size_t>(end_ - cur_) < n)) GrowSlow(n);
  }

 private:
  void PatchLongUvarint(size_t pos, uint32_t v);
  /// n bytes from s to d (n = 0: nothing, `s` untouched): up to 64 inline, else memcpy.
  static KWIRE_ALWAYS_INLINE void CopyBytes(uint8_t* d, const uint8_t* s, size_t n) {
    if (KWIRE_LIKELY(n - 1 < 64)) {
      CopyShort(d, s, n);
    } else if (n != 0) {
      std::memcpy(d, s, n);
    }
  }
  /// 1 ≤ n ≤ 64 bytes from s to d: each size class is two overlapping fixed-size copies
  /// (fixed-size memcpy compiles to single loads and stores), never outside [s, s+n)
  /// or [d, d+n).
  static KWIRE_ALWAYS_INLINE void CopyShort(uint8_t* d, const uint8_t* s, size_t n) {
    if (n >= 8) {
      if (n >= 32) {
        Copy2x<32>(d, s, n);
      } else if (n >= 16) {
        Copy2x<16>(d, s, n);
      } else {
        Copy2x<8>(d, s, n);
      }
    } else if (n >= 4) {
      Copy2x<4>(d, s, n);
    } else {
      // 1–3 bytes: first, middle and last (some coincide).
      const uint8_t a = s[0], b = s[n >> 1], c = s[n - 1];
      d[0] = a;
      d[n >> 1] = b;
      d[n - 1] = c;
    }
  }
  /// K ≤ n ≤ 2K bytes: [0, K) and [n−K, n).
  /// Source and destination never overlap (the source is not inside the writer's buffer).
  template <size_t K>
  static KWIRE_ALWAYS_INLINE void Copy2x(uint8_t* d, const uint8_t* s, size_t n) {
    std::memcpy(d, s, K);
    std::memcpy(d + n - K, s + n - K, K);
  }
  void GrowSlow(size_t n);
  bool InvalidUtf8(std::string_view s, size_t bad);
  /// Points the cursors at buf_ with `used` bytes written.
  void Rebase(size_t used) {
    cur_ = buf_.data() + used;
    end_ = buf_.data() + buf_.size();
  }
  template <typename T>
  void WriteBig(T v) {
    Ensure(sizeof(T));
    uint8_t* p = cur_;
    cur_ = p + sizeof(T);
    StoreBigEndian(p, v);
  }

  // buf_.size() is the capacity; [buf_.data(), cur_) is written, [cur_, end_) free.
  // Every write reads cur_ once, advances it, then stores: a byte store may alias the
  // writer's own members, so nothing is re-read after it.
  std::vector<uint8_t> buf_;
  uint8_t* cur_ = nullptr;
  uint8_t* end_ = nullptr;
  const PathNode* path_ = nullptr;
  Error error_;
  EncodeOptions options_;
};

}  // namespace kwire

#include "codec/wire/port_undef.inc"

#endif  // KWIRE_CODEC_WIRE_WRITER_H_
