// The per-connection check: verdicts, responses typed by their request, the summary.
#include "tools/traffic/traffic.h"

#include <gtest/gtest.h>

#include "codec/generated/api_versions_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_request.h"
#include "codec/wire/reader.h"
#include "tools/traffic/traffic_test_util.h"

namespace kwire::traffic {
namespace {

using traffic_testing::Request;
using traffic_testing::Response;

TEST(Traffic, ResponsesAreTypedByTheirRequest) {
  ConnectionCheck c(7, CheckOptions{});
  Summary summary;
  const FrameReport q = c.OnRequest(Request(12, 100, MetadataRequest{}));
  EXPECT_EQ(q.verdict, Verdict::kOk) << q.message;
  EXPECT_EQ(q.api_key, 3);
  EXPECT_EQ(q.api_version, 12);
  EXPECT_EQ(q.correlation_id, 100);
  EXPECT_EQ(c.pending(), 1u);
  summary.Add(q);
  MetadataResponse body;
  body.brokers.push_back({.node_id = 1, .host = "127.0.0.1", .port = 9092});
  const std::vector<uint8_t> frame = Response(12, 100, body);
  std::optional<ResponseFrame> decoded;
  const FrameReport a = c.OnResponse(frame, &decoded);
  EXPECT_EQ(a.verdict, Verdict::kOk) << a.message;
  EXPECT_EQ(a.api_key, 3);
  EXPECT_EQ(a.api_version, 12);
  EXPECT_EQ(a.size, frame.size());
  ASSERT_TRUE(decoded.has_value());
  ASSERT_NE(decoded->body.get<MetadataResponse>(), nullptr);
  EXPECT_EQ(decoded->body.get<MetadataResponse>()->brokers.at(0).port, 9092);
  EXPECT_EQ(c.pending(), 0u);
  summary.Add(a);
  // The same response again answers nothing.
  const FrameReport again = c.OnResponse(frame);
  EXPECT_EQ(again.verdict, Verdict::kUncorrelated);
  EXPECT_EQ(again.api_key, -1);
  summary.Add(again);
  EXPECT_EQ(summary.frames(), 3u);
  EXPECT_EQ(summary.failures(), 1u);
  const std::string table = summary.Table();
  EXPECT_NE(table.find("Metadata"), std::string::npos) << table;
  EXPECT_NE(table.find("uncorrelated 1"), std::string::npos) << table;
  const Json j = ReportJson(a);
  EXPECT_EQ(j["connection"], 7);
  EXPECT_EQ(j["api"], "Metadata");
  EXPECT_EQ(j["direction"], "response");
  EXPECT_EQ(j["verdict"], "ok");
}

TEST(Traffic, RejectedFramesSayWhereAndWhy) {
  ConnectionCheck c(1, CheckOptions{});
  std::vector<uint8_t> frame = Request(3, 5, ApiVersionsRequest{.client_software_name = "k",
                                                                 .client_software_version = "1"});
  frame.push_back(0);  // a byte past the body
  frame[3] += 1;       // the size prefix says so
  const FrameReport r = c.OnRequest(frame);
  EXPECT_EQ(r.verdict, Verdict::kRejected);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, ErrorKind::kTrailingBytes);
  EXPECT_EQ(r.error->offset, frame.size() - 1);
  const Json j = ReportJson(r);
  EXPECT_EQ(j["error"]["kind"], "trailing_bytes");
  EXPECT_EQ(j["error"]["offset"], frame.size() - 1);
  EXPECT_FALSE(Conforms(r.verdict));
}

TEST(Traffic, NonCanonicalUnderQuirksIsNotConforming) {
  // An over-long uvarint (tagged fields count 0 as 0x80 0x00) in a flexible request
  // header: strict decoding rejects it; under Java's quirks it decodes and re-encodes
  // shorter.
  std::vector<uint8_t> frame = Request(3, 9, ApiVersionsRequest{});
  const size_t last = frame.size() - 1;  // the body's tagged fields count (0)
  ASSERT_EQ(frame[last], 0);
  frame[last] = 0x80;
  frame.push_back(0x00);
  frame[3] += 1;
  ConnectionCheck strict(1, CheckOptions{});
  EXPECT_EQ(strict.OnRequest(frame).verdict, Verdict::kRejected);
  ConnectionCheck java(2, CheckOptions{.quirks = kQuirksJava});
  const FrameReport r = java.OnRequest(frame);
  EXPECT_EQ(r.verdict, Verdict::kNotCanonical) << r.message;
  EXPECT_EQ(r.first_difference, 3u);  // the size prefix is one byte shorter
}

TEST(Traffic, ProduceWithAcksZeroAwaitsNoResponse) {
  ConnectionCheck c(1, CheckOptions{});
  ProduceRequest p;
  p.acks = 0;
  EXPECT_EQ(c.OnRequest(Request(9, 1, p)).verdict, Verdict::kOk);
  EXPECT_EQ(c.pending(), 0u);
  p.acks = -1;
  EXPECT_EQ(c.OnRequest(Request(9, 2, p)).verdict, Verdict::kOk);
  EXPECT_EQ(c.pending(), 1u);
}

TEST(Traffic, UnansweredRequestsAreCountedInOrder) {
  ConnectionCheck c(1, CheckOptions{});
  (void)c.OnRequest(Request(12, 1, MetadataRequest{}));
  (void)c.OnRequest(Request(12, 2, MetadataRequest{}));
  const FrameReport r = c.OnResponse(Response(12, 2, MetadataResponse{}));
  EXPECT_EQ(r.verdict, Verdict::kOk);
  EXPECT_EQ(r.skipped, 1u);
  EXPECT_EQ(ReportJson(r)["unanswered"], 1);
}

}  // namespace
}  // namespace kwire::traffic
