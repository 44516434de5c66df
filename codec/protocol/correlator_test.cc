// The correlator: responses matched to requests by correlation id, in order and by id.
#include "codec/protocol/correlator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "codec/generated/api_versions_request.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/produce_request.h"
#include "codec/protocol/frame.h"

namespace kwire {
namespace {

std::vector<uint8_t> Frame(std::vector<uint8_t> body) {
  const auto n = static_cast<uint32_t>(body.size());
  std::vector<uint8_t> f(4 + body.size());  // sized first: g++ 12 -O2 warns falsely on insert
  f[0] = uint8_t(n >> 24);
  f[1] = uint8_t(n >> 16);
  f[2] = uint8_t(n >> 8);
  f[3] = uint8_t(n);
  std::copy(body.begin(), body.end(), f.begin() + 4);
  return f;
}

TEST(Correlator, PeeksTheHeaderFields) {
  // Metadata (3) v12, correlation id 0x01020304, then whatever follows.
  const std::vector<uint8_t> request = Frame({0, 3, 0, 12, 1, 2, 3, 4, 0xff, 0xff});
  const std::optional<RequestIds> ids = PeekRequestIds(request);
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ(ids->api_key, 3);
  EXPECT_EQ(ids->api_version, 12);
  EXPECT_EQ(ids->correlation_id, 0x01020304);
  EXPECT_FALSE(PeekRequestIds(Frame({0, 3, 0, 12, 1, 2, 3})).has_value());  // 11 bytes
  EXPECT_EQ(PeekResponseCorrelationId(Frame({0xff, 0xff, 0xff, 0xfe, 0})), -2);
  EXPECT_FALSE(PeekResponseCorrelationId(Frame({0, 0, 1})).has_value());
}

TEST(Correlator, InOrderSettlesTheRequestsBefore) {
  Correlator c;
  ASSERT_TRUE(c.AddRequest({0, 9, 10}).ok());   // Produce v9, never answered (acks=0)
  ASSERT_TRUE(c.AddRequest({3, 12, 11}).ok());  // Metadata v12
  ASSERT_TRUE(c.AddRequest({18, 4, 12}).ok());  // ApiVersions v4
  EXPECT_EQ(c.pending(), 3u);
  absl::StatusOr<Correlator::Match> m = c.TakeResponse(11);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->request, (RequestIds{3, 12, 11}));
  EXPECT_EQ(m->skipped, 1u);
  EXPECT_EQ(c.pending(), 1u);
  // Already settled: the Produce request's id answers nothing now.
  EXPECT_EQ(c.TakeResponse(10).status().code(), absl::StatusCode::kNotFound);
  m = c.TakeResponseFrame(Frame({0, 0, 0, 12, 0}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->request, (RequestIds{18, 4, 12}));
  EXPECT_EQ(m->skipped, 0u);
  EXPECT_EQ(c.pending(), 0u);
}

TEST(Correlator, ByIdAloneInAnyOrder) {
  Correlator c(Correlator::Options{.max_pending = 8, .in_order = false});
  ASSERT_TRUE(c.AddRequestFrame(Frame({0, 1, 0, 17, 0, 0, 0, 7})).ok());   // Fetch v17
  ASSERT_TRUE(c.AddRequestFrame(Frame({0, 3, 0, 12, 0, 0, 0, 8})).ok());   // Metadata v12
  absl::StatusOr<Correlator::Match> m = c.TakeResponse(8);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->request.api_key, 3);
  EXPECT_EQ(m->skipped, 0u);
  m = c.TakeResponse(7);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->request.api_key, 1);
  // A reused id answers the oldest request that has it.
  ASSERT_TRUE(c.AddRequest({3, 1, 5}).ok());
  ASSERT_TRUE(c.AddRequest({3, 2, 5}).ok());
  EXPECT_EQ(c.TakeResponse(5)->request.api_version, 1);
  EXPECT_EQ(c.TakeResponse(5)->request.api_version, 2);
  EXPECT_EQ(c.TakeResponse(5).status().code(), absl::StatusCode::kNotFound);
}

TEST(Correlator, BoundedAndShortFramesRefused) {
  Correlator c(Correlator::Options{.max_pending = 2});
  ASSERT_TRUE(c.AddRequest({18, 3, 1}).ok());
  ASSERT_TRUE(c.AddRequest({18, 3, 2}).ok());
  const absl::Status full = c.AddRequest({18, 3, 3});
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(c.pending(), 2u);
  EXPECT_EQ(c.AddRequestFrame(Frame({0, 18, 0, 3, 0, 0, 0})).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.TakeResponseFrame(Frame({0, 0, 0})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.pending(), 2u);
}

TEST(Correlator, ProduceWithAcksZeroExpectsNoResponse) {
  for (const int16_t acks : {int16_t{0}, int16_t{1}, int16_t{-1}}) {
    ProduceRequest produce;
    produce.acks = acks;
    produce.timeout_ms = 1000;
    const absl::StatusOr<std::vector<uint8_t>> frame =
        EncodeRequestFrame(int16_t{9}, 42, std::string("c"), produce);
    ASSERT_TRUE(frame.ok()) << frame.status();
    const absl::StatusOr<RequestFrame> decoded = DecodeRequestFrame(*frame);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(ExpectsResponse(*decoded), acks != 0) << acks;
  }
  const absl::StatusOr<std::vector<uint8_t>> metadata =
      EncodeRequestFrame(int16_t{12}, 43, std::nullopt, MetadataRequest{});
  ASSERT_TRUE(metadata.ok());
  EXPECT_TRUE(ExpectsResponse(*DecodeRequestFrame(*metadata)));
}

}  // namespace
}  // namespace kwire
