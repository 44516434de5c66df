// The encode visitor: writes any generated struct at a given version to a Writer.
//
// Encode semantics follow Kafka's generated Java code: a field absent in the target
// version must hold its default value unless it is ignorable (else kNonDefaultField);
// null in a version where the field is not nullable is kNullNotAllowed; strings are at
// most 32767 bytes (kStringTooLong) and well-formed UTF-8 (kInvalidUtf8, unless the
// Writer's EncodeOptions allow kQuirkInvalidUtf8); known tagged fields are written when present, merged
// with the preserved unknown tags in ascending tag order (KIP-482); unknown tags must be
// strictly ascending and numbered unlike every known tagged field of the version
// (kTagOutOfOrder / kTagDuplicate). Failures are recorded
// in the Writer (sticky) with the field path.
#ifndef KWIRE_CODEC_SCHEMA_ENCODE_H_
#define KWIRE_CODEC_SCHEMA_ENCODE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "codec/schema/min_size.h"
#include "codec/schema/spec.h"
#include "codec/wire/writer.h"

#include "codec/wire/port_def.inc"

namespace kwire {

namespace schema_internal {

/// Encoding state shared by every level of one message: the version rule, the writer
/// and the path node of the struct being encoded.
struct EncodeContext : VersionRule {
  Writer& w;
  PathNode* node = nullptr;
};

template <KafkaStruct S>
void EncodeStruct(EncodeContext& c, const S& s);

inline void EncodeValue(EncodeContext& c, const FieldSpec&, int8_t v) { c.w.WriteInt8(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, int16_t v) { c.w.WriteInt16(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, uint16_t v) { c.w.WriteUint16(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, int32_t v) { c.w.WriteInt32(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, int64_t v) { c.w.WriteInt64(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, double v) { c.w.WriteFloat64(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, bool v) { c.w.WriteBool(v); }
inline void EncodeValue(EncodeContext& c, const FieldSpec&, const Uuid& v) { c.w.WriteUuid(v); }

// Writes a string/bytes/records value (`s` == nullptr writes null). Out of line.
void EncodeBlob(EncodeContext& c, FieldType kind, bool compact, const std::string_view* s);
// Out-of-line failure reporters (keep formatting code out of the per-type templates).
void FailArrayTooLong(EncodeContext& c, size_t n);
void FailNotNullable(EncodeContext& c);
void FailNonDefault(EncodeContext& c);

inline void EncodeValue(EncodeContext& c, const FieldSpec& f, const std::string& v) {
  const std::string_view s = v;
  EncodeBlob(c, f.type, c.Compact(f), &s);
}
inline void EncodeValue(EncodeContext& c, const FieldSpec& f, const Records& v) {
  const std::string_view s = v.data();
  EncodeBlob(c, FieldType::kRecords, c.Compact(f), &s);
}
template <KafkaStruct S>
void EncodeValue(EncodeContext& c, const FieldSpec&, const S& v) {
  EncodeStruct(c, v);
}

template <class E>
void EncodeArray(EncodeContext& c, const FieldSpec& f, const std::vector<E>* v) {
  const bool compact = c.Compact(f);
  if (v == nullptr) {
    c.w.WriteArrayCount(compact, -1);
    return;
  }
  if (v->size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    FailArrayTooLong(c, v->size());
    return;
  }
  c.w.WriteArrayCount(compact, static_cast<int64_t>(v->size()));
  if constexpr (kIsFixedWidthInt<E>) {
    c.w.WriteBigEndianArray(v->data(), v->size());
    return;
  }
  for (size_t i = 0; i < v->size() && c.w.ok(); ++i) {
    c.node->index = static_cast<int64_t>(i);
    if constexpr (std::is_same_v<E, std::string>) {
      const std::string_view s = (*v)[i];
      EncodeBlob(c, f.element, compact, &s);
    } else {
      EncodeValue(c, f, (*v)[i]);
    }
  }
  c.node->index = -1;
}
template <class E>
void EncodeValue(EncodeContext& c, const FieldSpec& f, const std::vector<E>& v) {
  EncodeArray(c, f, &v);
}

template <class T>
void EncodeValue(EncodeContext& c, const FieldSpec& f, const std::optional<T>& v) {
  if (!v.has_value() && !c.Nullable(f)) {
    FailNotNullable(c);
    return;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    const std::string_view s = v ? std::string_view(*v) : std::string_view();
    EncodeBlob(c, f.type, c.Compact(f), v ? &s : nullptr);
  } else if constexpr (std::is_same_v<T, Records>) {
    const std::string_view s = v ? v->data() : std::string_view();
    EncodeBlob(c, FieldType::kRecords, c.Compact(f), v ? &s : nullptr);
  } else if constexpr (KafkaStruct<T>) {
    c.w.WriteInt8(v ? 1 : -1);
    if (v) EncodeStruct(c, *v);
  } else {
    EncodeArray(c, f, v ? &*v : nullptr);
  }
}

// The first pass over a struct's fields: every field but the known tagged ones, in wire
// order; those present at the version are counted (the second pass writes them).
struct FieldEncoder {
  EncodeContext& c;
  PathNode& node;
  uint32_t tagged = 0;  // known tagged fields present at the version

  template <class T>
  void operator()(const FieldSpec& f, const T& value, const T& default_value) {
    if (!c.w.ok()) return;
    node.name = f.name;
    if (!c.Present(f)) {
      if (!f.ignorable && !(value == default_value)) FailNonDefault(c);
      return;
    }
    if constexpr (kIsTagged<T>) {
      if (value.has_value()) ++tagged;
    } else {
      EncodeValue(c, f, value);
    }
  }
};

/// True when S declares its tagged fields in strictly ascending tag order (Kafka's
/// definitions do), so that one pass in declaration order writes them in wire order.
template <KafkaStruct S>
inline constexpr bool kTagsDeclaredAscending = [] {
  int64_t previous = -1;
  for (const FieldSpec& f : S::kFields) {
    if (!f.IsTagged()) continue;
    if (f.tag <= previous) return false;
    previous = f.tag;
  }
  return true;
}();

// Notes the tags of the known tagged fields present at the version (for a struct whose
// declaration order is not its tag order).
struct TagCollector {
  EncodeContext& c;
  absl::InlinedVector<uint32_t, 4> tags{};
  template <class T>
  void operator()(const FieldSpec& f, const T& value, const T&) {
    if constexpr (kIsTagged<T>) {
      if (c.Present(f) && value.has_value()) tags.push_back(static_cast<uint32_t>(f.tag));
    }
  }
};

// Writes unknown tagged fields [*u, end) whose tags are below `below` (KIP-482: uvarint
// tag, uvarint size, the bytes), checking that tags ascend after `*previous`
// (kTagOutOfOrder, kTagDuplicate). Out of line.
void EncodeUnknownTagsBelow(EncodeContext& c, const UnknownTaggedFields& unknown, size_t* u,
                            int64_t below, int64_t* previous);

// The second pass: writes the known tagged field of tag `want` (kAnyTag: each present
// one, in declaration order, which then ascends), in place: its tag, a one-byte size
// patched after the value (moved up when the value is 128 bytes or more), and the value;
// unknown tags below it first.
struct TaggedFieldEncoder {
  static constexpr int64_t kAnyTag = -1;
  EncodeContext& c;
  PathNode& node;
  const UnknownTaggedFields& unknown;
  int64_t want = kAnyTag;
  size_t u = 0;            // next unknown tag to write
  int64_t previous = -1;   // last tag written

  template <class T>
  void operator()(const FieldSpec& f, const T& value, const T&) {
    if constexpr (kIsTagged<T>) {
      if (!c.w.ok() || !c.Present(f) || !value.has_value()) return;
      if (want != kAnyTag && f.tag != want) return;
      node.name = "tagged_fields";
      EncodeUnknownTagsBelow(c, unknown, &u, f.tag, &previous);
      if (!c.w.ok()) return;
      previous = f.tag;
      node.name = f.name;
      c.w.WriteUvarint(static_cast<uint32_t>(f.tag));
      const size_t size_at = c.w.ReserveUvarint();
      EncodeValue(c, f, *value);
      if (c.w.ok()) c.w.PatchUvarint(size_at, static_cast<uint32_t>(c.w.size() - size_at - 1));
    }
  }
};

// Checks the unknown tagged fields against the struct's known ones before the section is
// written: fails kNonDefaultField if there are any in a non-flexible version (returns
// false), and kTagDuplicate if one has the number of a tagged field of `fields` at the
// version, present or not (a decoder would read it as that field; Java's
// RawTaggedFieldWriter refuses it too). Out of line.
bool CheckUnknownTags(EncodeContext& c, const UnknownTaggedFields& unknown,
                      std::span<const FieldSpec> fields);

// Writes the tagged-field section of `s` when it is not empty (`tagged` known tagged
// fields present, or unknown ones): the count, then the known tags merged with s's
// unknown tags in ascending tag order, each written in place (no buffer per field). Out
// of line: the empty section, by far the most common, is written by EncodeStruct.
template <KafkaStruct S>
KWIRE_NOINLINE void EncodeTaggedFields(EncodeContext& c, PathNode& node, const S& s,
                                       uint32_t tagged) {
  const UnknownTaggedFields& unknown = s.unknown_tagged_fields;
  if (!CheckUnknownTags(c, unknown, S::kFields)) return;
  c.w.WriteUvarint(static_cast<uint32_t>(tagged + unknown.size()));
  TaggedFieldEncoder e{c, node, unknown};
  if (tagged != 0) {
    if constexpr (kTagsDeclaredAscending<S>) {
      S::VisitFields(e, s, DefaultInstance<S>());
    } else {
      TagCollector collect{c};
      S::VisitFields(collect, s, DefaultInstance<S>());
      std::sort(collect.tags.begin(), collect.tags.end());
      for (const uint32_t tag : collect.tags) {
        e.want = tag;
        S::VisitFields(e, s, DefaultInstance<S>());
      }
    }
  }
  node.name = "tagged_fields";
  if (c.w.ok()) EncodeUnknownTagsBelow(c, unknown, &e.u, INT64_MAX, &e.previous);
}

// Encodes `s` with its path node under `parent`, and leaves c.node at `outer`: inside
// the walk both are the enclosing struct's node (c.node); at the top the parent is the
// caller's node (Writer::path()), which is only ever read, and `outer` is nullptr.
// Inlined into its two callers so that each keeps one pointer across the fields (as
// DecodeStructBody).
template <KafkaStruct S>
KWIRE_ALWAYS_INLINE void EncodeStructBody(EncodeContext& c, const S& s, const PathNode* parent,
                                          PathNode* outer) {
  PathNode node{parent, nullptr, -1};
  c.node = &node;
  c.w.set_path(&node);
  FieldEncoder e{c, node};
  S::VisitFields(e, s, DefaultInstance<S>());
  node.name = "tagged_fields";
  if (c.w.ok()) {
    if (e.tagged == 0 && s.unknown_tagged_fields.empty()) [[likely]] {
      if (c.flexible) c.w.WriteUint8(0);  // an empty section: count 0
    } else {
      EncodeTaggedFields(c, node, s, e.tagged);
    }
  }
  c.node = outer;
  c.w.set_path(parent);
}

template <KafkaStruct S>
void EncodeStruct(EncodeContext& c, const S& s) {
  EncodeStructBody(c, s, c.node, c.node);
}

// The top of the walk: `parent` is the caller's node, never written.
template <KafkaStruct S>
void EncodeTopStruct(EncodeContext& c, const S& s, const PathNode* parent) {
  EncodeStructBody(c, s, parent, nullptr);
}

}  // namespace schema_internal

/// Encodes `s` (a generated message or struct) at `version` into `w`; `flexible` says
/// whether `version` is a flexible version of the enclosing message. Errors are recorded
/// in `w` (check w.ok()).
template <KafkaStruct S>
void EncodeStruct(Writer& w, int16_t version, bool flexible, const S& s) {
  // As DecodeStruct: the caller's node (w.path()) is only ever a parent.
  schema_internal::EncodeContext c{{version, flexible}, w, nullptr};
  schema_internal::EncodeTopStruct(c, s, w.path());
}

}  // namespace kwire

#include "codec/wire/port_undef.inc"

#endif  // KWIRE_CODEC_SCHEMA_ENCODE_H_
