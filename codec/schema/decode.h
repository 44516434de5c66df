// The decode visitor: reads any generated struct at a given version from a Reader.
//
// Written once for every message (see spec.h). Version gating, classic vs compact
// encodings (KIP-482 flexible versions), nullability, nullable-struct presence markers,
// the tagged-field section (known tags typed, unknown tags preserved) and the array
// count bound all live here. Fields absent at the version keep their default value.
// Failures are recorded in the Reader (sticky) with the field path.
#ifndef KWIRE_CODEC_SCHEMA_DECODE_H_
#define KWIRE_CODEC_SCHEMA_DECODE_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "codec/schema/min_size.h"
#include "codec/schema/spec.h"
#include "codec/wire/reader.h"

namespace kwire {

/// Checks the bytes of `records` fields while a message is decoded (DecodeOptions::
/// records). The message decoder calls Validate for every non-null records field, right
/// after reading its bytes; an implementation records the first failure in `r` with
/// Reader::Fail(const Error&) (absolute offset, path under r.path(), e.g.
/// `ProduceRequest.TopicData[0].PartitionData[0].Records.Batch[0].Record[3]`), which
/// stops the decode. Implemented by codec/records/validate.h (RecordBatch v2 and legacy
/// message sets under the field's RecordsPolicy). Must be safe to call from several
/// threads at once if the options are shared.
class RecordsValidator {
 public:
  virtual ~RecordsValidator() = default;
  /// `field`: the field's spec (f.records is its policy); `version`: the message
  /// version; `bytes`: the field's bytes (length prefix excluded), whose first byte is
  /// at absolute offset `offset` in r's input. r.path() names the field.
  virtual void Validate(Reader& r, const FieldSpec& field, int16_t version,
                        std::span<const uint8_t> bytes, size_t offset) const = 0;
};

namespace schema_internal {

/// Decoding state shared by every level of one message.
struct DecodeContext {
  Reader& r;
  int16_t version;
  bool flexible;  ///< The message version is flexible.
  PathNode* node = nullptr;  ///< Path node of the struct being decoded.
  /// Bytes at the end of the current limit that the enclosing arrays' elements still to
  /// come need (each at least its minimum size). Array counts are bounded by the bytes
  /// left minus these, so that nested arrays, sized before their elements are read,
  /// cannot each claim the same bytes: allocation stays O(frame bytes) at any depth.
  size_t reserved = 0;

  bool Compact(const FieldSpec& f) const { return flexible && f.flexible.Contains(version); }
  bool Nullable(const FieldSpec& f) const { return f.nullable.Contains(version); }
};

template <KafkaStruct S>
void DecodeStruct(DecodeContext& c, S& s);

// ---- Scalars.
inline void DecodeValue(DecodeContext& c, const FieldSpec&, int8_t& v) { v = c.r.ReadInt8(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, int16_t& v) { v = c.r.ReadInt16(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, uint16_t& v) { v = c.r.ReadUint16(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, int32_t& v) { v = c.r.ReadInt32(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, int64_t& v) { v = c.r.ReadInt64(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, double& v) { v = c.r.ReadFloat64(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, bool& v) { v = c.r.ReadBool(); }
inline void DecodeValue(DecodeContext& c, const FieldSpec&, Uuid& v) { v = c.r.ReadUuid(); }

// What copying a string or bytes value of `length` bytes allocates, as charged to the
// allocation budget (DecodeOptions::max_alloc_bytes): std::string keeps up to 15 bytes
// inline (libstdc++, MSVC; libc++ 22, where this over-charges), a longer copy allocates
// length + 1.
inline size_t StringHeapBytes(size_t length) { return length > 15 ? length + 1 : 0; }

// ---- Length-prefixed values. `kind` is the field's (or array element's) wire kind.
// Returns false when the value is null. Out of line.
bool DecodeBlob(DecodeContext& c, FieldType kind, bool compact, bool nullable, std::string& out);

inline void DecodeValue(DecodeContext& c, const FieldSpec& f, std::string& v) {
  DecodeBlob(c, f.type, c.Compact(f), false, v);
}
// Hands a records field's bytes, just read, to DecodeOptions::records (if set).
void ValidateRecords(DecodeContext& c, const FieldSpec& f, std::string_view bytes);
// Reads a records field (copied, or borrowed under DecodeOptions::borrow_records) and
// validates it. Returns false when it is null. Out of line.
bool DecodeRecords(DecodeContext& c, const FieldSpec& f, bool nullable, Records& out);

inline void DecodeValue(DecodeContext& c, const FieldSpec& f, Records& v) {
  DecodeRecords(c, f, false, v);
}

// ---- Structs (non-array struct fields have no prefix unless nullable).
template <KafkaStruct S>
void DecodeValue(DecodeContext& c, const FieldSpec&, S& v) {
  DecodeStruct(c, v);
}

// ---- Arrays.
template <class E>
void DecodeElement(DecodeContext& c, const FieldSpec& f, bool compact, E& e) {
  if constexpr (std::is_same_v<E, std::string>) {
    DecodeBlob(c, f.element, compact, false, e);
  } else {
    DecodeValue(c, f, e);
  }
}

// Reads the count (or null) and the elements into `v`, reusing the elements (and their
// strings' and vectors' capacity) it already holds. Returns false when null.
template <class E>
bool DecodeArray(DecodeContext& c, const FieldSpec& f, bool nullable, std::vector<E>& v) {
  const bool compact = c.Compact(f);
  const size_t min = MinElementSize<E>(c.version, c.flexible, compact);
  const size_t at = c.r.offset();
  const int64_t n = c.r.ReadArrayCount(compact, nullable, min, c.reserved);
  if (n < 0) return false;
  // n ≤ unreserved bytes left / minimum element size: this allocation is O(frame bytes),
  // and within the allocation budget (n < 2^31, so n·sizeof(E) cannot overflow). The
  // budget is charged whether or not `v` already has the capacity, so that a decode's
  // outcome never depends on what the message held before.
  if (n > 0 && !c.r.Charge(static_cast<size_t>(n) * sizeof(E), at)) {
    v.clear();
    return true;
  }
  v.resize(static_cast<size_t>(n));
  if constexpr (kIsFixedWidthInt<E>) {
    // Read in one bounds check: min == sizeof(E), so the count check guaranteed the
    // n·sizeof(E) bytes.
    const std::string_view raw = c.r.ReadRaw(static_cast<size_t>(n) * sizeof(E));
    if (raw.size() != static_cast<size_t>(n) * sizeof(E)) return true;
    E* out = v.data();
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      using U = std::make_unsigned_t<E>;
      U x;
      std::memcpy(&x, raw.data() + i * sizeof(E), sizeof(E));
      if constexpr (sizeof(E) == 2) x = __builtin_bswap16(x);
      if constexpr (sizeof(E) == 4) x = __builtin_bswap32(x);
      if constexpr (sizeof(E) == 8) x = __builtin_bswap64(x);
      out[i] = static_cast<E>(x);
    }
    return true;
  }
  const size_t outer_reserved = c.reserved;
  for (int64_t i = 0; i < n; ++i) {
    c.node->index = i;
    // The elements after this one need ≥ min bytes each (no overflow: n·min ≤ bytes left).
    c.reserved = outer_reserved + static_cast<size_t>(n - 1 - i) * min;
    DecodeElement(c, f, compact, v[static_cast<size_t>(i)]);
    if (!c.r.ok()) break;
  }
  c.reserved = outer_reserved;
  c.node->index = -1;
  return true;
}
template <class E>
void DecodeValue(DecodeContext& c, const FieldSpec& f, std::vector<E>& v) {
  DecodeArray(c, f, false, v);
}

// ---- Nullable values: the null marker is the length/count −1 (compact 0), or for a
// struct the int8 presence marker.
// A value already present in `v` (from an earlier decode) is decoded over, keeping its
// capacity.
template <class T>
void DecodeValue(DecodeContext& c, const FieldSpec& f, std::optional<T>& v) {
  const bool nullable = c.Nullable(f);
  if constexpr (KafkaStruct<T>) {
    if (c.r.ReadStructPresence(nullable)) {
      DecodeStruct(c, v ? *v : v.emplace());
    } else {
      v.reset();
    }
  } else {
    T& value = v ? *v : v.emplace();
    bool present;
    if constexpr (std::is_same_v<T, std::string>) {
      present = DecodeBlob(c, f.type, c.Compact(f), nullable, value);
    } else if constexpr (std::is_same_v<T, Records>) {
      present = DecodeRecords(c, f, nullable, value);
    } else {
      present = DecodeArray(c, f, nullable, value);
    }
    if (!present) v.reset();
  }
}

// Visits the regular (untagged) fields present at the version, with the struct's
// default-constructed instance alongside: a field absent at the version, and every
// known tagged field (the tagged section sets those present), gets its default, so
// that decoding over an earlier message gives what decoding into a fresh one gives.
struct RegularFieldDecoder {
  DecodeContext& c;
  PathNode& node;
  template <class T>
  void operator()(const FieldSpec& f, T& value, const T& default_value) {
    if constexpr (kIsTagged<T>) {
      value.reset();
    } else {
      if (!f.versions.Contains(c.version)) {
        value = default_value;
        return;
      }
      if (!c.r.ok()) return;
      node.name = f.name;
      DecodeValue(c, f, value);
    }
  }
};

// Decodes the payload of one known tag; sets `found` when the tag is known here.
struct TaggedFieldDecoder {
  DecodeContext& c;
  PathNode& node;
  uint32_t tag;
  bool found = false;
  template <class T>
  void operator()(const FieldSpec& f, Tagged<T>& value) {
    if (found || f.tag != static_cast<int32_t>(tag) || !f.tagged.Contains(c.version)) return;
    found = true;
    node.name = f.name;
    DecodeValue(c, f, value.emplace());
  }
  template <class T>
  void operator()(const FieldSpec&, T&) {}  // untagged fields
};

// Type-independent parts of the tagged-field section, out of line.
// Checks that a known tag's payload used exactly its declared size (tag header at `at`).
void CheckTagConsumed(DecodeContext& c, size_t at, uint32_t tag, uint32_t size);
// Stores an unknown tag's payload in ascending order (a repeat replaces, under
// kQuirkUnorderedTags).
void KeepUnknownTag(DecodeContext& c, UnknownTaggedFields& unknown, uint32_t tag, uint32_t size);

template <KafkaStruct S>
void DecodeTaggedFields(DecodeContext& c, S& s, PathNode& node) {
  node.name = "tagged_fields";
  const uint32_t count = c.r.ReadTaggedFieldCount();
  int64_t previous = -1;
  for (uint32_t i = 0; i < count && c.r.ok(); ++i) {
    node.name = "tagged_fields";
    const size_t at = c.r.offset();
    uint32_t tag = 0, size = 0;
    if (!c.r.ReadTagHeader(previous, &tag, &size)) return;
    previous = tag;
    // A known tag's value that needs more than `size` bytes fails kTagSizeMismatch at
    // `at` inside the limit; one that uses fewer fails it in CheckTagConsumed.
    const Reader::TagLimit limit = c.r.PushTagLimit(size, at);
    const size_t outer_reserved = c.reserved;
    c.reserved = 0;  // the reserved bytes lie beyond this limit
    TaggedFieldDecoder d{c, node, tag};
    S::VisitFields(d, s);
    if (d.found) {
      CheckTagConsumed(c, at, tag, size);
    } else {
      KeepUnknownTag(c, s.unknown_tagged_fields, tag, size);
    }
    c.reserved = outer_reserved;
    c.r.PopTagLimit(limit);
  }
}

template <KafkaStruct S>
void DecodeStruct(DecodeContext& c, S& s) {
  PathNode node{c.node, nullptr, -1};
  PathNode* const parent = c.node;
  c.node = &node;
  c.r.set_path(&node);
  s.unknown_tagged_fields.clear();
  RegularFieldDecoder d{c, node};
  S::VisitFields(d, s, DefaultInstance<S>());
  if (c.flexible && c.r.ok()) DecodeTaggedFields(c, s, node);
  c.node = parent;
  c.r.set_path(parent);
}

}  // namespace schema_internal

/// Decodes `out` (a generated message or struct) at `version` from `r`, where
/// `flexible` says whether `version` is a flexible version of the enclosing message.
/// Reads exactly the struct; the caller checks for trailing bytes. Errors are recorded
/// in `r` (check r.ok()). `out` may hold an earlier message: every field is set (fields
/// absent at `version`, and tagged fields the input lacks, to their defaults), so the
/// result equals a decode into a default-constructed S, while the strings and vectors
/// it already holds keep their capacity (no allocation when they are large enough).
/// After a failure `out` holds a partial message.
template <KafkaStruct S>
void DecodeStruct(Reader& r, int16_t version, bool flexible, S& out) {
  schema_internal::DecodeContext c{r, version, flexible,
                                   const_cast<PathNode*>(r.path())};
  schema_internal::DecodeStruct(c, out);
}

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_DECODE_H_
