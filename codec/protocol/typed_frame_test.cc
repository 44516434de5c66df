// Typed frames (issue 15 item 6): DecodeRequestFrameAs / DecodeResponseFrameAs decode a
// frame straight into a message type, AppendRequestFrame / AppendResponseFrame encode a
// typed message where it is. Each must agree byte for byte and error for error with the
// AnyMessage calls.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "codec/generated/api_versions_response.h"
#include "codec/generated/fetch_request.h"
#include "codec/generated/fetch_response.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/produce_request.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/frame_test_util.h"

namespace kwire {
namespace {

using frame_testing::Case;
using frame_testing::CaseOf;
using frame_testing::ErrorOf;

// Every cut of `frame` (about 40 of them) fails with the same Error both ways.
template <class Typed, class Erased>
void ExpectSameErrorOnEveryCut(const std::vector<uint8_t>& frame, Typed typed, Erased erased) {
  for (size_t cut = 0; cut < frame.size(); cut += 1 + frame.size() / 40) {
    const std::span<const uint8_t> part(frame.data(), cut);
    EXPECT_EQ(ErrorOf(typed(part).status()), ErrorOf(erased(part).status())) << "cut at " << cut;
  }
}

template <KafkaMessage M>
void CheckRequest(const char* api, int16_t version) {
  const Case c = CaseOf(api, Direction::kRequest, version);
  SCOPED_TRACE(c.Name());
  for (uint64_t seed : {1, 2, 3}) {
    const AnyMessage any = frame_testing::Rich(c, seed);
    const std::vector<uint8_t> frame = frame_testing::EncodeFrame(c, any);
    auto typed = DecodeRequestFrameAs<M>(frame);
    ASSERT_TRUE(typed.ok()) << typed.status();
    auto erased = DecodeRequestFrame(frame);
    ASSERT_TRUE(erased.ok()) << erased.status();
    EXPECT_EQ(typed->header_version, erased->header_version);
    EXPECT_TRUE(typed->header == erased->header);
    EXPECT_EQ(typed->api_version(), version);
    EXPECT_TRUE(typed->body == *erased->body.template get<M>());
    // Appended typed, after bytes already in the writer: the same frame.
    Writer w;
    w.WriteInt8(0x7f);
    ASSERT_TRUE(AppendRequestFrame(typed->header, typed->body, &w).ok());
    const std::vector<uint8_t> out(w.bytes().begin() + 1, w.bytes().end());
    EXPECT_EQ(out, frame);
    ExpectSameErrorOnEveryCut(
        frame, [](auto part) { return DecodeRequestFrameAs<M>(part); },
        [](auto part) { return DecodeRequestFrame(part); });
  }
}

template <KafkaMessage M>
void CheckResponse(const char* api, int16_t version) {
  const Case c = CaseOf(api, Direction::kResponse, version);
  SCOPED_TRACE(c.Name());
  for (uint64_t seed : {1, 2, 3}) {
    const AnyMessage any = frame_testing::Rich(c, seed);
    const std::vector<uint8_t> frame = frame_testing::EncodeFrame(c, any);
    auto typed = DecodeResponseFrameAs<M>(frame, version);
    ASSERT_TRUE(typed.ok()) << typed.status();
    auto erased = DecodeResponseFrame(frame, M::kMessage.api_key, version);
    ASSERT_TRUE(erased.ok()) << erased.status();
    EXPECT_EQ(typed->header_version, erased->header_version);
    EXPECT_TRUE(typed->header == erased->header);
    EXPECT_TRUE(typed->body == *erased->body.template get<M>());
    Writer w;
    ASSERT_TRUE(AppendResponseFrame(typed->header, version, typed->body, &w).ok());
    EXPECT_EQ(std::vector<uint8_t>(w.bytes().begin(), w.bytes().end()), frame);
    ExpectSameErrorOnEveryCut(
        frame, [&](auto part) { return DecodeResponseFrameAs<M>(part, version); },
        [&](auto part) { return DecodeResponseFrame(part, M::kMessage.api_key, version); });
  }
}

TEST(TypedFrames, RequestsDecodeAndAppendAsTheAnyMessageCallsDo) {
  CheckRequest<ProduceRequest>("Produce", 3);
  CheckRequest<ProduceRequest>("Produce", 9);
  CheckRequest<ProduceRequest>("Produce", 12);
  CheckRequest<FetchRequest>("Fetch", 4);
  CheckRequest<FetchRequest>("Fetch", 17);
  CheckRequest<MetadataRequest>("Metadata", 0);
  CheckRequest<MetadataRequest>("Metadata", 12);
}

TEST(TypedFrames, ResponsesDecodeAndAppendAsTheAnyMessageCallsDo) {
  CheckResponse<FetchResponse>("Fetch", 4);
  CheckResponse<FetchResponse>("Fetch", 16);
  CheckResponse<ApiVersionsResponse>("ApiVersions", 3);  // header v0 though flexible
}

TEST(TypedFrames, AFrameOfAnotherApiIsRefusedAtItsApiKey) {
  const Case c = CaseOf("Produce", Direction::kRequest, 9);
  const std::vector<uint8_t> frame = frame_testing::EncodeFrame(c, frame_testing::Minimal(c));
  const Error e = ErrorOf(DecodeRequestFrameAs<FetchRequest>(frame).status());
  EXPECT_EQ(e, (Error{ErrorKind::kInvalidValue, 4, "RequestHeader.RequestApiKey",
                      "api key 0 is ProduceRequest, not the type asked for"}));
}

TEST(TypedFrames, AppendingABodyOfAnotherApiThanTheHeaderFails) {
  RequestHeader h;
  h.request_api_key = FetchRequest::kMessage.api_key;
  h.request_api_version = 4;
  Writer w;
  const Error e = ErrorOf(AppendRequestFrame(h, ProduceRequest{}, &w));
  EXPECT_EQ(e, (Error{ErrorKind::kInvalidValue, 0, "",
                      "header names FetchRequest but the body is ProduceRequest"}));
  EXPECT_EQ(w.size(), 0u);  // nothing written
}

TEST(TypedFrames, EncodeRequestFrameOfATypedBodyIsTheAnyMessageFrame) {
  const Case c = CaseOf("Metadata", Direction::kRequest, 12);
  const AnyMessage any = frame_testing::Rich(c, 7);
  auto typed = EncodeRequestFrame(12, frame_testing::kCorrelationId,
                                  std::string(frame_testing::kClientId),
                                  *any.get<MetadataRequest>());
  ASSERT_TRUE(typed.ok()) << typed.status();
  EXPECT_EQ(*typed, frame_testing::EncodeFrame(c, any));
}

}  // namespace
}  // namespace kwire
