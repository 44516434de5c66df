// Record batches inside frames: frame decoding validates every records field under its
// records policy (codec/records/validate.h) by default — the partial-batch rules, the
// Produce v3+ rules, the records' own faults with whole paths and frame offsets, quirks
// inside records — and keeps them opaque on request. The hex frames of issue 12 are
// here verbatim; each fault kind is also covered beyond its one input.
#include <gtest/gtest.h>

#include "absl/strings/match.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/generated/fetch_response.h"
#include "codec/generated/fetch_snapshot_response.h"
#include "codec/generated/produce_request.h"
#include "codec/generated/share_fetch_response.h"
#include "codec/harness/explain.h"
#include "codec/harness/print_records.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/protocol/refusal.h"
#include "codec/records/records_test_util.h"

namespace kwire {
namespace {

using frame_testing::ErrorOf;
using records_testing::FixV2;
using records_testing::Legacy;
using records_testing::RawV2;
using wire_testing::Cat;
using wire_testing::Hex;
using wire_testing::ToHex;
using Bytes = std::vector<uint8_t>;

constexpr int16_t kProduce = 0;
constexpr int16_t kFetch = 1;
constexpr int16_t kFetchSnapshot = 59;
constexpr int16_t kShareFetch = 78;

std::string Str(std::span<const uint8_t> b) { return std::string(b.begin(), b.end()); }

void ExpectError(const absl::Status& s, ErrorKind kind, size_t at, const std::string& path) {
  const Error e = ErrorOf(s);
  EXPECT_EQ(e.kind, kind) << s;
  EXPECT_EQ(e.offset, at) << s;
  EXPECT_EQ(e.path, path) << s;
}

absl::Status DecodeRequest(std::span<const uint8_t> frame, uint32_t quirks = 0,
                           RecordsMode mode = RecordsMode::kValidate) {
  FrameOptions o;
  o.quirks = quirks;
  o.records_mode = mode;
  auto f = DecodeRequestFrame(frame, o);
  if (!f.ok()) return f.status();
  auto again = EncodeRequestFrame(f->header, f->body);
  EXPECT_TRUE(again.ok());
  if (again.ok() && quirks == 0) {
    EXPECT_EQ(ToHex(*again), ToHex(frame)) << "not byte-exact";
  }
  return absl::OkStatus();
}

absl::Status DecodeResponse(std::span<const uint8_t> frame, int16_t api, int16_t version,
                            RecordsMode mode = RecordsMode::kValidate) {
  FrameOptions o;
  o.records_mode = mode;
  auto f = DecodeResponseFrame(frame, api, version, o);
  if (!f.ok()) return f.status();
  auto again = EncodeResponseFrame(f->header, api, version, f->body);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ(ToHex(*again), ToHex(frame)) << "not byte-exact";
  }
  return absl::OkStatus();
}

// ---- Frame builders (typed messages through the encoder, records bytes by hand).

// A Produce request: one topic "t", one partition per entry of `partitions` (records
// bytes, or nullopt for null).
Bytes ProduceFrame(int16_t version, const std::vector<std::optional<Bytes>>& partitions) {
  ProduceRequest m;
  m.acks = -1;
  m.timeout_ms = 30000;
  auto& topic = m.topic_data.emplace_back();
  topic.name = "t";
  for (size_t i = 0; i < partitions.size(); ++i) {
    auto& p = topic.partition_data.emplace_back();
    p.index = static_cast<int32_t>(i);
    if (partitions[i]) p.records = Records{Str(*partitions[i])};
  }
  auto frame = EncodeRequestFrame(version, /*correlation_id=*/7, std::string("c"), m);
  EXPECT_TRUE(frame.ok()) << frame.status();
  return frame.ok() ? *frame : Bytes{};
}

template <class M>
Bytes ResponseFrame(int16_t api, int16_t version, const M& m) {
  AnyMessage any(*FindApi(api)->response);
  *any.get<M>() = m;
  ResponseHeader h;
  h.correlation_id = 7;
  auto frame = EncodeResponseFrame(h, api, version, any);
  EXPECT_TRUE(frame.ok()) << frame.status();
  return frame.ok() ? *frame : Bytes{};
}

Bytes FetchFrame(int16_t version, const Bytes& records) {
  FetchResponse m;
  auto& topic = m.responses.emplace_back();
  topic.topic = "t";
  topic.partitions.emplace_back().records = Records{Str(records)};
  return ResponseFrame(kFetch, version, m);
}

Bytes ShareFetchFrame(const Bytes& records) {
  ShareFetchResponse m;
  auto& topic = m.responses.emplace_back();
  topic.partitions.emplace_back().records = Records{Str(records)};
  return ResponseFrame(kShareFetch, 0, m);
}

// Offset of `needle` (the records bytes) inside `frame`; asserts it occurs once.
size_t Find(const Bytes& frame, const Bytes& needle) {
  size_t found = SIZE_MAX, count = 0;
  for (size_t i = 0; i + needle.size() <= frame.size(); ++i) {
    if (std::equal(needle.begin(), needle.end(), frame.begin() + static_cast<ptrdiff_t>(i))) {
      found = i;
      ++count;
    }
  }
  EXPECT_EQ(count, 1u);
  return found;
}

// One uncompressed v2 batch with `n` records "k<i>"/"v<i>" and a header on record 0.
Bytes Batch(int n, int16_t attributes = 0, int64_t base_offset = 0) {
  std::vector<Record> recs(static_cast<size_t>(n));
  std::vector<std::string> keys, values;
  keys.reserve(recs.size());
  values.reserve(recs.size());
  for (int i = 0; i < n; ++i) {
    keys.push_back("k" + std::to_string(i));
    values.push_back("v" + std::to_string(i));
    recs[static_cast<size_t>(i)].offset_delta = i;
    recs[static_cast<size_t>(i)].key = keys.back();
    recs[static_cast<size_t>(i)].value = values.back();
  }
  BatchHeader h;
  h.base_offset = base_offset;
  h.attributes = attributes;
  h.last_offset_delta = n > 0 ? n - 1 : 0;
  auto b = EncodeRecordBatch(h, recs);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? Bytes(b->begin(), b->end()) : Bytes{};
}

const std::string kProduceRecords = "ProduceRequest.TopicData[0].PartitionData[0].Records";
const std::string kFetchRecords = "FetchResponse.Responses[0].Partitions[0].Records";

// ---- The inputs of issue 12, verbatim.

TEST(RecordsInFrames, FetchResponseWithRecordKeyEditedAfterTheCrcIsRejected) {
  const Bytes frame = Hex(
      "000000790000000100000000000000010001740000000100000000000000000000000000010000000000"
      "000001ffffffff0000004800000000000000000000003c000000000266ce83ea00000000000000000000"
      "000000000000000000000000ffffffffffffffffffffffffffff000000011400000006313433027600");
  // The batch starts at byte 53 (records length at 49); its crc field at 53 + 17.
  ExpectError(DecodeResponse(frame, kFetch, 4), ErrorKind::kCrcMismatch, 70,
              kFetchRecords + ".Batch[0]");
  // Opaque: the same frame decodes and re-encodes byte-exactly.
  EXPECT_TRUE(DecodeResponse(frame, kFetch, 4, RecordsMode::kOpaque).ok());
}

TEST(RecordsInFrames, ProduceRequestWithABatchCutShortIsRejected) {
  const Bytes frame = Hex(
      "000000890000000300000001ffffffffffff00007530000000010001740000000100000000000000640000"
      "0000000000007ffffff0000000000284e999110000000000000000000000000000000000000000000"
      "0ffffffffffffffffffffffffffff000000010c000000010100000000000000000000000000000000000000"
      "0000000000000000000000000000");
  // Records (length 100) start at byte 41: the batch claims 0x7ffffff0 bytes.
  ExpectError(DecodeRequest(frame), ErrorKind::kCorruptRecords, 41, kProduceRecords + ".Batch[0]");
  EXPECT_TRUE(DecodeRequest(frame, 0, RecordsMode::kOpaque).ok());
}

TEST(RecordsInFrames, FetchResponseWithAByteAfterAnEmptyBatchIsRejected) {
  const Bytes frame = Hex(
      "000000ac00000001000000000000000100017400000001000000000000000000000000006a0000000000"
      "00006affffffff0000007b00000000000000640000003200000000022917d868000000000004ffffffff"
      "ffffffff0000018bcfe568000000000000000005000000000000000000000000000000000000690000"
      "003100000000022ee075e5003000000000ffffffffffffffff0000018bcfe568000000000000000005"
      "0000ffffffff00000000");
  const absl::Status s = DecodeResponse(frame, kFetch, 4);
  const Error e = ErrorOf(s);
  EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords) << s;
  EXPECT_EQ(e.path.rfind(kFetchRecords + ".Batch[", 0), 0u) << s;
  EXPECT_TRUE(DecodeResponse(frame, kFetch, 4, RecordsMode::kOpaque).ok());
}

TEST(RecordsInFrames, FetchSnapshotUnalignedRecordsAreOpaque) {
  const Bytes frame = Hex(
      "0000006f000000010000000000000002135f5f636c75737465725f6d65746164617461020000000000"
      "000000000000000003000000010000000000000000f80000000000000046291600000000018bcfe568"
      "00000000000000000000010000004e00000001024359f9f9000000000000000000");
  EXPECT_TRUE(DecodeResponse(frame, kFetchSnapshot, 0).ok());
  PrintOptions po;
  po.records = &PrintRecordBatches;
  const FrameExplanation ex = ExplainResponseFrame(frame, kFetchSnapshot, 0, po);
  EXPECT_TRUE(ex.status.ok()) << ex.status;
  EXPECT_TRUE(ex.tree_status.ok()) << ex.tree_status;
  bool opaque = false;
  for (const PrintNode& n : ex.nodes) {
    if (n.kind == PrintNode::Kind::kRecords) {
      EXPECT_EQ(n.label, "batches");
      EXPECT_NE(n.note.find("not aligned"), std::string::npos) << n.note;
      EXPECT_FALSE(n.failed);
      opaque = true;
    }
  }
  EXPECT_TRUE(opaque);
}

TEST(RecordsInFrames, QuirksApplyInsideRecords) {
  const Bytes frame = Hex(
      "000000630000000900000001ffff0000ffff00007530020274020000000046000000000000000000000039"
      "000000000202bc52e700000000000000000000000000000000000000000000ffffffffffffffffffffff"
      "ffffff000000010e00008000010100000000");
  // Records (compact length 0x46) start at byte 31; the batch's only record at 31 + 61:
  // length 0e, attributes 00, timestampDelta 00, offsetDelta 80 00 at 95.
  ExpectError(DecodeRequest(frame), ErrorKind::kVarintNonCanonical, 95,
              kProduceRecords + ".Batch[0].Record[0].OffsetDelta");
  EXPECT_TRUE(DecodeRequest(frame, kQuirksJava).ok());
  EXPECT_TRUE(DecodeRequest(frame, kQuirkNonCanonicalVarint).ok());
}

// ---- Each kind beyond its one input.

TEST(RecordsInFrames, ProduceV3PlusNeedsExactlyOneMagic2Batch) {
  for (int16_t v : {3, 8, 9, 12}) {
    SCOPED_TRACE(v);
    const Bytes one = Batch(2);
    EXPECT_TRUE(DecodeRequest(ProduceFrame(v, {one})).ok());
    // Two batches: the second is not allowed, reported at its first byte.
    const Bytes two = Cat(one, Batch(1, 0, 2));
    const Bytes f2 = ProduceFrame(v, {two});
    ExpectError(DecodeRequest(f2), ErrorKind::kRecordsNotAllowed, Find(f2, two) + one.size(),
                kProduceRecords + ".Batch[1]");
    // No batch at all (empty records): reported where the field ends.
    const Bytes f0 = ProduceFrame(v, {Bytes{}});
    const Error e0 = ErrorOf(DecodeRequest(f0));
    EXPECT_EQ(e0.kind, ErrorKind::kRecordsNotAllowed);
    EXPECT_EQ(e0.path, kProduceRecords);
    // A legacy magic 1 message: the magic byte is reported.
    const Bytes legacy = Legacy(1, 0, 0, 1000, "k", std::span<const uint8_t>(Hex("76")));
    const Bytes f1 = ProduceFrame(v, {legacy});
    ExpectError(DecodeRequest(f1), ErrorKind::kRecordsNotAllowed, Find(f1, legacy) + 16,
                kProduceRecords + ".Batch[0]");
    // Null records stay allowed (the field is nullable; the broker's own rule).
    EXPECT_TRUE(DecodeRequest(ProduceFrame(v, {std::nullopt})).ok());
  }
  // The second partition's error names it.
  const Bytes f = ProduceFrame(9, {Batch(1), Cat(Batch(1), Batch(1))});
  const Error e = ErrorOf(DecodeRequest(f));
  EXPECT_EQ(e.kind, ErrorKind::kRecordsNotAllowed);
  EXPECT_EQ(e.path, "ProduceRequest.TopicData[0].PartitionData[1].Records.Batch[1]");
}

TEST(RecordsInFrames, ProduceBeforeV3AcceptsMessageSets) {
  const Bytes m0 = Legacy(0, 0, 0, -1, "a", std::span<const uint8_t>(Hex("01")));
  const Bytes m1 = Legacy(0, 1, 0, -1, std::nullopt, std::span<const uint8_t>(Hex("02")));
  for (int16_t v : {0, 1, 2}) {
    SCOPED_TRACE(v);
    EXPECT_TRUE(DecodeRequest(ProduceFrame(v, {Cat(m0, m1)})).ok());
    EXPECT_TRUE(DecodeRequest(ProduceFrame(v, {Bytes{}})).ok());
    EXPECT_TRUE(DecodeRequest(ProduceFrame(v, {Cat(Batch(1), Batch(1))})).ok());
  }
}

TEST(RecordsInFrames, ZstdNeedsProduceV7) {
  const Bytes zstd = Batch(3, static_cast<int16_t>(Compression::kZstd));
  for (int16_t v = 3; v <= 12; ++v) {
    SCOPED_TRACE(v);
    const Bytes f = ProduceFrame(v, {zstd});
    if (v >= 7) {
      EXPECT_TRUE(DecodeRequest(f).ok());
    } else {
      // Reported at the batch's attributes (byte 21 of the batch).
      ExpectError(DecodeRequest(f), ErrorKind::kRecordsNotAllowed, Find(f, zstd) + 21,
                  kProduceRecords + ".Batch[0]");
    }
  }
  // Fetch responses carry whatever the log holds: no version rule there.
  EXPECT_TRUE(DecodeResponse(FetchFrame(4, zstd), kFetch, 4).ok());
}

TEST(RecordsInFrames, PartialLastBatchOnlyWhereTheProtocolAllowsIt) {
  const Bytes full = Batch(2);
  const Bytes next = Batch(3, 0, 2);
  for (size_t cut : {size_t{1}, size_t{11}, size_t{12}, size_t{17}, size_t{40}, next.size() - 1}) {
    SCOPED_TRACE(cut);
    const Bytes records = Cat(full, std::span<const uint8_t>(next).first(cut));
    // Fetch v4 / v16 and ShareFetch: allowed, byte-exact.
    EXPECT_TRUE(DecodeResponse(FetchFrame(4, records), kFetch, 4).ok());
    EXPECT_TRUE(DecodeResponse(FetchFrame(16, records), kFetch, 16).ok());
    EXPECT_TRUE(DecodeResponse(ShareFetchFrame(records), kShareFetch, 0).ok());
    // Produce: corrupt, at the partial batch's first byte. (v2: several batches allowed,
    // so the partial one is the only fault.)
    const Bytes f = ProduceFrame(2, {records});
    ExpectError(DecodeRequest(f), ErrorKind::kCorruptRecords, Find(f, records) + full.size(),
                kProduceRecords + ".Batch[1]");
  }
  // A partial batch in the middle is not a partial batch: the next partition's bytes are
  // not part of this field, so only the field's end counts. A Fetch with a cut batch
  // followed by a second partition still decodes.
  FetchResponse m;
  auto& topic = m.responses.emplace_back();
  topic.topic = "t";
  topic.partitions.emplace_back().records =
      Records{Str(Cat(full, std::span<const uint8_t>(next).first(20)))};
  topic.partitions.emplace_back().records = Records{Str(full)};
  EXPECT_TRUE(DecodeResponse(ResponseFrame(kFetch, 12, m), kFetch, 12).ok());
}

TEST(RecordsInFrames, RecordFaultsCarryTheWholePathAndFrameOffset) {
  // A record whose second header's key length is negative (header keys are never null).
  // Record: length, attributes 0, timestampDelta 0, offsetDelta 0, key null (01),
  // value null (01), 2 headers: "a"=null, then key length −1.
  const Bytes rec = Hex("00" "00" "00" "01" "01" "04" "02" "61" "01" "01");
  Bytes section = Cat(Bytes{static_cast<uint8_t>(rec.size() * 2)}, rec);  // zigzag length
  const Bytes batch = RawV2(section, 1);
  const Bytes f = ProduceFrame(9, {batch});
  // The batch header, the record's length byte, then 9 bytes into the record.
  const size_t at = Find(f, batch) + 61 + 1 + 9;
  ExpectError(DecodeRequest(f), ErrorKind::kInvalidLength, at,
              kProduceRecords + ".Batch[0].Record[0].Headers[1].Key");
  // The same fault in a Fetch response, in its second batch.
  const Bytes field = Cat(Batch(1), batch);
  const Bytes ff = FetchFrame(11, field);
  ExpectError(DecodeResponse(ff, kFetch, 11), ErrorKind::kInvalidLength,
              Find(ff, field) + Batch(1).size() + 61 + 1 + 9,
              kFetchRecords + ".Batch[1].Record[0].Headers[1].Key");
}

// Caller-owned scratch (RecordsOptions::scratch, issue 37 item 4): validation decodes into
// the caller's RecordSet instead of the thread's, with the same verdicts; the scratch keeps
// the last batch's decompressed payload for the next frame (nothing trimmed).
TEST(RecordsInFrames, ValidationUsesTheCallersScratch) {
  const Bytes gzip = Batch(5, static_cast<int16_t>(Compression::kGzip));
  const Bytes f = ProduceFrame(9, {Batch(2), gzip});
  RecordSet scratch;
  FrameOptions o;
  o.records.scratch = &scratch;
  ASSERT_TRUE(DecodeRequestFrame(f, o).ok());
  // Checking reads record by record (CheckRecords keeps no Record list), but the last
  // batch's decompressed payload stays in the caller's scratch: partition 1's gzip batch.
  EXPECT_FALSE(scratch.decompressed().empty());
  const size_t payload = scratch.decompressed().size();
  // A fault is found the same way with either scratch.
  Bytes bad = gzip;
  bad.back() ^= 0x01;  // CRC no longer matches
  const Bytes g = ProduceFrame(9, {bad});
  const Error with_own = ErrorOf(DecodeRequestFrame(g, o).status());
  const Error with_thread = ErrorOf(DecodeRequest(g));
  EXPECT_EQ(with_own.kind, ErrorKind::kCrcMismatch);
  EXPECT_EQ(with_own, with_thread);
  // Frame after frame into one scratch.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(DecodeRequestFrame(f, o).ok());
  EXPECT_EQ(scratch.decompressed().size(), payload);
}

TEST(RecordsInFrames, RecordsCountAndTrailingRecordBytes) {
  Bytes two = Batch(2);
  // Claim 3 records where 2 are present (records count at byte 57 of the batch).
  Bytes three = two;
  three[60] = 3;
  FixV2(three);
  const Bytes f3 = FetchFrame(4, three);
  EXPECT_EQ(ErrorOf(DecodeResponse(f3, kFetch, 4)).kind, ErrorKind::kCorruptRecords);
  // Claim 1: bytes after the last record.
  Bytes one = two;
  one[60] = 1;
  FixV2(one);
  const Bytes f1 = ProduceFrame(9, {one});
  const Error e = ErrorOf(DecodeRequest(f1));
  EXPECT_EQ(e.kind, ErrorKind::kCorruptRecords);
  EXPECT_EQ(e.path.rfind(kProduceRecords + ".Batch[0]", 0), 0u) << e.path;
}

// ---- Read by a broker: a readable frame whose partitions the broker refuses (issue 30).

// ReadRequestAsBroker, asserting that the frame reads whole and re-encodes byte for byte.
std::optional<BrokerRead> ReadAsBroker(const Bytes& frame, const FrameOptions& options = {}) {
  auto read = ReadRequestAsBroker(frame, options);
  EXPECT_TRUE(read.ok()) << read.status();
  if (!read.ok()) return std::nullopt;
  auto again = EncodeRequestFrame(read->frame.header, read->frame.body);
  EXPECT_TRUE(again.ok()) << again.status();
  if (again.ok()) {
    EXPECT_EQ(ToHex(*again), ToHex(frame)) << "not byte-exact";
  }
  return *std::move(read);
}

std::string PartitionRecords(int i) {
  return "ProduceRequest.TopicData[0].PartitionData[" + std::to_string(i) + "].Records";
}

TEST(BrokerRead, RefusedPartitionsAreListedAndTheRestOfTheFrameReads) {
  const Bytes one = Batch(2);
  const Bytes two = Cat(Batch(1), Batch(1, 0, 1));
  // Partition 0 sound, 1 with two batches, 2 with none, 3 sound.
  const Bytes f = ProduceFrame(9, {one, two, Bytes{}, one});
  // DecodeRequestFrame fails the whole frame on the first fault...
  EXPECT_EQ(ErrorOf(DecodeRequest(f)).kind, ErrorKind::kRecordsNotAllowed);
  // ...a broker reads it all and answers partitions 1 and 2 with INVALID_RECORD.
  const std::optional<BrokerRead> read = ReadAsBroker(f);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->refusals.size(), 2u);
  EXPECT_TRUE(read->refused());
  EXPECT_EQ(read->refusals[0].part, PartitionRecords(1));
  EXPECT_EQ(read->refusals[0].fault.kind, ErrorKind::kRecordsNotAllowed);
  EXPECT_EQ(read->refusals[0].fault.path, PartitionRecords(1) + ".Batch[1]");
  EXPECT_EQ(read->refusals[0].fault.offset, Find(f, two) + Batch(1).size());
  EXPECT_EQ(read->refusals[0].error_code, 87);
  EXPECT_STREQ(read->refusals[0].error_name, "INVALID_RECORD");
  EXPECT_EQ(read->refusals[1].part, PartitionRecords(2));
  EXPECT_EQ(read->refusals[1].fault.path, PartitionRecords(2));
  EXPECT_EQ(read->refusals[1].error_code, 87);
  EXPECT_EQ(read->refusals[0].ToString().rfind(PartitionRecords(1) + ": INVALID_RECORD (87): "
                                               "records_not_allowed at byte ", 0),
            0u)
      << read->refusals[0].ToString();
  const auto* body = read->frame.body.get<ProduceRequest>();
  ASSERT_NE(body, nullptr);
  ASSERT_EQ(body->topic_data[0].partition_data.size(), 4u);
  EXPECT_EQ(body->topic_data[0].partition_data[1].records->data(), Str(two));
  // A sound frame: nothing refused.
  EXPECT_FALSE(ReadAsBroker(ProduceFrame(9, {one, one})).value().refused());
}

// Apache Kafka N6 (conformance/testees/apache-kafka/FAILURES.md): a zstd batch in Produce
// v0-v2. KIP-110 allows zstd from v7; Java's ProduceRequest.validateRecords checks the codec
// only from v3, and Kafka 3.9 (the last release with v0-v2) appends the batch. Strict kwire
// refuses it with KIP-110's code; kQuirkOldProduceCodecUnchecked (in kQuirksJava) reads it as
// Java does, and only below v3.
TEST(BrokerRead, ZstdBelowV3IsRefusedStrictlyAndReadUnderTheJavaQuirks) {
  const Bytes zstd = Batch(3, static_cast<int16_t>(Compression::kZstd));
  for (int16_t v : {int16_t{0}, int16_t{1}, int16_t{2}}) {
    SCOPED_TRACE(v);
    const Bytes f = ProduceFrame(v, {zstd});
    const Error strict = ErrorOf(DecodeRequest(f));
    EXPECT_EQ(strict.kind, ErrorKind::kRecordsNotAllowed);
    EXPECT_EQ(strict.offset, Find(f, zstd) + 21);  // the batch's attributes (codec bits)
    EXPECT_EQ(strict.path, kProduceRecords + ".Batch[0]");
    const std::optional<BrokerRead> read = ReadAsBroker(f);
    ASSERT_TRUE(read);
    ASSERT_EQ(read->refusals.size(), 1u);
    EXPECT_EQ(read->refusals[0].error_code, 76);
    EXPECT_STREQ(read->refusals[0].error_name, "UNSUPPORTED_COMPRESSION_TYPE");
    EXPECT_TRUE(read->refusals[0].kafka_appends);
    EXPECT_FALSE(read->refusals[0].whole_request);
    for (uint32_t quirks : {uint32_t{kQuirkOldProduceCodecUnchecked}, kQuirksJava}) {
      FrameOptions o;
      o.quirks = quirks;
      EXPECT_TRUE(DecodeRequest(f, quirks).ok()) << quirks;
      const std::optional<BrokerRead> java = ReadAsBroker(f, o);
      ASSERT_TRUE(java);
      EXPECT_FALSE(java->refused());
    }
  }
  // From v3 Java checks the codec too: the quirk changes nothing there.
  for (int16_t v : {int16_t{3}, int16_t{6}}) {
    SCOPED_TRACE(v);
    FrameOptions o;
    o.quirks = kQuirksJava;
    const Bytes f = ProduceFrame(v, {zstd});
    EXPECT_EQ(ErrorOf(DecodeRequest(f, kQuirksJava)).kind, ErrorKind::kRecordsNotAllowed);
    const std::optional<BrokerRead> read = ReadAsBroker(f, o);
    ASSERT_TRUE(read);
    ASSERT_EQ(read->refusals.size(), 1u);
    EXPECT_EQ(read->refusals[0].error_code, 76);
    EXPECT_FALSE(read->refusals[0].kafka_appends);
  }
  // v7: allowed either way.
  EXPECT_TRUE(DecodeRequest(ProduceFrame(7, {zstd})).ok());
}

TEST(BrokerRead, EachFaultGetsTheBrokersErrorCode) {
  // zstd below Produce v7: UNSUPPORTED_COMPRESSION_TYPE (KIP-110).
  const std::optional<BrokerRead> zstd = ReadAsBroker(ProduceFrame(6, {Batch(3, static_cast<int16_t>(Compression::kZstd))}));
  ASSERT_TRUE(zstd);
  ASSERT_EQ(zstd->refusals.size(), 1u);
  EXPECT_EQ(zstd->refusals[0].error_code, 76);
  EXPECT_STREQ(zstd->refusals[0].error_name, "UNSUPPORTED_COMPRESSION_TYPE");
  // Magic 1 in v3+: INVALID_RECORD.
  const Bytes legacy = Legacy(1, 0, 0, 1000, "k", std::span<const uint8_t>(Hex("76")));
  const std::optional<BrokerRead> magic = ReadAsBroker(ProduceFrame(3, {legacy}));
  ASSERT_TRUE(magic);
  ASSERT_EQ(magic->refusals.size(), 1u);
  EXPECT_EQ(magic->refusals[0].error_code, 87);
  // A CRC that does not match its bytes: CORRUPT_MESSAGE.
  Bytes bad_crc = Batch(2);
  bad_crc.back() ^= 0x01;
  const std::optional<BrokerRead> crc = ReadAsBroker(ProduceFrame(9, {bad_crc}));
  ASSERT_TRUE(crc);
  ASSERT_EQ(crc->refusals.size(), 1u);
  EXPECT_EQ(crc->refusals[0].fault.kind, ErrorKind::kCrcMismatch);
  EXPECT_EQ(crc->refusals[0].error_code, 2);
  EXPECT_STREQ(crc->refusals[0].error_name, "CORRUPT_MESSAGE");
  // A batch cut short (v2: the only fault): CORRUPT_MESSAGE.
  const Bytes cut = Cat(Batch(1), std::span<const uint8_t>(Batch(2)).first(30));
  const std::optional<BrokerRead> partial = ReadAsBroker(ProduceFrame(2, {cut}));
  ASSERT_TRUE(partial);
  ASSERT_EQ(partial->refusals.size(), 1u);
  EXPECT_EQ(partial->refusals[0].fault.kind, ErrorKind::kCorruptRecords);
  EXPECT_EQ(partial->refusals[0].error_code, 2);
  // Kafka drops the cut batch and appends the first (UnifiedLog.trimInvalidBytes): kwire
  // refuses it on purpose and says so.
  EXPECT_TRUE(partial->refusals[0].kafka_appends);
  EXPECT_FALSE(crc->refusals[0].kafka_appends);
  // Alone in a v3+ partition, a batch cut short is no batch at all: INVALID_RECORD.
  const Bytes whole = Batch(2);
  const std::optional<BrokerRead> alone =
      ReadAsBroker(ProduceFrame(9, {Bytes(whole.begin(), whole.end() - 1)}));
  ASSERT_TRUE(alone);
  ASSERT_EQ(alone->refusals.size(), 1u);
  EXPECT_EQ(alone->refusals[0].error_code, 87);
  EXPECT_FALSE(alone->refusals[0].kafka_appends);
  // A first batch whose header Java's batch iterator refuses (magic 3): CORRUPT_MESSAGE for
  // every partition of the request (RequestUtils.hasTransactionalRecords).
  Bytes magic3 = Batch(1);
  magic3[16] = 3;
  const std::optional<BrokerRead> bad_magic = ReadAsBroker(ProduceFrame(9, {Batch(1), magic3}));
  ASSERT_TRUE(bad_magic);
  ASSERT_EQ(bad_magic->refusals.size(), 1u);
  EXPECT_EQ(bad_magic->refusals[0].part, PartitionRecords(1));
  EXPECT_EQ(bad_magic->refusals[0].error_code, 2);
  EXPECT_TRUE(bad_magic->refusals[0].whole_request);
  // Codec id 5 from v7: UNKNOWN_SERVER_ERROR (CompressionType.forId throws); below v7 it
  // escapes validateRecords: the whole request.
  Bytes codec5 = Batch(1);
  codec5[22] = static_cast<uint8_t>((codec5[22] & ~7) | 5);  // attributes' codec bits
  FixV2(codec5);
  for (int16_t v : {6, 9}) {
    const std::optional<BrokerRead> c5 = ReadAsBroker(ProduceFrame(v, {codec5}));
    ASSERT_TRUE(c5);
    ASSERT_EQ(c5->refusals.size(), 1u);
    EXPECT_EQ(c5->refusals[0].error_code, -1);
    EXPECT_STREQ(c5->refusals[0].error_name, "UNKNOWN_SERVER_ERROR");
    EXPECT_EQ(c5->refusals[0].whole_request, v < 7) << v;
  }
  // A record that does not read, CRC intact: INVALID_RECORD (LogValidator).
  const Bytes rec = Hex("00" "00" "00" "01" "01" "04" "02" "61" "01" "01");
  const Bytes bad_record = RawV2(Cat(Bytes{static_cast<uint8_t>(rec.size() * 2)}, rec), 1);
  const std::optional<BrokerRead> record = ReadAsBroker(ProduceFrame(9, {bad_record}));
  ASSERT_TRUE(record);
  ASSERT_EQ(record->refusals.size(), 1u);
  EXPECT_EQ(record->refusals[0].fault.kind, ErrorKind::kInvalidLength);
  EXPECT_EQ(record->refusals[0].fault.path, kProduceRecords + ".Batch[0].Record[0].Headers[1].Key");
  EXPECT_EQ(record->refusals[0].error_code, 87);
  EXPECT_FALSE(record->refusals[0].kafka_appends);
}

TEST(BrokerRead, WhatKafkaAppendsAndWhatFailsTheWholeRequest) {
  // A records count one above the records present in a compressed batch: Kafka's in-place
  // reader fails too (premature EOF), INVALID_RECORD; not one Kafka appends.
  Bytes gzip = Batch(3, static_cast<int16_t>(Compression::kGzip));
  gzip[60] = 4;  // records count, byte 57..60 of the batch
  FixV2(gzip);
  std::optional<BrokerRead> read = ReadAsBroker(ProduceFrame(9, {gzip}));
  ASSERT_TRUE(read);
  ASSERT_EQ(read->refusals.size(), 1u);
  EXPECT_EQ(read->refusals[0].error_code, 87);
  EXPECT_FALSE(read->refusals[0].kafka_appends) << read->refusals[0].ToString();
  EXPECT_EQ(read->WholeRequest(), nullptr);
  // Two whole-request faults: the first-batch probe (magic 3, CORRUPT_MESSAGE) runs
  // before validateRecords' codec check (codec 5 below v7, UNKNOWN_SERVER_ERROR), whatever
  // their partitions' order.
  Bytes codec5 = Batch(1);
  codec5[22] = static_cast<uint8_t>((codec5[22] & ~7) | 5);
  FixV2(codec5);
  Bytes magic3 = Batch(1);
  magic3[16] = 3;
  read = ReadAsBroker(ProduceFrame(6, {codec5, magic3}));
  ASSERT_TRUE(read);
  ASSERT_EQ(read->refusals.size(), 2u);
  EXPECT_TRUE(read->refusals[0].whole_request);
  EXPECT_TRUE(read->refusals[1].whole_request);
  ASSERT_NE(read->WholeRequest(), nullptr);
  EXPECT_EQ(read->WholeRequest()->error_code, 2);
  EXPECT_EQ(read->WholeRequest()->part, PartitionRecords(1));
}

TEST(BrokerRead, RefusalsAreWithinTheAllocationBudget) {
  // 2,000 partitions, each with no batch: 2,000 refusals. Within the default budget they
  // are all listed; under a budget too small for what they keep, the decode fails as a
  // limit, at the records field it could not keep.
  std::vector<std::optional<Bytes>> empty(2000, Bytes{});
  const Bytes f = ProduceFrame(9, empty);
  const std::optional<BrokerRead> all = ReadAsBroker(f);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->refusals.size(), 2000u);
  // The smallest budget (in 4 KiB steps) that the frame itself fits, records unexamined:
  // the refusals' keep does not fit it too.
  FrameOptions opaque;
  opaque.records_mode = RecordsMode::kOpaque;
  opaque.max_alloc_bytes = 4096;
  while (!DecodeRequestFrame(f, opaque).ok()) opaque.max_alloc_bytes += 4096;
  FrameOptions small;
  small.max_alloc_bytes = opaque.max_alloc_bytes;
  auto capped = ReadRequestAsBroker(f, small);
  ASSERT_FALSE(capped.ok());
  const Error e = ErrorOf(capped.status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.path.rfind("ProduceRequest.TopicData[0].PartitionData[", 0), 0u) << e.path;
  EXPECT_TRUE(absl::EndsWith(e.path, "].Records")) << e.path;
}

TEST(BrokerRead, UnreadableFramesAndDecoderLimitsStillFail) {
  const Bytes f = ProduceFrame(9, {Cat(Batch(1), Batch(1))});
  // A frame cut inside the body cannot be read at all: the error DecodeRequestFrame gives.
  const Bytes cut(f.begin(), f.end() - 3);
  auto read = ReadRequestAsBroker(cut);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(ErrorOf(read.status()), ErrorOf(DecodeRequestFrame(cut).status()));
  // kwire's own caps are not a verdict on the bytes: a batch that decompresses past
  // RecordsOptions::max_decompressed_bytes fails the decode.
  FrameOptions small;
  small.records.max_decompressed_bytes = 16;
  const Bytes gzip = ProduceFrame(9, {Batch(20, static_cast<int16_t>(Compression::kGzip))});
  EXPECT_TRUE(ReadAsBroker(gzip).value().refusals.empty());
  auto capped = ReadRequestAsBroker(gzip, small);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(ErrorOf(capped.status()).kind, ErrorKind::kCompressionError);
  // Records kept opaque: nothing is looked at, nothing refused.
  FrameOptions opaque;
  opaque.records_mode = RecordsMode::kOpaque;
  EXPECT_FALSE(ReadAsBroker(f, opaque).value().refused());
}

TEST(RecordsInFrames, ExplainExitsWithTheDecodersVerdict) {
  // The CRC-mismatch Fetch: explain draws the batch, then fails like the decoder.
  const Bytes frame = Hex(
      "000000790000000100000000000000010001740000000100000000000000000000000000010000000000"
      "000001ffffffff0000004800000000000000000000003c000000000266ce83ea00000000000000000000"
      "000000000000000000000000ffffffffffffffffffffffffffff000000011400000006313433027600");
  PrintOptions po;
  po.records = &PrintRecordBatches;
  FrameExplanation ex = ExplainResponseFrame(frame, kFetch, 4, po);
  ExpectError(ex.status, ErrorKind::kCrcMismatch, 70, kFetchRecords + ".Batch[0]");
  ExpectError(ex.tree_status, ErrorKind::kCrcMismatch, 70, kFetchRecords + ".Batch[0]");
  bool batch = false;
  for (const PrintNode& n : ex.nodes) batch |= n.label == "Batch[0]";
  EXPECT_TRUE(batch);
  po.records_mode = RecordsMode::kOpaque;
  ex = ExplainResponseFrame(frame, kFetch, 4, po);
  EXPECT_TRUE(ex.status.ok());
  EXPECT_TRUE(ex.tree_status.ok());

  // A Produce request with a partial batch: the partial batch is an error node.
  const Bytes records = Cat(Batch(1), std::span<const uint8_t>(Batch(2)).first(30));
  const Bytes f = ProduceFrame(2, {records});
  po.records_mode = RecordsMode::kValidate;
  ex = ExplainRequestFrame(f, po);
  EXPECT_EQ(ErrorOf(ex.status).kind, ErrorKind::kCorruptRecords);
  bool error_node = false;
  for (const PrintNode& n : ex.nodes) {
    if (n.label == "error" && n.offset == Find(f, records) + Batch(1).size()) {
      error_node = true;
      EXPECT_TRUE(n.failed);
      EXPECT_NE(n.value.find("only Fetch and ShareFetch"), std::string::npos) << n.value;
    }
  }
  EXPECT_TRUE(error_node);
  // The same bytes in a Fetch response: a partial batch, allowed.
  ex = ExplainResponseFrame(FetchFrame(4, records), kFetch, 4, po);
  EXPECT_TRUE(ex.status.ok()) << ex.status;
  bool partial = false;
  for (const PrintNode& n : ex.nodes) partial |= n.label == "partial batch" && !n.failed;
  EXPECT_TRUE(partial);
}

TEST(RecordsInFrames, EveryMinimalAndRichFrameValidates) {
  // The minimal instances put one empty batch in every records field and the random
  // filler whole empty batches (one where the policy requires it): all validate.
  size_t records_cases = 0;
  for (const frame_testing::Case& c : frame_testing::AllCases()) {
    for (uint64_t seed : {0u, 1u, 2u}) {
      const AnyMessage body = seed == 0 ? frame_testing::Minimal(c) : frame_testing::Rich(c, seed);
      const Bytes frame = frame_testing::EncodeFrame(c, body);
      const frame_testing::Decoded d = frame_testing::DecodeFrame(c, frame);
      ASSERT_TRUE(d.ok()) << c.Name() << " seed " << seed << ": " << d.error.ToString();
    }
    const int16_t key = c.api->api_key;
    if ((key == kProduce && c.request()) ||
        (!c.request() && (key == kFetch || key == kShareFetch || key == kFetchSnapshot))) {
      ++records_cases;
    }
  }
  EXPECT_GT(records_cases, 30u);
}

// ---- Zero-copy records (FrameOptions::borrow_records).

FrameOptions Borrowing(RecordsMode mode = RecordsMode::kValidate) {
  FrameOptions o;
  o.records_mode = mode;
  o.borrow_records = true;
  return o;
}

const char* At(const Bytes& frame, size_t offset) {
  return reinterpret_cast<const char*>(frame.data()) + offset;
}

TEST(BorrowedRecords, ProduceRecordsAreViewsIntoTheFrameEqualToTheCopies) {
  const Bytes b0 = Batch(3), b1 = Batch(2, 0, 10);
  const Bytes frame = ProduceFrame(9, {b0, b1, std::nullopt});
  for (RecordsMode mode : {RecordsMode::kValidate, RecordsMode::kOpaque}) {
    FrameOptions copy_options;
    copy_options.records_mode = mode;
    auto copied = DecodeRequestFrame(frame, copy_options);
    auto borrowed = DecodeRequestFrame(frame, Borrowing(mode));
    ASSERT_TRUE(copied.ok()) << copied.status();
    ASSERT_TRUE(borrowed.ok()) << borrowed.status();
    const auto& parts = borrowed->body.get<ProduceRequest>()->topic_data[0].partition_data;
    const auto& copied_parts = copied->body.get<ProduceRequest>()->topic_data[0].partition_data;
    ASSERT_EQ(parts.size(), 3u);
    const Bytes* batches[] = {&b0, &b1};
    for (size_t i = 0; i < 2; ++i) {
      const Records& r = *parts[i].records;
      EXPECT_TRUE(r.borrowed());
      // The view is the payload in place: same address as in the frame, same length.
      EXPECT_EQ(r.data().data(), At(frame, Find(frame, *batches[i])));
      EXPECT_EQ(r.data().size(), batches[i]->size());
      const Records& c = *copied_parts[i].records;
      EXPECT_FALSE(c.borrowed());
      EXPECT_EQ(c.data(), Str(*batches[i]));
      // The copy is storage of its own, not a view into the frame.
      EXPECT_NE(c.data().data(), At(frame, Find(frame, *batches[i])));
      EXPECT_EQ(r, c);  // owned and borrowed forms of the same payload compare equal
    }
    EXPECT_FALSE(parts[2].records.has_value());  // null stays null
    EXPECT_TRUE(copied->body == borrowed->body);
    // A borrowed message re-encodes to the same bytes.
    auto again = EncodeRequestFrame(borrowed->header, borrowed->body);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(ToHex(*again), ToHex(frame));
  }
}

TEST(BorrowedRecords, FetchPartitionsBorrowEachPayloadAndValidateTheSame) {
  const Bytes batch = Batch(4, 0, 100);
  const Bytes frame = FetchFrame(12, batch);
  auto d = DecodeResponseFrame(frame, kFetch, 12, Borrowing());
  ASSERT_TRUE(d.ok()) << d.status();
  const Records& r = *d->body.get<FetchResponse>()->responses[0].partitions[0].records;
  EXPECT_TRUE(r.borrowed());
  EXPECT_EQ(r.data().data(), At(frame, Find(frame, batch)));

  // Validation sees the same bytes at the same offsets: faults are reported identically.
  Bytes bad = FetchFrame(4, batch);
  const size_t at = Find(bad, batch);
  bad[at + 17] ^= 0x01;  // the batch's crc field
  auto copied = DecodeResponseFrame(bad, kFetch, 4);
  auto borrowed = DecodeResponseFrame(bad, kFetch, 4, Borrowing());
  ASSERT_FALSE(copied.ok());
  EXPECT_EQ(borrowed.status(), copied.status());
  ExpectError(borrowed.status(), ErrorKind::kCrcMismatch, at + 17,
              kFetchRecords + ".Batch[0]");
  // Opaque + borrowed (a proxy): accepted, the view still points into `bad`.
  auto opaque = DecodeResponseFrame(bad, kFetch, 4, Borrowing(RecordsMode::kOpaque));
  ASSERT_TRUE(opaque.ok()) << opaque.status();
  EXPECT_EQ(opaque->body.get<FetchResponse>()->responses[0].partitions[0].records->data().data(),
            At(bad, at));
}

TEST(BorrowedRecords, OwnDetachesFromTheBuffer) {
  const Bytes batch = Batch(2);
  auto buffer = std::make_unique<Bytes>(FetchFrame(4, batch));
  auto d = DecodeResponseFrame(*buffer, kFetch, 4, Borrowing());
  ASSERT_TRUE(d.ok()) << d.status();
  Records& r = *d->body.get<FetchResponse>()->responses[0].partitions[0].records;
  ASSERT_TRUE(r.borrowed());
  r.Own();
  EXPECT_FALSE(r.borrowed());
  buffer.reset();  // the frame buffer is gone; the owned payload is not
  EXPECT_EQ(r.data(), Str(batch));
  r.Own();  // owning twice is harmless
  EXPECT_EQ(r.data(), Str(batch));
}

// Issue 37: Batches() once iterated the owned storage of a Records, which a borrowed one
// leaves empty, so a proxy decoding with borrow_records saw zero batches and kEnd. Every
// records API reads a borrowed payload as it reads the owned one.
TEST(BorrowedRecords, EveryRecordsApiSeesTheSameBatchesOwnedOrBorrowed) {
  const Bytes b0 = Batch(3, 0, 100), b1 = Batch(2, 0, 200);
  const Bytes frame = FetchFrame(12, Cat(b0, b1));
  for (RecordsMode mode : {RecordsMode::kValidate, RecordsMode::kOpaque}) {
    FrameOptions copy_options;
    copy_options.records_mode = mode;
    auto owned = DecodeResponseFrame(frame, kFetch, 12, copy_options);
    auto borrowed = DecodeResponseFrame(frame, kFetch, 12, Borrowing(mode));
    ASSERT_TRUE(owned.ok()) << owned.status();
    ASSERT_TRUE(borrowed.ok()) << borrowed.status();
    const Records& o = *owned->body.get<FetchResponse>()->responses[0].partitions[0].records;
    const Records& b = *borrowed->body.get<FetchResponse>()->responses[0].partitions[0].records;
    ASSERT_FALSE(o.borrowed());
    ASSERT_TRUE(b.borrowed());
    EXPECT_EQ(b.size(), b0.size() + b1.size());
    EXPECT_EQ(o.size(), b.size());
    EXPECT_FALSE(b.empty());
    // Batches(): the same two batches, their records, and kEnd after them.
    BatchIterator io = Batches(o), ib = Batches(b);
    std::vector<int64_t> base_offsets;
    BatchView vo, vb;
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(io.Next(&vo)) << io.error().ToString();
      ASSERT_TRUE(ib.Next(&vb)) << "borrowed: no batch " << i << ", state " << int(ib.state());
      EXPECT_EQ(vb.offset(), vo.offset());
      EXPECT_EQ(vb.header().base_offset, vo.header().base_offset);
      EXPECT_EQ(vb.header().records_count, vo.header().records_count);
      EXPECT_TRUE(vb.crc_ok());
      RecordSet ro, rb;
      ASSERT_TRUE(vo.DecodeRecords({}, &ro).ok());
      ASSERT_TRUE(vb.DecodeRecords({}, &rb).ok());
      ASSERT_EQ(rb.size(), ro.size());
      base_offsets.push_back(vb.header().base_offset);
    }
    EXPECT_EQ(base_offsets, (std::vector<int64_t>{100, 200}));
    EXPECT_FALSE(ib.Next(&vb));
    EXPECT_FALSE(io.Next(&vo));
    EXPECT_EQ(ib.state(), BatchIterator::kEnd);
    EXPECT_EQ(io.state(), BatchIterator::kEnd);
    // The records explanation (PrintOptions::records) reads the same payload.
    PrintOptions print;
    print.records = &PrintRecordBatches;
    print.borrow_records = true;
    const FrameExplanation eb = ExplainResponseFrame(frame, kFetch, 12, print);
    print.borrow_records = false;
    const FrameExplanation eo = ExplainResponseFrame(frame, kFetch, 12, print);
    ASSERT_TRUE(eb.status.ok()) << eb.status;
    EXPECT_EQ(RenderObjectTree(eb.nodes), RenderObjectTree(eo.nodes));
    // Equality, copies and the encoder see the payload, not the storage.
    EXPECT_EQ(o, b);
    Records copy = b;
    EXPECT_TRUE(copy.borrowed());
    EXPECT_EQ(copy, o);
  }
}

TEST(BorrowedRecords, MutableBytesCopiesABorrowedPayloadFirst) {
  const Bytes batch = Batch(2);
  const std::string payload = Str(batch);
  Records r = Records::Borrow(payload);
  std::string& bytes = r.mutable_bytes();
  EXPECT_FALSE(r.borrowed());
  EXPECT_NE(bytes.data(), payload.data());  // a copy of its own, changed in place
  bytes[0] ^= 0x01;
  EXPECT_NE(r.data(), payload);
  EXPECT_EQ(payload, Str(batch));  // the caller's buffer is untouched
  // A decode into a reused Records replaces a borrowed payload with an owned copy.
  const Bytes frame = FetchFrame(12, batch);
  TypedResponseFrame<FetchResponse> reused;
  ASSERT_TRUE(DecodeResponseFrameInto(frame, 12, &reused, Borrowing()).ok());
  ASSERT_TRUE(reused.body.responses[0].partitions[0].records->borrowed());
  ASSERT_TRUE(DecodeResponseFrameInto(frame, 12, &reused).ok());
  const Records& again = *reused.body.responses[0].partitions[0].records;
  EXPECT_FALSE(again.borrowed());
  EXPECT_EQ(again.data(), Str(batch));
  EXPECT_NE(again.data().data(), At(frame, Find(frame, batch)));
}

TEST(BorrowedRecords, BorrowOverCallerMemoryEncodesLikeOwnedBytes) {
  // Records::Borrow over caller memory encodes like owned bytes.
  const Bytes batch = Batch(1);
  const std::string payload = Str(batch);
  FetchResponse m;
  auto& topic = m.responses.emplace_back();
  topic.topic = "t";
  topic.partitions.emplace_back().records = Records::Borrow(payload);
  FetchResponse owned = m;
  owned.responses[0].partitions[0].records->Own();
  EXPECT_TRUE(m == owned);
  EXPECT_EQ(ToHex(ResponseFrame(kFetch, 12, m)), ToHex(ResponseFrame(kFetch, 12, owned)));
}

#if defined(__SANITIZE_ADDRESS__)
#define KWIRE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KWIRE_TEST_ASAN 1
#endif
#endif

#ifdef KWIRE_TEST_ASAN
// The lifetime rule is enforced where it is checked: reading a borrowed payload after its
// frame buffer is freed is a heap-use-after-free that AddressSanitizer reports.
TEST(BorrowedRecordsDeathTest, ReadingAfterTheBufferIsFreedIsAUseAfterFree) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const Bytes frame = FetchFrame(4, Batch(2));
  EXPECT_DEATH(
      {
        auto buffer = std::make_unique<Bytes>(frame);
        auto d = DecodeResponseFrame(*buffer, kFetch, 4, Borrowing());
        if (!d.ok()) std::abort();
        buffer.reset();
        const Records& r = *d->body.get<FetchResponse>()->responses[0].partitions[0].records;
        volatile char first = r.data()[0];
        (void)first;
      },
      "heap-use-after-free");
}
#endif

}  // namespace
}  // namespace kwire
