// The allocation budget (DecodeOptions::max_alloc_bytes, issue 15 item 5): what a frame
// can make the decoder allocate, measured. This program replaces the global operator
// new/delete with counting ones, so each test reads the peak heap a decode reached
// above what was live before it, and checks it against the budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "codec/generated/describe_configs_request.h"
#include "codec/generated/describe_groups_request.h"
#include "codec/generated/produce_request.h"
#include "codec/harness/explain.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/records/records_test_util.h"
#include "codec/wire/heap_test_util.h"

KWIRE_COUNT_GLOBAL_NEW()

namespace kwire {
namespace {

using frame_testing::ErrorOf;
using frame_testing::FixSizePrefix;
using frame_testing::Uvarint;

using heap_testing::PeakHeap;

// What the decoder itself may use beyond the budget: path strings of the error and the
// like (the budget's doc: bookkeeping is not charged).
constexpr size_t kSlack = 64 << 10;

void Append(std::vector<uint8_t>& out, std::initializer_list<uint8_t> bytes) {
  out.insert(out.end(), bytes);
}
void Append(std::vector<uint8_t>& out, const std::vector<uint8_t>& bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

// Size prefix (fixed later) and request header v2: api key, version, correlation id,
// client id "k", no tags: 4 + 12 bytes.
std::vector<uint8_t> FrameStart(int16_t api_key, int16_t version, size_t reserve = 0) {
  std::vector<uint8_t> f;
  f.reserve(reserve);
  Append(f, {0, 0, 0, 0});
  Append(f, frame_testing::Int16Bytes(api_key));
  Append(f, frame_testing::Int16Bytes(version));
  Append(f, {0x5a, 0x5b, 0x5c, 0x5d, 0x00, 0x01, 'k', 0x00});
  return f;
}
constexpr size_t kBodyAt = 16;

// DescribeGroupsRequest v5 (flexible): Groups = `n` empty compact strings (one 0x01 byte
// each), IncludeAuthorizedOperations false, no tags.
std::vector<uint8_t> EmptyGroupsFrame(size_t n) {
  std::vector<uint8_t> f = FrameStart(15, 5, kBodyAt + 5 + n + 2);
  Append(f, Uvarint(static_cast<uint32_t>(n + 1)));
  f.resize(f.size() + n, 0x01);
  Append(f, {0x00, 0x00});
  FixSizePrefix(f);
  return f;
}

FrameOptions Budget(size_t bytes) {
  FrameOptions o;
  o.max_alloc_bytes = bytes;
  return o;
}

// The frame: nothing but empty compact strings, at the largest frame size the
// default options accept. Without the budget the count (bounded only by the bytes left)
// would size a vector of 104,857,582 std::strings: 3.3 GB.
TEST(AllocationBudget, EmptyCompactStringsAtTheLargestFrameStayWithinTheBudget) {
  const size_t body = static_cast<size_t>(kDefaultMaxFrameSize);
  const size_t n = body - 12 - 4 - 2;  // header, the count's 4-byte uvarint, bool + tags
  const std::vector<uint8_t> frame = EmptyGroupsFrame(n);
  ASSERT_EQ(frame.size(), body + 4);
  PeakHeap peak;
  auto f = DecodeRequestFrame(frame);
  const size_t used = peak.Above();
  const Error e = ErrorOf(f.status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.offset, kBodyAt);  // the count that asked
  EXPECT_EQ(e.path, "DescribeGroupsRequest.Groups");
  EXPECT_EQ(e.detail, absl::StrFormat("needs %d bytes of memory, %d of the allocation budget "
                                      "of %d bytes are left (DecodeOptions::max_alloc_bytes)",
                                      n * sizeof(std::string), kDefaultMaxAllocBytes,
                                      kDefaultMaxAllocBytes));
  EXPECT_EQ(f.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_LE(used, kSlack);
  std::printf("[ measured ] %zu empty compact strings in a %zu-byte frame: peak heap %zu bytes "
              "above the frame (budget %zu)\n",
              n, frame.size(), used, kDefaultMaxAllocBytes);
}

// The charge is what the decoder then allocates: a million empty strings decode under a
// budget of exactly their vector, one byte less fails, and the heap grows by that vector.
TEST(AllocationBudget, AnArrayIsChargedItsCountTimesTheElementSizeExactly) {
  const size_t n = 1'000'000;
  const std::vector<uint8_t> frame = EmptyGroupsFrame(n);
  const size_t vector_bytes = n * sizeof(std::string);
  {
    PeakHeap peak;
    auto f = DecodeRequestFrame(frame, Budget(vector_bytes));
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->body.get<DescribeGroupsRequest>()->groups.size(), n);
    EXPECT_GE(peak.Above(), vector_bytes);
    EXPECT_LE(peak.Above(), vector_bytes + kSlack);
  }
  auto f = DecodeRequestFrame(frame, Budget(vector_bytes - 1));
  const Error e = ErrorOf(f.status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.offset, kBodyAt);
  EXPECT_EQ(e.path, "DescribeGroupsRequest.Groups");
}

// Arrays nested in arrays: each inner array fits, their sum does not. DescribeConfigs
// v4 with resources of 1,000 empty configuration keys each, to about 100 MiB; the
// decoder stops at the resource whose keys pass the budget, having allocated no more.
TEST(AllocationBudget, NestedArraysOfEmptyStringsStopAtTheResourceThatPassesTheBudget) {
  constexpr size_t kKeys = 1000;
  constexpr size_t kResourceWire = 1 + 1 + 2 + kKeys + 1;  // type, name, count, keys, tags
  const size_t k = (static_cast<size_t>(kDefaultMaxFrameSize) - 12 - 3 - 3) / kResourceWire;
  std::vector<uint8_t> f = FrameStart(32, 4, kBodyAt + 3 + k * kResourceWire + 3);
  Append(f, Uvarint(static_cast<uint32_t>(k + 1)));
  ASSERT_EQ(f.size(), kBodyAt + 3);
  const std::vector<uint8_t> keys_count = Uvarint(kKeys + 1);
  for (size_t i = 0; i < k; ++i) {
    Append(f, {0x02, 0x01});  // ResourceType 2 (topic), ResourceName ""
    Append(f, keys_count);
    f.resize(f.size() + kKeys, 0x01);
    f.push_back(0x00);
  }
  Append(f, {0x00, 0x00, 0x00});  // IncludeSynonyms, IncludeDocumentation, tags
  FixSizePrefix(f);
  ASSERT_LE(f.size() - 4, static_cast<size_t>(kDefaultMaxFrameSize));
  ASSERT_GT(f.size() - 4, static_cast<size_t>(kDefaultMaxFrameSize) - kResourceWire);

  const size_t resources = k * sizeof(decltype(DescribeConfigsRequest::resources)::value_type);
  const size_t per_resource = kKeys * sizeof(std::string);
  const size_t failing = (kDefaultMaxAllocBytes - resources) / per_resource;
  PeakHeap peak;
  auto decoded = DecodeRequestFrame(f);
  const size_t used = peak.Above();
  const Error e = ErrorOf(decoded.status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.path, absl::StrFormat("DescribeConfigsRequest.Resources[%d].ConfigurationKeys",
                                    failing));
  EXPECT_EQ(e.offset, kBodyAt + 3 + failing * kResourceWire + 2);
  EXPECT_LE(used, kDefaultMaxAllocBytes + kSlack);
  EXPECT_GE(used, resources + failing * per_resource);  // the budget was really spent
  std::printf("[ measured ] %zu resources x %zu empty keys in a %zu-byte frame: stopped at "
              "resource %zu, peak heap %zu bytes (budget %zu)\n",
              k, kKeys, f.size(), failing, used, kDefaultMaxAllocBytes);
}

// A string longer than std::string's inline buffer costs its length + 1; shorter ones
// live in the vector's elements.
TEST(AllocationBudget, LongStringsAreChargedTheirLengthPlusOne) {
  std::vector<uint8_t> f = FrameStart(15, 5);
  Append(f, {0x03});  // two groups
  Append(f, Uvarint(1000 + 1));
  f.resize(f.size() + 1000, 'g');
  Append(f, {0x0f + 1});  // 15 bytes: inline, free
  f.resize(f.size() + 15, 'h');
  Append(f, {0x00, 0x00});
  FixSizePrefix(f);
  const size_t need = 2 * sizeof(std::string) + 1001;
  EXPECT_TRUE(DecodeRequestFrame(f, Budget(need)).ok());
  const Error e = ErrorOf(DecodeRequestFrame(f, Budget(need - 1)).status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.offset, kBodyAt + 1);  // the length of Groups[0]
  EXPECT_EQ(e.path, "DescribeGroupsRequest.Groups[0]");
}

// Unknown tagged fields are kept (re-encoded byte-exactly), so they are charged: the
// entry and a payload above the inline size.
TEST(AllocationBudget, UnknownTaggedFieldsAreCharged) {
  std::vector<uint8_t> f = FrameStart(15, 5);
  Append(f, {0x01, 0x00});        // no groups, IncludeAuthorizedOperations false
  Append(f, {0x01, 0x63, 0x64});  // one tag: 99, 100 bytes
  f.resize(f.size() + 100, 0xab);
  FixSizePrefix(f);
  const size_t need = 2 * sizeof(UnknownTaggedField) + 101;
  auto ok = DecodeRequestFrame(f, Budget(need));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->body.get<DescribeGroupsRequest>()->unknown_tagged_fields.size(), 1u);
  const Error e = ErrorOf(DecodeRequestFrame(f, Budget(need - 1)).status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.offset, kBodyAt + 5);  // the payload
  EXPECT_EQ(e.path, "DescribeGroupsRequest.tagged_fields");
}

// ProduceRequest v9 with one partition whose records are `batch`.
std::vector<uint8_t> ProduceFrame(const std::vector<uint8_t>& batch) {
  ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 1000;
  auto& topic = req.topic_data.emplace_back();
  topic.name = "t";
  auto& part = topic.partition_data.emplace_back();
  part.records = Records(std::string(batch.begin(), batch.end()));
  auto f = EncodeRequestFrame(9, 1, std::string("k"), req);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : std::vector<uint8_t>{};
}

// Offset of `part` in `whole`.
size_t Find(const std::vector<uint8_t>& whole, const std::vector<uint8_t>& part) {
  const auto it = std::search(whole.begin(), whole.end(), part.begin(), part.end());
  EXPECT_NE(it, whole.end());
  return static_cast<size_t>(it - whole.begin());
}

// Copied records are charged their size; borrowed ones (FrameOptions::borrow_records)
// nothing.
TEST(AllocationBudget, CopiedRecordsAreChargedBorrowedRecordsAreNot) {
  const std::string value(100'000, 'v');
  const std::vector<uint8_t> batch =
      records_testing::Encode(records_testing::Header(), {records_testing::Rec("k", value)});
  const std::vector<uint8_t> frame = ProduceFrame(batch);
  // Topics, partitions, the copy; validation gets half of what is left (one Record).
  using Topic = decltype(ProduceRequest::topic_data)::value_type;
  using Partition = decltype(Topic::partition_data)::value_type;
  const size_t structs = sizeof(Topic) + sizeof(Partition);
  const size_t need = structs + batch.size() + 1;
  FrameOptions o = Budget(need + 2 * sizeof(Record));
  EXPECT_TRUE(DecodeRequestFrame(frame, o).ok());
  o = Budget(need - 1);
  const Error e = ErrorOf(DecodeRequestFrame(frame, o).status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.path, "ProduceRequest.TopicData[0].PartitionData[0].Records");
  o.borrow_records = true;
  o.max_alloc_bytes = structs + 2 * sizeof(Record);
  auto borrowed = DecodeRequestFrame(frame, o);
  ASSERT_TRUE(borrowed.ok()) << borrowed.status();
  EXPECT_TRUE(borrowed->body.get<ProduceRequest>()
                  ->topic_data[0].partition_data[0].records->borrowed());
}

// Validation decompresses and decodes records in memory it frees before returning; it
// runs within the budget left, and says so when the budget, not RecordsOptions, stops it.
TEST(AllocationBudget, CompressedRecordsAreValidatedWithinTheBudgetLeft) {
  const std::string zeros(4 << 20, '\0');  // 4 MiB value, a few KB compressed
  const std::vector<uint8_t> batch = records_testing::Encode(
      records_testing::Header(Compression::kZstd), {records_testing::Rec("k", zeros)});
  ASSERT_LT(batch.size(), size_t{64} << 10);
  const std::vector<uint8_t> frame = ProduceFrame(batch);
  {
    const Error e = ErrorOf(DecodeRequestFrame(frame, Budget(4 << 20)).status());
    EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
    EXPECT_EQ(e.path, "ProduceRequest.TopicData[0].PartitionData[0].Records.Batch[0]");
    const size_t payload = Find(frame, batch) + 61;  // the compressed bytes
    EXPECT_GE(e.offset, payload);
    EXPECT_LE(e.offset, payload + batch.size() - 61);
    EXPECT_NE(e.detail.find("zstd: output exceeds the cap of "), std::string::npos) << e.detail;
    EXPECT_NE(e.detail.find(" bytes (half the allocation budget left, "
                            "DecodeOptions::max_alloc_bytes)"),
              std::string::npos)
        << e.detail;
  }
  const size_t budget = 16 << 20;
  PeakHeap peak;
  auto f = DecodeRequestFrame(frame, Budget(budget));
  const size_t used = peak.Above();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_GE(used, zeros.size());  // it did decompress
  EXPECT_LE(used, budget);
  std::printf("[ measured ] zstd batch of a 4 MiB record (%zu bytes on the wire): peak heap "
              "%zu bytes (budget %zu)\n",
              batch.size(), used, budget);
  // The caller's own cap stays the caller's: a lower RecordsOptions cap is not the budget.
  FrameOptions own = Budget(budget);
  own.records.max_decompressed_bytes = 1 << 20;
  EXPECT_EQ(ErrorOf(DecodeRequestFrame(frame, own).status()).kind,
            ErrorKind::kCompressionError);
}

TEST(AllocationBudget, ManyRecordsAreValidatedWithinTheBudgetLeft) {
  std::vector<Record> recs;
  for (int i = 0; i < 2000; ++i) recs.push_back(records_testing::Rec(std::nullopt, ""));
  for (int i = 0; i < 2000; ++i) recs[i].offset_delta = i;
  const std::vector<uint8_t> batch =
      records_testing::Encode(records_testing::Header(), recs);
  const std::vector<uint8_t> frame = ProduceFrame(batch);
  const Error e = ErrorOf(DecodeRequestFrame(frame, Budget(256 << 10)).status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.path, "ProduceRequest.TopicData[0].PartitionData[0].Records.Batch[0]");
  EXPECT_EQ(e.offset, Find(frame, batch) + 57);  // the batch's records count
  EXPECT_NE(e.detail.find(absl::StrFormat("records count 2000 needs %d bytes of Record "
                                          "objects, more than half the allocation budget left",
                                          2000 * sizeof(Record))),
            std::string::npos)
      << e.detail;
  EXPECT_TRUE(DecodeRequestFrame(frame, Budget(4 << 20)).ok());
  // A cap of the caller's that also stops it comes first: it is the caller's error.
  FrameOptions both = Budget(256 << 10);
  both.records.max_records = 1000;
  EXPECT_EQ(ErrorOf(DecodeRequestFrame(frame, both).status()).kind, ErrorKind::kCountTooLarge);
}

// Legacy message sets (Produce v2): a gzip wrapper's inner messages are Record objects
// too, counted against the budget as they are read.
TEST(AllocationBudget, InnerMessagesOfALegacyWrapperAreWithinTheBudget) {
  const std::vector<uint8_t> wrapper = records_testing::GzipWrapper(3000, "");
  ProduceRequest req;
  req.acks = 1;
  req.timeout_ms = 1000;
  auto& topic = req.topic_data.emplace_back();
  topic.name = "t";
  topic.partition_data.emplace_back().records =
      Records(std::string(wrapper.begin(), wrapper.end()));
  auto frame = EncodeRequestFrame(2, 1, std::string("k"), req);
  ASSERT_TRUE(frame.ok()) << frame.status();
  EXPECT_TRUE(DecodeRequestFrame(*frame).ok());
  const Error e = ErrorOf(DecodeRequestFrame(*frame, Budget(512 << 10)).status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_NE(e.path.find("ProduceRequest.TopicData[0].PartitionData[0].Records.Batch[0].Message["),
            std::string::npos)
      << e.path;
  EXPECT_NE(e.detail.find("its Record objects pass half the allocation budget left"),
            std::string::npos)
      << e.detail;
}

// The explain walk charges what the decoder charges, so `kwire explain` fails where
// `kwire decode` does (found by the request fuzzer's corpus replay: a batch whose records
// count passed the budget left of the decoder but not of the explain walk).
TEST(AllocationBudget, ExplainFailsExactlyWhereTheDecoderDoes) {
  std::vector<Record> recs;
  for (int i = 0; i < 2000; ++i) recs.push_back(records_testing::Rec(std::nullopt, "", i));
  const std::vector<uint8_t> many = ProduceFrame(records_testing::Encode(records_testing::Header(), recs));
  const std::vector<uint8_t> zstd = ProduceFrame(records_testing::Encode(
      records_testing::Header(Compression::kZstd),
      {records_testing::Rec("k", std::string(4 << 20, '\0'))}));
  const struct {
    std::vector<uint8_t> frame;
    size_t budget;
  } cases[] = {
      {EmptyGroupsFrame(1000), 1000 * sizeof(std::string) - 1},
      {many, 256 << 10},
      {zstd, 4 << 20},
      {zstd, 100},  // the records copy itself
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.budget);
    const Error decoded = ErrorOf(DecodeRequestFrame(c.frame, Budget(c.budget)).status());
    EXPECT_EQ(decoded.kind, ErrorKind::kAllocationBudget);
    PrintOptions po;
    po.decode.max_alloc_bytes = c.budget;
    const FrameExplanation ex = ExplainRequestFrame(c.frame, po);
    EXPECT_EQ(ErrorOf(ex.status), decoded);
    EXPECT_EQ(ErrorOf(ex.tree_status), decoded);
  }
}

// DecodeMessage (no frame) has the same budget.
TEST(AllocationBudget, DecodeMessageHasTheSameBudget) {
  const std::vector<uint8_t> frame = EmptyGroupsFrame(1000);
  const std::span<const uint8_t> body(frame.data() + kBodyAt, frame.size() - kBodyAt);
  DecodeOptions o;
  o.max_alloc_bytes = 1000 * sizeof(std::string) - 1;
  auto m = DecodeMessage<DescribeGroupsRequest>(body, 5, o);
  const Error e = ErrorOf(m.status());
  EXPECT_EQ(e.kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(e.offset, 0u);
  o.max_alloc_bytes += 1;
  EXPECT_TRUE(DecodeMessage<DescribeGroupsRequest>(body, 5, o).ok());
}

}  // namespace
}  // namespace kwire
