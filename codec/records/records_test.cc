// Record batches: the empty batch, records with keys/values/nulls/headers, every codec,
// control batches, legacy message sets, hostile framing, truncation and partial batches,
// and the explain hook. (Records inside messages: records_message_test.cc.)
#include "codec/records/record_batch.h"

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/harness/records_explain.h"
#include "codec/records/crc32c.h"
#include "codec/records/records_test_util.h"
#include "codec/wire/heap_test_util.h"
#include "codec/wire/test_util.h"
#include "gtest/gtest.h"

namespace kwire {
namespace {

using namespace records_testing;  // NOLINT
using wire_testing::Cat;
using wire_testing::Hex;
using wire_testing::ToHex;

// ============================================================== the empty batch

TEST(RecordBatch, EmptyBatchExactly) {
  // The 61 bytes, field by field, are spelled out in records_test_util.h.
  const std::vector<uint8_t> expected = EmptyBatchBytes();
  ASSERT_EQ(expected.size(), 61u);
  EXPECT_EQ(Crc32c(expected.data() + 21, 40), 0x595fb7ddu);

  absl::StatusOr<std::string> enc = EncodeRecordBatch(ZeroHeader(), {});
  ASSERT_TRUE(enc.ok()) << enc.status();
  EXPECT_EQ(ToHex(Span(*enc)), ToHex(expected));

  One one = DecodeOne(expected);
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  BatchHeader want = ZeroHeader();
  want.batch_length = 49;
  want.crc = 0x595fb7dd;
  EXPECT_EQ(one.view.header(), want);
  EXPECT_TRUE(one.view.crc_ok());
  EXPECT_EQ(one.view.computed_crc(), 0x595fb7ddu);
  EXPECT_EQ(one.view.bytes().size(), 61u);
  EXPECT_TRUE(one.view.payload().empty());
  EXPECT_TRUE(one.set.empty());
}

TEST(RecordBatch, EmptyFieldIsEnd) {
  BatchIterator it(std::span<const uint8_t>{});
  BatchView v;
  EXPECT_FALSE(it.Next(&v));
  EXPECT_EQ(it.state(), BatchIterator::kEnd);
  EXPECT_EQ(it.count(), 0u);
}

// ============================================================== records

TEST(RecordBatch, RecordWireLayout) {
  // One record: key "a", value "bc", no headers. Body = attributes 00, timestampDelta
  // 00, offsetDelta 00, key 02 61, value 04 62 63, headers 00 = 9 bytes -> length 0x12.
  const std::vector<uint8_t> batch = Encode(Header(), {Rec("a", "bc")});
  One one = DecodeOne(batch);
  EXPECT_EQ(ToHex(one.view.payload()), "12 00 00 00 02 61 04 62 63 00");
  ASSERT_TRUE(one.error.ok());
  ASSERT_EQ(one.set.size(), 1u);
  EXPECT_EQ(one.set[0].wire_offset, 61u);
  EXPECT_EQ(one.set[0].wire_size, 10u);
}

TEST(RecordBatch, KeysValuesNullsHeadersRoundTrip) {
  const std::vector<Record> recs = SampleRecords();
  const std::vector<uint8_t> batch = Encode(Header(), recs);
  One one = DecodeOne(batch);
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  const BatchHeader& h = one.view.header();
  EXPECT_EQ(h.base_offset, 100);
  EXPECT_EQ(h.batch_length, static_cast<int32_t>(batch.size() - 12));
  EXPECT_EQ(h.partition_leader_epoch, 5);
  EXPECT_EQ(h.magic, 2);
  EXPECT_EQ(h.last_offset_delta, 300);
  EXPECT_EQ(h.producer_id, 4242);
  EXPECT_EQ(h.producer_epoch, 3);
  EXPECT_EQ(h.base_sequence, 17);
  EXPECT_EQ(h.records_count, 6);
  EXPECT_EQ(one.view.compression(), Compression::kNone);
  ExpectSameRecords(one.set, recs);
  EXPECT_FALSE(one.set[1].key.has_value());
  EXPECT_FALSE(one.set[2].value.has_value());
  EXPECT_TRUE(one.set[3].key.has_value());
  EXPECT_EQ(*one.set[3].key, "");
  EXPECT_FALSE(one.set[4].headers[1].value.has_value());
  EXPECT_EQ(one.set[4].headers[0].key, "trace");
  // Absolute offsets and timestamps (CreateTime).
  EXPECT_EQ(one.set[5].offset, 400);
  EXPECT_EQ(one.set[3].timestamp, 1700000000000 - 4);
  // Uncompressed: views point into the input, nothing decompressed.
  EXPECT_TRUE(one.set.decompressed().empty());
  EXPECT_GE(one.set[0].key->data(), reinterpret_cast<const char*>(batch.data()));
  EXPECT_LT(one.set[0].key->data(), reinterpret_cast<const char*>(batch.data() + batch.size()));
  // Re-encode from the decoded header and records: byte-identical.
  Writer w;
  ASSERT_TRUE(AppendRecordBatch(one.view.header(), one.set.records(), &w).ok());
  EXPECT_EQ(ToHex(w.bytes()), ToHex(batch));
  // The StatusOr form.
  absl::StatusOr<RecordSet> set = one.view.records();
  ASSERT_TRUE(set.ok());
  ExpectSameRecords(*set, recs);
}

TEST(RecordBatch, LogAppendTimeUsesMaxTimestamp) {
  BatchHeader h = Header();
  h.attributes |= kAttrLogAppendTime;
  One one = DecodeOne(Encode(h, {Rec("a", "b", 0, 7), Rec("c", "d", 1, 8)}));
  ASSERT_TRUE(one.error.ok());
  EXPECT_TRUE(one.view.header().log_append_time());
  EXPECT_EQ(one.set[0].timestamp, h.max_timestamp);
  EXPECT_EQ(one.set[1].timestamp, h.max_timestamp);
}

TEST(RecordBatch, ExtremeDeltasWrapWithoutUndefinedBehaviour) {
  BatchHeader h = Header(Compression::kNone, INT64_MAX);
  h.base_timestamp = INT64_MAX;
  One one = DecodeOne(Encode(h, {Rec("k", "v", INT32_MAX, INT64_MAX)}));
  ASSERT_TRUE(one.error.ok());
  EXPECT_EQ(one.set[0].offset_delta, INT32_MAX);
  EXPECT_EQ(one.set[0].timestamp_delta, INT64_MAX);
}

TEST(RecordBatch, MultipleBatchesBackToBack) {
  std::vector<uint8_t> field = Encode(Header(Compression::kNone, 0), {Rec("a", "1")});
  field = Cat(field, Encode(Header(Compression::kZstd, 1), {Rec("b", "2"), Rec("c", "3", 1)}));
  field = Cat(field, EmptyBatchBytes());
  BatchIterator it(field, {}, 1000);
  std::vector<int64_t> bases;
  std::vector<size_t> offsets;
  for (const BatchView& b : it) {
    bases.push_back(b.header().base_offset);
    offsets.push_back(b.offset());
    EXPECT_EQ(b.index(), bases.size() - 1);
  }
  EXPECT_EQ(it.state(), BatchIterator::kEnd);
  EXPECT_EQ(bases, (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(offsets[0], 1000u);
  EXPECT_EQ(offsets[2], 1000u + field.size() - 61);
  EXPECT_EQ(it.count(), 3u);
}

TEST(RecordBatch, IterationDoesNotDecompress) {
  // A zstd batch whose payload is garbage: iterating (headers + CRC) succeeds; only
  // records() reports the codec error.
  std::vector<uint8_t> field = RawV2(Hex("28b52ffd00112233445566"), 1, 4);
  field = Cat(field, Encode(Header(), {Rec("k", "v")}));
  BatchIterator it(field);
  BatchView a, b;
  ASSERT_TRUE(it.Next(&a));
  ASSERT_TRUE(it.Next(&b));
  EXPECT_FALSE(it.Next(&b));
  EXPECT_EQ(it.state(), BatchIterator::kEnd);
  RecordSet set;
  EXPECT_EQ(a.DecodeRecords({}, &set).kind, ErrorKind::kCompressionError);
  EXPECT_TRUE(b.DecodeRecords({}, &set).ok());
}

// ============================================================== compression

TEST(RecordBatch, EveryCodecRoundTrips) {
  for (Compression c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                        Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    std::vector<std::string> storage;
    std::vector<Record> recs;
    storage.reserve(500);
    for (int i = 0; i < 500; ++i) storage.push_back("value number " + std::to_string(i * 7));
    for (int i = 0; i < 500; ++i) {
      recs.push_back(Rec(i % 3 ? std::optional<std::string_view>("key") : std::nullopt,
                         storage[static_cast<size_t>(i)], i, i * 2,
                         i % 5 ? std::vector<RecordHeader>{}
                               : std::vector<RecordHeader>{{"h", "v"}, {"n", std::nullopt}}));
    }
    const std::vector<uint8_t> batch = Encode(Header(c), recs);
    One one = DecodeOne(batch);
    ASSERT_TRUE(one.error.ok()) << one.error.ToString();
    EXPECT_EQ(one.view.compression(), c);
    EXPECT_LT(one.view.payload().size(), one.set.decompressed().size());
    ExpectSameRecords(one.set, recs);
    // Records views point into the RecordSet's buffer and survive a move.
    RecordSet moved = std::move(one.set);
    ExpectSameRecords(moved, recs);
    // Re-encode with the same codec; decodes to the same records.
    Writer w;
    ASSERT_TRUE(AppendRecordBatch(one.view.header(), moved.records(), &w).ok());
    One again = DecodeOne(w.bytes());
    ASSERT_TRUE(again.error.ok());
    EXPECT_EQ(again.view.compression(), c);
    ExpectSameRecords(again.set, recs);
    // Compression levels are passed through.
    if (c != Compression::kSnappy) {
      EncodeBatchOptions o;
      o.compression_level = 1;
      absl::StatusOr<std::string> fast = EncodeRecordBatch(Header(c), recs, o);
      ASSERT_TRUE(fast.ok());
      One lvl = DecodeOne(Span(*fast));
      ASSERT_TRUE(lvl.error.ok());
      ExpectSameRecords(lvl.set, recs);
    }
  }
}

TEST(RecordBatch, RawSnappyPayloadDecodes) {
  const std::vector<uint8_t> plain = Encode(Header(), {Rec("k", "raw snappy"), Rec("x", "y", 1)});
  const std::span<const uint8_t> section = std::span(plain).subspan(61);
  // Raw snappy of a short input: a preamble (length) and one literal.
  std::vector<uint8_t> raw;
  raw.push_back(static_cast<uint8_t>(section.size()));
  raw.push_back(static_cast<uint8_t>((section.size() - 1) << 2));
  raw.insert(raw.end(), section.begin(), section.end());
  ASSERT_LT(section.size(), 60u);
  One one = DecodeOne(RawV2(raw, 2, static_cast<int16_t>(Compression::kSnappy)));
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  EXPECT_EQ(*one.set[0].value, "raw snappy");
}

TEST(RecordBatch, CompressionErrorsNameCodecAndBaseOffset) {
  std::vector<uint8_t> batch = Encode(Header(Compression::kGzip, 777), {Rec("k", "v")});
  batch[73] ^= 0xff;  // inside the deflate data (the gzip header is bytes 61..70)
  FixV2(batch);
  const Error e = RecordsError(batch);
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_EQ(e.detail.rfind("gzip: ", 0), 0u) << e.detail;
  EXPECT_DETAIL(e, "batch baseOffset 777");
  EXPECT_EQ(e.path, "Batch[0]");
  EXPECT_GE(e.offset, 61u);
}

TEST(RecordBatch, DecompressedSizeCap) {
  static const std::string big(100000, 'z');
  const std::vector<uint8_t> batch = Encode(Header(Compression::kLz4), {Rec("k", big)});
  RecordsOptions o;
  o.max_decompressed_bytes = 50000;
  const Error e = RecordsError(batch, o);
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_DETAIL(e, "lz4: output exceeds the cap of 50000 bytes");
  EXPECT_DETAIL(e, "batch baseOffset 100");
  o.max_decompressed_bytes = 200000;
  EXPECT_TRUE(DecodeOne(batch, o).error.ok());
}

TEST(RecordBatch, BombInsideABatchStopsAtCap) {
  // 32 MiB of zeros in one record value, zstd-compressed into a few KiB.
  const std::string zeros(size_t{32} << 20, '\0');
  const std::vector<uint8_t> batch = Encode(Header(Compression::kZstd), {Rec("k", zeros)});
  ASSERT_LT(batch.size(), 64u * 1024);
  RecordsOptions o;
  o.max_decompressed_bytes = size_t{4} << 20;
  const Error e = RecordsError(batch, o);
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_DETAIL(e, "exceeds the cap");
}

// ============================================================== control batches

TEST(RecordBatch, ControlBatchTransactionMarkers) {
  const std::string commit_key = ControlRecordKey(kControlCommit);
  const std::string abort_key = ControlRecordKey(kControlAbort);
  const std::string value = EndTxnMarkerValue(42);
  EXPECT_EQ(ToHex(Span(commit_key)), "00 00 00 01");
  EXPECT_EQ(ToHex(Span(value)), "00 00 00 00 00 2a");
  BatchHeader h = Header();
  h.attributes = kAttrControl | kAttrTransactional;
  One one = DecodeOne(Encode(h, {Rec(commit_key, value), Rec(abort_key, value, 1)}));
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  EXPECT_TRUE(one.view.header().is_control());
  EXPECT_TRUE(one.view.header().is_transactional());
  ASSERT_TRUE(one.set[0].control.has_value());
  EXPECT_EQ(one.set[0].control->type, kControlCommit);
  ASSERT_TRUE(one.set[0].control->marker.has_value());
  EXPECT_EQ(one.set[0].control->marker->coordinator_epoch, 42);
  EXPECT_EQ(one.set[1].control->type, kControlAbort);
  // KRaft control types: key decoded, value left alone.
  const std::string leader_key = ControlRecordKey(kControlLeaderChange);
  One kraft = DecodeOne(Encode(h, {Rec(leader_key, "opaque")}));
  ASSERT_TRUE(kraft.error.ok());
  EXPECT_EQ(kraft.set[0].control->type, kControlLeaderChange);
  EXPECT_FALSE(kraft.set[0].control->marker.has_value());
}

TEST(RecordBatch, ControlBatchHostile) {
  BatchHeader h = Header();
  h.attributes = kAttrControl;
  const std::string commit_key = ControlRecordKey(kControlCommit);
  const std::string negative_key = ControlRecordKey(kControlCommit, -1);
  const std::string marker = EndTxnMarkerValue(1);
  const std::string negative_marker = EndTxnMarkerValue(1, -1);
  struct Case {
    std::optional<std::string_view> key, value;
    const char* detail;
  } cases[] = {
      {std::nullopt, "x", "null key"},
      {std::string_view("\x00\x00\x00", 3), "x", "key of 3 bytes"},
      {std::string_view("\x00\x00\x00\x01\x00", 5), "x", "key version 0 of 5 bytes"},
      {commit_key, std::nullopt, "null value"},
      {commit_key, std::string_view("\x00\x00\x00\x00", 4), "value of 4 bytes"},
      {commit_key, std::string_view("\x00\x00\x00\x00\x00\x00\x00", 7), "version 0 of 7 bytes"},
      // Negative versions are corruption, as in Java (hostile-frame review: they read as
      // a COMMIT before).
      {negative_key, marker, "key version -1 (negative)"},
      {commit_key, negative_marker, "marker version -1 (negative)"},
  };
  for (const Case& c : cases) {
    const Error e = RecordsError(Encode(h, {Rec(c.key, c.value)}));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, c.detail);
    EXPECT_EQ(e.path, "Batch[0].Record[0]");
  }
  // A newer marker version may carry more bytes.
  const std::string v1 = std::string("\x00\x01\x00\x00\x00\x07\xff", 7);
  One one = DecodeOne(Encode(h, {Rec(commit_key, v1)}));
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  EXPECT_EQ(one.set[0].control->marker->version, 1);
}

// ============================================================== CRC

TEST(RecordBatch, CrcMismatch) {
  if (!RecordsCrcEnforcementEnabled()) GTEST_SKIP() << "built with KWIRE_FUZZ_SKIP_CRC_CHECK";
  std::vector<uint8_t> batch = Encode(Header(), {Rec("key", "value")});
  batch.back() ^= 0x01;  // last header-count byte of the only record
  const Error e = IterError(batch);
  EXPECT_EQ(e.kind, ErrorKind::kCrcMismatch);
  EXPECT_EQ(e.offset, 17u);
  EXPECT_EQ(e.path, "Batch[0]");
  EXPECT_DETAIL(e, "stored 0x");
  EXPECT_DETAIL(e, "computed 0x");
  EXPECT_DETAIL(e, "CRC-32C");
  // Not enforced: the batch is yielded and reports its status.
  RecordsOptions o;
  o.enforce_crc = false;
  BatchIterator it(batch, o);
  BatchView v;
  ASSERT_TRUE(it.Next(&v));
  EXPECT_FALSE(v.crc_ok());
  EXPECT_EQ(v.computed_crc(), Crc32c(batch.data() + 21, batch.size() - 21));
}

TEST(RecordBatch, CrcEnforcementBuildOption) {
  // Fuzz builds (KWIRE_FUZZ_SKIP_CRC_CHECK) compute but never enforce.
  std::vector<uint8_t> batch = Encode(Header(), {Rec("key", "value")});
  batch[18] ^= 0x40;  // the stored CRC
  BatchIterator it(batch);
  BatchView v;
  if (RecordsCrcEnforcementEnabled()) {
    EXPECT_FALSE(it.Next(&v));
    EXPECT_EQ(it.error().kind, ErrorKind::kCrcMismatch);
  } else {
    ASSERT_TRUE(it.Next(&v));
    EXPECT_FALSE(v.crc_ok());
  }
}

// ============================================================== hostile framing

// ====================================================== reusing a RecordSet

// Decodes the single batch of `field` into `set`, which may hold an earlier batch.
Error DecodeInto(std::span<const uint8_t> field, RecordSet* set, const RecordsOptions& o = {}) {
  BatchIterator it(field, o);
  BatchView v;
  EXPECT_TRUE(it.Next(&v)) << it.error().ToString();
  return v.DecodeRecords(o, set);
}

void ExpectSize(const RecordSet& set, size_t n) {
  EXPECT_EQ(set.size(), n);
  EXPECT_EQ(set.records().size(), n);
  EXPECT_EQ(static_cast<size_t>(set.end() - set.begin()), n);
  EXPECT_EQ(set.empty(), n == 0);
  size_t iterated = 0;
  for (const Record& r : set) {
    (void)r;
    ++iterated;
  }
  EXPECT_EQ(iterated, n);
}

TEST(RecordSetReuse, NoFieldOfAnEarlierBatchSurvives) {
  // A: a log-append-time control batch whose records have attributes, headers and
  // transaction markers.
  const std::string commit = ControlRecordKey(kControlCommit);
  const std::string abort = ControlRecordKey(kControlAbort);
  const std::string marker = EndTxnMarkerValue(42);
  BatchHeader ha = Header(Compression::kNone, 500);
  ha.attributes = kAttrControl | kAttrTransactional | kAttrLogAppendTime;
  std::vector<Record> ra = {
      Rec(commit, marker, 0, 7, {{"trace", "abc"}, {"n", std::nullopt}}),
      Rec(abort, marker, 1, 8, {{"x", "y"}}),
      Rec(commit, marker, 2, 9, {{"a", "b"}, {"c", "d"}, {"e", "f"}}),
  };
  for (Record& r : ra) r.attributes = 5;
  const std::vector<uint8_t> a = Encode(ha, ra);
  // B: a plain CreateTime batch, fewer records, no headers, a null key and a null value.
  const std::vector<Record> rb = {Rec("k", std::nullopt, 0, 0), Rec(std::nullopt, "vv", 1, 2)};
  const std::vector<uint8_t> b = Encode(Header(), rb);

  RecordSet set;
  ASSERT_TRUE(DecodeInto(a, &set).ok());
  ExpectSize(set, 3);
  ExpectSameRecords(set, ra);
  ASSERT_TRUE(set[2].control.has_value());
  EXPECT_EQ(set[2].timestamp, ha.max_timestamp);

  ASSERT_TRUE(DecodeInto(b, &set).ok());
  ExpectSize(set, 2);
  const Record& r0 = set[0];
  EXPECT_EQ(r0.attributes, 0);
  EXPECT_EQ(r0.timestamp_delta, 0);
  EXPECT_EQ(r0.offset_delta, 0);
  ASSERT_TRUE(r0.key.has_value());
  EXPECT_EQ(*r0.key, "k");
  EXPECT_GE(r0.key->data(), reinterpret_cast<const char*>(b.data()));
  EXPECT_LT(r0.key->data(), reinterpret_cast<const char*>(b.data() + b.size()));
  EXPECT_FALSE(r0.value.has_value());
  EXPECT_TRUE(r0.headers.empty());
  EXPECT_EQ(r0.offset, 100);
  EXPECT_EQ(r0.timestamp, 1700000000000);
  EXPECT_EQ(r0.wire_offset, 61u);
  EXPECT_EQ(r0.wire_size, 8u);  // 07 00 00 00 02 6b 01 00
  EXPECT_FALSE(r0.control.has_value());
  const Record& r1 = set[1];
  EXPECT_EQ(r1.attributes, 0);
  EXPECT_EQ(r1.timestamp_delta, 2);
  EXPECT_EQ(r1.offset_delta, 1);
  EXPECT_FALSE(r1.key.has_value());
  ASSERT_TRUE(r1.value.has_value());
  EXPECT_EQ(*r1.value, "vv");
  EXPECT_TRUE(r1.headers.empty());
  EXPECT_EQ(r1.offset, 101);
  EXPECT_EQ(r1.timestamp, 1700000000002);
  EXPECT_EQ(r1.wire_offset, 69u);
  EXPECT_EQ(r1.wire_size, 9u);  // 08 00 04 02 01 04 76 76 00
  EXPECT_FALSE(r1.control.has_value());
  ExpectSameRecords(set, rb);

  // Back to A (more records than B: reused and grown slots alike).
  ASSERT_TRUE(DecodeInto(a, &set).ok());
  ExpectSize(set, 3);
  ExpectSameRecords(set, ra);
  for (const Record& r : set) {
    ASSERT_TRUE(r.control.has_value());
    ASSERT_TRUE(r.control->marker.has_value());
    EXPECT_EQ(r.control->marker->coordinator_epoch, 42);
  }

  // A failed decode leaves no record, stale or partial.
  EXPECT_FALSE(DecodeInto(RawV2(Hex("03 00 00 00 02 61 04 62 63 00"), 1), &set).ok());
  ExpectSize(set, 0);

  // B compressed: views into the set's buffer, wire offsets inside the payload.
  ASSERT_TRUE(DecodeInto(a, &set).ok());
  const std::vector<uint8_t> bz = Encode(Header(Compression::kGzip), rb);
  ASSERT_TRUE(DecodeInto(bz, &set).ok());
  ExpectSize(set, 2);
  ExpectSameRecords(set, rb);
  EXPECT_EQ(set[0].wire_offset, 0u);
  EXPECT_EQ(set[1].wire_offset, 8u);
  for (const Record& r : set) {
    EXPECT_TRUE(r.headers.empty());
    EXPECT_FALSE(r.control.has_value());
  }
  EXPECT_EQ(set[1].value->data(),
            reinterpret_cast<const char*>(set.decompressed().data()) + 8 + 6);

  // A legacy message after A: the fields a legacy record does not carry are defaults.
  ASSERT_TRUE(DecodeInto(a, &set).ok());
  const std::vector<uint8_t> legacy = LegacyText(1, 11, 1600000000000, "k1", "v1");
  ASSERT_TRUE(DecodeInto(legacy, &set).ok());
  ExpectSize(set, 1);
  const Record& l = set[0];
  EXPECT_EQ(l.attributes, 0);
  EXPECT_EQ(l.timestamp_delta, 0);
  EXPECT_EQ(l.offset_delta, 0);
  EXPECT_EQ(l.key, std::optional<std::string_view>("k1"));
  EXPECT_EQ(l.value, std::optional<std::string_view>("v1"));
  EXPECT_TRUE(l.headers.empty());
  EXPECT_EQ(l.offset, 11);
  EXPECT_EQ(l.timestamp, 1600000000000);
  EXPECT_EQ(l.wire_offset, 0u);
  EXPECT_EQ(l.wire_size, legacy.size());
  EXPECT_FALSE(l.control.has_value());

  // Moving hands the records over; the moved-from set is empty, not dangling.
  ASSERT_TRUE(DecodeInto(a, &set).ok());
  RecordSet moved = std::move(set);
  ExpectSize(moved, 3);
  ExpectSameRecords(moved, ra);
  ExpectSize(set, 0);  // NOLINT(bugprone-use-after-move): specified here
  set = std::move(moved);
  ExpectSize(set, 3);
  ExpectSize(moved, 0);  // NOLINT(bugprone-use-after-move)
}

TEST(RecordBatchHostile, NegativeLengthOffsetsAfterMultiByteVarints) {
  {  // value length -100 (c7 01): reported at the length's first byte
    const Error e = RecordsError(RawV2(Hex("10 00 00 00 02 61 c7 01 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "value length -100");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Value");
    EXPECT_EQ(e.offset, 61u + 6u);
  }
  {  // key length -2 as an overlong varint (83 00), admitted by the quirk
    RecordsOptions o;
    o.quirks = kQuirkNonCanonicalVarint;
    const Error e = RecordsError(RawV2(Hex("12 00 00 00 83 00 04 62 63 00"), 1), o);
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "key length -2");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Key");
    EXPECT_EQ(e.offset, 61u + 4u);
  }
}

TEST(RecordBatchHostile, Magic) {
  for (int magic : {3, 7, -1, 127}) {
    std::vector<uint8_t> batch = Encode(Header(), {Rec("k", "v")});
    batch[16] = static_cast<uint8_t>(magic);
    const Error e = IterError(batch);
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.offset, 16u);
    EXPECT_DETAIL(e, absl::StrFormat("magic %d (expected 0, 1 or 2)", magic));
  }
}

TEST(RecordBatchHostile, BatchLength) {
  std::vector<uint8_t> batch = EmptyBatchBytes();
  for (int32_t len : {-1, 0, 13, 48}) {
    std::vector<uint8_t> b = batch;
    SetBe32(b, 8, static_cast<uint32_t>(len));
    const Error e = IterError(b);
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords) << len;
    EXPECT_EQ(e.offset, 8u);
    EXPECT_DETAIL(e, absl::StrFormat("batchLength %d is below the minimum", len));
  }
  // batchLength beyond the bytes at the end of the field: a partial batch, not an error.
  std::vector<uint8_t> b = batch;
  SetBe32(b, 8, 1000);
  BatchIterator it(b);
  BatchView v;
  EXPECT_FALSE(it.Next(&v));
  EXPECT_EQ(it.state(), BatchIterator::kPartialBatch);
  EXPECT_EQ(it.partial_need(), 1012u);
  EXPECT_EQ(it.partial_have(), 61u);
}

TEST(RecordBatchHostile, BatchLengthShorterThanRecords) {
  // batchLength cut by 3 (CRC recomputed over the shorter batch): the records no longer
  // fit, and the 3 bytes left over are a partial batch.
  std::vector<uint8_t> b = Encode(Header(), {Rec("key", "value"), Rec("k2", "v2", 1)});
  FixV2(b, 0, b.size() - 3);
  BatchIterator it(b);
  BatchView v;
  ASSERT_TRUE(it.Next(&v));
  RecordSet set;
  const Error e = v.DecodeRecords({}, &set);
  EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
  EXPECT_EQ(e.path, "Batch[0].Record[1]");
  EXPECT_FALSE(it.Next(&v));
  EXPECT_EQ(it.state(), BatchIterator::kPartialBatch);
}

TEST(RecordBatchHostile, RecordsCountVersusRecordsPresent) {
  const std::vector<uint8_t> two =
      Encode(Header(), {Rec("key-a", "value-a-long"), Rec("key-b", "value-b-long", 1)});
  const std::span<const uint8_t> section = std::span(two).subspan(61);
  const size_t first = section.size() / 2;  // both records have the same size
  {  // more declared than present
    const Error e = RecordsError(RawV2(section, 3));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "records count 3 but only 2 records present");
    EXPECT_EQ(e.path, "Batch[0].Record[2]");
    EXPECT_EQ(e.offset, 61u + section.size());
  }
  {  // fewer declared than present
    const Error e = RecordsError(RawV2(section, 1));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, absl::StrFormat("records count 1 but %d bytes follow the last record", first));
    EXPECT_EQ(e.offset, 61u + first);
    EXPECT_EQ(e.path, "Batch[0]");
  }
  {  // zero declared, records present
    const Error e = RecordsError(RawV2(section, 0));
    EXPECT_DETAIL(e, absl::StrFormat("records count 0 but %d bytes follow", section.size()));
  }
  {  // negative
    const Error e = RecordsError(RawV2(section, -1));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.offset, 57u);
    EXPECT_DETAIL(e, "negative records count -1");
  }
  {  // huge: refused before anything is reserved
    const Error e = RecordsError(RawV2(section, 1000000000));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.offset, 57u);
    EXPECT_DETAIL(e, absl::StrFormat("records count 1000000000 but the records section holds "
                                     "only %d bytes",
                                     section.size()));
  }
  {  // compressed: the same checks after decompression
    std::vector<uint8_t> z;
    ASSERT_TRUE(Compress(Compression::kZstd, section, &z).ok());
    const Error e = RecordsError(RawV2(z, 3, static_cast<int16_t>(Compression::kZstd)));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.offset, 61u);  // the payload's first byte
    EXPECT_DETAIL(e, absl::StrFormat("at byte %d of the decompressed zstd payload of batch at "
                                     "baseOffset 0",
                                     section.size()));
    EXPECT_DETAIL(e, "records count 3 but only 2 records present");
  }
}

TEST(RecordBatchHostile, RecordLengthVersusBytesUsed) {
  // Record: length 0x12 (9), attributes, ts, od, key 02 61, value 04 62 63, headers 00.
  {  // length larger than the fields: one stray byte inside the record
    const Error e = RecordsError(RawV2(Hex("14 00 00 00 02 61 04 62 63 00 ff"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "record length 10 but its fields use 9 bytes");
    EXPECT_EQ(e.offset, 61u + 10u);
    EXPECT_EQ(e.path, "Batch[0].Record[0]");
  }
  {  // length smaller than the fields
    const Error e = RecordsError(RawV2(Hex("0e 00 00 00 02 61 04 62 63 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "overruns its enclosing record or batch");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Value");
  }
  {  // length beyond the batch
    const Error e = RecordsError(RawV2(Hex("7e 00 00 00 02 61 04 62 63 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "record length 63 but only 9 bytes left in the batch");
  }
  {  // negative
    const Error e = RecordsError(RawV2(Hex("03 00 00 00 02 61 04 62 63 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "record length -2");
  }
}

TEST(RecordBatchHostile, NegativeLengthsOtherThanMinusOne) {
  {  // key length -2
    const Error e = RecordsError(RawV2(Hex("0e 00 00 00 03 04 62 63 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "key length -2");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Key");
    EXPECT_EQ(e.offset, 61u + 4u);
  }
  {  // value length -5
    const Error e = RecordsError(RawV2(Hex("0c 00 00 00 02 61 09 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "value length -5");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Value");
  }
  {  // header count -1
    const Error e = RecordsError(RawV2(Hex("0c 00 00 00 01 01 01"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "header count -1");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Headers");
  }
  {  // header key length -1 (header keys are not nullable)
    const Error e = RecordsError(RawV2(Hex("10 00 00 00 01 01 02 01 01"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "header key length -1");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Headers[0].Key");
  }
  {  // header value length -3
    const Error e = RecordsError(RawV2(Hex("12 00 00 00 01 01 02 02 61 05"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_DETAIL(e, "header value length -3");
    EXPECT_EQ(e.path, "Batch[0].Record[0].Headers[0].Value");
  }
  {  // with the Java quirk, -3 reads as null
    RecordsOptions o;
    o.quirks = kQuirkAnyNegativeLengthIsNull;
    One one = DecodeOne(RawV2(Hex("12 00 00 00 01 01 02 02 61 05"), 1), o);
    ASSERT_TRUE(one.error.ok()) << one.error.ToString();
    EXPECT_FALSE(one.set[0].headers[0].value.has_value());
  }
}

TEST(RecordBatchHostile, HeaderCountVersusBytes) {
  // Header count 100 with 2 bytes left in the record.
  const Error e = RecordsError(RawV2(Hex("12 00 00 00 01 01 c8 01 02 61"), 1));
  EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
  EXPECT_DETAIL(e, "header count 100 but only 2 bytes left in the record");
  // Header count 2 with one header present.
  const Error e2 = RecordsError(RawV2(Hex("14 00 00 00 01 01 04 02 61 01 02"), 1));
  EXPECT_EQ(e2.kind, ErrorKind::kCorruptRecords);
  EXPECT_EQ(e2.path, "Batch[0].Record[0].Headers[1].Key");
}

TEST(RecordBatchHostile, Varints) {
  {  // record length varint of 6 bytes
    const Error e = RecordsError(RawV2(Hex("ff ff ff ff ff 01 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kVarintTooLong);
    EXPECT_EQ(e.offset, 61u);
  }
  {  // timestampDelta varlong of 11 bytes
    const Error e = RecordsError(RawV2(Hex("20 00 ff ff ff ff ff ff ff ff ff ff 01 00 01 01 00"), 1));
    EXPECT_EQ(e.kind, ErrorKind::kVarintTooLong);
    EXPECT_EQ(e.offset, 63u);
  }
  {  // non-canonical (overlong) varint: strict by default, accepted by the quirk
    const std::vector<uint8_t> b = RawV2(Hex("10 00 00 00 82 00 61 01 00"), 1);
    const Error e = RecordsError(b);
    EXPECT_EQ(e.kind, ErrorKind::kVarintNonCanonical);
    RecordsOptions o;
    o.quirks = kQuirkNonCanonicalVarint;
    EXPECT_TRUE(DecodeOne(b, o).error.ok());
  }
}

TEST(RecordBatchHostile, InvalidCodec) {
  for (int codec : {5, 6, 7}) {
    const Error e = RecordsError(RawV2(Hex("00"), 1, static_cast<int16_t>(codec)));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.offset, 21u);
    EXPECT_DETAIL(e, absl::StrFormat("invalid compression codec %d", codec));
  }
}

TEST(RecordBatchHostile, ErrorsCarryFieldOffsetAndCallerPath) {
  std::vector<uint8_t> field = Encode(Header(), {Rec("a", "b")});
  field = Cat(field, RawV2(Hex("0e 00 00 00 03 04 62 63 00"), 1));
  PathNode fetch{nullptr, "FetchResponse", -1};
  PathNode records{&fetch, "Records", -1};
  BatchIterator it(field, {}, 5000, &records);
  BatchView v;
  ASSERT_TRUE(it.Next(&v));
  ASSERT_TRUE(it.Next(&v));
  RecordSet set;
  const Error e = v.DecodeRecords({}, &set);
  EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
  EXPECT_EQ(e.path, "FetchResponse.Records.Batch[1].Record[0].Key");
  EXPECT_EQ(e.offset, 5000 + (field.size() - 70) + 61 + 4);
  EXPECT_TRUE(set.empty());
}

// ============================================================== truncation

TEST(RecordBatchTruncation, EveryPrefixOfABatchIsPartial) {
  const std::vector<uint8_t> batch = Encode(Header(), SampleRecords());
  for (size_t n = 1; n < batch.size(); ++n) {
    BatchIterator it(std::span<const uint8_t>(batch).first(n));
    BatchView v;
    EXPECT_FALSE(it.Next(&v)) << n;
    ASSERT_EQ(it.state(), BatchIterator::kPartialBatch) << n << ": " << it.error().ToString();
    EXPECT_EQ(it.partial_have(), n);
    EXPECT_EQ(it.partial_need(), n >= 12 ? batch.size() : 0u) << n;
    EXPECT_EQ(it.partial_offset(), 0u);
  }
}

TEST(RecordBatchTruncation, PartialTrailingBatchAfterCompleteOnes) {
  const std::vector<uint8_t> first = Encode(Header(Compression::kNone, 0), {Rec("a", "1")});
  const std::vector<uint8_t> second = Encode(Header(Compression::kGzip, 1), SampleRecords());
  for (size_t n = 1; n < second.size(); n += 7) {
    const std::vector<uint8_t> field = Cat(first, std::span(second).first(n));
    BatchIterator it(field, {}, 40);
    BatchView v;
    ASSERT_TRUE(it.Next(&v));
    EXPECT_TRUE(v.records().ok());
    EXPECT_FALSE(it.Next(&v));
    EXPECT_EQ(it.state(), BatchIterator::kPartialBatch);
    EXPECT_EQ(it.partial_offset(), 40 + first.size());
    EXPECT_EQ(it.partial_have(), n);
    EXPECT_TRUE(it.error().ok());
  }
}

TEST(RecordBatchTruncation, RecordsCutAtEveryOffsetWithFixedFraming) {
  // Cut the records section at every byte, fixing batchLength and the CRC so that the
  // framing is "complete": every cut must be a precise error, never a crash.
  for (Compression c : {Compression::kNone, Compression::kZstd, Compression::kGzip,
                        Compression::kSnappy, Compression::kLz4}) {
    const std::vector<uint8_t> batch = Encode(Header(c), SampleRecords());
    for (size_t n = 61; n < batch.size(); ++n) {
      std::vector<uint8_t> cut(batch.begin(), batch.begin() + static_cast<ptrdiff_t>(n));
      FixV2(cut);
      One one = DecodeOne(cut);
      if (c == Compression::kSnappy && n == 61 + 16) {
        // The xerial header alone decompresses to nothing: a count mismatch.
        EXPECT_EQ(one.error.kind, ErrorKind::kCorruptRecords);
        continue;
      }
      ASSERT_FALSE(one.error.ok()) << CompressionName(c) << " cut at " << n;
      if (c == Compression::kNone) {
        EXPECT_EQ(one.error.kind, ErrorKind::kCorruptRecords) << n << one.error.ToString();
      } else {
        EXPECT_TRUE(one.error.kind == ErrorKind::kCompressionError ||
                    one.error.kind == ErrorKind::kCorruptRecords)
            << one.error.ToString();
      }
    }
  }
}

TEST(RecordBatchTruncation, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(99);
  for (Compression c : {Compression::kNone, Compression::kZstd, Compression::kLz4}) {
    const std::vector<uint8_t> batch = Encode(Header(c), SampleRecords());
    RecordsOptions o;
    o.enforce_crc = false;
    o.max_decompressed_bytes = 1 << 20;
    for (int i = 0; i < 500; ++i) {
      std::vector<uint8_t> m = batch;
      for (int k = 0; k < 4; ++k) m[rng() % m.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      BatchIterator it(m, o);
      BatchView v;
      while (it.Next(&v)) {
        RecordSet set;
        (void)v.DecodeRecords(o, &set);
        (void)ExplainRecords(m);
      }
    }
  }
}

// ============================================================== legacy message sets

TEST(LegacyMessages, UncompressedMagic0And1) {
  std::vector<uint8_t> field = LegacyText(0, 10, -1, "k0", "v0");
  field = Cat(field, LegacyText(1, 11, 1600000000000, std::nullopt, "v1"));
  field = Cat(field, Legacy(1, 12, kAttrLogAppendTime, 1600000000001, "k2", std::nullopt));
  BatchIterator it(field);
  std::vector<Record> got;
  std::vector<int8_t> magics;
  for (const BatchView& b : it) {
    magics.push_back(b.magic());
    EXPECT_TRUE(b.crc_ok());
    EXPECT_EQ(b.header().records_count, 1);
    absl::StatusOr<RecordSet> set = b.records();
    ASSERT_TRUE(set.ok()) << set.status();
    ASSERT_EQ(set->size(), 1u);
    got.push_back((*set)[0]);
  }
  EXPECT_EQ(it.state(), BatchIterator::kEnd) << it.error().ToString();
  EXPECT_EQ(magics, (std::vector<int8_t>{0, 1, 1}));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].offset, 10);
  EXPECT_EQ(got[0].timestamp, -1);
  EXPECT_EQ(*got[0].key, "k0");
  EXPECT_EQ(*got[0].value, "v0");
  EXPECT_FALSE(got[1].key.has_value());
  EXPECT_EQ(got[1].timestamp, 1600000000000);
  EXPECT_FALSE(got[2].value.has_value());
  EXPECT_EQ(got[2].offset, 12);
  EXPECT_EQ(got[0].wire_size, 12u + 14u + 4u);
}

std::vector<uint8_t> InnerSet(int8_t magic, bool relative, int64_t last_offset) {
  std::vector<uint8_t> inner;
  for (int i = 0; i < 3; ++i) {
    const int64_t off = relative ? i : last_offset - 2 + i;
    inner = Cat(inner, LegacyText(magic, off, 1500000000000 + i, "k" + std::to_string(i),
                                  "inner value " + std::to_string(i)));
  }
  return inner;
}

TEST(LegacyMessages, CompressedWrappers) {
  for (Compression c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4}) {
    for (int8_t magic : {int8_t{0}, int8_t{1}}) {
      SCOPED_TRACE(absl::StrFormat("%s magic %d", CompressionName(c), magic));
      // Magic 1 (KIP-31): relative inner offsets 0..2, wrapper offset = last absolute
      // offset (52). Magic 0: absolute inner offsets.
      const std::vector<uint8_t> inner = InnerSet(magic, magic == 1, 52);
      std::vector<uint8_t> z;
      ASSERT_TRUE(Compress(c, inner, &z).ok());
      if (c == Compression::kLz4 && magic == 0) {
        // Kafka's magic-0 LZ4 frames carry the broken header checksum.
        z[6] = static_cast<uint8_t>(compression_internal::XxHash32(z.data(), 6, 0) >> 8);
      }
      const std::vector<uint8_t> wrapper =
          Legacy(magic, 52, static_cast<int8_t>(c), 1500000000999, std::nullopt,
                 std::span<const uint8_t>(z));
      One one = DecodeOne(wrapper);
      ASSERT_TRUE(one.error.ok()) << one.error.ToString();
      EXPECT_EQ(one.view.header().records_count, -1);
      EXPECT_EQ(one.view.compression(), c);
      ASSERT_EQ(one.set.size(), 3u);
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(one.set[static_cast<size_t>(i)].offset, 50 + i);
        EXPECT_EQ(*one.set[static_cast<size_t>(i)].value, "inner value " + std::to_string(i));
        EXPECT_EQ(one.set[static_cast<size_t>(i)].timestamp,
                  magic == 1 ? 1500000000000 + i : -1);
      }
    }
  }
}

// Regression (hostile-frame review): a magic-1 wrapper whose last inner offset is
// INT64_MIN made `base − last` negate INT64_MIN (UBSan: signed overflow). Offsets wrap
// like Java's long arithmetic instead; every inner offset at the extremes decodes.
TEST(LegacyMessages, RelativeOffsetsAtTheExtremesWrap) {
  for (int64_t last : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                       int64_t{-1}}) {
    for (int64_t wrapper_offset : {int64_t{0}, std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max()}) {
      SCOPED_TRACE(absl::StrFormat("last inner %d, wrapper %d", last, wrapper_offset));
      std::vector<uint8_t> inner = LegacyText(1, 0, 1, std::nullopt, "a");
      const std::vector<uint8_t> second = LegacyText(1, last, 2, std::nullopt, "b");
      inner.insert(inner.end(), second.begin(), second.end());
      std::vector<uint8_t> z;
      ASSERT_TRUE(Compress(Compression::kGzip, inner, &z).ok());
      const std::vector<uint8_t> wrapper =
          Legacy(1, wrapper_offset, static_cast<int8_t>(Compression::kGzip), 3, std::nullopt,
                 std::span<const uint8_t>(z));
      One one = DecodeOne(wrapper);
      ASSERT_TRUE(one.error.ok()) << one.error.ToString();
      ASSERT_EQ(one.set.size(), 2u);
      const uint64_t base = static_cast<uint64_t>(wrapper_offset) - static_cast<uint64_t>(last);
      EXPECT_EQ(one.set[0].offset, static_cast<int64_t>(base));
      EXPECT_EQ(one.set[1].offset, wrapper_offset);
    }
  }
}

// Regression (hostile-frame review): a compressed batch of millions of minimal 7-byte
// records expanded the 64 MiB decompression cap into ~1.8 GB of Record objects. The
// records count is now checked against RecordsOptions::max_records before anything is
// decompressed; legacy wrappers stop at max_records inner messages.
TEST(RecordBatch, RecordsCountAboveMaxRecordsIsRefusedBeforeDecompressing) {
  std::vector<Record> recs;
  for (int i = 0; i < 5; ++i) recs.push_back(Rec(std::nullopt, std::nullopt));
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    const std::vector<uint8_t> batch = Encode(Header(c), recs);
    RecordsOptions o;
    o.max_records = 4;
    const Error e = RecordsError(batch, o);
    EXPECT_EQ(e.kind, ErrorKind::kCountTooLarge);
    EXPECT_EQ(e.offset, 57u);  // the records count field of the batch
    EXPECT_DETAIL(e, "records count 5 above RecordsOptions::max_records (4)");
    o.max_records = 5;
    EXPECT_TRUE(DecodeOne(batch, o).error.ok());
  }
  EXPECT_EQ(RecordsOptions{}.max_records, size_t{1} << 20);
  // A gzip batch declaring 2^20 + 1 records is refused without decompressing.
  std::vector<uint8_t> big = Encode(Header(Compression::kGzip), recs);
  SetBe32(big, 57, (1u << 20) + 1);
  FixV2(big);
  const Error e = RecordsError(big);
  EXPECT_EQ(e.kind, ErrorKind::kCountTooLarge);
  EXPECT_DETAIL(e, "records count 1048577 above");
}

TEST(LegacyMessages, InnerMessagesAboveMaxRecordsAreRefused) {
  std::vector<uint8_t> inner;
  for (int i = 0; i < 4; ++i) {
    const std::vector<uint8_t> m = LegacyText(0, i, -1, std::nullopt, "v");
    inner.insert(inner.end(), m.begin(), m.end());
  }
  std::vector<uint8_t> z;
  ASSERT_TRUE(Compress(Compression::kGzip, inner, &z).ok());
  const std::vector<uint8_t> wrapper = Legacy(0, 3, static_cast<int8_t>(Compression::kGzip), -1,
                                              std::nullopt, std::span<const uint8_t>(z));
  RecordsOptions o;
  o.max_records = 3;
  const Error e = RecordsError(wrapper, o);
  EXPECT_EQ(e.kind, ErrorKind::kCountTooLarge);
  EXPECT_DETAIL(e, "more than RecordsOptions::max_records (3) inner messages");
  o.max_records = 4;
  One one = DecodeOne(wrapper, o);
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  EXPECT_EQ(one.set.size(), 4u);
}

TEST(LegacyMessages, LogAppendTimeWrapperOverridesInnerTimestamps) {
  std::vector<uint8_t> z;
  ASSERT_TRUE(Compress(Compression::kGzip, InnerSet(1, true, 2), &z).ok());
  const std::vector<uint8_t> wrapper =
      Legacy(1, 2, static_cast<int8_t>(1 | kAttrLogAppendTime), 1234, std::nullopt,
             std::span<const uint8_t>(z));
  One one = DecodeOne(wrapper);
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  for (const Record& r : one.set) EXPECT_EQ(r.timestamp, 1234);
}

TEST(LegacyMessages, Hostile) {
  auto wrap = [](int8_t magic, std::span<const uint8_t> inner, int8_t codec = 1) {
    std::vector<uint8_t> z;
    EXPECT_TRUE(Compress(static_cast<Compression>(codec), inner, &z).ok());
    return Legacy(magic, 0, codec, 0, std::nullopt, std::span<const uint8_t>(z));
  };
  {  // nested compression: an inner message that is itself compressed
    const std::vector<uint8_t> inner_wrapper = wrap(1, InnerSet(1, true, 2));
    const Error e = RecordsError(wrap(1, inner_wrapper));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "nested compression: inner message is gzip-compressed");
    EXPECT_EQ(e.path, "Batch[0].Message[0]");
  }
  {  // inner magic differs from the wrapper's
    const Error e = RecordsError(wrap(1, InnerSet(0, false, 2)));
    EXPECT_DETAIL(e, "inner message magic 0 differs from the wrapper's magic 1");
  }
  {  // zstd needs magic 2
    const std::vector<uint8_t> one_byte = Hex("00");
    const Error e =
        RecordsError(Legacy(1, 0, 4, 0, std::nullopt, std::span<const uint8_t>(one_byte)));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.offset, 17u);
    EXPECT_DETAIL(e, "zstd compression requires magic 2");
  }
  {  // null value in a compressed wrapper
    const Error e = RecordsError(Legacy(0, 0, 1, 0, std::nullopt, std::nullopt));
    EXPECT_DETAIL(e, "gzip-compressed message with a null value");
  }
  {  // empty wrapper
    const Error e = RecordsError(wrap(0, {}));
    EXPECT_DETAIL(e, "compressed wrapper holds no messages");
  }
  if (RecordsCrcEnforcementEnabled()) {  // inner CRC mismatch
    std::vector<uint8_t> inner = InnerSet(1, true, 2);
    inner.back() ^= 1;
    const Error e = RecordsError(wrap(1, inner));
    EXPECT_EQ(e.kind, ErrorKind::kCrcMismatch);
    EXPECT_DETAIL(e, "inner message: stored 0x");
  }
  {  // inner message cut short inside the wrapper
    std::vector<uint8_t> inner = InnerSet(1, true, 2);
    inner.resize(inner.size() - 3);
    const Error e = RecordsError(wrap(1, inner));
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "inner message size");
  }
  if (RecordsCrcEnforcementEnabled()) {  // outer CRC mismatch (CRC-32 at byte 12)
    std::vector<uint8_t> m = LegacyText(1, 0, 0, "k", "v");
    m.back() ^= 1;
    const Error e = IterError(m);
    EXPECT_EQ(e.kind, ErrorKind::kCrcMismatch);
    EXPECT_EQ(e.offset, 12u);
    EXPECT_DETAIL(e, "CRC-32 of bytes 16..");
  }
  {  // key and value shorter than the message size
    std::vector<uint8_t> m = LegacyText(0, 0, 0, "k", "v");
    m.push_back(0);
    SetBe32(m, 8, static_cast<uint32_t>(m.size() - 12));
    SetBe32(m, 12, crc32(0, m.data() + 16, static_cast<uInt>(m.size() - 16)));
    const Error e = IterError(m);
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_DETAIL(e, "end 1 bytes before its end");
  }
  {  // value length beyond the message
    std::vector<uint8_t> m = LegacyText(0, 0, 0, "k", "v");
    SetBe32(m, m.size() - 5, 9);
    SetBe32(m, 12, crc32(0, m.data() + 16, static_cast<uInt>(m.size() - 16)));
    const Error e = IterError(m);
    EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
    EXPECT_EQ(e.path, "Batch[0].Value");
  }
  {  // message size below the magic-1 minimum
    std::vector<uint8_t> m = LegacyText(1, 0, 0, std::nullopt, "");
    SetBe32(m, 8, 20);
    const Error e = IterError(m);
    EXPECT_DETAIL(e, "below the minimum of 22 bytes for magic 1");
  }
  {  // partial legacy message at the end
    const std::vector<uint8_t> m = LegacyText(1, 0, 0, "k", "value");
    BatchIterator it(std::span<const uint8_t>(m).first(m.size() - 1));
    BatchView v;
    EXPECT_FALSE(it.Next(&v));
    EXPECT_EQ(it.state(), BatchIterator::kPartialBatch);
  }
}

// ============================================================== explain hook

// The node at `path` (the explanation's paths start at "records"), or null.
const PrintNode* FindNode(const std::vector<PrintNode>& nodes, std::string_view path) {
  for (const PrintNode& n : nodes) {
    if (n.path == path) return &n;
  }
  return nullptr;
}

// The children of nodes[i] (the nodes one deeper up to the next node at its depth).
std::vector<const PrintNode*> ChildrenOf(const std::vector<PrintNode>& nodes, size_t i) {
  std::vector<const PrintNode*> out;
  for (size_t k = i + 1; k < nodes.size() && nodes[k].depth > nodes[i].depth; ++k) {
    if (nodes[k].depth == nodes[i].depth + 1) out.push_back(&nodes[k]);
  }
  return out;
}

TEST(RecordsExplain, RendersBatchesRecordsAndStatus) {
  static const std::string long_value(500, 'L');
  std::vector<uint8_t> field = Encode(Header(Compression::kNone, 0), {Rec("user-1", "hello")});
  field = Cat(field, Encode(Header(Compression::kZstd, 1),
                            {Rec(std::nullopt, long_value, 0, 0, {{"trace", "\x01\x02"}})}));
  std::vector<uint8_t> bad = Encode(Header(Compression::kNone, 2), {Rec("k", "v")});
  bad[20] ^= 1;  // CRC mismatch: shown, not enforced
  field = Cat(field, bad);
  field = Cat(field, std::span<const uint8_t>(EmptyBatchBytes()).first(20));  // partial
  ExplainOptions o;
  o.max_value_bytes = 16;
  const std::vector<PrintNode> nodes = ExplainRecords(field, o, 100);
  std::vector<const PrintNode*> top;
  for (const PrintNode& n : nodes) {
    if (n.depth == 0) top.push_back(&n);
  }
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0]->label, "Batch[0]");
  EXPECT_EQ(top[0]->type, "RecordBatch v2");
  EXPECT_EQ(top[0]->kind, PrintNode::Kind::kRecords);
  EXPECT_EQ(top[0]->offset, 100u);
  EXPECT_EQ(top[3]->label, "partial batch");
  EXPECT_EQ(top[3]->kind, PrintNode::Kind::kRecords);
  // The top-level nodes tile the field.
  size_t at = 100;
  for (const PrintNode* n : top) {
    EXPECT_EQ(n->offset, at) << n->path;
    at += n->size;
  }
  EXPECT_EQ(at, 100 + field.size());
  const PrintNode* zstd_records = FindNode(nodes, "records.Batch[1].Records");
  ASSERT_NE(zstd_records, nullptr);
  EXPECT_EQ(zstd_records->type, "compressed records");
  EXPECT_NE(zstd_records->note.find("decompressed payload"), std::string::npos);
  const size_t payload = zstd_records->offset;
  struct Want {
    const char* path;
    size_t offset, size;  // size SIZE_MAX: not checked
    const char* value;    // a prefix of the value
    const char* type = nullptr;
  };
  constexpr size_t kAny = SIZE_MAX;
  const Want want[] = {
      {"records.Batch[0]", 100, 61 + 18, "magic 2, baseOffset 0, 1 records, none, CreateTime, crc ok"},
      {"records.Batch[0].baseOffset", 100, 8, "0", "int64"},
      {"records.Batch[0].recordsCount", 157, 4, "1", "int32"},
      {"records.Batch[0].Records.Record[0]", 161, 18, "offset 0, timestamp 1700000000000"},
      // An uncompressed batch: every record field at its position, in wire order.
      {"records.Batch[0].Records.Record[0].length", 161, 1, "17", "varint"},
      {"records.Batch[0].Records.Record[0].attributes", 162, 1, "0"},
      {"records.Batch[0].Records.Record[0].timestampDelta", 163, 1, "0"},
      {"records.Batch[0].Records.Record[0].offsetDelta", 164, 1, "0"},
      {"records.Batch[0].Records.Record[0].keyLength", 165, 1, "6"},
      {"records.Batch[0].Records.Record[0].key", 166, 6, "\"user-1\""},
      {"records.Batch[0].Records.Record[0].valueLen", 172, 1, "5"},
      {"records.Batch[0].Records.Record[0].value", 173, 5, "\"hello\""},
      {"records.Batch[0].Records.Record[0].headersCount", 178, 1, "0"},
      // Rows derived from the batch are not wire fields: no position of their own.
      {"records.Batch[1].compression", 179, 0, "zstd", "(derived)"},
      // A compressed batch: its records at the payload's first byte, size 0.
      {"records.Batch[1].Records.Record[0].key", payload, 0, "null", "bytes"},
      {"records.Batch[1].Records.Record[0].value", payload, 0,
       "\"LLLLLLLLLLLLLLLL\" … (500 bytes)"},
      {"records.Batch[1].Records.Record[0].Headers[0]", payload, 0, "\"trace\" = 01 02"},
      {"records.Batch[2].crcCheck", kAny, 0, "0x"},
      {"records.partial batch", kAny, 20, "20 of 61 bytes (normal at the end of a Fetch response)"},
  };
  for (const Want& w : want) {
    const PrintNode* n = FindNode(nodes, w.path);
    ASSERT_NE(n, nullptr) << "missing: " << w.path << "\n" << RenderObjectTree(nodes);
    if (w.offset != kAny) {
      EXPECT_EQ(n->offset, w.offset) << w.path;
    }
    EXPECT_EQ(n->size, w.size) << w.path;
    EXPECT_EQ(n->value.rfind(w.value, 0), 0u) << w.path << ": " << n->value;
    if (w.type != nullptr) {
      EXPECT_EQ(n->type, w.type) << w.path;
    }
  }
  EXPECT_NE(FindNode(nodes, "records.Batch[2].crcCheck")->value.find("(MISMATCH, computed 0x"),
            std::string::npos);
  // One renderer for every explanation: the object tree of `kwire explain`.
  const std::string text = RenderObjectTree(nodes);
  for (const char* row : {"Batch[0]", "+-- baseOffset", "(derived)", "partial batch",
                          "[0x0064, 8B]"}) {
    EXPECT_NE(text.find(row), std::string::npos) << "missing: " << row << "\n" << text;
  }
}

TEST(RecordsExplain, RecordFieldsAtTheirWirePositions) {
  // length 0x18 (12), attributes, timestampDelta, offsetDelta, key "a", value null,
  // one header "k1" = "v".
  const std::vector<uint8_t> field = RawV2(Hex("18 00 00 00 02 61 01 02 04 6b 31 02 76"), 1);
  ExplainOptions o;
  o.path = "Body.Records";
  o.depth = 3;
  const std::vector<PrintNode> nodes = ExplainRecords(field, o, 1000);
  size_t rec = nodes.size();
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].path == "Body.Records.Batch[0].Records.Record[0]") rec = i;
  }
  ASSERT_LT(rec, nodes.size());
  EXPECT_EQ(nodes[rec].depth, 5);
  EXPECT_EQ(nodes[rec].offset, 1061u);
  EXPECT_EQ(nodes[rec].size, 13u);
  struct Want {
    const char* name;
    size_t at, size;
    const char* value;
  };
  const Want want[] = {{"length", 1061, 1, "12"},       {"attributes", 1062, 1, "0"},
                       {"timestampDelta", 1063, 1, "0"}, {"offsetDelta", 1064, 1, "0"},
                       {"keyLength", 1065, 1, "1"},      {"key", 1066, 1, "\"a\""},
                       {"valueLen", 1067, 1, "-1"},      {"value", 1068, 0, "null"},
                       {"headersCount", 1068, 1, "1"},   {"Headers[0]", 1069, 5, "\"k1\" = \"v\""}};
  const std::vector<const PrintNode*> children = ChildrenOf(nodes, rec);
  ASSERT_EQ(children.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    const PrintNode& c = *children[i];
    EXPECT_EQ(c.label, want[i].name);
    EXPECT_EQ(c.path, absl::StrCat(nodes[rec].path, ".", want[i].name));
    EXPECT_EQ(c.offset, want[i].at) << c.label;
    EXPECT_EQ(c.size, want[i].size) << c.label;
    EXPECT_EQ(c.value, want[i].value) << c.label;
  }
  const size_t h = static_cast<size_t>(children.back() - nodes.data());
  const std::vector<const PrintNode*> hc = ChildrenOf(nodes, h);
  ASSERT_EQ(hc.size(), 4u);
  EXPECT_EQ(hc[0]->label, "headerKeyLength");
  EXPECT_EQ(hc[0]->offset, 1069u);
  EXPECT_EQ(hc[1]->label, "headerKey");
  EXPECT_EQ(hc[1]->offset, 1070u);
  EXPECT_EQ(hc[1]->size, 2u);
  EXPECT_EQ(hc[2]->label, "headerValueLength");
  EXPECT_EQ(hc[2]->offset, 1072u);
  EXPECT_EQ(hc[3]->label, "value");
  EXPECT_EQ(hc[3]->offset, 1073u);
  EXPECT_EQ(hc[3]->size, 1u);
  EXPECT_EQ(hc[3]->value, "\"v\"");
}

TEST(RecordsExplain, ErrorsBecomeNodes) {
  std::vector<uint8_t> field = RawV2(Hex("0e 00 00 00 03 04 62 63 00"), 1);
  std::vector<PrintNode> nodes = ExplainRecords(field);
  const PrintNode* error = FindNode(nodes, "records.Batch[0].error");
  ASSERT_NE(error, nullptr) << RenderObjectTree(nodes);
  EXPECT_TRUE(error->failed);
  EXPECT_EQ(error->offset, 65u);
  EXPECT_EQ(error->value.rfind("invalid_length at byte 65 in Batch[0].Record[0].Key", 0), 0u)
      << error->value;
  EXPECT_NE(RenderObjectTree(nodes).find("<-- decoding failed here"), std::string::npos);
  field[16] = 9;
  nodes = ExplainRecords(field);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].label, "error");
  EXPECT_TRUE(nodes[0].failed);
  EXPECT_NE(nodes[0].value.find("magic 9"), std::string::npos);
}

TEST(RecordsExplain, AbbreviateBytes) {
  EXPECT_EQ(AbbreviateBytes(std::nullopt, 8), "null");
  EXPECT_EQ(AbbreviateBytes("", 8), "\"\"");
  EXPECT_EQ(AbbreviateBytes("a\"b\n", 8), "\"a\\\"b\\n\"");
  EXPECT_EQ(AbbreviateBytes(std::string_view("\x00\xff", 2), 8), "00 ff");
  EXPECT_EQ(AbbreviateBytes("abcdefghij", 4), "\"abcd\" … (10 bytes)");
}

// ======================================================= fast path vs reference path
//
// DecodeRecords reads common records with a local-pointer fast path and everything else
// with the Reader-based reference path, switching record by record. The two must give
// the same records (every field, derived ones included) and the same errors.

// One record: its body (attributes .. header count) as hex; the length is prefixed.
std::vector<uint8_t> RawRecord(const std::string& body_hex) {
  const std::vector<uint8_t> body = Hex(body_hex);
  std::vector<uint8_t> r;
  uint32_t z = static_cast<uint32_t>(body.size()) << 1;  // zigzag of a non-negative length
  while (z >= 0x80) {
    r.push_back(static_cast<uint8_t>(z | 0x80));
    z >>= 7;
  }
  r.push_back(static_cast<uint8_t>(z));
  r.insert(r.end(), body.begin(), body.end());
  return r;
}

// Record bodies: the first ones fast-path material (headers included), then what the
// fast path declines (a varint it leaves to the Reader, lengths out of range, malformed
// records).
std::vector<std::vector<uint8_t>> RecordTemplates() {
  const std::string v100 = "c8 01 " + ToHex(std::vector<uint8_t>(100, 0x76));  // 100 bytes
  return {
      RawRecord("00 00 00 02 61 02 62 00"),                   // key "a", value "b"
      RawRecord("00 01 02 01 01 00"),                        // null key, null value
      RawRecord("00 00 00 00 00 00"),                        // empty key and value
      RawRecord("00 e2 a2 f3 ad 07 d8 04 02 6b " + v100 + " 00"),  // multi-byte varints
      RawRecord("00 00 00 02 61 02 62 02 02 68 02 76"),      // one header
      RawRecord("00 00 00 02 61 02 62 04 02 68 01 00 00"),   // two headers, null value
      RawRecord("00 00 82 00 02 61 02 62 00"),               // overlong offsetDelta
      RawRecord("00 00 00 02 61 03 00"),                     // value length -2
      RawRecord("00 00 00 02 61 02 62 00 00"),               // a byte after the headers
      RawRecord("00 00 00 02 61 7e 62 00"),                  // value length 63 > record
      RawRecord("00 00 00 02 61 02 62 02"),                  // header count 1, no header
      RawRecord("00 00 00 02 61 02 62 02 04 c3 a9 02 76"),   // header key "é" (UTF-8)
      RawRecord("00 00 00 02 61 02 62 02 04 c0 af 02 76"),   // header key c0 af: not UTF-8
      Hex("7e 00 00 00 02 61 02 62 00"),                     // record length 63 > batch
      Hex("01"),                                             // record length -1
  };
}

// Decodes `field` (one batch) with the fast path on or off.
struct Decoded {
  Error error;
  RecordSet records;  // owns the decompressed bytes the views point into
};
Decoded DecodeWith(bool fast, std::span<const uint8_t> field, const RecordsOptions& o) {
  SetRecordFastPathForTesting(fast);
  Decoded d;
  BatchIterator it(field, o);
  BatchView v;
  if (!it.Next(&v)) {
    d.error = it.error();
  } else {
    d.error = v.DecodeRecords(o, &d.records);
  }
  SetRecordFastPathForTesting(true);
  return d;
}

// CheckRecords of `field` (one batch) with the fast path on or off; the scratch set is
// reused across two batches' worth of calls and must be empty after each.
Error CheckWith(bool fast, std::span<const uint8_t> field, const RecordsOptions& o) {
  SetRecordFastPathForTesting(fast);
  Error e;
  BatchIterator it(field, o);
  BatchView v;
  RecordSet scratch;
  if (!it.Next(&v)) {
    e = it.error();
  } else {
    e = v.CheckRecords(o, &scratch);
    EXPECT_TRUE(scratch.empty());
    EXPECT_EQ(v.CheckRecords(o, &scratch), e);  // reused: the same verdict
    EXPECT_TRUE(scratch.empty());
  }
  SetRecordFastPathForTesting(true);
  return e;
}

void ExpectSameDecode(const Decoded& fast, const Decoded& ref, const std::string& what) {
  EXPECT_EQ(fast.error.kind, ref.error.kind) << what;
  EXPECT_EQ(fast.error.offset, ref.error.offset) << what;
  EXPECT_EQ(fast.error.path, ref.error.path) << what;
  EXPECT_EQ(fast.error.detail, ref.error.detail) << what;
  ASSERT_EQ(fast.records.size(), ref.records.size()) << what;
  for (size_t i = 0; i < ref.records.size(); ++i) {
    const Record& a = fast.records[i];
    const Record& b = ref.records[i];
    EXPECT_EQ(a, b) << what << " record " << i;
    EXPECT_EQ(a.offset, b.offset) << what << " record " << i;
    EXPECT_EQ(a.timestamp, b.timestamp) << what << " record " << i;
    EXPECT_EQ(a.wire_offset, b.wire_offset) << what << " record " << i;
    EXPECT_EQ(a.wire_size, b.wire_size) << what << " record " << i;
    EXPECT_EQ(a.control, b.control) << what << " record " << i;
  }
}

TEST(RecordFastPath, AgreesWithTheReferencePathOnEverySequence) {
  const std::vector<std::vector<uint8_t>> t = RecordTemplates();
  const size_t n = t.size();
  int decoded_ok = 0;
  int failed = 0;
  // Every sequence of up to three templates; records count as present, one short and
  // one over; strict and Java quirks; uncompressed, log-append-time and gzip; base
  // offset 0 and INT64_MAX (offsets wrap).
  std::vector<std::vector<size_t>> sequences;
  for (size_t a = 0; a < n; ++a) {
    sequences.push_back({a});
    for (size_t b = 0; b < n; ++b) {
      sequences.push_back({a, b});
      for (size_t c = 0; c < n; ++c) sequences.push_back({a, b, c});
    }
  }
  for (const std::vector<size_t>& seq : sequences) {
    std::vector<uint8_t> section;
    std::string name = "records";
    for (size_t i : seq) {
      section.insert(section.end(), t[i].begin(), t[i].end());
      name += " " + std::to_string(i);
    }
    const int32_t present = static_cast<int32_t>(seq.size());
    for (int32_t count : {present, present - 1, present + 1}) {
      for (int16_t attributes : {0, static_cast<int>(kAttrLogAppendTime), 1 /*gzip*/}) {
        std::vector<uint8_t> payload = section;
        if (attributes == 1) {
          payload.clear();
          ASSERT_TRUE(Compress(Compression::kGzip, section, &payload).ok());
        }
        for (int64_t base : {int64_t{0}, std::numeric_limits<int64_t>::max()}) {
          const std::vector<uint8_t> batch = RawV2(payload, count, attributes, base);
          for (uint32_t quirks : {0u, kQuirksJava}) {
            RecordsOptions o;
            o.quirks = quirks;
            const std::string what = absl::StrFormat(
                "%s, count %d, attributes %d, base %d, quirks %x", name, count, attributes,
                base, quirks);
            const Decoded fast = DecodeWith(true, batch, o);
            ExpectSameDecode(fast, DecodeWith(false, batch, o), what);
            // CheckRecords (validation) fails exactly as DecodeRecords, on either path,
            // and keeps no record.
            for (bool fast_path : {true, false}) {
              const Error checked = CheckWith(fast_path, batch, o);
              EXPECT_EQ(checked, fast.error) << what << (fast_path ? " fast" : " reference");
            }
            (fast.error.ok() ? decoded_ok : failed)++;
          }
        }
      }
    }
  }
  // Both outcomes are well represented (the templates are half good, half bad).
  EXPECT_GT(decoded_ok, 2000);
  EXPECT_GT(failed, 20000);
}

TEST(RecordFastPath, SwitchingPathsKeepsOffsetsAndPaths) {
  const std::vector<std::vector<uint8_t>> t = RecordTemplates();
  auto section_of = [&](std::initializer_list<size_t> seq) {
    std::vector<uint8_t> section;
    for (size_t i : seq) section.insert(section.end(), t[i].begin(), t[i].end());
    return section;
  };
  {  // Records 0–2 fast (one with a header), record 3 a bad value length: the error
     // names record 3 at its value length's exact offset.
    const size_t at3 = 61 + t[0].size() + t[4].size() + t[3].size();
    const Error e = RecordsError(RawV2(section_of({0, 4, 3, 7}), 4, 0, 1000));
    EXPECT_EQ(e.kind, ErrorKind::kInvalidLength);
    EXPECT_EQ(e.path, "Batch[0].Record[3].Value");
    EXPECT_EQ(e.offset, at3 + 1 + 5);  // length, attributes, 3 one-byte varints and "a"
    EXPECT_DETAIL(e, "value length -2");
  }
  // With Java's quirks, record 1 (overlong offsetDelta) and record 3 (value length −2,
  // read as null) go through the reference path, records 0 and 2 through the fast path.
  RecordsOptions java;
  java.quirks = kQuirksJava;
  const std::vector<uint8_t> batch = RawV2(section_of({0, 6, 3, 7}), 4, 0, 1000);
  One one = DecodeOne(batch, java);  // views into `batch`
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  ASSERT_EQ(one.set.size(), 4u);
  size_t at = 61;
  for (size_t i = 0; i < 4; ++i) {
    const size_t size = t[std::vector<size_t>{0, 6, 3, 7}[i]].size();
    EXPECT_EQ(one.set[i].wire_offset, at) << i;
    EXPECT_EQ(one.set[i].wire_size, size) << i;
    at += size;
  }
  EXPECT_EQ(one.set[0].key, "a");
  EXPECT_EQ(one.set[0].offset, 1000);
  EXPECT_EQ(one.set[1].offset_delta, 1);  // 82 00: zigzag 2, overlong
  EXPECT_EQ(one.set[1].value, "b");
  EXPECT_EQ(one.set[2].timestamp_delta, 987654321);
  EXPECT_EQ(one.set[2].timestamp, 1000 + 987654321);
  EXPECT_EQ(one.set[2].offset_delta, 300);
  EXPECT_EQ(one.set[2].offset, 1300);
  EXPECT_EQ(one.set[2].key, "k");
  EXPECT_EQ(one.set[2].value, std::string(100, 'v'));
  EXPECT_FALSE(one.set[3].value.has_value());
  EXPECT_TRUE(one.set[3].headers.empty());
}

TEST(RecordFastPath, HeadersAreReadInFull) {
  const std::vector<std::vector<uint8_t>> t = RecordTemplates();
  std::vector<uint8_t> section = t[5];
  section.insert(section.end(), t[4].begin(), t[4].end());
  const std::vector<uint8_t> batch = RawV2(section, 2);
  One one = DecodeOne(batch);  // views into `batch`
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  ASSERT_EQ(one.set.size(), 2u);
  ASSERT_EQ(one.set[0].headers.size(), 2u);
  EXPECT_EQ(one.set[0].headers[0].key, "h");
  EXPECT_FALSE(one.set[0].headers[0].value.has_value());
  EXPECT_EQ(one.set[0].headers[1].key, "");
  EXPECT_EQ(one.set[0].headers[1].value, "");
  ASSERT_EQ(one.set[1].headers.size(), 1u);
  EXPECT_EQ(one.set[1].headers[0].key, "h");
  EXPECT_EQ(one.set[1].headers[0].value, "v");
}

// Header keys are strings (KIP-82; Java reads them as UTF-8): kInvalidUtf8 at the first
// bad byte on both the fast and the reference path, accepted and kept under
// kQuirkInvalidUtf8, refused by the strict encoder.
TEST(RecordBatchHostile, HeaderKeysAreUtf8) {
  // attributes, timestampDelta, offsetDelta, key null, value null, 1 header: key "a\xff"
  // (length 2), value null. Record length at 61, the key's bytes at 69 and 70.
  const std::vector<uint8_t> batch = RawV2(RawRecord("00 00 00 01 01 02 04 61 ff 01"), 1);
  for (bool fast : {true, false}) {
    SetRecordFastPathForTesting(fast);
    const Error e = RecordsError(batch);
    SetRecordFastPathForTesting(true);
    EXPECT_EQ(e.kind, ErrorKind::kInvalidUtf8) << e.ToString();
    EXPECT_EQ(e.offset, 70u);
    EXPECT_EQ(e.path, "Batch[0].Record[0].Headers[0].Key");
    EXPECT_EQ(e.detail, "byte 0xff cannot start a sequence");
  }
  // Second header, a surrogate after "ok": its lead byte at 61+1+6 + (1+2+1) + 1+2 = 75.
  const std::vector<uint8_t> second =
      RawV2(RawRecord("00 00 00 01 01 04 04 6f 6b 01 0a 6f 6b ed a0 80 01"), 1);
  const Error e2 = RecordsError(second);
  EXPECT_EQ(e2.kind, ErrorKind::kInvalidUtf8) << e2.ToString();
  EXPECT_EQ(e2.offset, 75u);
  EXPECT_EQ(e2.path, "Batch[0].Record[0].Headers[1].Key");
  EXPECT_EQ(e2.detail, "surrogate U+D800");

  RecordsOptions java;
  java.quirks = kQuirksJava;
  One one = DecodeOne(batch, java);
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  ASSERT_EQ(one.set[0].headers.size(), 1u);
  EXPECT_EQ(one.set[0].headers[0].key, "a\xff");
  // Re-encoding: refused strictly, byte-exact with the quirk.
  const std::vector<Record> recs(one.set.begin(), one.set.end());
  const auto strict = EncodeRecordBatch(one.view.header(), recs);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("invalid_utf8"), std::string::npos)
      << strict.status();
  EncodeBatchOptions keep;
  keep.encode.quirks = kQuirkInvalidUtf8;
  const auto kept = EncodeRecordBatch(one.view.header(), recs, keep);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(Vec(*kept), batch);
  // Compressed batches too (the plain records are written by a second writer).
  const auto gz = EncodeRecordBatch(Header(Compression::kGzip), recs);
  EXPECT_FALSE(gz.ok());
  EXPECT_TRUE(EncodeRecordBatch(Header(Compression::kGzip), recs, keep).ok());
}

}  // namespace
}  // namespace kwire

namespace kwire {
namespace {

using heap_testing::PeakAllocated;

// CheckRecords keeps no record: its memory is one Record (and its headers), whatever the
// records count; DecodeRecords holds every Record. (Counted by compression_test.cc's
// KWIRE_COUNT_GLOBAL_NEW in this program.)
TEST(CheckRecords, KeepsOneRecordWhateverTheCount) {
  constexpr int kRecords = 100'000;
  std::vector<Record> recs;
  recs.reserve(kRecords);
  const std::vector<RecordHeader> headers = {{"h1", "v"}, {"h2", std::nullopt}};
  for (int i = 0; i < kRecords; ++i) recs.push_back(records_testing::Rec("k", "v", i, 0, headers));
  const std::vector<uint8_t> batch = records_testing::Encode(records_testing::Header(), recs);
  BatchIterator it(batch);
  BatchView v;
  ASSERT_TRUE(it.Next(&v));
  RecordSet set;
  Error decoded;
  const size_t decode_peak = PeakAllocated([&] { decoded = v.DecodeRecords({}, &set); });
  ASSERT_TRUE(decoded.ok()) << decoded.ToString();
  ASSERT_EQ(set.size(), static_cast<size_t>(kRecords));
  EXPECT_GE(decode_peak, kRecords * sizeof(Record));
  RecordSet scratch;
  Error checked;
  const size_t check_peak = PeakAllocated([&] { checked = v.CheckRecords({}, &scratch); });
  EXPECT_TRUE(checked.ok()) << checked.ToString();
  EXPECT_TRUE(scratch.empty());
  EXPECT_LE(check_peak, sizeof(Record) + 4 * sizeof(RecordHeader));
  std::printf("[ measured ] %d records with 2 headers: DecodeRecords peak %zu bytes, "
              "CheckRecords peak %zu bytes\n",
              kRecords, decode_peak, check_peak);
}

// The inner messages of a legacy compressed wrapper, likewise: one slot, whatever their
// number (the decompressed payload aside).
TEST(CheckRecords, LegacyWrapperInnerMessagesUseOneSlot) {
  size_t inner_size = 0;
  const std::vector<uint8_t> wrapper = records_testing::GzipWrapper(3000, "x", &inner_size);
  BatchIterator it(wrapper);
  BatchView v;
  ASSERT_TRUE(it.Next(&v));
  RecordSet set;
  ASSERT_TRUE(v.DecodeRecords({}, &set).ok());
  EXPECT_EQ(set.size(), 3000u);
  EXPECT_EQ(set[2999].offset, 2999);  // KIP-31 relative offsets resolved
  RecordSet scratch;
  Error checked;
  const size_t peak = PeakAllocated([&] { checked = v.CheckRecords({}, &scratch); });
  EXPECT_TRUE(checked.ok()) << checked.ToString();
  EXPECT_TRUE(scratch.empty());
  EXPECT_LE(peak, 2 * inner_size + sizeof(Record) + (16 << 10));  // the payload buffer
  EXPECT_LT(peak, 3000 * sizeof(Record));
}

}  // namespace
}  // namespace kwire
