// Bounded, sticky-error reader over Kafka wire bytes (protocol guide, "Protocol
// Primitive Types"; KIP-482 for compact types and tagged fields).
//
// Reader is the only code in kwire that reads raw input bytes. Every read is checked
// inside it. The first failure is sticky: it records the ErrorKind, the absolute byte
// offset where the failing value starts, and the field path (see PathNode), then drains
// the cursor, so every later read returns a zero value without touching memory, every
// later count is 0 and nothing after it allocates or loops. Callers may therefore read a
// whole structure and check ok() once at the end.
//
// Strict by default: decode followed by encode is byte-identical. The leniencies of the
// Java implementation are available as opt-in Quirks; each one breaks byte-exact round
// trip for the inputs it admits.
#ifndef KWIRE_CODEC_WIRE_READER_H_
#define KWIRE_CODEC_WIRE_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "codec/wire/error.h"
#include "codec/wire/path.h"
#include "codec/wire/port.h"
#include "codec/wire/quirks.h"
#include "codec/wire/types.h"
#include "codec/wire/utf8.h"
#include "codec/wire/varint.h"
#include "codec/wire/varint_decode.h"

// Last include: kwire's hints, removed again at the end of this file.
#include "codec/wire/port_def.inc"

namespace kwire {

/// Default allocation budget of one decode (DecodeOptions::max_alloc_bytes): 128 MiB.
/// A frame at the default 100 MiB frame limit (kDefaultMaxFrameSize, Kafka's
/// socket.request.max.bytes) that copies its records needs a little over its own size;
/// without a budget a frame of empty compact strings (1 wire byte, 32 bytes each in
/// memory) would make the decoder allocate 3.2 GiB.
inline constexpr size_t kDefaultMaxAllocBytes = size_t{128} << 20;

/// Options of the wire reader: what it accepts and how much it may allocate. Default:
/// strict, with the default budget. Only wire concepts live here; how a message decode
/// treats `records` fields (validated, borrowed) is the schema layer's (RecordsDecode in
/// codec/schema/decode.h), and a frame decode's options are flat (FrameOptions).
struct DecodeOptions {
  uint32_t quirks = 0;  ///< Bitwise OR of Quirk values (quirks.h).
  /// Allocation budget: the most memory, in bytes, one decode (one DecodeMessage, one
  /// frame decode, one DecodeStruct over a Reader) may allocate for the value it builds.
  /// Charged before allocating, where the decoder sizes an array (count × the element's
  /// in-memory size), copies a string or bytes value longer than std::string's inline
  /// capacity, copies a records field (none when records are borrowed), or keeps an
  /// unknown tagged field; records validation works within what is left
  /// (RecordsOptions::max_alloc_bytes; its memory is freed before the decode returns).
  /// Over budget: kAllocationBudget at the length or count that asked, nothing allocated.
  /// The decoder's own bookkeeping (paths, a few hundred bytes) is not charged. Default
  /// kDefaultMaxAllocBytes; SIZE_MAX turns the budget off.
  size_t max_alloc_bytes = kDefaultMaxAllocBytes;
};

/// Bounded cursor over `[data, data + size)`. See the file comment for the contract.
/// Offsets reported in errors are `base_offset + position`, so a Reader over a slice of
/// a frame reports offsets within the frame.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size, size_t base_offset = 0,
         DecodeOptions options = {})
      : begin_(data), cur_(data), end_(data + size), base_(base_offset), options_(options),
        alloc_left_(options.max_alloc_bytes) {}
  explicit Reader(std::span<const uint8_t> data, size_t base_offset = 0,
                  DecodeOptions options = {})
      : Reader(data.data(), data.size(), base_offset, options) {}

  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  /// True while no read has failed.
  bool ok() const { return error_.kind == ErrorKind::kOk; }
  /// The first failure (kind kOk while ok()).
  const Error& error() const { return error_; }
  /// Absolute offset of the next byte to read.
  size_t offset() const { return base_ + static_cast<size_t>(cur_ - begin_); }
  /// Bytes left before the current limit (0 after a failure).
  size_t remaining() const { return static_cast<size_t>(end_ - cur_); }
  /// True when no bytes are left before the current limit.
  bool AtEnd() const { return cur_ == end_; }
  /// The unread bytes before the current limit, nothing consumed (empty after a
  /// failure). For decoders with a local-pointer fast path (codec/records), which then
  /// Skip() exactly what they consumed.
  std::span<const uint8_t> Unread() const {
    return {cur_, static_cast<size_t>(end_ - cur_)};
  }
  /// The DecodeOptions in force.
  const DecodeOptions& options() const { return options_; }
  /// The DecodeOptions::quirks in force.
  uint32_t quirks() const { return options_.quirks; }
  bool has_quirk(Quirk q) const { return (options_.quirks & q) != 0; }

  /// Allocation budget (DecodeOptions::max_alloc_bytes): takes `bytes`, about to be
  /// allocated for the decoded value, from what is left. When they do not fit, records
  /// kAllocationBudget at absolute offset `at` (the length or count that sized the
  /// allocation), takes nothing and returns false. Also false after an earlier failure.
  bool Charge(size_t bytes, size_t at) {
    if (KWIRE_LIKELY(bytes <= alloc_left_ && ok())) {
      alloc_left_ -= bytes;
      return true;
    }
    return OverBudget(bytes, at);
  }
  /// Bytes of the allocation budget not yet charged.
  size_t alloc_budget_left() const { return alloc_left_; }

  /// The field path recorded with errors. Decoders set it as they descend.
  const PathNode* path() const { return path_; }
  void set_path(const PathNode* node) { path_ = node; }

  // ---- Fixed-width big-endian integers (protocol guide: INT8..INT64, UINT16,
  // FLOAT64, BOOLEAN, UUID). Zero on failure.
  int8_t ReadInt8() {
    if (KWIRE_UNLIKELY(cur_ == end_)) return static_cast<int8_t>(Truncated(1));
    return static_cast<int8_t>(*cur_++);
  }
  uint8_t ReadUint8() { return static_cast<uint8_t>(ReadInt8()); }
  int16_t ReadInt16() { return static_cast<int16_t>(ReadBig<uint16_t>()); }
  uint16_t ReadUint16() { return ReadBig<uint16_t>(); }
  int32_t ReadInt32() { return static_cast<int32_t>(ReadBig<uint32_t>()); }
  uint32_t ReadUint32() { return ReadBig<uint32_t>(); }
  int64_t ReadInt64() { return static_cast<int64_t>(ReadBig<uint64_t>()); }
  /// IEEE 754 binary64, big-endian. Every bit pattern (NaNs included) is preserved.
  double ReadFloat64() {
    const uint64_t bits = ReadBig<uint64_t>();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  /// 0 → false, 1 → true; other bytes fail kInvalidBool unless kQuirkAnyNonZeroBool.
  bool ReadBool();
  /// 16 raw bytes.
  Uuid ReadUuid();

  // ---- Variable-length integers. Inline: a predicted 1-byte path, then (with at least
  // 8 / 10 bytes left) the fast tails of varint_decode.h, a predicted 2-byte path and a
  // branch-free 3–10 byte decoder; near the end of the input, and for anything the fast
  // tails decline, the strict byte-at-a-time decoder out of line, which reports the
  // exact error (or applies the quirks).
  /// Unsigned LEB128, 1–5 bytes, value ≤ 2^32−1. Fails kVarintTooLong (6th byte),
  /// kVarintOverflow (bits beyond 32), kVarintNonCanonical (overlong), kTruncated.
  uint32_t ReadUvarint() {
    if (KWIRE_LIKELY(cur_ != end_)) {
      const uint8_t b = *cur_;  // one load (a byte store/load may alias cur_ itself)
      if (KWIRE_LIKELY(b < 0x80)) {
        ++cur_;
        return b;
      }
    }
    return ReadUvarint32Tail(/*zigzag=*/false);
  }
  /// Zigzag int32 in 1–5 bytes; same failures as ReadUvarint.
  KWIRE_ALWAYS_INLINE int32_t ReadVarint() {
    if (KWIRE_LIKELY(cur_ != end_)) {
      const uint8_t b = *cur_;
      if (KWIRE_LIKELY(b < 0x80)) {
        ++cur_;
        return ZigZagDecode32(b);
      }
    }
    return ZigZagDecode32(ReadUvarint32Tail(/*zigzag=*/true));
  }
  /// Zigzag int64 in 1–10 bytes; kVarintTooLong past 10 bytes, kVarintOverflow for bits
  /// beyond 64 in the 10th byte.
  KWIRE_ALWAYS_INLINE int64_t ReadVarlong() {
    if (KWIRE_LIKELY(cur_ != end_)) {
      const uint8_t b = *cur_;
      if (KWIRE_LIKELY(b < 0x80)) {
        ++cur_;
        return ZigZagDecode64(b);
      }
    }
    if constexpr (varint_internal::kVarintFastTails) {
      if (KWIRE_LIKELY(remaining() >= varint_internal::kUvarint64TailBytes)) {
        uint64_t v;
        const size_t n = varint_internal::DecodeUvarint64Tail(cur_, &v);
        if (KWIRE_LIKELY(n != 0)) {
          cur_ += n;
          return ZigZagDecode64(v);
        }
      }
    }
    return ZigZagDecode64(ReadVarlongSlow());
  }

  // ---- Raw bytes.
  /// A view of the next `n` bytes (valid as long as the input is), or empty on failure.
  std::string_view ReadRaw(size_t n) {
    if (KWIRE_UNLIKELY(remaining() < n)) {
      Truncated(n);
      return {};
    }
    const char* p = reinterpret_cast<const char*>(cur_);
    cur_ += n;
    return {p, n};
  }
  /// Skips `n` bytes (kTruncated if fewer are left).
  void Skip(size_t n) { ReadRaw(n); }
  /// The `n` bytes of a string value (after its length prefix: protocol guide STRING /
  /// COMPACT_STRING, "encoded using UTF-8"), checked to be well-formed UTF-8 (RFC 3629;
  /// codec/wire/utf8.h): kInvalidUtf8 at the absolute offset of the first bad byte
  /// (detail: what is wrong), unless kQuirkInvalidUtf8; kTruncated if fewer than `n`
  /// bytes are left. Empty on failure. ASCII is checked inline, 8 bytes at a time.
  std::string_view ReadUtf8(size_t n) {
    const std::string_view v = ReadRaw(n);  // empty after a failure
    const size_t bad = FindInvalidUtf8(v);
    if (KWIRE_LIKELY(bad == v.size())) return v;
    return InvalidUtf8(v, bad);
  }

  // ---- Length prefixes. Each returns the length (checked ≤ remaining()), or −1 for
  // null. Null is accepted only when `nullable`; otherwise kUnexpectedNull. Negative
  // values other than −1 fail kInvalidLength (unless kQuirkAnyNegativeLengthIsNull and
  // nullable).

  // ReadStringLength and ReadBytesLength are inline for the common case (a non-null
  // length that fits); anything else is re-read from the prefix's first byte out of
  // line, which classifies it exactly as before.

  /// STRING / NULLABLE_STRING (int16 length) or COMPACT_[NULLABLE_]STRING (uvarint
  /// length+1). Kafka caps strings at 32767 bytes in both forms: longer is kInvalidLength.
  int64_t ReadStringLength(bool compact, bool nullable) {
    const uint8_t* const start = cur_;
    const uint64_t len = compact ? uint64_t{ReadUvarint()} - 1
                                 : static_cast<uint64_t>(int64_t{ReadInt16()});
    // A failed read returns 0 (compact: 2^64−1, slow path): 0 ≤ remaining() is fine.
    if (KWIRE_LIKELY(len <= 0x7fff) && KWIRE_LIKELY(len <= remaining())) {
      return static_cast<int64_t>(len);
    }
    return ReadLengthSlow(start, compact, nullable, /*bytes=*/false);
  }
  /// BYTES / NULLABLE_BYTES / RECORDS (int32 length) or COMPACT_* (uvarint length+1).
  int64_t ReadBytesLength(bool compact, bool nullable) {
    const uint8_t* const start = cur_;
    const uint64_t len = compact ? uint64_t{ReadUvarint()} - 1
                                 : static_cast<uint64_t>(int64_t{ReadInt32()});
    if (KWIRE_LIKELY(len <= 0x7fffffff) && KWIRE_LIKELY(len <= remaining())) {
      return static_cast<int64_t>(len);
    }
    return ReadLengthSlow(start, compact, nullable, /*bytes=*/true);
  }
  /// ARRAY (int32 count) or COMPACT_ARRAY (uvarint count+1). A count above
  /// (remaining() - reserved) / max(1, min_element_size) fails kCountTooLarge before any
  /// allocation; one that fits but exceeds INT32_MAX (inputs above 2 GiB) fails
  /// kInvalidLength. `reserved`: bytes at the end of the current limit that are already
  /// spoken for (the decoder passes the minimum size of the enclosing arrays' elements
  /// still to come), so that nested counts cannot each claim the same bytes.
  /// Inline for the common case (a non-null count that fits, checked with a multiply,
  /// not a division); anything else is re-read out of line and classified exactly.
  int64_t ReadArrayCount(bool compact, bool nullable, size_t min_element_size,
                         size_t reserved = 0) {
    const uint8_t* const start = cur_;
    const uint64_t n = compact ? uint64_t{ReadUvarint()} - 1
                               : static_cast<uint64_t>(int64_t{ReadInt32()});
    const size_t left = remaining() > reserved ? remaining() - reserved : 0;
    // n < 2^31 and min < 2^32 (a struct's minimum wire size): the product fits 64 bits.
    // A failed read returns 0 (compact: 2^64−1, slow path): a count of 0 always fits.
    if (KWIRE_LIKELY(n <= 0x7fffffff) && KWIRE_LIKELY(min_element_size <= 0xffffffff) &&
        KWIRE_LIKELY(n * (min_element_size == 0 ? 1 : min_element_size) <= left)) {
      return static_cast<int64_t>(n);
    }
    return ReadArrayCountSlow(start, compact, nullable, min_element_size, reserved);
  }

  /// Nullable struct presence marker (int8): returns true if present (1), false if null
  /// (−1). Other values fail kInvalidValue unless kQuirkAnyStructMarker.
  /// A −1 with `nullable` false fails kUnexpectedNull.
  bool ReadStructPresence(bool nullable);

  // ---- Tagged-field section (KIP-482): uvarint count, then per field uvarint tag,
  // uvarint size, payload.
  /// Reads the count; a count above remaining() / 2 fails kCountTooLarge (each field
  /// takes at least two bytes).
  uint32_t ReadTaggedFieldCount();
  /// Reads one tag header. `previous` is the last tag of this section or −1; a tag not
  /// above it fails kTagOutOfOrder / kTagDuplicate unless kQuirkUnorderedTags. Returns
  /// false on failure, with `*tag` and `*size` set to 0. `size` is checked ≤ remaining()
  /// (CheckTagSize) unless kQuirkKnownTagSizeIgnored, under which only an unknown tag's
  /// size is checked, by the caller, once it knows the tag is unknown: Java reads a known
  /// tag's value by its type and never looks at the size (generated `read()` methods).
  bool ReadTagHeader(int64_t previous, uint32_t* tag, uint32_t* size);
  /// Fails kTruncated at `tag_at` (the tag header's offset) when `size` > remaining().
  bool CheckTagSize(size_t tag_at, uint32_t tag, uint32_t size);

  // ---- Nested limits (like upb's PushLimit). PushLimit(n) restricts reading to the
  // next `n` bytes (kTruncated if fewer are left) and returns a token for PopLimit,
  // which restores the outer limit. After a failure the reader stays drained.
  size_t PushLimit(size_t n) {
    const size_t outer = remaining();
    if (KWIRE_UNLIKELY(n > outer)) return static_cast<size_t>(Truncated(n));  // 0
    end_ = cur_ + n;
    return outer - n;  // outer bytes beyond the new limit
  }
  void PopLimit(size_t token) {
    if (KWIRE_LIKELY(ok())) end_ += token;  // after a failure: stay drained
  }

  /// The limit of one tagged field's payload (KIP-482), whose tag header starts at
  /// absolute offset `tag_at`: like PushLimit(n), but while it is the innermost tag
  /// limit, a read that needs bytes beyond it fails kTagSizeMismatch at `tag_at` (the
  /// value is longer than its declared size) instead of kTruncated. Every byte up to
  /// the limit exists (n > remaining() is itself kTruncated), so a read past it can
  /// only mean a size that disagrees with the value. Pop with PopTagLimit.
  struct TagLimit {
    size_t token;         ///< PushLimit token.
    size_t outer_tag_at;  ///< Enclosing tag limit's `tag_at`, restored by PopTagLimit.
  };
  TagLimit PushTagLimit(size_t n, size_t tag_at);
  void PopTagLimit(TagLimit limit);

  /// Records a failure at absolute offset `at` (first failure wins) and drains.
  void Fail(ErrorKind kind, size_t at, std::string detail = {});
  /// Records a complete failure found by another decoder over this reader's bytes
  /// (e.g. records validation: kind, absolute offset, its own path and detail); first
  /// failure wins, then drains. `e` must not be ok().
  void Fail(const Error& e);
  /// Records a failure at the current offset.
  void Fail(ErrorKind kind, std::string detail = {}) { Fail(kind, offset(), std::move(detail)); }

 private:
  template <typename T>
  T ReadBig() {
    if (KWIRE_UNLIKELY(remaining() < sizeof(T))) return static_cast<T>(Truncated(sizeof(T)));
    const T v = LoadBigEndian<T>(cur_);
    cur_ += sizeof(T);
    return v;
  }
  // Records kTruncated (need n) at the current offset; returns 0.
  int Truncated(size_t need);
  // `v` (just read) is not UTF-8 from index `bad`: `v` under kQuirkInvalidUtf8, else
  // records kInvalidUtf8 at its absolute offset and returns empty.
  std::string_view InvalidUtf8(std::string_view v, size_t bad);
  // A uvarint / varint whose first byte is ≥ 0x80 (the caller checked): the fast tail
  // with 8 bytes left, else (or when the tail declines) the strict slow path.
  KWIRE_ALWAYS_INLINE uint32_t ReadUvarint32Tail(bool zigzag) {
    if constexpr (varint_internal::kVarintFastTails) {
      if (KWIRE_LIKELY(remaining() >= varint_internal::kUvarint32TailBytes)) {
        uint32_t v;
        const size_t n = varint_internal::DecodeUvarint32Tail(cur_, &v);
        if (KWIRE_LIKELY(n != 0)) {
          cur_ += n;
          return v;
        }
      }
    }
    return zigzag ? ReadVarintSlow() : ReadUvarintSlow();
  }
  // Strict byte-at-a-time decoders with exact errors ("uvarint" / "varint" / "varlong"
  // in the detail).
  uint32_t ReadUvarintSlow();
  uint32_t ReadVarintSlow();
  uint64_t ReadVarlongSlow();
  // Decodes an unsigned LEB128 of at most `max_bytes` whose final byte may carry at most
  // `last_bits` payload bits. `what` names the type in error details.
  uint64_t ReadLeb128(size_t max_bytes, unsigned last_bits, const char* what);
  // ReadStringLength / ReadBytesLength for everything but a non-null length that fits:
  // returns 0 if a read already failed, else rewinds to `start` (the prefix) and
  // classifies the length (null, negative, above the cap, past the end).
  int64_t ReadLengthSlow(const uint8_t* start, bool compact, bool nullable, bool bytes);
  // ReadArrayCount's slow path, likewise: 0 after a failure, else rewinds to `start`.
  int64_t ReadArrayCountSlow(const uint8_t* start, bool compact, bool nullable,
                             size_t min_element_size, size_t reserved);
  // Charge's failure path.
  bool OverBudget(size_t bytes, size_t at);

  const uint8_t* begin_;
  const uint8_t* cur_;
  const uint8_t* end_;
  size_t base_;
  DecodeOptions options_;
  size_t alloc_left_;  // allocation budget not yet charged
  const PathNode* path_ = nullptr;
  static constexpr size_t kNoTag = static_cast<size_t>(-1);
  size_t tag_at_ = kNoTag;  // innermost PushTagLimit's tag header offset, or kNoTag
  Error error_;
};

}  // namespace kwire

#include "codec/wire/port_undef.inc"

#endif  // KWIRE_CODEC_WIRE_READER_H_
