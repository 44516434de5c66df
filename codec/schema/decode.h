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
#include "codec/schema/observer.h"
#include "codec/schema/spec.h"
#include "codec/wire/reader.h"

namespace kwire {

/// Checks the bytes of `records` fields while a message is decoded (RecordsDecode::
/// validator). The message decoder calls Validate for every non-null records field, right
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

/// How a message decode treats its `records` fields (Produce requests, Fetch and
/// ShareFetch responses, ...): the schema layer's part of decoding, beside the wire
/// Reader's DecodeOptions. Frame decoding fills it from FrameOptions (records_mode,
/// borrow_records); DecodeMessage / DecodeBody / DecodeStruct take it as an argument.
struct RecordsDecode {
  /// Checks the bytes of every records field as the decoder reads them
  /// (codec/records/validate.h RecordsFieldValidator). nullptr: records stay opaque
  /// bytes. Not owned; must outlive the decode.
  const RecordsValidator* validator = nullptr;
  /// Zero-copy records: every `records` field is decoded as a view into the input buffer
  /// (`Records::Borrow`) instead of a copy. The decoded message is then valid only while
  /// that buffer lives unchanged (see `Records` in codec/schema/spec.h). For proxies and
  /// brokers that forward or parse batches in place; validation works the same.
  bool borrow = false;
};

namespace schema_internal {

/// Decoding state shared by every level of one message.
struct DecodeContext : VersionRule {
  Reader& r;
  /// Path node of the struct being decoded: one the walk created (DecodeStructBody),
  /// never the caller's; nullptr before the first struct.
  PathNode* node = nullptr;
  /// Bytes at the end of the current limit that the enclosing arrays' elements still to
  /// come need (each at least its minimum size). Array counts are bounded by the bytes
  /// left minus these, so that nested arrays, sized before their elements are read,
  /// cannot each claim the same bytes: allocation stays O(frame bytes) at any depth.
  size_t reserved = 0;
  /// What to do with `records` fields: validate, borrow (RecordsDecode).
  RecordsDecode records{};
};

/// The same walk with a DecodeObserver (observer.h) told what is read where. Every walk
/// function below takes its context type C as a template parameter: DecodeContext for a
/// plain decode (the observer calls compile to nothing), ObservedContext to observe.
struct ObservedContext : DecodeContext {
  DecodeObserver& o;
};
template <class C>
inline constexpr bool kObserved = std::is_same_v<C, ObservedContext>;

// Recursion depth is the schema's nesting depth (no Kafka message type contains itself),
// fixed at build time: no input can make the walk deeper, so it needs no depth limit.
template <class C, KafkaStruct S>
void DecodeStruct(C& c, S& s);

// ---- Scalars.
template <class T>
inline constexpr bool kIsScalar = std::is_arithmetic_v<T> || std::is_same_v<T, Uuid>;

template <class T>
T ReadScalar(Reader& r) {
  if constexpr (std::is_same_v<T, int8_t>) return r.ReadInt8();
  if constexpr (std::is_same_v<T, int16_t>) return r.ReadInt16();
  if constexpr (std::is_same_v<T, uint16_t>) return r.ReadUint16();
  if constexpr (std::is_same_v<T, int32_t>) return r.ReadInt32();
  if constexpr (std::is_same_v<T, int64_t>) return r.ReadInt64();
  if constexpr (std::is_same_v<T, double>) return r.ReadFloat64();
  if constexpr (std::is_same_v<T, bool>) return r.ReadBool();
  if constexpr (std::is_same_v<T, Uuid>) return r.ReadUuid();
}

template <class C, class T>
  requires kIsScalar<T>
void DecodeValue(C& c, const FieldSpec&, T& v) {
  v = ReadScalar<T>(c.r);
  if constexpr (kObserved<C>) {
    if (!c.r.ok()) return;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Uuid>) {
      c.o.Value(v);
    } else {
      c.o.Value(static_cast<int64_t>(v));
    }
  }
}

// What copying a string or bytes value of `length` bytes allocates, as charged to the
// allocation budget (DecodeOptions::max_alloc_bytes): std::string keeps up to 15 bytes
// inline (libstdc++, MSVC; libc++ 22, where this over-charges), a longer copy allocates
// length + 1.
inline size_t StringHeapBytes(size_t length) { return length > 15 ? length + 1 : 0; }

// ---- Length-prefixed values. `kind` is the field's (or array element's) wire kind.
// Returns false when the value is null. Out of line.
bool DecodeBlob(DecodeContext& c, FieldType kind, bool compact, bool nullable, std::string& out);

// A string or bytes value; tells the observer. Returns false when null.
template <class C>
bool DecodeObservedBlob(C& c, FieldType kind, bool compact, bool nullable, bool sensitive,
                        std::string& out) {
  const bool present = DecodeBlob(c, kind, compact, nullable, out);
  if constexpr (kObserved<C>) {
    if (c.r.ok()) c.o.Blob(kind, compact, present ? &out : nullptr, sensitive);
  }
  return present;
}

template <class C>
void DecodeValue(C& c, const FieldSpec& f, std::string& v) {
  DecodeObservedBlob(c, f.type, c.Compact(f), false, f.sensitive, v);
}
// Hands a records field's bytes, just read, to RecordsDecode::validator (if set).
void ValidateRecords(DecodeContext& c, const FieldSpec& f, std::string_view bytes);
// Reads a records field (copied, or borrowed under RecordsDecode::borrow),
// tells `o` (if not null) and validates it. Returns false when it is null. Out of line.
bool DecodeRecords(DecodeContext& c, const FieldSpec& f, bool nullable, Records& out,
                   DecodeObserver* o);

template <class C>
DecodeObserver* ObserverOf(C& c) {
  if constexpr (kObserved<C>) {
    return &c.o;
  } else {
    return nullptr;
  }
}

template <class C>
void DecodeValue(C& c, const FieldSpec& f, Records& v) {
  DecodeRecords(c, f, false, v, ObserverOf(c));
}

// ---- Structs (non-array struct fields have no prefix unless nullable).
template <class C, KafkaStruct S>
void DecodeValue(C& c, const FieldSpec&, S& v) {
  DecodeStruct(c, v);
}

// ---- Arrays.
template <class C, class E>
void DecodeElement(C& c, const FieldSpec& f, bool compact, E& e) {
  if constexpr (std::is_same_v<E, std::string>) {
    DecodeObservedBlob(c, f.element, compact, false, f.sensitive, e);
  } else {
    DecodeValue(c, f, e);
  }
}

// True when a struct element has a sensitive field of its own (AlterUserScramCredentials
// Upsertions, DescribeDelegationToken Tokens): observers hide its summarized bytes.
template <class E>
constexpr bool HasSensitiveField() {
  if constexpr (KafkaStruct<E>) {
    for (const FieldSpec& f : E::kFields) {
      if (f.sensitive) return true;
    }
  }
  return false;
}

template <class E>
constexpr const char* ElementStructName() {
  if constexpr (KafkaStruct<E>) {
    return E::kStructName;
  } else {
    return nullptr;
  }
}

// Reads the count (or null) and the elements into `v`, reusing the elements (and their
// strings' and vectors' capacity) it already holds. Returns false when null.
template <class C, class E>
bool DecodeArray(C& c, const FieldSpec& f, bool nullable, std::vector<E>& v) {
  const bool compact = c.Compact(f);
  const size_t min = MinElementSize<E>(c, compact);
  const size_t at = c.r.offset();
  if constexpr (kObserved<C>) c.o.BeginArrayCount(c.r, compact);
  const int64_t n = c.r.ReadArrayCount(compact, nullable, min, c.reserved);
  int64_t shown = n;
  if constexpr (kObserved<C>) {
    shown = c.o.EndArrayCount(c.r, c.r.ok() ? n : 0, compact);
    if (!c.r.ok()) return false;
  }
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
  if constexpr (kIsFixedWidthInt<E> && !kObserved<C>) {
    // Read in one bounds check: min == sizeof(E), so the count check guaranteed the
    // n·sizeof(E) bytes.
    const std::string_view raw = c.r.ReadRaw(static_cast<size_t>(n) * sizeof(E));
    if (raw.size() != static_cast<size_t>(n) * sizeof(E)) return true;
    E* out = v.data();
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      out[i] = LoadBigEndian<E>(raw.data() + i * sizeof(E));
    }
    return true;
  }
  const size_t outer_reserved = c.reserved;
  [[maybe_unused]] bool elided = false;
  for (int64_t i = 0; i < n; ++i) {
    c.node->index = i;
    // The elements after this one need ≥ min bytes each (no overflow: n·min ≤ bytes left).
    c.reserved = outer_reserved + static_cast<size_t>(n - 1 - i) * min;
    E& e = v[static_cast<size_t>(i)];
    if constexpr (kObserved<C>) {
      if (i < shown) {
        c.o.BeginElement(c.r, f, i, ElementStructName<E>());
        DecodeElement(c, f, compact, e);
        c.o.EndElement(c.r);
      } else {
        if (i == shown) {
          c.o.BeginElided(c.r, f, i, ElementStructName<E>());
          elided = true;
        }
        DecodeElement(static_cast<DecodeContext&>(c), f, compact, e);  // unobserved
      }
    } else {
      DecodeElement(c, f, compact, e);
    }
    if (!c.r.ok()) break;
  }
  if constexpr (kObserved<C>) {
    if (elided) c.o.EndElided(c.r, n - shown, f.sensitive || HasSensitiveField<E>());
  }
  c.reserved = outer_reserved;
  c.node->index = -1;
  return true;
}
template <class C, class E>
void DecodeValue(C& c, const FieldSpec& f, std::vector<E>& v) {
  DecodeArray(c, f, false, v);
}

// ---- Nullable values: the null marker is the length/count −1 (compact 0), or for a
// struct the int8 presence marker.
// A value already present in `v` (from an earlier decode) is decoded over, keeping its
// capacity.
template <class C, class T>
void DecodeValue(C& c, const FieldSpec& f, std::optional<T>& v) {
  const bool nullable = c.Nullable(f);
  if constexpr (KafkaStruct<T>) {
    if constexpr (kObserved<C>) c.o.BeginPresence(c.r);
    const bool present = c.r.ReadStructPresence(nullable);
    if constexpr (kObserved<C>) c.o.EndPresence(c.r, present);
    if (present) {
      DecodeStruct(c, v ? *v : v.emplace());
    } else {
      v.reset();
    }
  } else {
    T& value = v ? *v : v.emplace();
    bool present;
    if constexpr (std::is_same_v<T, std::string>) {
      present = DecodeObservedBlob(c, f.type, c.Compact(f), nullable, f.sensitive, value);
    } else if constexpr (std::is_same_v<T, Records>) {
      present = DecodeRecords(c, f, nullable, value, ObserverOf(c));
    } else {
      present = DecodeArray(c, f, nullable, value);
    }
    if (!present) v.reset();
  }
}

// A field's value, between the observer's BeginField and EndField.
template <class C, class T>
void DecodeField(C& c, const FieldSpec& f, T& value) {
  if constexpr (kObserved<C>) c.o.BeginField(c.r, f);
  DecodeValue(c, f, value);
  if constexpr (kObserved<C>) c.o.EndField(c.r);
}

// Visits the regular (untagged) fields present at the version, with the struct's
// default-constructed instance alongside: a field absent at the version, and every
// known tagged field (the tagged section sets those present), gets its default, so
// that decoding over an earlier message gives what decoding into a fresh one gives.
template <class C>
struct RegularFieldDecoder {
  C& c;
  PathNode& node;
  template <class T>
  void operator()(const FieldSpec& f, T& value, const T& default_value) {
    if constexpr (kIsTagged<T>) {
      value.reset();
    } else {
      if (!c.Present(f)) {
        value = default_value;
        return;
      }
      if (!c.r.ok()) return;
      node.name = f.name;
      DecodeField(c, f, value);
    }
  }
};

// Decodes the payload of one known tag; sets `found` when the tag is known here.
template <class C>
struct TaggedFieldDecoder {
  C& c;
  PathNode& node;
  uint32_t tag;
  const FieldSpec* found = nullptr;
  template <class T>
  void operator()(const FieldSpec& f, Tagged<T>& value) {
    if (found != nullptr || !f.HasTag(tag) || !c.Tagged(f)) {
      return;
    }
    found = &f;
    node.name = f.name;
    DecodeField(c, f, value.emplace());
  }
  template <class T>
  void operator()(const FieldSpec&, T&) {}  // untagged fields
};

// The field of S whose tag is `tag` when no field has that tag at `version` but one has it
// in other versions (kQuirkTagOfOtherVersionRejected), else nullptr.
template <KafkaStruct S>
const FieldSpec* TagOfOtherVersion(uint32_t tag, int16_t version) {
  const FieldSpec* other = nullptr;
  for (const FieldSpec& f : S::kFields) {
    if (!f.HasTag(tag)) continue;
    if (f.tagged.Contains(version)) return nullptr;
    if (other == nullptr) other = &f;
  }
  return other;
}

// Type-independent parts of the tagged-field section, out of line.
// Fails kInvalidValue at `at`: `tag` is `f`'s, which is not tagged at this version.
void RejectTagOfOtherVersion(DecodeContext& c, size_t at, uint32_t tag, const FieldSpec& f);
// Checks that a known tag's payload used exactly its declared size (tag header at `at`).
void CheckTagConsumed(DecodeContext& c, size_t at, uint32_t tag, uint32_t size);
// Stores an unknown tag's payload in ascending order (a repeat is kept after the first,
// under kQuirkUnorderedTags).
void KeepUnknownTag(DecodeContext& c, UnknownTaggedFields& unknown, uint32_t tag, uint32_t size);

template <class C, KafkaStruct S>
void DecodeTaggedFields(C& c, S& s, PathNode& node) {
  node.name = "tagged_fields";
  if constexpr (kObserved<C>) c.o.BeginTaggedFields(c.r);
  const size_t count_at = c.r.offset();
  const uint32_t count = c.r.ReadTaggedFieldCount();
  if constexpr (kObserved<C>) {
    if (c.r.ok()) c.o.TaggedFieldCount(c.r, count_at, count);
  }
  int64_t previous = -1;
  for (uint32_t i = 0; i < count && c.r.ok(); ++i) {
    node.name = "tagged_fields";
    const size_t at = c.r.offset();
    uint32_t tag = 0, size = 0;
    if constexpr (kObserved<C>) c.o.BeginTag(c.r);
    if (!c.r.ReadTagHeader(previous, &tag, &size)) {
      if constexpr (kObserved<C>) c.o.EndTag(c.r);
      break;
    }
    if constexpr (kObserved<C>) c.o.TagHeader(c.r, at, tag, size);
    previous = tag;
    const size_t outer_reserved = c.reserved;
    c.reserved = 0;  // the reserved bytes lie beyond this tag's value
    TaggedFieldDecoder<C> d{c, node, tag};
    if (c.r.quirks() & kQuirkTagOfOtherVersionRejected) {
      if (const FieldSpec* f = TagOfOtherVersion<S>(tag, c.version)) {
        RejectTagOfOtherVersion(c, at, tag, *f);
        if constexpr (kObserved<C>) c.o.EndTag(c.r);
        break;
      }
    }
    if (c.r.quirks() & kQuirkKnownTagSizeIgnored) {
      // Java reads a known tag's value by its type, whatever size the header declares;
      // only an unknown tag's payload is `size` bytes.
      S::VisitFields(d, s);
      if (d.found == nullptr) {
        if (!c.r.CheckTagSize(at, tag, size)) {
          if constexpr (kObserved<C>) c.o.EndTag(c.r);
          break;
        }
        const Reader::TagLimit limit = c.r.PushTagLimit(size, at);
        if constexpr (kObserved<C>) c.o.BeginUnknownTag(c.r);
        KeepUnknownTag(c, s.unknown_tagged_fields, tag, size);
        if constexpr (kObserved<C>) c.o.EndUnknownTag(c.r, size);
        c.r.PopTagLimit(limit);
      } else if constexpr (kObserved<C>) {
        c.o.KnownTag(*d.found);
      }
    } else {
      // A known tag's value that needs more than `size` bytes fails kTagSizeMismatch at
      // `at` inside the limit; one that uses fewer fails it in CheckTagConsumed.
      const Reader::TagLimit limit = c.r.PushTagLimit(size, at);
      S::VisitFields(d, s);
      if (d.found != nullptr) {
        CheckTagConsumed(c, at, tag, size);
        if constexpr (kObserved<C>) c.o.KnownTag(*d.found);
      } else {
        if constexpr (kObserved<C>) c.o.BeginUnknownTag(c.r);
        KeepUnknownTag(c, s.unknown_tagged_fields, tag, size);
        if constexpr (kObserved<C>) c.o.EndUnknownTag(c.r, size);
      }
      c.r.PopTagLimit(limit);
    }
    c.reserved = outer_reserved;
    if constexpr (kObserved<C>) c.o.EndTag(c.r);
  }
  if constexpr (kObserved<C>) c.o.EndTaggedFields(c.r);
}

// Decodes `s` with its path node under `parent`, and leaves c.node at `outer`: inside
// the walk both are the enclosing struct's node (c.node); at the top the parent is the
// caller's node (Reader::path()), which is only ever read, and `outer` is nullptr. The
// walk writes (array indexes, field names) only into the nodes it creates here. Inlined
// into its two callers so that each keeps one pointer, not two, across the fields (the
// nested form is the hot one; a separate `outer` cost 2-4 instructions per struct).
template <class C, KafkaStruct S>
[[gnu::always_inline]] inline void DecodeStructBody(C& c, S& s, const PathNode* parent,
                                                    PathNode* outer) {
  PathNode node{parent, nullptr, -1};
  c.node = &node;
  c.r.set_path(&node);
  s.unknown_tagged_fields.clear();
  RegularFieldDecoder<C> d{c, node};
  S::VisitFields(d, s, DefaultInstance<S>());
  if (c.flexible && c.r.ok()) DecodeTaggedFields(c, s, node);
  c.node = outer;
  c.r.set_path(parent);
}

template <class C, KafkaStruct S>
void DecodeStruct(C& c, S& s) {
  DecodeStructBody(c, s, c.node, c.node);
}

// The top of the walk: `parent` is the caller's node, never written.
template <class C, KafkaStruct S>
void DecodeTopStruct(C& c, S& s, const PathNode* parent) {
  DecodeStructBody(c, s, parent, nullptr);
}

}  // namespace schema_internal

/// Decodes `out` (a generated message or struct) at `version` from `r`, where
/// `flexible` says whether `version` is a flexible version of the enclosing message.
/// Reads exactly the struct; the caller checks for trailing bytes. Errors are recorded
/// in `r` (check r.ok()). `out` may hold an earlier message: every field is set (fields
/// absent at `version`, and tagged fields the input lacks, to their defaults), so the
/// result equals a decode into a default-constructed S, while the strings and vectors
/// it already holds keep their capacity (no allocation when they are large enough).
/// After a failure `out` holds a partial message. `records`: what to do with records
/// fields (default: opaque copies).
template <KafkaStruct S>
void DecodeStruct(Reader& r, int16_t version, bool flexible, S& out,
                  const RecordsDecode& records = {}) {
  schema_internal::DecodeContext c{{version, flexible}, r, nullptr, 0, records};
  schema_internal::DecodeTopStruct(c, out, r.path());
}

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_DECODE_H_
