// Out-of-line, type-independent parts of the decode and encode visitors.
#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "codec/schema/decode.h"
#include "codec/schema/encode.h"

namespace kwire {
namespace schema_internal {

bool DecodeBlob(DecodeContext& c, FieldType kind, bool compact, bool nullable, std::string& out) {
  const size_t at = c.r.offset();
  const int64_t len = kind == FieldType::kString ? c.r.ReadStringLength(compact, nullable)
                                                 : c.r.ReadBytesLength(compact, nullable);
  if (len < 0) return false;
  if (!c.r.Charge(StringHeapBytes(static_cast<size_t>(len)), at)) return true;
  // Strings are UTF-8 (kInvalidUtf8 at the first bad byte unless kQuirkInvalidUtf8).
  out.assign(kind == FieldType::kString ? c.r.ReadUtf8(static_cast<size_t>(len))
                                        : c.r.ReadRaw(static_cast<size_t>(len)));
  return true;
}

bool DecodeRecords(DecodeContext& c, const FieldSpec& f, bool nullable, Records& out,
                   DecodeObserver* o) {
  const bool compact = c.Compact(f);
  const size_t at = c.r.offset();
  if (o != nullptr) o->BeginRecordsLength(c.r, compact);
  const int64_t len = c.r.ReadBytesLength(compact, nullable);
  if (o != nullptr) o->EndRecordsLength(c.r, c.r.ok() ? len : 0, compact);
  if (len < 0) return false;
  const bool borrow = c.records.borrow;
  if (!borrow && !c.r.Charge(StringHeapBytes(static_cast<size_t>(len)), at)) return true;
  const std::string_view payload = c.r.ReadRaw(static_cast<size_t>(len));
  if (borrow) {
    out = Records::Borrow(payload);
  } else {
    out.AssignCopy(payload);
  }
  if (o != nullptr && c.r.ok()) {
    o->RecordsPayload(c.r, f, c.version, c.r.offset() - payload.size(), payload.size());
  }
  ValidateRecords(c, f, payload);
  return true;
}

void ValidateRecords(DecodeContext& c, const FieldSpec& f, std::string_view bytes) {
  const RecordsValidator* v = c.records.validator;
  if (v == nullptr || !c.r.ok()) return;
  // The bytes were just read: they end at the reader's offset.
  v->Validate(c.r, f, c.version,
              std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                       bytes.size()),
              c.r.offset() - bytes.size());
}

void CheckTagConsumed(DecodeContext& c, size_t at, uint32_t tag, uint32_t size) {
  if (c.r.ok() && !c.r.AtEnd()) {
    c.r.Fail(ErrorKind::kTagSizeMismatch, at,
             absl::StrFormat("tag %d declares %d bytes, its value used %d", tag, size,
                             size - c.r.remaining()));
  }
}

void RejectTagOfOtherVersion(DecodeContext& c, size_t at, uint32_t tag, const FieldSpec& f) {
  c.r.Fail(ErrorKind::kInvalidValue, at,
           absl::StrFormat("tag %d is %s's, which is not a tagged field at v%d (Java: \"Tag %d "
                           "is not valid for version %d\")",
                           tag, f.name, c.version, tag, c.version));
}

void KeepUnknownTag(DecodeContext& c, UnknownTaggedFields& unknown, uint32_t tag,
                    uint32_t size) {
  // The entry (twice: the vector grows geometrically) and its copied payload.
  if (!c.r.Charge(2 * sizeof(UnknownTaggedField) + StringHeapBytes(size), c.r.offset())) return;
  UnknownTaggedField u;
  u.tag = tag;
  u.data.assign(c.r.ReadRaw(size));
  if (unknown.empty() || unknown.back().tag < tag) {
    unknown.push_back(std::move(u));
    return;
  }
  // Only reachable with kQuirkUnorderedTags: keep ascending order; a repeat is kept after
  // the entries of the same tag (Java appends it; the encoder then refuses the pair).
  auto it = std::upper_bound(unknown.begin(), unknown.end(), tag,
                             [](uint32_t t, const UnknownTaggedField& x) { return t < x.tag; });
  unknown.insert(it, std::move(u));
}

void EncodeBlob(EncodeContext& c, FieldType kind, bool compact, const std::string_view* s) {
  if (kind == FieldType::kString) {
    if (s != nullptr && s->size() > 0x7fff) {
      c.w.Fail(ErrorKind::kStringTooLong,
               absl::StrFormat("string of %d bytes, the maximum is 32767", s->size()));
      return;
    }
    if (s != nullptr && !c.w.CheckUtf8(*s)) return;  // kInvalidUtf8 unless allowed
  } else {
    if (s != nullptr && s->size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      c.w.Fail(ErrorKind::kStringTooLong, absl::StrFormat("bytes of %d bytes", s->size()));
      return;
    }
  }
  if (compact && s != nullptr) {
    c.w.WriteCompactString(*s);  // uvarint length+1 and the bytes, one capacity check
    return;
  }
  const int64_t len = s == nullptr ? -1 : static_cast<int64_t>(s->size());
  if (kind == FieldType::kString) {
    c.w.WriteStringLength(compact, len);
  } else {
    c.w.WriteBytesLength(compact, len);
  }
  if (s != nullptr) c.w.WriteRaw(*s);
}

void FailArrayTooLong(EncodeContext& c, size_t n) {
  c.w.Fail(ErrorKind::kStringTooLong, absl::StrFormat("array of %d elements", n));
}

void FailNotNullable(EncodeContext& c) {
  c.w.Fail(ErrorKind::kNullNotAllowed,
           absl::StrFormat("null, but the field is not nullable in version %d", c.version));
}

void FailNonDefault(EncodeContext& c) {
  c.w.Fail(ErrorKind::kNonDefaultField,
           absl::StrFormat("non-default value, but the field does not exist in version %d "
                           "and is not ignorable",
                           c.version));
}

bool CheckUnknownTags(EncodeContext& c, const UnknownTaggedFields& unknown,
                      std::span<const FieldSpec> fields) {
  if (!c.flexible) {
    if (!unknown.empty()) {
      c.w.Fail(ErrorKind::kNonDefaultField,
               absl::StrFormat("%d unknown tagged fields, but version %d is not flexible",
                               unknown.size(), c.version));
    }
    return false;
  }
  // An unknown tag numbered like a tagged field of this version would be read back as
  // that field: refused whether the field is present or not (the known tags are
  // checked for order and duplicates with the rest as they are written).
  for (const UnknownTaggedField& u : unknown) {
    for (const FieldSpec& f : fields) {
      if (c.TagNames(f, u.tag)) {
        c.w.Fail(ErrorKind::kTagDuplicate,
                 absl::StrFormat("unknown tag %d is the tag of field %s at version %d", u.tag,
                                 f.name, c.version));
        return false;
      }
    }
  }
  return true;
}

void EncodeUnknownTagsBelow(EncodeContext& c, const UnknownTaggedFields& unknown, size_t* u,
                            int64_t below, int64_t* previous) {
  for (; *u < unknown.size() && static_cast<int64_t>(unknown[*u].tag) < below; ++*u) {
    const UnknownTaggedField& t = unknown[*u];
    if (static_cast<int64_t>(t.tag) <= *previous) {
      c.w.Fail(static_cast<int64_t>(t.tag) == *previous ? ErrorKind::kTagDuplicate
                                                        : ErrorKind::kTagOutOfOrder,
               absl::StrFormat("tag %d after tag %d", t.tag, *previous));
      return;
    }
    *previous = t.tag;
    c.w.WriteUvarint(t.tag);
    c.w.WriteUvarint(static_cast<uint32_t>(t.data.size()));
    c.w.WriteRaw(t.data);
  }
}

}  // namespace schema_internal
}  // namespace kwire
