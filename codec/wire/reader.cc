#include "codec/wire/reader.h"

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/wire/plural.h"

// Last include: kwire's hints (codec/wire/port_def.inc).
#include "codec/wire/port_def.inc"

namespace kwire {

void Reader::Fail(const Error& e) {
  if (error_.kind == ErrorKind::kOk) error_ = e;
  cur_ = end_;
}

void Reader::Fail(ErrorKind kind, size_t at, std::string detail) {
  if (error_.kind == ErrorKind::kOk) {
    if (kind == ErrorKind::kTruncated && tag_at_ != kNoTag) {
      // Inside a tagged field's payload (see PushTagLimit): the bytes exist, the value
      // is longer than the size its tag header declared.
      detail = absl::StrFormat("value runs past its declared size at byte %d: %s", at, detail);
      kind = ErrorKind::kTagSizeMismatch;
      at = tag_at_;
    }
    error_.kind = kind;
    error_.offset = at;
    error_.path = RenderPath(path_);
    error_.detail = std::move(detail);
  }
  // Drain: every later read sees zero bytes left; PopLimit keeps it drained.
  cur_ = end_;
}

bool Reader::OverBudget(size_t bytes, size_t at) {
  if (!ok()) return false;
  Fail(ErrorKind::kAllocationBudget, at,
       absl::StrFormat("needs %s of memory, %d of the allocation budget of %s are left "
                       "(DecodeOptions::max_alloc_bytes)",
                       CountOf(bytes, "byte"), alloc_left_,
                       CountOf(options_.max_alloc_bytes, "byte")));
  return false;
}

int Reader::Truncated(size_t need) {
  Fail(ErrorKind::kTruncated, offset(),
       absl::StrFormat("need %d, have %d", need, remaining()));
  return 0;
}

// The failures below are formatted out of line and cold: their messages build strings
// (CountOf), whose temporaries and cleanups inlined into a hot read cost every call a
// few instructions even when nothing fails (measured: +2 per ReadTaggedFieldCount).
namespace {

KWIRE_COLD void FailLengthPastEnd(Reader& r, size_t at, const char* what, int64_t len) {
  r.Fail(ErrorKind::kTruncated, at,
         absl::StrFormat("%s of %s, have %d", what, CountOf(static_cast<uint64_t>(len), "byte"),
                         r.remaining()));
}

// `reserved`: the bytes the enclosing arrays' later elements need (ReadArrayCount).
KWIRE_COLD void FailArrayCount(Reader& r, size_t at, int64_t n, size_t left, size_t min,
                               size_t reserved) {
  const size_t needed = r.remaining() - left;
  r.Fail(ErrorKind::kCountTooLarge, at,
         reserved == 0
             ? absl::StrFormat("array count %d, but %s left %s at most %s of >= %s", n,
                               CountOf(left, "byte"), left == 1 ? "holds" : "hold",
                               CountOf(left / min, "element"), CountOf(min, "byte"))
             : absl::StrFormat("array count %d, but %s left (%d more %s needed by the "
                               "enclosing arrays) %s at most %s of >= %s",
                               n, CountOf(left, "byte"), needed,
                               needed == 1 ? "is" : "are", left == 1 ? "holds" : "hold",
                               CountOf(left / min, "element"), CountOf(min, "byte")));
}

KWIRE_COLD void FailTaggedFieldCount(Reader& r, size_t at, uint32_t n) {
  r.Fail(ErrorKind::kCountTooLarge, at,
         absl::StrFormat("tagged field count %d, but %s left %s at most %d", n,
                         CountOf(r.remaining(), "byte"), r.remaining() == 1 ? "holds" : "hold",
                         r.remaining() / 2));
}

KWIRE_COLD void FailTagPayload(Reader& r, size_t tag_at, uint32_t tag, uint32_t size) {
  r.Fail(ErrorKind::kTruncated, tag_at,
         absl::StrFormat("tag %d payload of %s, have %d", tag, CountOf(size, "byte"),
                         r.remaining()));
}

}  // namespace

// Where the length of the string value `v` (just read, ending at absolute offset `end`)
// came from, read off the bytes before it: the decoder's strings are prefixed by an int16
// length or a compact uvarint n+1 (which can never look like the int16 of the same n), so
// the fast path keeps no state for it. Empty when neither precedes `v` (a caller of
// ReadUtf8 that read the length elsewhere).
static std::string StringLengthContext(std::span<const uint8_t> before, size_t n, size_t end) {
  const size_t start = end - n;
  if (before.size() >= 2 && n <= 0x7fff &&
      LoadBigEndian<uint16_t>(before.data() + before.size() - 2) == n) {
    return absl::StrFormat("string of length %d read at byte %d, ends at byte %d", n, start - 2,
                           end);
  }
  if (n >= 0xffffffff) return {};  // no compact length reaches it
  uint8_t uvarint[kMaxUvarintBytes];
  const size_t width = EncodeUvarint(uvarint, static_cast<uint32_t>(n + 1));
  if (before.size() >= width &&
      std::memcmp(before.data() + before.size() - width, uvarint, width) == 0) {
    return absl::StrFormat("string of length %d read at byte %d (compact, uvarint %d), ends at "
                           "byte %d",
                           n, start - width, n + 1, end);
  }
  return {};
}

std::string_view Reader::InvalidUtf8(std::string_view v, size_t bad) {
  if (has_quirk(kQuirkInvalidUtf8)) return v;
  // The failure path alone: the detail names the length that sized the value and where it
  // was read (issue 35: a wrong length, not the bytes, is the usual fault).
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  const std::string context = StringLengthContext(
      std::span<const uint8_t>(begin_, static_cast<size_t>(p - begin_)), v.size(), offset());
  std::string detail = DescribeInvalidUtf8(v, bad);
  if (!context.empty()) absl::StrAppend(&detail, "; ", context);
  Fail(ErrorKind::kInvalidUtf8, offset() - v.size() + bad, std::move(detail));
  return {};
}

bool Reader::ReadBool() {
  const size_t at = offset();
  const uint8_t b = ReadUint8();
  if (KWIRE_LIKELY(b <= 1)) return b == 1;
  if (has_quirk(kQuirkAnyNonZeroBool)) return true;
  Fail(ErrorKind::kInvalidBool, at, absl::StrFormat("byte 0x%02x, expected 0x00 or 0x01", b));
  return false;
}

Uuid Reader::ReadUuid() {
  Uuid u;
  std::string_view raw = ReadRaw(16);
  if (raw.size() == 16) std::memcpy(u.bytes.data(), raw.data(), 16);
  return u;
}

uint64_t Reader::ReadLeb128(size_t max_bytes, unsigned last_bits, const char* what) {
  using varint_internal::Leb128Status;
  const size_t at = offset();
  const varint_internal::Leb128Result r = varint_internal::DecodeLeb128(
      cur_, end_, max_bytes, last_bits, has_quirk(kQuirkVarintExtraBits),
      has_quirk(kQuirkNonCanonicalVarint));
  switch (r.status) {
    case Leb128Status::kOk:
      cur_ += r.length;
      return r.value;
    case Leb128Status::kTruncated:
      Fail(ErrorKind::kTruncated, at,
           absl::StrFormat("%s: need %d, have %d", what, r.length + 1, r.length));
      return 0;
    case Leb128Status::kOverflow:
      Fail(ErrorKind::kVarintOverflow, at,
           absl::StrFormat("%s byte %d is 0x%02x, more than %d bits", what, r.length,
                           r.last_byte, static_cast<int>(7 * (r.length - 1) + last_bits)));
      return 0;
    case Leb128Status::kNonCanonical:
      Fail(ErrorKind::kVarintNonCanonical, at,
           absl::StrFormat("%s of %d bytes ends in a zero group (overlong)", what, r.length));
      return 0;
    case Leb128Status::kTooLong:
      break;
  }
  Fail(ErrorKind::kVarintTooLong, at,
       absl::StrFormat("%s continues past %d bytes", what, max_bytes));
  return 0;
}

uint32_t Reader::ReadUvarintSlow() {
  return static_cast<uint32_t>(ReadLeb128(5, 4, "uvarint"));
}

uint32_t Reader::ReadVarintSlow() {
  return static_cast<uint32_t>(ReadLeb128(5, 4, "varint"));
}

uint64_t Reader::ReadVarlongSlow() { return ReadLeb128(10, 1, "varlong"); }

namespace {
inline bool IsNull(int64_t len) { return len == -1; }
}  // namespace

// Shared tail of the three length readers: `len` is the decoded signed length
// (−1 = null marker), `at` its offset. `limit` is the largest legal length.
// A compact length or count n (uvarint − 1, up to 2^32 − 2) as Java reads it under
// kQuirkAnyNegativeLengthIsNull: Java's readUnsignedVarint returns an int, so
// a uvarint above 2^31 wraps to a negative length (0xffffffff → −2), which is null
// in a nullable field (and an error in another, like any negative length). Strict
// decoding keeps n: beyond the int32 maximum it is kInvalidLength (CheckLength).
static int64_t JavaCompactLength(const Reader& r, int64_t n) {
  if (n >= std::numeric_limits<int32_t>::max() && r.has_quirk(kQuirkAnyNegativeLengthIsNull)) {
    return int64_t{static_cast<int32_t>(static_cast<uint32_t>(n + 1) - 1u)};
  }
  return n;
}

static int64_t CheckLength(Reader& r, int64_t len, size_t at, bool nullable, int64_t limit,
                           const char* what) {
  if (len < 0) {
    if (!IsNull(len)) {
      if (nullable && r.has_quirk(kQuirkAnyNegativeLengthIsNull)) return -1;
      r.Fail(ErrorKind::kInvalidLength, at,
             absl::StrFormat("%s length %d (only -1 means null)", what, len));
      return 0;
    }
    if (!nullable) {
      r.Fail(ErrorKind::kUnexpectedNull, at, absl::StrFormat("null %s in a non-nullable field", what));
      return 0;
    }
    return -1;
  }
  if (len > limit) {
    r.Fail(ErrorKind::kInvalidLength, at,
           absl::StrFormat("%s length %d exceeds the maximum %d", what, len, limit));
    return 0;
  }
  return len;
}

int64_t Reader::ReadLengthSlow(const uint8_t* start, bool compact, bool nullable,
                               bool bytes) {
  if (!ok()) return 0;
  cur_ = start;  // re-read the prefix (it decoded once already)
  const size_t at = offset();
  const char* what = bytes ? "bytes" : "string";
  int64_t len;
  if (compact) {
    len = JavaCompactLength(*this, static_cast<int64_t>(ReadUvarint()) - 1);
  } else {
    len = bytes ? int64_t{ReadInt32()} : int64_t{ReadInt16()};
  }
  if (!ok()) return 0;
  len = CheckLength(*this, len, at, nullable,
                    bytes ? std::numeric_limits<int32_t>::max() : 0x7fff, what);
  if (len > 0 && static_cast<size_t>(len) > remaining()) {
    FailLengthPastEnd(*this, at, what, len);
    return 0;
  }
  return len;
}

int64_t Reader::ReadArrayCountSlow(const uint8_t* start, bool compact, bool nullable,
                                   size_t min_element_size, size_t reserved) {
  if (!ok()) return 0;
  cur_ = start;
  const size_t at = offset();
  int64_t n = compact ? JavaCompactLength(*this, static_cast<int64_t>(ReadUvarint()) - 1)
                      : ReadInt32();
  if (!ok()) return 0;
  // The int32 cap before the bytes left, as for string and bytes lengths and as Java
  // does (conformance/FORMAT.md, "Lengths"): a compact count beyond 2^31 − 1 is
  // kInvalidLength; a count the bytes left cannot hold is kCountTooLarge.
  n = CheckLength(*this, n, at, nullable, std::numeric_limits<int32_t>::max(), "array");
  if (n <= 0) return n;
  const size_t min = min_element_size == 0 ? 1 : min_element_size;
  const size_t left = remaining() > reserved ? remaining() - reserved : 0;
  // left/min never overflows; compare in the count's domain.
  if (static_cast<uint64_t>(n) > left / min) {
    FailArrayCount(*this, at, n, left, min, reserved);
    return 0;
  }
  return n;
}

bool Reader::ReadStructPresence(bool nullable) {
  const size_t at = offset();
  const int8_t marker = ReadInt8();
  if (!ok()) return false;
  bool present;
  if (marker == 1) {
    present = true;
  } else if (marker == -1) {
    present = false;
  } else if (has_quirk(kQuirkAnyStructMarker)) {
    present = marker >= 0;
  } else {
    Fail(ErrorKind::kInvalidValue, at,
         absl::StrFormat("struct presence marker %d, expected 1 or -1", marker));
    return false;
  }
  if (!present && !nullable) {
    Fail(ErrorKind::kUnexpectedNull, at, "null struct in a non-nullable field");
    return false;
  }
  return present;
}

uint32_t Reader::ReadTaggedFieldCount() {
  const size_t at = offset();
  const uint32_t n = ReadUvarint();
  if (!ok()) return 0;
  if (n > remaining() / 2) {
    FailTaggedFieldCount(*this, at, n);
    return 0;
  }
  return n;
}

bool Reader::ReadTagHeader(int64_t previous, uint32_t* tag, uint32_t* size) {
  // The outputs are set only for a valid header: a failed read yields zeros, so no
  // caller can dispatch on a rejected tag or size a buffer from a rejected size.
  *tag = 0;
  *size = 0;
  const size_t at = offset();
  const uint32_t t = ReadUvarint();
  const uint32_t n = ReadUvarint();
  if (!ok()) return false;
  if (static_cast<int64_t>(t) <= previous && !has_quirk(kQuirkUnorderedTags)) {
    Fail(static_cast<int64_t>(t) == previous ? ErrorKind::kTagDuplicate : ErrorKind::kTagOutOfOrder,
         at, absl::StrFormat("tag %d after tag %d", t, previous));
    return false;
  }
  if (!has_quirk(kQuirkKnownTagSizeIgnored) && !CheckTagSize(at, t, n)) return false;
  *tag = t;
  *size = n;
  return true;
}

bool Reader::CheckTagSize(size_t tag_at, uint32_t tag, uint32_t size) {
  if (KWIRE_LIKELY(size <= remaining())) return true;
  FailTagPayload(*this, tag_at, tag, size);
  return false;
}

Reader::TagLimit Reader::PushTagLimit(size_t n, size_t tag_at) {
  const size_t token = PushLimit(n);  // a real truncation stays kTruncated
  const TagLimit limit{token, tag_at_};
  if (ok()) tag_at_ = tag_at;
  return limit;
}

void Reader::PopTagLimit(TagLimit limit) {
  tag_at_ = limit.outer_tag_at;
  PopLimit(limit.token);
}

}  // namespace kwire
