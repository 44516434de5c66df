// record_batch_fuzzer: the contents of a `records` field (codec/records/): RecordBatch v2
// (uncompressed and gzip / snappy / lz4 / zstd) and legacy magic 0/1 message sets,
// through BatchIterator, DecodeRecords and decompression.
//
// Input: byte 0 = options: bit 0 CRCs enforced (else computed only), bits 1-2 the
// decompression cap (4 KiB / 64 KiB / 1 MiB / the 64 MiB default), bit 3 Java quirks
// for the varints inside records; the rest is the records field.
//
// Invariants (a violation aborts):
//   * iteration: batches tile the field from its start, each 12 + batchLength bytes
//     with the payload inside; it ends with kEnd at the field's end, kPartialBatch for
//     an incomplete last batch (which runs to the end), or kError (a records error kind
//     at an offset inside the field); with CRCs enforced every batch returned has
//     crc_ok();
//   * decoding: a v2 batch's records count equals the records decoded; decompressed
//     sizes stay within the cap; the reference path (every record read by the Reader,
//     SetRecordFastPathForTesting(false)) gives the same records and the same error;
//   * round trip (v2, strict): AppendRecordBatch(header, records) of a decoded batch
//     decodes to the same header and records; an uncompressed batch with a valid CRC
//     re-encodes byte-identically;
//     and the encoder refuses the batch with another magic or codec 5-7 (kInvalidValue);
//   * control records (version 0 exactly, later versions as a prefix) rebuild from
//     ControlRecordKey and EndTxnMarkerValue;
//   * explanation (codec/harness/records_explain.h, what `kwire explain` shows): every node with
//     a wire position lies inside the field; it renders.
// Custom mutator: libFuzzer's byte mutations with batchLength/CRC-32C fixed up
// afterwards (fuzz/mutate.h FixRecordBatches), or record-level mutations (keys, values,
// headers, deltas, codec) re-encoded (and recompressed) with AppendRecordBatch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/harness/records_explain.h"
#include "codec/records/record_batch.h"
#include "codec/wire/error.h"
#include "codec/wire/hex.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/mutate.h"

namespace kwire::fuzz {
namespace {

constexpr size_t kCaps[] = {4096, 65536, 1 << 20, kDefaultMaxDecompressedBytes};

RecordsOptions OptionsFrom(uint8_t b) {
  RecordsOptions o;
  o.enforce_crc = (b & 1) != 0;
  o.max_decompressed_bytes = kCaps[(b >> 1) & 3];
  if (b & 8) o.quirks = kQuirksJava;
  return o;
}

bool IsRecordsError(ErrorKind k) {
  switch (k) {
    case ErrorKind::kCountTooLarge:  // RecordsOptions::max_records
    case ErrorKind::kCorruptRecords:
    case ErrorKind::kCrcMismatch:
    case ErrorKind::kCompressionError:
    case ErrorKind::kInvalidLength:
    case ErrorKind::kVarintTooLong:
    case ErrorKind::kVarintOverflow:
    case ErrorKind::kVarintNonCanonical:
    case ErrorKind::kInvalidValue:
    case ErrorKind::kInvalidUtf8:  // header keys
    case ErrorKind::kTruncated:
      return true;
    default:
      return false;
  }
}

bool SameRecords(const RecordSet& a, const RecordSet& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i]) || a[i].control != b[i].control) return false;
  }
  return true;
}

// The same batch decoded with every record on the Reader-based reference path
// (SetRecordFastPathForTesting(false)) gives the same error and the same records, the
// fields decoding derives (offset, timestamp, wire position, control) included.
void CheckReferencePath(const BatchView& batch, const RecordsOptions& options,
                        const Error& fast_error, const RecordSet& fast) {
  SetRecordFastPathForTesting(false);
  RecordSet ref;
  const Error e = batch.DecodeRecords(options, &ref);
  SetRecordFastPathForTesting(true);
  KWIRE_FUZZ_CHECK(e.kind == fast_error.kind && e.offset == fast_error.offset &&
                       e.path == fast_error.path && e.detail == fast_error.detail,
                   "batch %d: fast path error %s, reference path error %s", batch.index(),
                   fast_error.ToString(), e.ToString());
  KWIRE_FUZZ_CHECK(SameRecords(fast, ref), "batch %d: fast and reference paths differ",
                   batch.index());
  for (size_t i = 0; i < ref.size(); ++i) {
    const Record& a = fast[i];
    const Record& b = ref[i];
    KWIRE_FUZZ_CHECK(a.offset == b.offset && a.timestamp == b.timestamp &&
                         a.wire_offset == b.wire_offset && a.wire_size == b.wire_size,
                     "batch %d record %d: fast path offset %d timestamp %d at %d+%d, "
                     "reference %d %d at %d+%d",
                     batch.index(), i, a.offset, a.timestamp, a.wire_offset, a.wire_size,
                     b.offset, b.timestamp, b.wire_offset, b.wire_size);
  }
}

// Header fields AppendRecordBatch writes as given (length, CRC and count are computed).
bool SameHeader(BatchHeader a, BatchHeader b) {
  a.batch_length = b.batch_length = 0;
  a.crc = b.crc = 0;
  a.records_count = b.records_count = 0;
  return a == b;
}

void CheckRoundTrip(const BatchView& batch, const RecordSet& records,
                    const RecordsOptions& options) {
  if (batch.magic() != 2 || options.quirks != 0) return;
  auto encoded = EncodeRecordBatch(batch.header(), records.records());
  KWIRE_FUZZ_CHECK(encoded.ok(), "decoded batch %d does not re-encode: %s", batch.index(),
                   encoded.status().ToString());
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(encoded->data()),
                                       encoded->size());
  RecordsOptions strict = options;
  strict.enforce_crc = true;
  strict.max_decompressed_bytes = kDefaultMaxDecompressedBytes;
  BatchIterator it(bytes, strict);
  BatchView again;
  KWIRE_FUZZ_CHECK(it.Next(&again), "re-encoded batch does not iterate: %s",
                   it.error().ToString());
  KWIRE_FUZZ_CHECK(!it.Next(&again) && it.state() == BatchIterator::kEnd,
                   "re-encoded batch is not exactly one batch");
  KWIRE_FUZZ_CHECK(SameHeader(batch.header(), again.header()),
                   "re-encoded batch has a different header");
  auto back = again.records(strict);
  KWIRE_FUZZ_CHECK(back.ok(), "re-encoded batch does not decode: %s", back.status().ToString());
  KWIRE_FUZZ_CHECK(SameRecords(records, *back), "re-encoded batch decodes to other records");
  if (batch.compression() == Compression::kNone && batch.crc_ok()) {
    KWIRE_FUZZ_CHECK(std::equal(bytes.begin(), bytes.end(), batch.bytes().begin(),
                                batch.bytes().end()),
                     "uncompressed batch does not re-encode byte-identically: %s",
                     ShowDifference(batch.bytes(), bytes));
  }
  // What a decoded v2 batch never holds, the encoder refuses: another magic, codecs 5-7.
  BatchHeader other_magic = batch.header();
  other_magic.magic = static_cast<int8_t>(batch.index() % 2);
  BatchHeader bad_codec = batch.header();
  bad_codec.attributes = static_cast<int16_t>((bad_codec.attributes & ~kAttrCompressionMask) |
                                              (5 + batch.index() % 3));
  for (const BatchHeader& h : {other_magic, bad_codec}) {
    auto refused = EncodeRecordBatch(h, records.records());
    const std::optional<Error> e = ErrorFromStatus(refused.status());
    KWIRE_FUZZ_CHECK(!refused.ok() && e.has_value() && e->kind == ErrorKind::kInvalidValue,
                     "magic %d attributes %d: %s", h.magic, h.attributes,
                     refused.ok() ? "encoded" : refused.status().ToString());
  }
}

// A control batch's records that decode as control records (version 0 exactly; higher
// versions start the same way) rebuild from ControlRecordKey / EndTxnMarkerValue.
void CheckControlRecords(const BatchView& batch, const RecordSet& records) {
  if (batch.magic() != 2 || !batch.header().is_control()) return;
  auto hex = [](std::string_view v) { return HexString(v); };
  for (const Record& r : records.records()) {
    ControlRecord c;
    if (!DecodeControlRecord(r, &c).ok()) continue;
    const std::string key = ControlRecordKey(c.type, c.version);
    KWIRE_FUZZ_CHECK(r.key->substr(0, 4) == key && (c.version > 0 || r.key->size() == 4),
                     "control record key %s rebuilt as %s",
                     hex(*r.key), hex(key));
    if (!c.marker.has_value()) continue;
    const std::string value = EndTxnMarkerValue(c.marker->coordinator_epoch, c.marker->version);
    KWIRE_FUZZ_CHECK(r.value->substr(0, 6) == value &&
                         (c.marker->version > 0 || r.value->size() == 6),
                     "transaction marker %s rebuilt as %s",
                     hex(*r.value), hex(value));
  }
}

// The first node (pre-order) whose bytes [offset, offset + size) are not inside the field
// [0, size), described; empty when there is none. (A node without a wire position has its
// parent's offset and size 0: inside too.)
std::string NodeOutside(const std::vector<PrintNode>& nodes, size_t size) {
  for (const PrintNode& n : nodes) {
    if (n.offset > size || n.size > size - n.offset) {
      return absl::StrFormat("node %s [%d, +%d) outside the %d-byte field", n.path, n.offset,
                             n.size, size);
    }
  }
  return {};
}

// The records explanation (`kwire explain`, codec/harness/records_explain.h) of the same field,
// with the same decode options: every node lies inside the field, depths step down by at
// most one, and it renders.
void CheckExplanation(std::span<const uint8_t> field, const RecordsOptions& options) {
  ExplainOptions eo;
  eo.records = options;
  eo.max_records_per_batch = 16;
  const std::vector<PrintNode> nodes = ExplainRecords(field, eo);
  const std::string outside = NodeOutside(nodes, field.size());
  KWIRE_FUZZ_CHECK(outside.empty(), "explain %s\n%s", outside, RenderObjectTree(nodes));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int parent_depth = i == 0 ? -1 : nodes[i - 1].depth;
    KWIRE_FUZZ_CHECK(nodes[i].depth >= 0 && nodes[i].depth <= parent_depth + 1,
                     "node %s at depth %d after depth %d", nodes[i].path, nodes[i].depth,
                     parent_depth);
  }
  KWIRE_FUZZ_CHECK(field.empty() || !RenderObjectTree(nodes).empty(),
                   "empty explanation of a %d-byte field", field.size());
}

void Check(std::span<const uint8_t> in) {
  if (in.empty()) return;
  const RecordsOptions options = OptionsFrom(in[0]);
  const std::span<const uint8_t> field = in.subspan(1);
  BatchIterator it(field, options, /*field_offset=*/0);
  BatchView batch;
  size_t pos = 0;
  while (it.Next(&batch)) {
    KWIRE_FUZZ_CHECK(batch.bytes().data() == field.data() + pos && batch.offset() == pos,
                     "batch %d does not start where the previous one ended", batch.index());
    KWIRE_FUZZ_CHECK(batch.bytes().size() ==
                         kLogOverhead + static_cast<size_t>(batch.header().batch_length),
                     "batch %d: %d bytes for batchLength %d", batch.index(), batch.bytes().size(),
                     batch.header().batch_length);
    KWIRE_FUZZ_CHECK(batch.payload().empty() ||
                         (batch.payload().data() >= batch.bytes().data() &&
                          batch.payload().data() + batch.payload().size() <=
                              batch.bytes().data() + batch.bytes().size()),
                     "payload outside its batch");
    if (options.enforce_crc && RecordsCrcEnforcementEnabled()) {
      KWIRE_FUZZ_CHECK(batch.crc_ok(), "batch %d returned with a bad CRC", batch.index());
    }
    pos += batch.bytes().size();
    RecordSet records;
    const Error e = batch.DecodeRecords(options, &records);
    CheckReferencePath(batch, options, e, records);
    if (!e.ok()) {
      KWIRE_FUZZ_CHECK(IsRecordsError(e.kind) && e.offset <= field.size(),
                       "DecodeRecords error %s (field of %d bytes)", e.ToString(), field.size());
      continue;
    }
    KWIRE_FUZZ_CHECK(records.decompressed().size() <= options.max_decompressed_bytes,
                     "decompressed %d bytes, cap %d", records.decompressed().size(),
                     options.max_decompressed_bytes);
    if (batch.magic() == 2) {
      KWIRE_FUZZ_CHECK(static_cast<size_t>(batch.header().records_count) == records.size(),
                       "records count %d, %d records decoded", batch.header().records_count,
                       records.size());
    }
    CheckRoundTrip(batch, records, options);
    CheckControlRecords(batch, records);
  }
  switch (it.state()) {
    case BatchIterator::kEnd:
      KWIRE_FUZZ_CHECK(pos == field.size(), "kEnd after %d of %d bytes", pos, field.size());
      break;
    case BatchIterator::kPartialBatch:
      KWIRE_FUZZ_CHECK(it.partial_offset() == pos && pos + it.partial_have() == field.size(),
                       "partial batch at %d (+%d) in a field of %d bytes after %d",
                       it.partial_offset(), it.partial_have(), field.size(), pos);
      KWIRE_FUZZ_CHECK(it.partial_need() == 0 || it.partial_have() < it.partial_need(),
                       "partial batch has %d of %d bytes", it.partial_have(), it.partial_need());
      break;
    case BatchIterator::kError:
      KWIRE_FUZZ_CHECK(IsRecordsError(it.error().kind) && it.error().offset <= field.size(),
                       "iteration error %s", it.error().ToString());
      break;
    case BatchIterator::kMore:
      Die(__FILE__, __LINE__, "iteration stopped in state kMore", "");
  }
  CheckExplanation(field, options);
}

// ---- Custom mutator.

// Record-level mutation of one v2 batch of the field, re-encoded in place.
bool MutateRecordsOfBatch(Mutator& mu, std::string& field) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(field.data()),
                                       field.size());
  RecordsOptions lenient;
  lenient.enforce_crc = false;
  lenient.quirks = kQuirkInvalidUtf8;  // keys that are not UTF-8 too
  BatchIterator it(bytes, lenient);
  std::vector<BatchView> batches;
  for (const BatchView& b : it) {
    if (b.magic() == 2) batches.push_back(b);
  }
  if (batches.empty()) return false;
  const BatchView& batch = batches[mu.Below(batches.size())];
  auto decoded = batch.records(lenient);
  if (!decoded.ok()) return false;
  // Own every byte: the views point into `field` or into the decompressed buffer.
  std::deque<std::string> store;
  auto own = [&](std::string_view s) { return std::string_view(store.emplace_back(s)); };
  std::vector<Record> records;
  for (const Record& r : *decoded) {
    Record c;
    c.attributes = r.attributes;
    c.timestamp_delta = r.timestamp_delta;
    c.offset_delta = r.offset_delta;
    if (r.key) c.key = own(*r.key);
    if (r.value) c.value = own(*r.value);
    for (const RecordHeader& h : r.headers) {
      c.headers.push_back({own(h.key), h.value ? std::optional(own(*h.value)) : std::nullopt});
    }
    records.push_back(std::move(c));
  }
  BatchHeader header = batch.header();
  auto blob = [&](std::optional<std::string_view>& v) {
    if (!v || mu.Chance(20)) {
      v = mu.Chance(30) ? std::nullopt : std::optional(own(std::string(mu.Below(40), 'v')));
      return;
    }
    std::string s(*v);
    mutate_internal::ByteMutate(mu, s, 256);
    v = own(s);
  };
  switch (mu.Below(7)) {
    case 0:  // another codec (recompressed by AppendRecordBatch)
      header.attributes = static_cast<int16_t>((header.attributes & ~kAttrCompressionMask) |
                                               static_cast<int16_t>(mu.Below(5)));
      break;
    case 1: {  // add a record
      Record r;
      r.offset_delta = static_cast<int32_t>(records.size());
      r.key = own("key");
      r.value = own(std::string(mu.Below(100), 'x'));
      if (mu.Chance(50)) r.headers.push_back({own("h"), std::nullopt});
      records.insert(records.begin() + static_cast<ptrdiff_t>(mu.Below(records.size() + 1)), r);
      break;
    }
    case 2:
      if (!records.empty()) records.erase(records.begin() + static_cast<ptrdiff_t>(mu.Below(records.size())));
      break;
    default: {
      if (records.empty()) return false;
      Record& r = records[mu.Below(records.size())];
      switch (mu.Below(5)) {
        case 0: blob(r.key); break;
        case 1: blob(r.value); break;
        case 2:
          if (r.headers.empty() || mu.Chance(50)) {
            // Now and then a key that is not UTF-8 (rejected strictly, kept by the quirk).
            r.headers.push_back({mu.Chance(10) ? own("k\xc0\xaf") : own(std::string(mu.Below(8), 'k')),
                                 std::nullopt});
          } else {
            r.headers.erase(r.headers.begin() + static_cast<ptrdiff_t>(mu.Below(r.headers.size())));
          }
          break;
        case 3:
          r.timestamp_delta = mutate_internal::MutateInteger(mu, r.timestamp_delta);
          break;
        default:
          r.offset_delta = mutate_internal::MutateInteger(mu, r.offset_delta);
          break;
      }
    }
  }
  EncodeBatchOptions keep;
  keep.encode.quirks = kQuirkInvalidUtf8;  // keys decoded or mutated as they are
  auto encoded = EncodeRecordBatch(header, records, keep);
  if (!encoded.ok()) return false;
  const size_t at = static_cast<size_t>(batch.bytes().data() - bytes.data());
  field.replace(at, batch.bytes().size(), *encoded);
  return true;
}

size_t Mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed,
              ByteMutateFn byte_mutate) {
  Mutator mu(seed, byte_mutate);
  if (size == 0 || max_size < 2) return byte_mutate(data, size, max_size);
  std::string field(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t r = mu.Below(100);
  if (r < 45 && MutateRecordsOfBatch(mu, field)) {
    // structure-aware: done below
  } else if (r < 90) {
    field.resize(std::max(field.size(), max_size - 1));
    field.resize(byte_mutate(reinterpret_cast<uint8_t*>(field.data()), size - 1, max_size - 1));
    if (mu.Chance(85)) FixRecordBatches(field);
  } else {
    return byte_mutate(data, size, max_size);  // options byte included
  }
  if (field.size() + 1 > max_size) return byte_mutate(data, size, max_size);
  std::memcpy(data + 1, field.data(), field.size());
  return field.size() + 1;
}

}  // namespace
}  // namespace kwire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kwire::fuzz::Check({data, size});
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return kwire::fuzz::Mutate(data, size, max_size, seed, &LLVMFuzzerMutate);
}
