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

// One known tagged field to write: its tag and pre-encoded payload.
struct PendingTag {
  uint32_t tag;
  std::vector<uint8_t> payload;
};

// Moves a tagged field's encoded payload into `tags` (or propagates its failure).
void AddPendingTag(EncodeContext& c, const FieldSpec& f, Writer& scratch,
                   absl::InlinedVector<PendingTag, 2>& tags);

struct FieldEncoder {
  EncodeContext& c;
  PathNode& node;
  absl::InlinedVector<PendingTag, 2>* tags;  // known tagged fields present at the version

  template <class T>
  void operator()(const FieldSpec& f, const T& value, const T& default_value) {
    if (!c.w.ok()) return;
    node.name = f.name;
    if (!c.Present(f)) {
      if (!f.ignorable && !(value == default_value)) FailNonDefault(c);
      return;
    }
    if constexpr (kIsTagged<T>) {
      {
        if (value.has_value()) {
          // Encode the payload on its own so that its size can precede it.
          Writer scratch;
          scratch.set_options(c.w.options());
          scratch.set_path(&node);
          EncodeContext sc{{c.version, c.flexible}, scratch, &node};
          EncodeValue(sc, f, *value);
          AddPendingTag(c, f, scratch, *tags);
        }
      }
    } else {
      EncodeValue(c, f, value);
    }
  }
};

// Writes the tagged-field section: the known tags in `tags` merged with `unknown` in
// ascending tag order. Fails kNonDefaultField if tags exist in a non-flexible version,
// kTagOutOfOrder / kTagDuplicate if `unknown` is not strictly ascending or repeats a tag,
// and kTagDuplicate if an unknown tag has the number of a tagged field of `fields` at the
// version, present or not (a decoder would read it as that field; Java's
// RawTaggedFieldWriter refuses it too).
void EncodeTaggedFields(EncodeContext& c, const UnknownTaggedFields& unknown,
                        absl::InlinedVector<PendingTag, 2>& tags,
                        std::span<const FieldSpec> fields);

template <KafkaStruct S>
void EncodeStruct(EncodeContext& c, const S& s) {
  PathNode node{c.node, nullptr, -1};
  PathNode* const parent = c.node;
  c.node = &node;
  c.w.set_path(&node);
  absl::InlinedVector<PendingTag, 2> tags;
  FieldEncoder e{c, node, &tags};
  S::VisitFields(e, s, DefaultInstance<S>());
  node.name = "tagged_fields";
  if (c.w.ok()) EncodeTaggedFields(c, s.unknown_tagged_fields, tags, S::kFields);
  c.node = parent;
  c.w.set_path(parent);
}

}  // namespace schema_internal

/// Encodes `s` (a generated message or struct) at `version` into `w`; `flexible` says
/// whether `version` is a flexible version of the enclosing message. Errors are recorded
/// in `w` (check w.ok()).
template <KafkaStruct S>
void EncodeStruct(Writer& w, int16_t version, bool flexible, const S& s) {
  // As DecodeStruct: the caller's node (w.path()) is only ever a parent.
  schema_internal::EncodeContext c{{version, flexible}, w, const_cast<PathNode*>(w.path())};
  schema_internal::EncodeStruct(c, s);
}

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_ENCODE_H_
