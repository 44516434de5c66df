// Record batches: the contents of a `records` field (Produce, Fetch, ShareFetch, ...).
//
// Sources: Kafka protocol guide "Record Batch" and "Message Sets" (legacy magic 0/1);
// KIP-98 (RecordBatch v2: producer id/epoch/sequence, transactional and control
// batches, varint records with headers, CRC-32C); KIP-82 (record headers); KIP-110
// (zstd); KIP-32/KIP-31 (magic 1 timestamps and relative inner offsets).
//
// A records field holds zero or more batches back to back. Each starts with
//   baseOffset int64, batchLength int32 (bytes after this field), then, at byte 16, magic.
// Magic 2 (RecordBatch v2) header, 61 bytes, big-endian:
//    0 baseOffset int64        12 partitionLeaderEpoch int32   16 magic int8 (= 2)
//    8 batchLength int32       17 crc uint32 (CRC-32C of bytes 21..end)
//   21 attributes int16        23 lastOffsetDelta int32        27 baseTimestamp int64
//   35 maxTimestamp int64      43 producerId int64             51 producerEpoch int16
//   53 baseSequence int32      57 records count int32          61 records...
// then the records (compressed as one payload when attributes bits 0–2 ≠ 0), each:
//   length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
//   key (varint length, −1 = null), value (same), header count varint,
//   headers: key (varint length ≥ 0), value (varint length, −1 = null).
// Magic 0/1 (legacy message, one per "batch"): offset int64, size int32, crc uint32
// (CRC-32 IEEE of bytes 16..end), magic int8, attributes int8, [timestamp int64, magic
// 1], key int32-length bytes, value int32-length bytes; a compressed message's value is a
// message set of inner messages (one level only).
//
// Decoding is lazy. BatchIterator walks the field reading only the fixed headers and
// checking each batch's CRC (ISA-L: ~25 GB/s); it never copies or decompresses.
// BatchView::DecodeRecords / records() parses (and if need be decompresses) one batch.
// A batch cut short at the end of the field (Fetch responses stop at max bytes) ends
// iteration with state kPartialBatch, which is not an error.
//
// Errors are kwire::Error values (codec/wire/error.h) with the absolute byte offset
// (field_offset + position in the field) and a path such as
// `<caller path>.Batch[1].Record[3].Headers[0].Key`. Kinds: kCorruptRecords (framing
// inconsistent: magic, batchLength, counts, lengths, nested compression; a length that
// overruns its record or batch is reported as kCorruptRecords, never kTruncated),
// kInvalidLength (negative length other than −1), kVarint* (from Reader), kInvalidUtf8
// (a header key that is not UTF-8, at its first bad byte, unless kQuirkInvalidUtf8),
// kCrcMismatch (detail: stored and computed values), kCompressionError (detail names the
// codec and the batch's baseOffset). Errors inside a decompressed payload are reported
// at the payload's first byte, with the position inside the decompressed bytes in the
// detail.
#ifndef KWIRE_CODEC_RECORDS_RECORD_BATCH_H_
#define KWIRE_CODEC_RECORDS_RECORD_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/statusor.h"
#include "codec/records/compression.h"
#include "codec/schema/spec.h"
#include "codec/wire/error.h"
#include "codec/wire/reader.h"
#include "codec/wire/writer.h"

namespace kwire {

// ---- Attribute bits (RecordBatch v2 attributes int16; legacy attributes int8).
inline constexpr int16_t kAttrCompressionMask = 0x07;  ///< Bits 0–2: Compression.
inline constexpr int16_t kAttrLogAppendTime = 0x08;    ///< Bit 3: timestamp type (1 = log append).
inline constexpr int16_t kAttrTransactional = 0x10;    ///< Bit 4 (v2): KIP-98 transactional.
inline constexpr int16_t kAttrControl = 0x20;          ///< Bit 5 (v2): control batch.
inline constexpr int16_t kAttrDeleteHorizon = 0x40;    ///< Bit 6 (v2): KIP-534 delete horizon set.

/// Size of the RecordBatch v2 header, records count included.
inline constexpr size_t kRecordBatchHeaderSize = 61;
/// baseOffset + batchLength: the bytes not counted by batchLength.
inline constexpr size_t kLogOverhead = 12;
/// Where a v2 batch's CRC-32C coverage starts: its attributes, at byte 21 (after
/// baseOffset, batchLength, partitionLeaderEpoch, magic and the crc itself).
inline constexpr size_t kRecordBatchCrcStart = 21;

/// Options for decoding records fields.
/// Default RecordsOptions::max_records.
inline constexpr size_t kDefaultMaxRecords = size_t{1} << 20;

/// Where the fields of one RecordBatch v2 record lie, for explain-style tools
/// (RecordsOptions::layout). Each member is the position of the field's first byte:
/// absolute frame offsets in an uncompressed batch, positions inside the decompressed
/// payload in a compressed one. A field's size is the next position minus its own;
/// `end` closes the record. Order = wire order (protocol guide "Record").
struct RecordLayout {
  size_t length = 0;           ///< varint length
  size_t attributes = 0;       ///< int8
  size_t timestamp_delta = 0;  ///< varlong
  size_t offset_delta = 0;     ///< varint
  size_t key_length = 0;       ///< varint (−1: null)
  size_t key = 0;              ///< key bytes (== value_length when null or empty)
  size_t value_length = 0;     ///< varint (−1: null)
  size_t value = 0;            ///< value bytes
  size_t header_count = 0;     ///< varint
  struct Header {
    size_t key_length = 0, key = 0, value_length = 0, value = 0;
  };
  std::vector<Header> headers;  ///< one per header; header k ends where k+1 starts
  size_t end = 0;               ///< first byte after the record
};

class RecordSet;

/// Options of record-batch decoding and of records validation (validate.h): caps,
/// CRC enforcement, quirks inside records, and the scratch validation decodes into.
struct RecordsOptions {
  /// Hard cap on the decompressed size of one batch (or legacy wrapper), bytes.
  /// Default 64 MiB (kDefaultMaxDecompressedBytes); see compression.h.
  size_t max_decompressed_bytes = kDefaultMaxDecompressedBytes;
  /// Cap on the records of one batch (or inner messages of one legacy wrapper) that
  /// DecodeRecords materializes: each costs sizeof(Record) (~150 bytes), so a compressed
  /// batch of minimal 7-byte records could otherwise expand the 64 MiB cap 20-fold.
  /// Default 2^20 (about 160 MB of Record objects at most); kCountTooLarge above it.
  size_t max_records = kDefaultMaxRecords;
  /// Allocation budget of one DecodeRecords, bytes: half for the decompressed payload
  /// (lowering max_decompressed_bytes when smaller; a growing buffer briefly holds 1.5×
  /// its cap), half for the Record objects (records count × sizeof(Record)). Over it:
  /// kAllocationBudget (at the records count, or where the decompressed output passes its
  /// half). Frame and message decoding set it to what is left of their own budget
  /// (DecodeOptions::max_alloc_bytes) when they validate records. Default: no budget.
  size_t max_alloc_bytes = SIZE_MAX;
  /// Reject batches whose CRC does not match (kCrcMismatch). When false, or in builds
  /// with KWIRE_FUZZ_SKIP_CRC_CHECK, the CRC is still computed and reported through
  /// BatchView::crc_ok() but never fails decoding.
  bool enforce_crc = true;
  /// Quirks (quirks.h) for the values inside records: varints, key and value lengths,
  /// header keys (strict by default). Frame and message decoding add the frame's own.
  uint32_t quirks = 0;
  /// Caller-owned scratch for records validation (validate.h): the Record objects and
  /// the decompressed payload of the batch being checked, reused from batch to batch and
  /// from call to call, so that a connection validating frame after frame allocates
  /// nothing for them once grown. Not owned; use it from one thread at a time (one per
  /// connection or per worker thread). nullptr (the default): a scratch of the calling
  /// thread's own (thread_local), trimmed after each records field to a decompression
  /// buffer of at most 1 MiB and one Record, so a thread keeps about that much between
  /// decodes. What a caller's scratch keeps between calls is the caller's memory, not
  /// charged to a decode's allocation budget (each validation is, while it runs); it is
  /// bounded by the largest batch checked (max_decompressed_bytes, max_records), and
  /// RecordSet::Trim gives it back. DecodeRecords takes its RecordSet as an argument and
  /// ignores this.
  RecordSet* scratch = nullptr;
  /// When set, DecodeRecords of a v2 batch reads every record with the reference path
  /// and leaves one RecordLayout per decoded record here (cleared first; on failure, the
  /// records before the failing one). For explain tools; slower. Not owned.
  std::vector<RecordLayout>* layout = nullptr;
};

/// False in builds configured with -DKWIRE_FUZZ_SKIP_CRC_CHECK=ON, where CRC mismatches
/// are computed but never enforced (so mutated fuzz inputs reach the records).
bool RecordsCrcEnforcementEnabled();

/// Test and fuzz hook. DecodeRecords reads the common record (non-control batch,
/// canonical varints, lengths and counts in range) with a local-pointer fast path and
/// everything else with the Reader-based reference path; `false` sends every record
/// through the reference path, so tests and fuzz targets can check that both decode
/// the same records and fail the same way. Process-wide; default true. Not to be
/// changed while another thread decodes.
void SetRecordFastPathForTesting(bool enabled);

/// The fixed header of a batch. For magic 2, the 61-byte header as on the wire. For a
/// legacy message (magic 0/1): base_offset = offset, batch_length = message size,
/// crc = CRC-32 (IEEE), attributes = the int8 attributes, base/max_timestamp = the
/// magic-1 timestamp (−1 for magic 0), records_count = 1 uncompressed or −1
/// (unknown until decompressed) for a compressed wrapper, other fields their "none"
/// values (−1 / 0).
struct BatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;             ///< Decode: as read. Encode: computed.
  int32_t partition_leader_epoch = -1;  ///< −1: none (producers send −1).
  int8_t magic = 2;
  uint32_t crc = 0;                     ///< Decode: as read. Encode: computed.
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;           ///< Milliseconds since the epoch.
  int64_t max_timestamp = 0;
  int64_t producer_id = -1;             ///< −1: no producer id (not idempotent).
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t records_count = 0;            ///< Decode: as read. Encode: records.size().

  Compression compression() const {
    return static_cast<Compression>(attributes & kAttrCompressionMask);
  }
  bool log_append_time() const { return (attributes & kAttrLogAppendTime) != 0; }
  bool is_transactional() const { return (attributes & kAttrTransactional) != 0; }
  bool is_control() const { return (attributes & kAttrControl) != 0; }
  friend bool operator==(const BatchHeader&, const BatchHeader&) = default;
};

/// KIP-98 transaction marker: value of a control record of type abort (0) / commit (1).
struct EndTxnMarker {
  int16_t version = 0;
  int32_t coordinator_epoch = 0;
  friend bool operator==(const EndTxnMarker&, const EndTxnMarker&) = default;
};

/// Control record types (key int16 `type`). 0/1 are KIP-98 transaction markers; 2–6 are
/// KRaft records whose values (LeaderChangeMessage, SnapshotHeaderRecord, ...) are left
/// undecoded here.
enum ControlType : int16_t {
  kControlAbort = 0,
  kControlCommit = 1,
  kControlLeaderChange = 2,
  kControlSnapshotHeader = 3,
  kControlSnapshotFooter = 4,
  kControlKRaftVersion = 5,
  kControlKRaftVoters = 6,
};

/// A decoded control record key (version int16, type int16) and, for abort/commit,
/// the EndTxnMarker value (version int16, coordinatorEpoch int32).
struct ControlRecord {
  int16_t version = 0;
  int16_t type = 0;
  std::optional<EndTxnMarker> marker;  ///< Set for kControlAbort / kControlCommit.
  friend bool operator==(const ControlRecord&, const ControlRecord&) = default;
};

/// One record header (KIP-82). Keys are never null; values may be.
struct RecordHeader {
  std::string_view key;
  std::optional<std::string_view> value;
  friend bool operator==(const RecordHeader&, const RecordHeader&) = default;
};

/// One record. Decoding fills every field with views into the input bytes (uncompressed
/// batches) or into the RecordSet's decompressed buffer. Encoding reads attributes,
/// timestamp_delta, offset_delta, key, value and headers and ignores the rest.
struct Record {
  int8_t attributes = 0;       ///< Unused by Kafka (0); legacy: the message attributes.
  int64_t timestamp_delta = 0; ///< Relative to BatchHeader::base_timestamp (v2).
  int32_t offset_delta = 0;    ///< Relative to BatchHeader::base_offset (v2).
  std::optional<std::string_view> key;    ///< nullopt: null key.
  std::optional<std::string_view> value;  ///< nullopt: null value (tombstone).
  std::vector<RecordHeader> headers;

  // ---- Filled by decoding only.
  /// Absolute offset: base_offset + offset_delta (legacy: the message's offset, with
  /// magic-1 relative inner offsets resolved against the wrapper).
  int64_t offset = 0;
  /// Milliseconds: max_timestamp for log-append-time batches, else base_timestamp +
  /// timestamp_delta (legacy: the message timestamp, −1 for magic 0).
  int64_t timestamp = 0;
  /// Position of the record's first byte: absolute frame offset in an uncompressed
  /// batch, offset inside the decompressed payload in a compressed one.
  size_t wire_offset = 0;
  /// Bytes the record occupies there (length varint included; legacy: the message).
  size_t wire_size = 0;
  /// Control batches only: the decoded control record key/value.
  std::optional<ControlRecord> control;

  friend bool operator==(const Record& a, const Record& b) {
    return a.attributes == b.attributes && a.timestamp_delta == b.timestamp_delta &&
           a.offset_delta == b.offset_delta && a.key == b.key && a.value == b.value &&
           a.headers == b.headers;
  }
};

/// The records of one batch, owning the decompressed payload the views point into.
/// Move-only; moving keeps every view valid. Views into an uncompressed batch point
/// into the caller's input, which must outlive them.
///
/// Reusable: decoding into the same RecordSet again overwrites its Record objects in
/// place (every field is rewritten; headers vectors keep their capacity) instead of
/// destroying and re-creating them, so a decode loop over many batches allocates
/// nothing once the set has grown to the largest batch.
class RecordSet {
 public:
  RecordSet() = default;
  RecordSet(RecordSet&& o) noexcept
      : buffer_(std::move(o.buffer_)), slots_(std::move(o.slots_)), size_(o.size_) {
    o.size_ = 0;
  }
  RecordSet& operator=(RecordSet&& o) noexcept {
    if (this != &o) {
      buffer_ = std::move(o.buffer_);
      slots_ = std::move(o.slots_);
      size_ = o.size_;
      o.size_ = 0;
    }
    return *this;
  }
  RecordSet(const RecordSet&) = delete;
  RecordSet& operator=(const RecordSet&) = delete;

  /// The decoded records (exactly those of the last successful decode; none after a
  /// failed one).
  std::span<const Record> records() const { return {slots_.data(), size_}; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Record& operator[](size_t i) const { return slots_[i]; }
  const Record* begin() const { return slots_.data(); }
  const Record* end() const { return slots_.data() + size_; }
  /// The decompressed payload (empty for uncompressed batches).
  std::span<const uint8_t> decompressed() const { return buffer_; }

  /// Empties the set and frees what it keeps for reuse beyond a decompression buffer of
  /// `max_buffer_bytes` and one Record: a scratch set that lives across calls (frame
  /// validation keeps one per thread) holds no more than that between them.
  void Trim(size_t max_buffer_bytes) {
    size_ = 0;
    if (buffer_.capacity() > max_buffer_bytes) std::vector<uint8_t>().swap(buffer_);
    if (slots_.size() > 1) slots_.resize(1);
  }

 private:
  friend class BatchView;
  std::vector<uint8_t> buffer_;
  /// Record objects; [0, size_) are the live records, the rest are kept for reuse (their
  /// contents are stale and never exposed).
  std::vector<Record> slots_;
  size_t size_ = 0;
};

/// One batch (or legacy message) of a records field: its header, its bytes, and its
/// CRC status. Cheap to copy; holds views into the input, which must outlive it (and
/// the caller's PathNode, if any).
class BatchView {
 public:
  const BatchHeader& header() const { return header_; }
  int8_t magic() const { return header_.magic; }
  Compression compression() const { return header_.compression(); }
  /// Absolute offset of the batch's first byte (field_offset + position in the field).
  size_t offset() const { return offset_; }
  /// Index of the batch within the field (0-based).
  size_t index() const { return index_; }
  /// The whole batch: kLogOverhead + batchLength bytes.
  std::span<const uint8_t> bytes() const { return bytes_; }
  /// The records section as stored: after the 61-byte header (v2; compressed unless
  /// compression() is kNone), or the message value (legacy; the compressed inner
  /// message set of a wrapper). Empty for a null legacy value.
  std::span<const uint8_t> payload() const { return payload_; }
  /// Absolute offset of payload()'s first byte.
  size_t payload_offset() const { return payload_offset_; }
  /// The CRC computed over the covered bytes (CRC-32C for v2, CRC-32 for legacy).
  uint32_t computed_crc() const { return computed_crc_; }
  /// computed_crc() == header().crc.
  bool crc_ok() const { return computed_crc_ == header_.crc; }

  /// Parses (decompressing if needed) this batch's records into `*out`. Checks: valid
  /// codec; records count ≥ 0 and equal to the records present (both directions);
  /// each record's length equal to the bytes its fields use; header counts within the
  /// bytes; key/value/header lengths ≥ −1 (header keys ≥ 0, and UTF-8); decompressed size ≤
  /// options.max_decompressed_bytes; records (inner messages) ≤ options.max_records;
  /// control records decodable (control batches).
  /// Legacy wrappers: one level of compression, inner magic equal to the wrapper's,
  /// inner CRCs (when enforced), at least one inner message.
  Error DecodeRecords(const RecordsOptions& options, RecordSet* out) const;
  /// Reads and checks every record exactly as DecodeRecords does — same checks, same
  /// errors at the same offsets, same caps and budget — but keeps none: each record is
  /// read into one reused Record of `scratch`, which also holds the decompressed payload,
  /// and is empty afterwards. Memory: one Record (and its headers) plus the decompressed
  /// bytes, whatever the records count. For validation (codec/records/validate.h).
  Error CheckRecords(const RecordsOptions& options, RecordSet* scratch) const;
  /// DecodeRecords as a StatusOr (Error::ToStatus on failure).
  absl::StatusOr<RecordSet> records(const RecordsOptions& options = {}) const;

 private:
  friend class BatchIterator;
  // DecodeRecords (keep) and CheckRecords (not keep).
  Error Read(const RecordsOptions& options, RecordSet* out, bool keep) const;
  Error DecodeV2(const RecordsOptions& options, RecordSet* out, bool keep) const;
  Error DecodeLegacy(const RecordsOptions& options, RecordSet* out, bool keep) const;

  BatchHeader header_;
  std::span<const uint8_t> bytes_;
  std::span<const uint8_t> payload_;
  size_t offset_ = 0;
  size_t payload_offset_ = 0;
  size_t index_ = 0;
  uint32_t computed_crc_ = 0;
  const PathNode* parent_ = nullptr;
  // Legacy only: the message key and whether the value is null.
  std::optional<std::string_view> legacy_key_;
  bool legacy_value_null_ = false;
};

/// Walks the batches of a records field without copying or decompressing them:
///
///   BatchIterator it(bytes);
///   BatchView batch;
///   while (it.Next(&batch)) { ... batch.header() ... batch.records() ... }
///   if (it.state() == BatchIterator::kError) return it.error().ToStatus();
///   if (it.state() == BatchIterator::kPartialBatch) { /* it.partial_*() */ }
///
/// or `for (const BatchView& b : it) {...}` followed by the same state checks.
/// Per batch it checks: header complete (else partial), magic 0/1/2, batchLength at
/// least the magic's minimum (49 for v2, 22 for magic 1, 14 for magic 0), legacy
/// key/value lengths filling the message exactly, and the CRC (enforced unless
/// options.enforce_crc is false or the build skips it). The first failure ends
/// iteration with kError.
class BatchIterator {
 public:
  enum State : uint8_t {
    kMore,          ///< Next() may return another batch.
    kEnd,           ///< All bytes consumed by complete batches.
    kPartialBatch,  ///< The last batch is incomplete (normal at the end of a Fetch).
    kError,         ///< A batch is corrupt; see error().
  };

  /// `field`: the records field's bytes. `field_offset`: absolute offset of field[0],
  /// added to every offset reported. `path`: the field's path for errors (may be null;
  /// must outlive the iterator and its views).
  explicit BatchIterator(std::span<const uint8_t> field, const RecordsOptions& options = {},
                         size_t field_offset = 0, const PathNode* path = nullptr)
      : field_(field), options_(options), field_offset_(field_offset), path_(path) {}

  /// Advances to the next complete batch. False at the end, at a partial batch, or on
  /// error (see state()).
  bool Next(BatchView* out);

  State state() const { return state_; }
  /// The failure (kind kOk unless state() == kError).
  const Error& error() const { return error_; }
  /// Number of complete batches returned so far.
  size_t count() const { return index_; }
  /// kPartialBatch: absolute offset of the partial batch's first byte.
  size_t partial_offset() const { return partial_offset_; }
  /// kPartialBatch: bytes of it present.
  size_t partial_have() const { return partial_have_; }
  /// kPartialBatch: its full size (kLogOverhead + batchLength), or 0 when fewer than
  /// 12 bytes are present.
  size_t partial_need() const { return partial_need_; }

  // ---- Range-for support (input iterator; the view is valid until the next step).
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchView;
    using difference_type = std::ptrdiff_t;
    using pointer = const BatchView*;
    using reference = const BatchView&;
    iterator() = default;
    explicit iterator(BatchIterator* it) : it_(it) { ++*this; }
    const BatchView& operator*() const { return view_; }
    const BatchView* operator->() const { return &view_; }
    iterator& operator++() {
      if (!it_->Next(&view_)) it_ = nullptr;
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& a, std::default_sentinel_t) { return a.it_ == nullptr; }

   private:
    BatchIterator* it_ = nullptr;
    BatchView view_;
  };
  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() { return {}; }

 private:
  bool Partial(size_t at, size_t have, size_t need);

  std::span<const uint8_t> field_;
  RecordsOptions options_;
  size_t field_offset_;
  const PathNode* path_;
  size_t pos_ = 0;
  size_t index_ = 0;
  State state_ = kMore;
  Error error_;
  size_t partial_offset_ = 0;
  size_t partial_have_ = 0;
  size_t partial_need_ = 0;
};

/// Iterates a `records` field of a decoded message (Produce/Fetch/ShareFetch, ...),
/// owned or borrowed (FrameOptions::borrow_records): the batches of `records.data()`.
/// The Records value — and, when borrowed, the buffer it points into — and `path` must
/// outlive the iterator and the views it yields.
inline BatchIterator Batches(const Records& records ABSL_ATTRIBUTE_LIFETIME_BOUND,
                             const RecordsOptions& options = {},
                             size_t field_offset = 0, const PathNode* path = nullptr) {
  const std::string_view payload = records.data();
  return BatchIterator(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(payload.data()),
                               payload.size()),
      options, field_offset, path);
}

/// Decodes a control record's key (version int16, type int16; at least 4 bytes,
/// exactly 4 for version 0) and, for abort/commit, its value (EndTxnMarker: version
/// int16, coordinatorEpoch int32; at least 6 bytes, exactly 6 for version 0).
/// kCorruptRecords on a null/short/long key or marker value; offsets are relative to
/// the key or value.
Error DecodeControlRecord(const Record& record, ControlRecord* out);

/// Key bytes of a control record: version int16, type int16.
std::string ControlRecordKey(int16_t type, int16_t version = 0);
/// Value bytes of a transaction marker: version int16, coordinatorEpoch int32.
std::string EndTxnMarkerValue(int32_t coordinator_epoch, int16_t version = 0);

/// Options for encoding a batch.
struct EncodeBatchOptions {
  /// Passed to the codec (kDefaultCompressionLevel: the library default).
  int compression_level = kDefaultCompressionLevel;
  /// EncodeRecordBatch's Writer options (AppendRecordBatch uses those of its Writer):
  /// header keys that are not UTF-8 fail kInvalidUtf8 unless kQuirkInvalidUtf8.
  EncodeOptions encode;
};

/// Appends one RecordBatch v2 to `w`: the header from `header` (batch_length, crc and
/// records_count are computed; compression from its attributes bits 0–2), then
/// `records` (compressed with that codec when not kNone), then patches batchLength
/// and the CRC-32C. An uncompressed batch decoded and re-encoded this way is
/// byte-identical. Fails (sticky, in `w`) with kInvalidValue for magic ≠ 2 or codec
/// 5–7, kStringTooLong for a key/value/header or batch above INT32_MAX bytes,
/// kInvalidUtf8 for a header key that is not UTF-8 (unless w->options() allow
/// kQuirkInvalidUtf8), kCompressionError if the codec fails. Returns w->error().
Error AppendRecordBatch(const BatchHeader& header, std::span<const Record> records, Writer* w,
                        const EncodeBatchOptions& options = {});

/// AppendRecordBatch into a new string (e.g. for Records::bytes).
[[nodiscard]] absl::StatusOr<std::string> EncodeRecordBatch(const BatchHeader& header,
                                              std::span<const Record> records,
                                              const EncodeBatchOptions& options = {});

}  // namespace kwire

#endif  // KWIRE_CODEC_RECORDS_RECORD_BATCH_H_
