// Decoding into a reused message (issue 16 item 1): DecodeRequestFrameInto /
// DecodeResponseFrameInto and the decode walk under them decode over whatever the
// message held before. The result must equal a decode into a fresh message for every
// API, version and direction, whatever came before: another version (fields absent
// now, present before), a rich frame before a minimal one (arrays that shrink, nulls,
// tagged fields that disappear, unknown tags), and a frame that failed half way.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "codec/generated/fetch_response.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_request.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/frame_test_util.h"

namespace kwire {
namespace {

using frame_testing::AllCases;
using frame_testing::Case;
using frame_testing::CaseOf;
using frame_testing::ErrorOf;

// The frames one API × direction is decoded from, in an order that changes version at
// every step (highest, lowest, next highest, ...) and alternates rich and minimal
// instances, so each decode lands on a message shaped by a different one.
struct Item {
  Case c;
  std::vector<uint8_t> frame;
};
std::vector<Item> FramesOf(const std::vector<Case>& cases) {
  std::vector<Item> out;
  size_t lo = 0, hi = cases.size();
  for (size_t step = 0; lo < hi; ++step) {
    const Case& c = step % 2 == 0 ? cases[--hi] : cases[lo++];
    out.push_back({c, frame_testing::EncodeFrame(c, frame_testing::Rich(c, 10 + step))});
    out.push_back({c, frame_testing::EncodeFrame(c, frame_testing::Minimal(c))});
    out.push_back({c, frame_testing::EncodeFrame(c, frame_testing::Rich(c, 20 + step))});
  }
  return out;
}

// Decodes `frame` of case `c` into (header, body), reused.
template <class Header>
absl::Status DecodeInto(const Case& c, std::span<const uint8_t> frame, Header& header,
                        AnyMessage& body) {
  int16_t header_version = -1;
  if constexpr (std::is_same_v<Header, RequestHeader>) {
    return frame_internal::DecodeRequestFrameInto(
        frame, {}, &header_version, &header,
        [&](const MessageOps& ops) -> void* { return &ops == &body.ops() ? body.raw() : nullptr; });
  } else {
    int16_t body_version = -1;
    return frame_internal::DecodeResponseFrameInto(
        frame, c.api->api_key, c.version, {}, &header_version, &header, &body_version,
        [&](const MessageOps&) -> void* { return body.raw(); });
  }
}

TEST(DecodeInto, EveryApiEveryVersionEqualsAFreshDecode) {
  size_t frames = 0, failures_before = 0;
  // Cases grouped by API and direction (AllCases lists versions in order within each).
  const std::vector<Case>& all = AllCases();
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].api == all[i].api && all[j].dir == all[i].dir) ++j;
    const std::vector<Case> cases(all.begin() + static_cast<ptrdiff_t>(i),
                                  all.begin() + static_cast<ptrdiff_t>(j));
    i = j;
    const Case& first = cases.front();
    SCOPED_TRACE(first.Name());
    AnyMessage body(first.ops());
    RequestHeader request_header;
    ResponseHeader response_header;
    const std::vector<Item> list = FramesOf(cases);
    for (size_t k = 0; k < list.size(); ++k) {
      const std::vector<uint8_t>& frame = list[k].frame;
      const Case& c = list[k].c;
      SCOPED_TRACE(c.Name() + " frame " + std::to_string(k));
      // Every third frame is first decoded cut in half: a failure leaves a partial
      // message behind, which the next decode must not see.
      if (k % 3 == 2 && frame.size() > 9) {
        const std::span<const uint8_t> half(frame.data(), frame.size() / 2 + 4);
        std::vector<uint8_t> cut(half.begin(), half.end());
        frame_testing::FixSizePrefix(cut);
        const absl::Status s = c.request() ? DecodeInto(c, cut, request_header, body)
                                           : DecodeInto(c, cut, response_header, body);
        // The verdict (kind, offset, field path, detail) is a fresh decode's, whatever
        // the message held.
        const absl::Status fresh_cut =
            c.request() ? DecodeRequestFrame(cut).status()
                        : DecodeResponseFrame(cut, c.api->api_key, c.version).status();
        EXPECT_EQ(s.ok(), fresh_cut.ok());
        EXPECT_EQ(ErrorOf(s), ErrorOf(fresh_cut));
        if (!s.ok()) ++failures_before;
      }
      const absl::Status s = c.request() ? DecodeInto(c, frame, request_header, body)
                                         : DecodeInto(c, frame, response_header, body);
      ASSERT_TRUE(s.ok()) << s;
      if (c.request()) {
        auto fresh = DecodeRequestFrame(frame);
        ASSERT_TRUE(fresh.ok()) << fresh.status();
        EXPECT_TRUE(request_header == fresh->header);
        EXPECT_TRUE(body == fresh->body);
        auto again = EncodeRequestFrame(request_header, body);
        ASSERT_TRUE(again.ok()) << again.status();
        EXPECT_EQ(*again, frame);
      } else {
        auto fresh = DecodeResponseFrame(frame, c.api->api_key, c.version);
        ASSERT_TRUE(fresh.ok()) << fresh.status();
        EXPECT_TRUE(response_header == fresh->header);
        EXPECT_TRUE(body == fresh->body);
        auto again = EncodeResponseFrame(response_header, c.api->api_key, c.version, body);
        ASSERT_TRUE(again.ok()) << again.status();
        EXPECT_EQ(*again, frame);
      }
      ++frames;
    }
  }
  // 736 cases × 3 frames; most cut frames fail (a few bodies are short enough that half
  // the frame plus the header is a valid frame of its own).
  EXPECT_EQ(frames, AllCases().size() * 3);
  EXPECT_GT(failures_before, AllCases().size() / 2);
}

// The typed calls: a Metadata v12 response with topics, then a v5 one without
// (v12's TopicId and the nullable Name reset), then v12 again.
TEST(DecodeInto, TypedResponseOverAnotherVersion) {
  for (int16_t v : {12, 5, 0, 12, 1}) {
    SCOPED_TRACE(v);
    const Case c = CaseOf("Metadata", Direction::kResponse, v);
    TypedResponseFrame<MetadataResponse> reused;
    for (uint64_t seed : {1, 2, 3}) {
      const std::vector<uint8_t> frame =
          frame_testing::EncodeFrame(c, frame_testing::Rich(c, seed * 7 + static_cast<uint64_t>(v)));
      ASSERT_TRUE(DecodeResponseFrameInto(frame, v, &reused).ok());
      auto fresh = DecodeResponseFrameAs<MetadataResponse>(frame, v);
      ASSERT_TRUE(fresh.ok());
      EXPECT_TRUE(reused.body == fresh->body);
      EXPECT_TRUE(reused.header == fresh->header);
      EXPECT_EQ(reused.header_version, fresh->header_version);
    }
  }
}

// Another API's request into a typed frame fails exactly as DecodeRequestFrameAs does,
// and the frame object can be decoded into again.
TEST(DecodeInto, TypedRequestOfAnotherApi) {
  const Case fetch = CaseOf("Fetch", Direction::kRequest, 12);
  const std::vector<uint8_t> other = frame_testing::EncodeFrame(fetch, frame_testing::Minimal(fetch));
  TypedRequestFrame<ProduceRequest> f;
  const absl::Status s = DecodeRequestFrameInto(other, &f);
  EXPECT_EQ(ErrorOf(s), ErrorOf(DecodeRequestFrameAs<ProduceRequest>(other).status()));
  EXPECT_EQ(ErrorOf(s).kind, ErrorKind::kInvalidValue);
  EXPECT_EQ(ErrorOf(s).offset, 4u);
  const Case produce = CaseOf("Produce", Direction::kRequest, 9);
  const std::vector<uint8_t> frame =
      frame_testing::EncodeFrame(produce, frame_testing::Rich(produce, 5));
  ASSERT_TRUE(DecodeRequestFrameInto(frame, &f).ok());
  EXPECT_TRUE(f.body == DecodeRequestFrameAs<ProduceRequest>(frame)->body);
}

// Borrowed records over a reused message point into the newest frame.
TEST(DecodeInto, BorrowedRecordsPointIntoTheNewFrame) {
  const Case c = CaseOf("Fetch", Direction::kResponse, 12);
  FrameOptions o;
  o.borrow_records = true;
  TypedResponseFrame<FetchResponse> f;
  for (uint64_t seed : {3, 4, 5, 6}) {
    const std::vector<uint8_t> frame = frame_testing::EncodeFrame(c, frame_testing::Rich(c, seed));
    ASSERT_TRUE(DecodeResponseFrameInto(frame, 12, &f, o).ok());
    for (const auto& t : f.body.responses) {
      for (const auto& p : t.partitions) {
        if (!p.records.has_value() || p.records->data().empty()) continue;
        EXPECT_TRUE(p.records->borrowed());
        EXPECT_GE(reinterpret_cast<const uint8_t*>(p.records->data().data()), frame.data());
        EXPECT_LE(reinterpret_cast<const uint8_t*>(p.records->data().data() + p.records->data().size()),
                  frame.data() + frame.size());
      }
    }
    EXPECT_TRUE(f.body == DecodeResponseFrameAs<FetchResponse>(frame, 12)->body);
  }
}

}  // namespace
}  // namespace kwire
