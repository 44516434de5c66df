#include "codec/records/record_batch.h"

#include <zlib.h>

#include <atomic>
#include <climits>
#include <utility>

#include "absl/strings/str_format.h"
#include "codec/records/crc32c.h"

// Last include: kwire's hints (codec/wire/port_def.inc).
#include "codec/wire/port_def.inc"

namespace kwire {

bool RecordsCrcEnforcementEnabled() {
#if defined(KWIRE_FUZZ_SKIP_CRC_CHECK) && KWIRE_FUZZ_SKIP_CRC_CHECK
  return false;
#else
  return true;
#endif
}

namespace {

// Smallest batchLength (bytes after baseOffset and batchLength) per magic.
constexpr int32_t kMinLength[3] = {
    14,  // magic 0: crc 4, magic 1, attributes 1, key length 4, value length 4
    22,  // magic 1: + timestamp 8
    49,  // magic 2: the rest of the 61-byte header
};
// baseOffset, batchLength, then the int32 before the magic (partitionLeaderEpoch or crc).
constexpr size_t kMagicOffset = 16;
constexpr size_t kV2CrcOffset = 17;
constexpr size_t kV2AttributesOffset = kRecordBatchCrcStart;
constexpr size_t kV2CountOffset = 57;
constexpr size_t kLegacyCrcOffset = 12;
constexpr size_t kLegacyAttributesOffset = 17;
// Smallest encoded record: length, attributes, timestampDelta, offsetDelta, key length,
// value length, header count (one byte each).
constexpr size_t kMinRecordSize = 7;

// Offsets and timestamps come from the wire: sums and differences of them wrap (two's
// complement, as Java's long arithmetic does) instead of overflowing. Never negate a
// decoded value and add it: −INT64_MIN overflows; use WrapSub.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

uint32_t Crc32Ieee(const uint8_t* p, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    const uInt chunk = n > UINT_MAX ? UINT_MAX : static_cast<uInt>(n);
    crc = crc32(crc, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

// Inside a complete batch nothing may be truncated: a length that runs past its record,
// message or batch is corrupt framing, not "need more bytes".
Error Inconsistent(Error e) {
  if (e.kind == ErrorKind::kTruncated) {
    e.kind = ErrorKind::kCorruptRecords;
    e.detail = absl::StrFormat("overruns its enclosing record or batch: %s", e.detail);
  }
  return e;
}

// Moves an error found while parsing a decompressed payload to the payload's first byte
// (a frame offset) and says where inside the decompressed bytes it was.
Error InDecompressed(Error e, size_t payload_offset, Compression codec, const char* unit,
                     int64_t base_offset) {
  e = Inconsistent(std::move(e));
  e.detail = absl::StrFormat("at byte %d of the decompressed %s payload of %s %d: %s",
                             e.offset, CompressionName(codec), unit, base_offset, e.detail);
  e.offset = payload_offset;
  return e;
}

// A negative varbytes length other than −1 read at `at`: fine (null) with
// kQuirkAnyNegativeLengthIsNull, else kInvalidLength.
KWIRE_COLD void NegativeVarBytes(Reader& r, size_t at, int32_t n, const char* what) {
  if (r.has_quirk(kQuirkAnyNegativeLengthIsNull)) return;
  r.Fail(ErrorKind::kInvalidLength, at, absl::StrFormat("%s length %d", what, n));
}

// varint length + bytes into `*out`; −1 is null; other negatives fail kInvalidLength
// (null with kQuirkAnyNegativeLengthIsNull). After a failure `*out` is unspecified (the
// caller discards the record). Inline, and writing `*out` in place: it runs twice per
// record (key, value), and returning the optional by value (or out of line) makes GCC
// copy it through stack temporaries with store-forwarding stalls that cost more than
// the parse itself.
KWIRE_ALWAYS_INLINE void ReadVarBytes(Reader& r, const char* what,
                                      std::optional<std::string_view>* out) {
  const size_t before = r.remaining();  // cheaper to keep than r.offset()
  const int32_t n = r.ReadVarint();      // 0 after a failure
  if (KWIRE_LIKELY(n >= 0)) {
    const std::string_view v = r.ReadRaw(static_cast<size_t>(n));
    out->emplace(v.data(), v.size());
    return;
  }
  out->reset();
  // The varint was read (a failed read returns 0), so it started before - remaining()
  // bytes back (within one limit: the end did not move).
  if (n != -1) NegativeVarBytes(r, r.offset() - (before - r.remaining()), n, what);
}

// int32 length + bytes (legacy messages); −1 is null.
std::optional<std::string_view> ReadInt32Bytes(Reader& r) {
  const int64_t n = r.ReadBytesLength(/*compact=*/false, /*nullable=*/true);
  if (!r.ok() || n < 0) return std::nullopt;
  return r.ReadRaw(static_cast<size_t>(n));
}

// The part of a legacy message after the magic byte: attributes, [timestamp], key, value.
struct LegacyBody {
  int8_t attributes = 0;
  int64_t timestamp = -1;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  size_t value_offset = 0;  // absolute offset of the value bytes
};

void ReadLegacyBody(Reader& r, int8_t magic, const PathNode* msg, LegacyBody* b) {
  b->attributes = r.ReadInt8();
  if (magic == 1) b->timestamp = r.ReadInt64();
  PathNode key{msg, "Key", -1};
  r.set_path(&key);
  b->key = ReadInt32Bytes(r);
  PathNode value{msg, "Value", -1};
  r.set_path(&value);
  const size_t len_at = r.offset();
  b->value = ReadInt32Bytes(r);
  b->value_offset = len_at + 4;
  r.set_path(msg);
}

// Appends a new Record to `slots` (amortised growth, after the caller's reserve).
KWIRE_NOINLINE void GrowSlots(std::vector<Record>* slots) { slots->emplace_back(); }

// DecompressOptions under RecordsOptions: its cap, lowered to half the allocation budget
// (RecordsOptions::max_alloc_bytes) when that is smaller, and then named after it.
DecompressOptions DecompressCaps(const RecordsOptions& options) {
  DecompressOptions d;
  d.max_output = options.max_decompressed_bytes;
  if (options.max_alloc_bytes / 2 < d.max_output) {
    d.max_output = options.max_alloc_bytes / 2;
    d.cap_kind = ErrorKind::kAllocationBudget;
    d.cap_name = "half the allocation budget left, DecodeOptions::max_alloc_bytes";
  }
  return d;
}

// Whether `count` Record objects fit half the allocation budget.
bool RecordsFitBudget(size_t count, const RecordsOptions& options) {
  return count <= options.max_alloc_bytes / 2 / sizeof(Record);
}

// The next record slot of a RecordSet (`slots`, live count `*size`): a Record kept from
// an earlier decode, whose stale contents the caller must overwrite field by field, or a
// new one. Growing one record at a time (after a reserve) touches memory only for
// records actually present, whatever the header's count says.
Record* NextSlot(std::vector<Record>* slots, size_t* size) {
  if (*size == slots->size()) GrowSlots(slots);
  return &(*slots)[(*size)++];
}

// NextSlot with every field reset to its default (headers keep their capacity).
Record* NextClearSlot(std::vector<Record>* slots, size_t* size) {
  Record* rec = NextSlot(slots, size);
  std::vector<RecordHeader> headers = std::move(rec->headers);
  headers.clear();
  *rec = Record{};
  rec->headers = std::move(headers);
  return rec;
}

// The field paths of the records of one batch, for errors. Built once per batch:
// ReadRecord only updates the record and header indexes and points the reader at the
// node of the field it reads (a pointer store), so the rendered paths are those of
// nodes built per field, `<batch>.Record[j].Headers[k].Key` and so on.
struct RecordPaths {
  explicit RecordPaths(const PathNode* batch) : record{batch, "Record", 0} {}
  RecordPaths(const RecordPaths&) = delete;  // the nodes point at each other
  RecordPaths& operator=(const RecordPaths&) = delete;
  PathNode record;
  PathNode length{&record, "Length", -1};
  PathNode attributes{&record, "Attributes", -1};
  PathNode timestamp_delta{&record, "TimestampDelta", -1};
  PathNode offset_delta{&record, "OffsetDelta", -1};
  PathNode key{&record, "Key", -1};
  PathNode value{&record, "Value", -1};
  PathNode headers{&record, "Headers", -1};
  PathNode header{&record, "Headers", 0};
  PathNode header_key{&header, "Key", -1};
  PathNode header_value{&header, "Value", -1};
};

// The checks of ReadRecord that fail, out of line.
KWIRE_COLD void FailRecordLength(Reader& r, size_t len_at, int32_t len) {
  if (len < 0) {
    r.Fail(ErrorKind::kInvalidLength, len_at, absl::StrFormat("record length %d", len));
  } else {
    r.Fail(ErrorKind::kCorruptRecords, len_at,
           absl::StrFormat("record length %d but only %d bytes left in the batch", len,
                           r.remaining()));
  }
}
KWIRE_COLD void FailHeaderCount(Reader& r, size_t count_at, int32_t count) {
  if (count < 0) {
    r.Fail(ErrorKind::kInvalidLength, count_at, absl::StrFormat("header count %d", count));
  } else {
    r.Fail(ErrorKind::kCorruptRecords, count_at,
           absl::StrFormat("header count %d but only %d bytes left in the record "
                           "(at least 2 per header)",
                           count, r.remaining()));
  }
}
KWIRE_COLD void FailRecordRest(Reader& r, int32_t len, size_t body_at) {
  r.Fail(ErrorKind::kCorruptRecords, r.offset(),
         absl::StrFormat("record length %d but its fields use %d bytes", len,
                         r.offset() - body_at));
}

// Reads the headers of a record (count > 0, checked against the bytes left). Out of
// line: it keeps the header-less path of ReadRecord small.
// Position of the bytes of a varbytes field just read (`v`: its value), for layouts.
size_t BytesStart(const Reader& r, const std::optional<std::string_view>& v) {
  return r.offset() - (v ? v->size() : 0);
}

KWIRE_NOINLINE void ReadHeaders(Reader& r, int32_t count, RecordPaths& paths,
                                        Record* rec, RecordLayout* lay) {
  rec->headers.reserve(static_cast<size_t>(count));
  for (int32_t k = 0; r.ok() && k < count; ++k) {
    paths.header.index = k;
    r.set_path(&paths.header_key);
    const size_t klen_at = r.offset();
    const int32_t klen = r.ReadVarint();
    if (r.ok() && klen < 0) {
      r.Fail(ErrorKind::kInvalidLength, klen_at,
             absl::StrFormat("header key length %d (header keys are not nullable)", klen));
    }
    RecordHeader& out = rec->headers.emplace_back();
    const size_t key_at = r.offset();
    // Keys are strings (Java reads them as UTF-8): kInvalidUtf8 unless kQuirkInvalidUtf8.
    if (r.ok()) out.key = r.ReadUtf8(static_cast<size_t>(klen));
    r.set_path(&paths.header_value);
    const size_t vlen_at = r.offset();
    ReadVarBytes(r, "header value", &out.value);
    if (lay != nullptr) lay->headers.push_back({klen_at, key_at, vlen_at, BytesStart(r, out.value)});
  }
}

// Reads one record of a v2 batch into `rec`, a reused slot: every field of Record is
// assigned here (on success), so nothing of the slot's previous record survives.
// `h` gives the base offset/timestamp; `paths.record` is this record's path node, and
// the reader's path on entry and on return.
// `lay`, when not null, receives the position of every field (RecordsOptions::layout).
KWIRE_ALWAYS_INLINE void ReadRecord(Reader& r, const BatchHeader& h, RecordPaths& paths,
                                    Record* rec, RecordLayout* lay) {
  rec->headers.clear();
  const size_t len_at = r.offset();
  rec->wire_offset = len_at;
  r.set_path(&paths.length);
  const int32_t len = r.ReadVarint();
  if (!r.ok()) return;
  if (KWIRE_UNLIKELY(len < 0 || static_cast<size_t>(len) > r.remaining())) {
    r.set_path(&paths.record);
    FailRecordLength(r, len_at, len);
    return;
  }
  const size_t body_at = r.offset();
  const size_t token = r.PushLimit(static_cast<size_t>(len));
  r.set_path(&paths.attributes);
  rec->attributes = r.ReadInt8();
  r.set_path(&paths.timestamp_delta);
  const size_t ts_at = r.offset();
  rec->timestamp_delta = r.ReadVarlong();
  r.set_path(&paths.offset_delta);
  const size_t od_at = r.offset();
  rec->offset_delta = r.ReadVarint();
  r.set_path(&paths.key);
  const size_t klen_at = r.offset();
  ReadVarBytes(r, "key", &rec->key);
  const size_t key_at = BytesStart(r, rec->key);
  r.set_path(&paths.value);
  const size_t vlen_at = r.offset();
  ReadVarBytes(r, "value", &rec->value);
  r.set_path(&paths.headers);
  const size_t count_at = r.offset();
  if (lay != nullptr) {
    lay->headers.clear();
    *lay = RecordLayout{len_at, body_at, ts_at, od_at, klen_at, key_at, vlen_at,
                        BytesStart(r, rec->value), count_at, std::move(lay->headers), 0};
  }
  const int32_t count = r.ReadVarint();
  if (count != 0 && r.ok()) {
    if (count < 0 || static_cast<size_t>(count) > r.remaining() / 2) {
      FailHeaderCount(r, count_at, count);
    } else {
      ReadHeaders(r, count, paths, rec, lay);
    }
  }
  if (lay != nullptr) lay->end = r.offset();
  r.set_path(&paths.record);
  if (KWIRE_UNLIKELY(r.ok() && !r.AtEnd())) FailRecordRest(r, len, body_at);
  r.PopLimit(token);
  if (!r.ok()) return;
  rec->wire_size = r.offset() - len_at;
  rec->offset = WrapAdd(h.base_offset, rec->offset_delta);
  rec->timestamp =
      h.log_append_time() ? h.max_timestamp : WrapAdd(h.base_timestamp, rec->timestamp_delta);
  if (KWIRE_UNLIKELY(h.is_control())) {
    ControlRecord c;
    if (Error e = DecodeControlRecord(*rec, &c); !e.ok()) {
      r.Fail(ErrorKind::kCorruptRecords, rec->wire_offset, e.detail);
      return;
    }
    rec->control = c;
  } else {
    rec->control.reset();
  }
}

// The fast path of ReadRecord: one record of a non-control batch, every varint
// canonical and every length in range, read with local pointers from `p`
// (records end `end`). Fills `*rec` exactly as ReadRecord would and returns the record's
// end; returns nullptr for anything else (a length or count out of range, a varint the
// fast decoders decline, fewer bytes than they need), having consumed nothing: the
// caller re-reads that record with ReadRecord, the reference, which reports the exact
// error or applies the quirks. `*rec` may be partly written then (ReadRecord rewrites
// every field). `at` is the absolute offset of `p`; `base` are the batch's constants.
//
// Why a second path: the Reader's cursor lives in memory (the reader escapes into the
// out-of-line error paths), and every int8 store into a Record may alias it, so the
// Reader-based loop reloads and stores it around each field. Here the cursor is a local
// in a register. The two must agree on every record both accept: the records fuzz target
// and tests decode with both (SetRecordFastPathForTesting) and compare.
struct BatchBase {
  int64_t base_offset;
  int64_t base_timestamp;
  int64_t max_timestamp;
  bool log_append_time;
};

// A varint / varbytes length at `*p` before `limit`, or false (nothing consumed).
KWIRE_ALWAYS_INLINE bool FastVarint(const uint8_t** p, const uint8_t* limit, int32_t* v) {
  uint32_t u;
  const size_t n = varint_internal::TryDecodeUvarint(*p, limit, &u);
  if (KWIRE_UNLIKELY(n == 0)) return false;
  *p += n;
  *v = ZigZagDecode32(u);
  return true;
}
KWIRE_ALWAYS_INLINE bool FastVarBytes(const uint8_t** p, const uint8_t* limit,
                                      std::optional<std::string_view>* out) {
  int32_t n;
  if (!FastVarint(p, limit, &n)) return false;
  if (KWIRE_LIKELY(n >= 0)) {
    if (KWIRE_UNLIKELY(static_cast<size_t>(n) > static_cast<size_t>(limit - *p))) {
      return false;
    }
    out->emplace(reinterpret_cast<const char*>(*p), static_cast<size_t>(n));
    *p += n;
    return true;
  }
  out->reset();
  return n == -1;
}

// The header count and headers of ReadRecordFast (out of line: most records have
// none). Returns the end of the last header, or nullptr for what the fast path declines
// (a count or length out of range, a varint the fast decoders decline, a key that is not
// UTF-8).
KWIRE_NOINLINE const uint8_t* ReadHeadersFast(const uint8_t* p, const uint8_t* rec_end,
                                                      Record* rec) {
  int32_t count;
  if (!FastVarint(&p, rec_end, &count)) return nullptr;
  // At least two bytes per header (as ReadRecord checks before reserving).
  if (count < 0 || static_cast<size_t>(count) > static_cast<size_t>(rec_end - p) / 2) {
    return nullptr;
  }
  rec->headers.reserve(static_cast<size_t>(count));
  for (int32_t k = 0; k < count; ++k) {
    RecordHeader& h = rec->headers.emplace_back();
    std::optional<std::string_view> key;
    if (!FastVarBytes(&p, rec_end, &key) || !key) return nullptr;  // keys are not nullable
    // Keys are UTF-8: the reference path reports a bad one (or applies the quirk).
    if (!IsValidUtf8(*key)) return nullptr;
    h.key = *key;
    if (!FastVarBytes(&p, rec_end, &h.value)) return nullptr;
  }
  return p;
}

KWIRE_ALWAYS_INLINE const uint8_t* ReadRecordFast(const uint8_t* p, const uint8_t* end,
                                                  size_t at, const BatchBase& base,
                                                  Record* rec) {
  const uint8_t* const start = p;
  int32_t len;
  if (!FastVarint(&p, end, &len)) return nullptr;
  // A record holds at least attributes, timestampDelta, offsetDelta, key, value and
  // header count: 6 bytes.
  if (KWIRE_UNLIKELY(len < 6 || static_cast<size_t>(len) > static_cast<size_t>(end - p))) {
    return nullptr;
  }
  const uint8_t* const rec_end = p + len;
  rec->attributes = static_cast<int8_t>(*p++);
  uint64_t ts;
  const size_t n = varint_internal::TryDecodeUvarint(p, rec_end, &ts);
  if (KWIRE_UNLIKELY(n == 0)) return nullptr;
  p += n;
  rec->timestamp_delta = ZigZagDecode64(ts);
  int32_t offset_delta;
  if (!FastVarint(&p, rec_end, &offset_delta)) return nullptr;
  rec->offset_delta = offset_delta;
  if (!FastVarBytes(&p, rec_end, &rec->key)) return nullptr;
  if (!FastVarBytes(&p, rec_end, &rec->value)) return nullptr;
  rec->headers.clear();
  // Header count 0 (one zero byte) ending the record: the common case, one compare.
  if (KWIRE_UNLIKELY(rec_end - p != 1 || *p != 0)) {
    p = ReadHeadersFast(p, rec_end, rec);
    if (p != rec_end) return nullptr;  // (nullptr too)
  }
  rec->offset = WrapAdd(base.base_offset, offset_delta);
  rec->timestamp = base.log_append_time ? base.max_timestamp
                                        : WrapAdd(base.base_timestamp, rec->timestamp_delta);
  rec->wire_offset = at;
  rec->wire_size = static_cast<size_t>(rec_end - start);
  rec->control.reset();
  return rec_end;
}

std::atomic<bool> g_record_fast_path{true};

// Reads records with ReadRecordFast from `*p` into slots [*live, ...) until `count`
// records are live or the fast path declines one; advances `*p` and `*live`. A loop of
// its own so that its cursor, counters and the batch constants stay in registers.
KWIRE_NOINLINE void ReadRecordsFast(const uint8_t** p, const uint8_t* end,
                                            const uint8_t* origin, size_t origin_at,
                                            const BatchBase& base, size_t count,
                                            std::vector<Record>* slots, size_t* live,
                                            Record* scratch) {
  const BatchBase b = base;
  const uint8_t* q = *p;
  size_t n = *live;
  Record* data = slots->data();
  size_t allocated = slots->size();
  for (; n < count; ++n) {
    if (KWIRE_UNLIKELY(n == allocated) && scratch == nullptr) {
      GrowSlots(slots);  // within the reserve: `data` stays valid
      allocated = slots->size();
    }
    Record* const rec = scratch != nullptr ? scratch : &data[n];
    const uint8_t* next = ReadRecordFast(q, end, origin_at + static_cast<size_t>(q - origin), b, rec);
    if (KWIRE_UNLIKELY(next == nullptr)) break;
    q = next;
  }
  *p = q;
  *live = n;
}

void ReadRecords(Reader& r, const BatchHeader& h, const PathNode* batch,
                 std::vector<Record>* slots, size_t* size, std::vector<RecordLayout>* layout,
                 bool keep) {
  const int32_t count = h.records_count;
  // count ≤ bytes / kMinRecordSize (checked). Every slot the loops use is within this
  // reserve, so growing never moves the vector. Not keeping them, every record is read
  // into one slot, `scratch`.
  slots->reserve(*size + (keep ? static_cast<size_t>(count) : 1));
  if (!keep && slots->size() == *size) GrowSlots(slots);
  Record* const scratch = keep ? nullptr : &(*slots)[*size];
  RecordPaths paths(batch);
  r.set_path(&paths.record);
  const size_t first = *size;  // records of this batch are slots [first, first + count)
  const size_t last = first + static_cast<size_t>(count);
  size_t live = first;
  const bool fast = !h.is_control() && layout == nullptr &&
                    g_record_fast_path.load(std::memory_order_relaxed);
  const BatchBase base{h.base_offset, h.base_timestamp, h.max_timestamp, h.log_append_time()};
  // `p` runs ahead of the reader over the records the fast path reads; the reader skips
  // to it before each record read by the reference path, and at the end.
  const std::span<const uint8_t> unread = r.Unread();
  const uint8_t* const origin = unread.data();
  const uint8_t* const end = origin + unread.size();
  const size_t origin_at = r.offset();  // absolute offset of `origin`
  const uint8_t* p = origin;
  const uint8_t* synced = origin;  // where the reader is
  while (live < last) {
    if (fast) {
      ReadRecordsFast(&p, end, origin, origin_at, base, last, slots, &live, scratch);
      if (live == last) break;
    }
    // The reference path for record live − first, from `p`.
    r.Skip(static_cast<size_t>(p - synced));
    const int32_t j = static_cast<int32_t>(live - first);
    paths.record.index = j;
    if (KWIRE_UNLIKELY(r.AtEnd())) {
      r.Fail(ErrorKind::kCorruptRecords,
             absl::StrFormat("records count %d but only %d records present", count, j));
      break;
    }
    if (scratch == nullptr && live == slots->size()) GrowSlots(slots);
    RecordLayout* lay = nullptr;
    if (KWIRE_UNLIKELY(layout != nullptr)) lay = &layout->emplace_back();
    ReadRecord(r, h, paths, scratch != nullptr ? scratch : &(*slots)[live], lay);
    if (KWIRE_UNLIKELY(!r.ok())) {
      if (lay != nullptr) layout->pop_back();
      break;
    }
    ++live;
    p = synced = r.Unread().data();  // (ReadRecord restored the batch's limit)
  }
  if (r.ok()) r.Skip(static_cast<size_t>(p - synced));
  *size = keep ? live : first;
  r.set_path(batch);
  if (r.ok() && !r.AtEnd()) {
    r.Fail(ErrorKind::kCorruptRecords,
           absl::StrFormat("records count %d but %d bytes follow the last record", count,
                           r.remaining()));
  }
}

}  // namespace

void SetRecordFastPathForTesting(bool enabled) {
  g_record_fast_path.store(enabled, std::memory_order_relaxed);
}

// ------------------------------------------------------------------------- iterator

bool BatchIterator::Partial(size_t at, size_t have, size_t need) {
  state_ = kPartialBatch;
  partial_offset_ = at;
  partial_have_ = have;
  partial_need_ = need;
  return false;
}

bool BatchIterator::Next(BatchView* out) {
  if (state_ != kMore) return false;
  const size_t rem = field_.size() - pos_;
  const size_t at = field_offset_ + pos_;
  if (rem == 0) {
    state_ = kEnd;
    return false;
  }
  if (rem < kLogOverhead) return Partial(at, rem, 0);

  PathNode node{path_, "Batch", static_cast<int64_t>(index_)};
  const uint8_t* const base = field_.data() + pos_;
  Reader r(base, rem, at, DecodeOptions{options_.quirks});
  r.set_path(&node);
  auto fail = [&](ErrorKind kind, size_t where, std::string detail) {
    r.Fail(kind, where, std::move(detail));
    error_ = r.error();
    state_ = kError;
    return false;
  };

  BatchHeader h;
  h.base_offset = r.ReadInt64();
  h.batch_length = r.ReadInt32();
  if (h.batch_length < kMinLength[0]) {
    return fail(ErrorKind::kCorruptRecords, at + 8,
                absl::StrFormat("batchLength %d is below the minimum of %d bytes",
                                h.batch_length, kMinLength[0]));
  }
  const size_t total = kLogOverhead + static_cast<size_t>(h.batch_length);
  if (rem <= kMagicOffset) return Partial(at, rem, total);
  const uint32_t word = r.ReadUint32();
  h.magic = r.ReadInt8();
  if (h.magic < 0 || h.magic > 2) {
    return fail(ErrorKind::kCorruptRecords, at + kMagicOffset,
                absl::StrFormat("magic %d (expected 0, 1 or 2)", h.magic));
  }
  if (h.batch_length < kMinLength[h.magic]) {
    return fail(ErrorKind::kCorruptRecords, at + 8,
                absl::StrFormat("batchLength %d is below the minimum of %d bytes for magic %d",
                                h.batch_length, kMinLength[h.magic], h.magic));
  }
  if (total > rem) return Partial(at, rem, total);
  r.PushLimit(total - kMagicOffset - 1);  // the rest of this batch

  BatchView v;
  v.bytes_ = std::span<const uint8_t>(base, total);
  v.offset_ = at;
  v.index_ = index_;
  v.parent_ = path_;
  size_t crc_at;
  if (h.magic == 2) {
    h.partition_leader_epoch = static_cast<int32_t>(word);
    h.crc = r.ReadUint32();
    h.attributes = r.ReadInt16();
    h.last_offset_delta = r.ReadInt32();
    h.base_timestamp = r.ReadInt64();
    h.max_timestamp = r.ReadInt64();
    h.producer_id = r.ReadInt64();
    h.producer_epoch = r.ReadInt16();
    h.base_sequence = r.ReadInt32();
    h.records_count = r.ReadInt32();
    v.payload_ = v.bytes_.subspan(kRecordBatchHeaderSize);
    v.payload_offset_ = at + kRecordBatchHeaderSize;
    v.computed_crc_ = Crc32c(base + kV2AttributesOffset, total - kV2AttributesOffset);
    crc_at = at + kV2CrcOffset;
  } else {
    h.crc = word;
    h.partition_leader_epoch = -1;
    h.last_offset_delta = 0;
    LegacyBody b;
    ReadLegacyBody(r, h.magic, &node, &b);
    if (r.ok() && !r.AtEnd()) {
      return fail(ErrorKind::kCorruptRecords, r.offset(),
                  absl::StrFormat("message size %d but its key and value end %d bytes "
                                  "before its end",
                                  h.batch_length, r.remaining()));
    }
    if (!r.ok()) {
      error_ = Inconsistent(r.error());
      state_ = kError;
      return false;
    }
    h.attributes = static_cast<uint8_t>(b.attributes);
    h.base_timestamp = h.max_timestamp = b.timestamp;
    h.records_count = (h.attributes & kAttrCompressionMask) == 0 ? 1 : -1;
    v.legacy_key_ = b.key;
    v.legacy_value_null_ = !b.value.has_value();
    if (b.value) {
      v.payload_ = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.value->data()),
                                            b.value->size());
    }
    v.payload_offset_ = b.value_offset;
    v.computed_crc_ = Crc32Ieee(base + kMagicOffset, total - kMagicOffset);
    crc_at = at + kLegacyCrcOffset;
  }
  if (!r.ok()) {
    error_ = Inconsistent(r.error());
    state_ = kError;
    return false;
  }
  v.header_ = h;
  if (!v.crc_ok() && options_.enforce_crc && RecordsCrcEnforcementEnabled()) {
    return fail(ErrorKind::kCrcMismatch, crc_at,
                absl::StrFormat("stored 0x%08x, computed 0x%08x (%s of bytes %d..%d: the "
                                "batch that starts at byte %d, baseOffset %d, from its %s to "
                                "its last byte)",
                                h.crc, v.computed_crc_, h.magic == 2 ? "CRC-32C" : "CRC-32",
                                at + (h.magic == 2 ? kV2AttributesOffset : kMagicOffset),
                                at + total - 1, at, h.base_offset,
                                h.magic == 2 ? "attributes" : "magic byte"));
  }
  pos_ += total;
  ++index_;
  *out = v;
  return true;
}

// ---------------------------------------------------------------------- batch view

absl::StatusOr<RecordSet> BatchView::records(const RecordsOptions& options) const {
  RecordSet set;
  if (Error e = DecodeRecords(options, &set); !e.ok()) return e.ToStatus();
  return set;
}

Error BatchView::DecodeRecords(const RecordsOptions& options, RecordSet* out) const {
  return Read(options, out, /*keep=*/true);
}

Error BatchView::CheckRecords(const RecordsOptions& options, RecordSet* scratch) const {
  return Read(options, scratch, /*keep=*/false);
}

Error BatchView::Read(const RecordsOptions& options, RecordSet* out, bool keep) const {
  out->buffer_.clear();
  out->size_ = 0;  // the Record objects stay, to be overwritten
  if (bytes_.empty()) {
    return MakeError(ErrorKind::kInvalidValue, 0, nullptr, "empty BatchView");
  }
  Error e = magic() == 2 ? DecodeV2(options, out, keep) : DecodeLegacy(options, out, keep);
  if (!e.ok()) out->size_ = 0;
  return e;
}

Error BatchView::DecodeV2(const RecordsOptions& options, RecordSet* out, bool keep) const {
  PathNode batch{parent_, "Batch", static_cast<int64_t>(index_)};
  const Compression codec = compression();
  if (static_cast<int>(codec) > static_cast<int>(Compression::kZstd)) {
    return MakeError(ErrorKind::kCorruptRecords, offset_ + kV2AttributesOffset, &batch,
                     absl::StrFormat("invalid compression codec %d in attributes 0x%04x",
                                     static_cast<int>(codec),
                                     static_cast<uint16_t>(header_.attributes)));
  }
  if (header_.records_count < 0) {
    return MakeError(ErrorKind::kCorruptRecords, offset_ + kV2CountOffset, &batch,
                     absl::StrFormat("negative records count %d", header_.records_count));
  }
  // Above max_records: refused before decompressing (uncompressed batches: after the
  // more precise check against the bytes present, below).
  auto too_many = [&] {
    return MakeError(ErrorKind::kCountTooLarge, offset_ + kV2CountOffset, &batch,
                     absl::StrFormat("records count %d above RecordsOptions::max_records (%d)",
                                     header_.records_count, options.max_records));
  };
  const bool over_max = static_cast<size_t>(header_.records_count) > options.max_records;
  if (over_max && codec != Compression::kNone) return too_many();
  auto over_budget = [&] {
    return MakeError(
        ErrorKind::kAllocationBudget, offset_ + kV2CountOffset, &batch,
        absl::StrFormat("records count %d needs %d bytes of Record objects, more than half "
                        "the allocation budget left, %d bytes (DecodeOptions::max_alloc_bytes)",
                        header_.records_count,
                        static_cast<size_t>(header_.records_count) * sizeof(Record),
                        options.max_alloc_bytes));
  };
  const bool budget = !RecordsFitBudget(static_cast<size_t>(header_.records_count), options);
  if (budget && codec != Compression::kNone) return over_budget();
  std::span<const uint8_t> data = payload_;
  size_t data_offset = payload_offset_;
  if (codec != Compression::kNone) {
    const DecompressOptions d = DecompressCaps(options);
    if (Error e = Decompress(codec, payload_, d, &out->buffer_); !e.ok()) {
      e.offset += payload_offset_;
      e.path = RenderPath(&batch);
      e.detail += absl::StrFormat(" (batch baseOffset %d)", header_.base_offset);
      return e;
    }
    data = out->buffer_;
    data_offset = 0;
  }
  if (static_cast<size_t>(header_.records_count) > data.size() / kMinRecordSize) {
    return MakeError(
        ErrorKind::kCorruptRecords, offset_ + kV2CountOffset, &batch,
        absl::StrFormat("records count %d but the records section holds only %d bytes%s "
                        "(at least %d per record)",
                        header_.records_count, data.size(),
                        codec == Compression::kNone ? "" : " after decompression",
                        kMinRecordSize));
  }
  if (over_max) return too_many();
  if (budget) return over_budget();
  Reader r(data, data_offset, DecodeOptions{options.quirks});
  r.set_path(&batch);
  if (options.layout != nullptr) options.layout->clear();
  ReadRecords(r, header_, &batch, &out->slots_, &out->size_, options.layout, keep);
  if (r.ok()) return {};
  if (codec == Compression::kNone) return Inconsistent(r.error());
  return InDecompressed(r.error(), payload_offset_, codec, "batch at baseOffset",
                        header_.base_offset);
}

Error BatchView::DecodeLegacy(const RecordsOptions& options, RecordSet* out, bool keep) const {
  PathNode batch{parent_, "Batch", static_cast<int64_t>(index_)};
  const Compression codec = compression();
  if (codec == Compression::kNone) {
    Record& rec = *NextClearSlot(&out->slots_, &out->size_);
    rec.attributes = static_cast<int8_t>(header_.attributes);
    rec.key = legacy_key_;
    if (!legacy_value_null_) {
      rec.value = std::string_view(reinterpret_cast<const char*>(payload_.data()),
                                   payload_.size());
    }
    rec.offset = header_.base_offset;
    rec.timestamp = header_.base_timestamp;
    rec.wire_offset = offset_;
    rec.wire_size = bytes_.size();
    if (!keep) out->size_ = 0;
    return {};
  }
  if (codec == Compression::kZstd) {
    return MakeError(ErrorKind::kCorruptRecords, offset_ + kLegacyAttributesOffset, &batch,
                     absl::StrFormat("zstd compression requires magic 2 (message magic %d)",
                                     magic()));
  }
  if (static_cast<int>(codec) > static_cast<int>(Compression::kZstd)) {
    return MakeError(ErrorKind::kCorruptRecords, offset_ + kLegacyAttributesOffset, &batch,
                     absl::StrFormat("invalid compression codec %d in attributes 0x%02x",
                                     static_cast<int>(codec),
                                     static_cast<uint8_t>(header_.attributes)));
  }
  if (legacy_value_null_) {
    return MakeError(ErrorKind::kCorruptRecords, payload_offset_ - 4, &batch,
                     absl::StrFormat("%s-compressed message with a null value",
                                     CompressionName(codec)));
  }
  DecompressOptions d = DecompressCaps(options);
  d.lz4_kafka_legacy_checksum = magic() == 0;
  if (Error e = Decompress(codec, payload_, d, &out->buffer_); !e.ok()) {
    e.offset += payload_offset_;
    e.path = RenderPath(&batch);
    e.detail += absl::StrFormat(" (message offset %d)", header_.base_offset);
    return e;
  }
  const std::span<const uint8_t> data = out->buffer_;
  Reader r(data, 0, DecodeOptions{options.quirks});
  r.set_path(&batch);
  const bool enforce_crc = options.enforce_crc && RecordsCrcEnforcementEnabled();
  // Not keeping them (CheckRecords), every inner message is read into slot 0.
  size_t messages = 0;
  for (int64_t j = 0; r.ok() && !r.AtEnd(); ++j) {
    PathNode msg{&batch, "Message", j};
    r.set_path(&msg);
    const size_t at = r.offset();
    const int64_t inner_offset = r.ReadInt64();
    const size_t size_at = r.offset();
    const int32_t size = r.ReadInt32();
    if (!r.ok()) break;
    if (size < kMinLength[0]) {
      r.Fail(ErrorKind::kCorruptRecords, size_at,
             absl::StrFormat("inner message size %d is below the minimum of %d", size,
                             kMinLength[0]));
      break;
    }
    if (static_cast<size_t>(size) > r.remaining()) {
      r.Fail(ErrorKind::kCorruptRecords, size_at,
             absl::StrFormat("inner message size %d but only %d bytes left in the wrapper",
                             size, r.remaining()));
      break;
    }
    const size_t token = r.PushLimit(static_cast<size_t>(size));
    const uint32_t crc = r.ReadUint32();
    const size_t magic_at = r.offset();
    const int8_t inner_magic = r.ReadInt8();
    if (r.ok() && inner_magic != magic()) {
      r.Fail(ErrorKind::kCorruptRecords, magic_at,
             absl::StrFormat("inner message magic %d differs from the wrapper's magic %d",
                             inner_magic, magic()));
    }
    if (r.ok() && size < kMinLength[inner_magic]) {
      r.Fail(ErrorKind::kCorruptRecords, size_at,
             absl::StrFormat("inner message size %d is below the minimum of %d for magic %d",
                             size, kMinLength[inner_magic], inner_magic));
    }
    LegacyBody b;
    if (r.ok()) ReadLegacyBody(r, inner_magic, &msg, &b);
    if (r.ok() && !r.AtEnd()) {
      r.Fail(ErrorKind::kCorruptRecords, r.offset(),
             absl::StrFormat("inner message size %d but its key and value end %d bytes "
                             "before its end",
                             size, r.remaining()));
    }
    if (r.ok() && (b.attributes & kAttrCompressionMask) != 0) {
      r.Fail(ErrorKind::kCorruptRecords, magic_at + 1,
             absl::StrFormat("nested compression: inner message is %s-compressed (only one "
                             "level of compressed wrapper is allowed)",
                             CompressionName(static_cast<Compression>(
                                 b.attributes & kAttrCompressionMask))));
    }
    if (r.ok() && enforce_crc) {
      const uint32_t computed = Crc32Ieee(data.data() + magic_at, r.offset() - magic_at);
      if (computed != crc) {
        r.Fail(ErrorKind::kCrcMismatch, magic_at - 4,
               absl::StrFormat("inner message: stored 0x%08x, computed 0x%08x (CRC-32)", crc,
                               computed));
      }
    }
    r.PopLimit(token);
    if (r.ok() && messages == options.max_records) {
      r.Fail(ErrorKind::kCountTooLarge, at,
             absl::StrFormat("more than RecordsOptions::max_records (%d) inner messages",
                             options.max_records));
    }
    if (r.ok() && !RecordsFitBudget(messages + 1, options)) {
      r.Fail(ErrorKind::kAllocationBudget, at,
             absl::StrFormat("inner message %d: its Record objects pass half the allocation "
                             "budget left, %d bytes (DecodeOptions::max_alloc_bytes)",
                             messages, options.max_alloc_bytes));
    }
    if (!r.ok()) break;
    Record& rec = *NextClearSlot(&out->slots_, &out->size_);
    rec.attributes = b.attributes;
    rec.key = b.key;
    rec.value = b.value;
    rec.offset = inner_offset;
    rec.timestamp = (magic() == 1 && header_.log_append_time()) ? header_.base_timestamp
                                                                 : b.timestamp;
    rec.wire_offset = at;
    rec.wire_size = r.offset() - at;
    ++messages;
    if (!keep) out->size_ = 0;
  }
  r.set_path(&batch);
  if (r.ok() && messages == 0) {
    r.Fail(ErrorKind::kCorruptRecords, "compressed wrapper holds no messages");
  }
  if (!r.ok()) {
    return InDecompressed(r.error(), payload_offset_, codec, "message at offset",
                          header_.base_offset);
  }
  if (magic() == 1 && keep) {
    // KIP-31: inner offsets are relative; the wrapper carries the last absolute offset.
    const int64_t base = WrapSub(header_.base_offset, out->slots_[out->size_ - 1].offset);
    for (size_t j = 0; j < out->size_; ++j) {
      out->slots_[j].offset = WrapAdd(base, out->slots_[j].offset);
    }
  }
  return {};
}

}  // namespace kwire
