// Decoding into a reused message allocates nothing once the message has grown (issue 16
// item 1): allocations per decode, counted through the replaced operator new of this
// program (alloc_budget_test.cc holds KWIRE_COUNT_GLOBAL_NEW).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "codec/generated/fetch_response.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_request.h"
#include "codec/protocol/frame.h"
#include "codec/records/records_test_util.h"
#include "codec/wire/heap_test_util.h"

namespace kwire {
namespace {

using heap_testing::AllocationsDuring;

// The Metadata response of issue 16: 3 brokers, 10 topics × 100 partitions, replicas
// and ISR of 3 (bench/frame_benchmark.cc builds the same frame).
std::vector<uint8_t> Metadata1000Partitions(int16_t version) {
  TypedResponseFrame<MetadataResponse> f;
  f.header.correlation_id = 7;
  for (int32_t b = 0; b < 3; ++b) {
    MetadataResponse::MetadataResponseBroker broker;
    broker.node_id = b;
    broker.host = "broker-" + std::to_string(b) + ".kafka.internal.example.com";
    broker.port = 9092;
    broker.rack = "rack-" + std::to_string(b);
    f.body.brokers.push_back(broker);
  }
  f.body.cluster_id = "kwire-bench-cluster-0001";
  for (int t = 0; t < 10; ++t) {
    MetadataResponse::MetadataResponseTopic topic;
    topic.name = "orders.events.topic-with-a-long-name-" + std::to_string(t);
    for (int32_t p = 0; p < 100; ++p) {
      MetadataResponse::MetadataResponsePartition part;
      part.partition_index = p;
      part.leader_id = p % 3;
      part.replica_nodes = {p % 3, (p + 1) % 3, (p + 2) % 3};
      part.isr_nodes = part.replica_nodes;
      topic.partitions.push_back(part);
    }
    f.body.topics.push_back(topic);
  }
  Writer w;
  EXPECT_TRUE(AppendResponseFrame(f.header, version, f.body, &w).ok());
  return w.Release();
}

TEST(DecodeIntoAllocations, Metadata1000PartitionsAllocatesNothingOnceGrown) {
  for (int16_t version : {5, 12}) {
    SCOPED_TRACE(version);
    const std::vector<uint8_t> frame = Metadata1000Partitions(version);
    TypedResponseFrame<MetadataResponse> f;
    size_t first = AllocationsDuring([&] {
      ASSERT_TRUE(DecodeResponseFrameInto(frame, version, &f).ok());
    });
    // A fresh decode: two vectors per partition, the topics' and brokers' strings.
    EXPECT_GT(first, 2000u);
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(AllocationsDuring([&] {
                  ASSERT_TRUE(DecodeResponseFrameInto(frame, version, &f).ok());
                }),
                0u);
    }
    // A fresh decode allocates what the first one did.
    EXPECT_EQ(AllocationsDuring([&] {
                ASSERT_TRUE(DecodeResponseFrameAs<MetadataResponse>(frame, version).ok());
              }),
              first);
  }
}

// A smaller frame after a larger one fits in the capacity the larger one left; the
// larger one again as well.
TEST(DecodeIntoAllocations, SmallerThenLargerFrameFitsTheGrownMessage) {
  const std::vector<uint8_t> v12 = Metadata1000Partitions(12);
  TypedResponseFrame<MetadataResponse> f;
  ASSERT_TRUE(DecodeResponseFrameInto(v12, 12, &f).ok());
  TypedResponseFrame<MetadataResponse> small_frame;
  small_frame.body.topics.resize(1);
  small_frame.body.topics[0].name = "t";
  Writer w;
  ASSERT_TRUE(AppendResponseFrame(small_frame.header, 12, small_frame.body, &w).ok());
  const std::vector<uint8_t> small = w.Release();
  EXPECT_EQ(AllocationsDuring([&] { ASSERT_TRUE(DecodeResponseFrameInto(small, 12, &f).ok()); }),
            0u);
  EXPECT_EQ(f.body.topics.size(), 1u);
  // The shrunk arrays kept their elements' buffers only up to the new size: topics 1..9
  // were destroyed, so growing back allocates them again (and nothing else).
  const size_t again =
      AllocationsDuring([&] { ASSERT_TRUE(DecodeResponseFrameInto(v12, 12, &f).ok()); });
  EXPECT_GT(again, 0u);
  EXPECT_EQ(AllocationsDuring([&] { ASSERT_TRUE(DecodeResponseFrameInto(v12, 12, &f).ok()); }),
            0u);
}

// Frames carrying records: copied records reuse their buffer, and validation (the
// default) reuses its per-thread scratch record: nothing is allocated once grown. Produce
// v3+ carries exactly one batch per partition (codec/records/README.md), so: 12
// partitions of one batch each.
constexpr int32_t kPartitions = 12;

// A Produce request of kPartitions partitions, one batch of records_testing's sample
// records each.
ProduceRequest Produce12Partitions() {
  ProduceRequest m;
  m.acks = -1;
  m.timeout_ms = 30000;
  m.topic_data.resize(1);
  m.topic_data[0].name = "t";
  m.topic_data[0].partition_data.resize(kPartitions);
  for (int32_t p = 0; p < kPartitions; ++p) {
    auto& partition = m.topic_data[0].partition_data[static_cast<size_t>(p)];
    partition.index = p;
    const std::vector<uint8_t> batch = records_testing::Encode(
        records_testing::Header(Compression::kNone, 100 + 10 * p), records_testing::SampleRecords());
    partition.records = Records{std::string(batch.begin(), batch.end())};
  }
  return m;
}

TEST(DecodeIntoAllocations, ProduceWithRecordsCopiedAndValidated) {
  const ProduceRequest m = Produce12Partitions();
  absl::StatusOr<std::vector<uint8_t>> frame = EncodeRequestFrame(9, 1, "c", m);
  ASSERT_TRUE(frame.ok()) << frame.status();
  TypedRequestFrame<ProduceRequest> f;
  const absl::Status first = DecodeRequestFrameInto(*frame, &f);
  ASSERT_TRUE(first.ok()) << first;
  const size_t n = AllocationsDuring([&] { ASSERT_TRUE(DecodeRequestFrameInto(*frame, &f).ok()); });
  std::printf("Produce v9, %d partitions x 1 batch, validated, copied: %zu allocations\n",
              kPartitions, n);
  EXPECT_EQ(n, 0u);
  EXPECT_TRUE(f.body == m);
}

// Encode sized once (issue 16 item 3): EncodeRequestFrame writes into this thread's
// scratch Writer and returns a vector of exactly the frame's size: one allocation per
// call once the scratch has grown (a fresh Writer grew its buffer about nine times).
TEST(EncodeAllocations, EncodeRequestFrameAllocatesOnlyItsResult) {
  const ProduceRequest m = Produce12Partitions();
  const absl::StatusOr<std::vector<uint8_t>> first = EncodeRequestFrame(9, 1, "c", m);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->capacity(), first->size());
  absl::StatusOr<std::vector<uint8_t>> again;
  EXPECT_EQ(AllocationsDuring([&] { again = EncodeRequestFrame(9, 1, "c", m); }), 1u);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *first);
  EXPECT_EQ(again->capacity(), again->size());
  // What a reused Writer gets, byte for byte.
  TypedRequestFrame<ProduceRequest> decoded;
  ASSERT_TRUE(DecodeRequestFrameInto(*first, &decoded).ok());
  Writer w;
  ASSERT_TRUE(AppendRequestFrame(decoded.header, decoded.body, &w).ok());
  EXPECT_EQ(std::vector<uint8_t>(w.bytes().begin(), w.bytes().end()), *first);
}

// The scratch is not kept above 1 MiB, whether the large frame's encode succeeds (its
// buffer is handed over) or fails past that point (its buffer is dropped).
TEST(EncodeAllocations, ScratchNotKeptAfterALargeFrame) {
  ProduceRequest m;
  m.acks = -1;
  m.topic_data.resize(2);
  m.topic_data[0].name = "big";
  m.topic_data[0].partition_data.resize(1);
  const std::string value(3 << 19, 'v');  // 1.5 MiB
  const std::vector<uint8_t> batch = records_testing::Encode(
      records_testing::Header(Compression::kNone, 0), {records_testing::Rec("k", value)});
  m.topic_data[0].partition_data[0].records = Records{std::string(batch.begin(), batch.end())};
  m.topic_data[1].name = "bad\xff";  // not UTF-8: fails after the 1.5 MiB of records
  // Heap held now beyond what was held before (negative: the earlier, smaller scratch
  // was given up too).
  const int64_t live_before = static_cast<int64_t>(heap_testing::g_live.load());
  auto grown = [&] { return static_cast<int64_t>(heap_testing::g_live.load()) - live_before; };
  const absl::StatusOr<std::vector<uint8_t>> failed = EncodeRequestFrame(9, 1, "c", m);
  ASSERT_FALSE(failed.ok());
  EXPECT_LT(grown(), int64_t{1} << 20);
  m.topic_data[1].name = "ok";
  absl::StatusOr<std::vector<uint8_t>> large = EncodeRequestFrame(9, 1, "c", m);
  ASSERT_TRUE(large.ok()) << large.status();
  EXPECT_GT(large->size(), size_t{3} << 19);
  large = absl::InternalError("released");  // the frame itself freed
  EXPECT_LT(grown(), int64_t{1} << 20);
}

}  // namespace
}  // namespace kwire
