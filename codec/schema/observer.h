// DecodeObserver: what the decode walk (decode.h) reports while it reads, for a caller
// that wants to see the wire layout as well as the values — the explain visitor
// (codec/harness/print.h) is one.
//
// There is one walk of the grammar: decode.h. Decoding with an observer
// (schema_internal::ObservedContext) runs the very same functions with these calls
// added; a plain decode (DecodeStruct, DecodeMessage, frames) instantiates them with the
// observer calls compiled out (`if constexpr`), so it pays nothing for them. An
// observer therefore accepts exactly what the decoder accepts, fails where it fails, with
// the same error, and charges the same allocation budget.
//
// Calls come in pairs (Begin…/End…), properly nested, in wire order. `r` is the decoder's
// Reader: its offset is where the item starts (Begin) or ends (End); after a failure
// r.ok() is false and the End calls still come, so that every opened item is closed.
// Value calls come only after a value was read successfully, for the innermost open
// field or element. Not thread-safe by itself: one observer per decode.
#ifndef KWIRE_CODEC_SCHEMA_OBSERVER_H_
#define KWIRE_CODEC_SCHEMA_OBSERVER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/schema/spec.h"
#include "codec/wire/reader.h"

namespace kwire {

class DecodeObserver {
 public:
  virtual ~DecodeObserver() = default;

  // ---- Fields and array elements.
  /// A field present at the version (regular, or a known tagged field's value).
  virtual void BeginField(const Reader& r, const FieldSpec& f) = 0;
  virtual void EndField(const Reader& r) = 0;
  /// Element `index` of array field `f`; `struct_name` is the element struct's name,
  /// nullptr for elements of a scalar, string or bytes type (`f.element`).
  virtual void BeginElement(const Reader& r, const FieldSpec& f, int64_t index,
                            const char* struct_name) = 0;
  virtual void EndElement(const Reader& r) = 0;
  /// Elements [from, count) of an array are decoded without observation (see
  /// EndArrayCount): one summary item. `sensitive`: the field, or a field of the
  /// element struct, holds secrets.
  virtual void BeginElided(const Reader& r, const FieldSpec& f, int64_t from,
                           const char* struct_name) = 0;
  virtual void EndElided(const Reader& r, int64_t elided, bool sensitive) = 0;

  // ---- Values of the innermost open field or element.
  virtual void Value(int64_t v) = 0;  ///< int8, int16, uint16, int32, int64
  virtual void Value(double v) = 0;   ///< float64
  virtual void Value(bool v) = 0;
  virtual void Value(const Uuid& v) = 0;
  /// A string or bytes value (`kind`: FieldType::kString or another blob type); `s`
  /// nullptr when null. `sensitive`: FieldSpec::sensitive.
  virtual void Blob(FieldType kind, bool compact, const std::string* s, bool sensitive) = 0;

  // ---- Length prefixes and markers.
  /// An array count (int32, or uvarint n+1 when `compact`) is read.
  virtual void BeginArrayCount(const Reader& r, bool compact) = 0;
  /// The count read (−1: null). Returns how many of the elements to observe; the rest
  /// are decoded unobserved, under one BeginElided/EndElided item.
  virtual int64_t EndArrayCount(const Reader& r, int64_t count, bool compact) = 0;
  /// A records field's length prefix (−1: null) is read.
  virtual void BeginRecordsLength(const Reader& r, bool compact) = 0;
  virtual void EndRecordsLength(const Reader& r, int64_t length, bool compact) = 0;
  /// A records field's payload was read: bytes [at, at + size) of the input, before the
  /// field is validated (RecordsDecode::validator).
  virtual void RecordsPayload(const Reader& r, const FieldSpec& f, int16_t version, size_t at,
                              size_t size) = 0;
  /// A nullable struct's presence marker (int8 1 / −1) is read.
  virtual void BeginPresence(const Reader& r) = 0;
  virtual void EndPresence(const Reader& r, bool present) = 0;

  // ---- Tagged-field sections (flexible versions, KIP-482).
  /// The section: its count, then each tag.
  virtual void BeginTaggedFields(const Reader& r) = 0;
  /// The count was read at `at` (now r.offset() is past it).
  virtual void TaggedFieldCount(const Reader& r, size_t at, uint32_t count) = 0;
  virtual void EndTaggedFields(const Reader& r) = 0;
  /// One tagged field: its header (tag and size uvarints) at `at` is read next.
  virtual void BeginTag(const Reader& r) = 0;
  /// The header was read: tag `tag`, `size` bytes of value follow.
  virtual void TagHeader(const Reader& r, size_t at, uint32_t tag, uint32_t size) = 0;
  /// The tag is field `f` (its value follows as a field) ...
  virtual void KnownTag(const FieldSpec& f) = 0;
  /// ... or unknown at this version: its `size` payload bytes are kept verbatim.
  virtual void BeginUnknownTag(const Reader& r) = 0;
  virtual void EndUnknownTag(const Reader& r, uint32_t size) = 0;
  virtual void EndTag(const Reader& r) = 0;
};

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_OBSERVER_H_
