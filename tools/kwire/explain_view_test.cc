// What `kwire explain` prints of a frame (explain_view.h): --no-bytes, --depth, --path,
// on real frames (a broker's Metadata v4 response from conformance/vectors/live.jsonl).
#include "tools/kwire/explain_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"

namespace kwire::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// live/Metadata/v4/response/kcat-plaintext-1 (conformance/vectors/live.jsonl): one
// broker, five topics of one partition each, 347 bytes.
constexpr const char* kMetadataV4 =
    "000001570000000300000000000000010000000100093132372e302e302e310000b1d9ffff0016674a4269"
    "727a426761357a2d4e503432704d727255770000000100000005000000135f5f73686172655f67726f7570"
    "5f737461746501000000010000000000000000000100000001000000010000000100000001000000166b77"
    "6972652d636c69656e74732d3131613630393663000000000100000000000000000001000000010000000100"
    "00000100000001000000135f5f7472616e73616374696f6e5f73746174650100000001000000000000000000"
    "0100000001000000010000000100000001000000196b776972652d636c69656e74732d74782d313161363039"
    "366300000000010000000000000000000100000001000000010000000100000001000000125f5f636f6e7375"
    "6d65725f6f66667365747301000000010000000000000000000100000001000000010000000100000001";

FrameExplanation Metadata() {
  const std::string bytes = absl::HexStringToBytes(kMetadataV4);
  const std::vector<uint8_t> frame(bytes.begin(), bytes.end());
  FrameExplanation ex = ExplainResponseFrame(frame, 3, 4);
  EXPECT_TRUE(ex.status.ok()) << ex.status;
  return ex;
}

std::vector<std::string> Paths(const std::vector<PrintNode>& nodes) {
  std::vector<std::string> out;
  for (const PrintNode& n : nodes) out.push_back(n.path);
  return out;
}

size_t Lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(ExplainView, WholeByDefault) {
  const FrameExplanation ex = Metadata();
  const absl::StatusOr<std::vector<PrintNode>> all = SelectNodes(ex.nodes, {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Paths(*all), Paths(ex.nodes));
  const absl::StatusOr<std::string> text = RenderExplainView(ex, {}, 0);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, RenderFrameExplanation(ex).substr(0, text->size()));
}

TEST(ExplainView, NoBytes) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.bytes = false;
  const absl::StatusOr<std::string> text = RenderExplainView(ex, v, 120);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, StartsWith("MetadataResponse v4, response header v0, 347 bytes on the wire\n"
                                "\nobject tree\nMetadataResponse "));
  EXPECT_THAT(*text, Not(HasSubstr("byte layout")));
  // The whole text less the layout: its title and column header, 22 rows, the regions
  // line and a blank line.
  ExplainView with;
  EXPECT_EQ(Lines(*RenderExplainView(ex, with, 120)), Lines(*text) + 2 + 22 + 2);
}

TEST(ExplainView, Depth) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.bytes = false;
  v.depth = 2;
  const absl::StatusOr<std::string> text = RenderExplainView(ex, v, 0);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            R"(MetadataResponse v4, response header v0, 347 bytes on the wire

object tree
MetadataResponse        message v4                                                           [0x0000, 347B]
+-- Frame                                                                                    [0x0000, 4B]    length-delimited framing
|   +-- size            int32                     = 343                                      [0x0000, 4B]    number of bytes that follow
+-- ResponseHeader      v0                                                                   [0x0004, 4B]    common response header
|   +-- correlation_id  int32                     = 3                                        [0x0004, 4B]    matches the correlation_id of the request
+-- MetadataResponse    struct                                                               [0x0008, 339B]  message body, version 4
    +-- ThrottleTimeMs  int32                     = 0                                        [0x0008, 4B]
    +-- Brokers         []MetadataResponseBroker  = 1 element                                [0x000c, 25B]
    |   +-- …                                                                                [0x000c, 25B]   6 rows, 25 bytes, below --depth 2
    +-- ClusterId       string                    = "gJBirzBga5z-NP42pMrrUw" (int16 len=22)  [0x0025, 24B]
    +-- ControllerId    int32                     = 1                                        [0x003d, 4B]
    +-- Topics          []MetadataResponseTopic   = 5 elements                               [0x0041, 282B]
        +-- …                                                                                [0x0041, 282B]  81 rows, 282 bytes, below --depth 2
)");
}

TEST(ExplainView, DepthZeroAndFailureInside) {
  std::string bytes = absl::HexStringToBytes(kMetadataV4);
  // Truncated inside Topics[2], the size prefix made to agree: a count there fails, and its
  // row covers its four bytes (and shows the count read).
  bytes.resize(200);
  bytes[2] = 0;
  bytes[3] = static_cast<char>(196);
  const FrameExplanation ex = ExplainResponseFrame(
      std::vector<uint8_t>(bytes.begin(), bytes.end()), 3, 4);
  ASSERT_FALSE(ex.status.ok());
  ExplainView v;
  v.depth = 0;
  const absl::StatusOr<std::vector<PrintNode>> nodes = SelectNodes(ex.nodes, v);
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(RenderObjectTree(*nodes),
            R"(MetadataResponse  message v4    [0x0000, 200B]
+-- …                           [0x0000, 176B]  48 rows, 176 bytes, below --depth 0  <-- decoding failed here
)");
}

TEST(ExplainView, Path) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.path = "MetadataResponse.Topics[1]";
  const absl::StatusOr<std::string> text = RenderExplainView(ex, v, 120);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            R"(MetadataResponse v4, response header v0, 347 bytes on the wire

byte layout (347 bytes, 16 bytes per row, the rows of MetadataResponse.Topics[1] only)
       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F    regions
…
0070   00 00 01 00 00 00 01 00 00 00 01 00 00 00 16 6b   BBBBBBBBBBBBBBBB
0080   77 69 72 65 2d 63 6c 69 65 6e 74 73 2d 31 31 61   BBBBBBBBBBBBBBBB
0090   36 30 39 36 63 00 00 00 00 01 00 00 00 00 00 00   BBBBBBBBBBBBBBBB
00a0   00 00 00 01 00 00 00 01 00 00 00 01 00 00 00 01   BBBBBBBBBBBBBBBB
00b0   00 00 00 01 00 00 00 13 5f 5f 74 72 61 6e 73 61   BBBBBBBBBBBBBBBB
…
regions: F frame, H header, B body, R records, T tagged fields

object tree
MetadataResponse                                  message v4                                              [0x0000, 347B]
+-- MetadataResponse                              struct                                                  [0x0008, 339B]
    |                                             message body, version 4
    +-- Topics                                    []MetadataResponseTopic      = 5 elements               [0x0041, 282B]
        +-- MetadataResponseTopic[1]              MetadataResponseTopic        = struct                   [0x007b, 57B]
            +-- ErrorCode                         int16                        = 0                        [0x007b, 2B]
            +-- Name                              string                       = (below)                  [0x007d, 24B]
            |                                     = "kwire-clients-11a6096c" (int16 len=22)
            +-- IsInternal                        bool                         = false                    [0x0095, 1B]
            +-- Partitions                        []MetadataResponsePartition  = 1 element                [0x0096, 30B]
                +-- length                        int32                        = 1                        [0x0096, 4B]
                |                                 one element follows
                +-- MetadataResponsePartition[0]  MetadataResponsePartition    = struct                   [0x009a, 26B]
                    +-- ErrorCode                 int16                        = 0                        [0x009a, 2B]
                    +-- PartitionIndex            int32                        = 0                        [0x009c, 4B]
                    +-- LeaderId                  int32                        = 1                        [0x00a0, 4B]
                    +-- ReplicaNodes              []int32                      = 1 element                [0x00a4, 8B]
                    |   +-- length                int32                        = 1                        [0x00a4, 4B]
                    |   |                         one element follows
                    |   +-- ReplicaNodes[0]       int32                        = 1                        [0x00a8, 4B]
                    +-- IsrNodes                  []int32                      = 1 element                [0x00ac, 8B]
                        +-- length                int32                        = 1                        [0x00ac, 4B]
                        |                         one element follows
                        +-- IsrNodes[0]           int32                        = 1                        [0x00b0, 4B]
)");
  // The same rows by the tree's spelling, relative to the body, in another case.
  for (const char* same : {"Body.Topics[1]", "Topics[1]", "metadataresponse.topics[1]",
                           "body.Topics[1]"}) {
    ExplainView w;
    w.path = same;
    EXPECT_EQ(Paths(*SelectNodes(ex.nodes, w)), Paths(*SelectNodes(ex.nodes, v))) << same;
  }
}

TEST(ExplainView, PathWithDepthAndHeader) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.bytes = false;
  v.path = "Topics";
  v.depth = 1;
  EXPECT_EQ(*RenderExplainView(ex, v, 0),
            R"(MetadataResponse v4, response header v0, 347 bytes on the wire

object tree
MetadataResponse                      message v4                             [0x0000, 347B]
+-- MetadataResponse                  struct                                 [0x0008, 339B]  message body, version 4
    +-- Topics                        []MetadataResponseTopic  = 5 elements  [0x0041, 282B]
        +-- length                    int32                    = 5           [0x0041, 4B]    5 elements follow
        +-- MetadataResponseTopic[0]  MetadataResponseTopic    = struct      [0x0045, 54B]
        |   +-- …                                                            [0x0045, 54B]   15 rows, 54 bytes, below --depth 1
        +-- MetadataResponseTopic[1]  MetadataResponseTopic    = struct      [0x007b, 57B]
        |   +-- …                                                            [0x007b, 57B]   15 rows, 57 bytes, below --depth 1
        +-- MetadataResponseTopic[2]  MetadataResponseTopic    = struct      [0x00b4, 54B]
        |   +-- …                                                            [0x00b4, 54B]   15 rows, 54 bytes, below --depth 1
        +-- MetadataResponseTopic[3]  MetadataResponseTopic    = struct      [0x00ea, 60B]
        |   +-- …                                                            [0x00ea, 60B]   15 rows, 60 bytes, below --depth 1
        +-- MetadataResponseTopic[4]  MetadataResponseTopic    = struct      [0x0126, 53B]
            +-- …                                                            [0x0126, 53B]   15 rows, 53 bytes, below --depth 1
)");
  // Error paths' header names select the tree's snake_case rows.
  ExplainView h;
  h.path = "ResponseHeader.CorrelationId";
  EXPECT_EQ(Paths(*SelectNodes(ex.nodes, h)),
            (std::vector<std::string>{"MetadataResponse", "ResponseHeader",
                                      "ResponseHeader.correlation_id"}));
  // And the JSON mapping's, as conformance verdicts name a difference.
  h.path = "header.CorrelationId";
  EXPECT_EQ(Paths(*SelectNodes(ex.nodes, h)),
            (std::vector<std::string>{"MetadataResponse", "ResponseHeader",
                                      "ResponseHeader.correlation_id"}));
}

TEST(ExplainView, PathPrefix) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.path = "Topics[1].Na";  // no row has it: the rows it begins
  v.bytes = false;
  EXPECT_EQ(Paths(*SelectNodes(ex.nodes, v)),
            (std::vector<std::string>{"MetadataResponse", "Body", "Body.Topics",
                                      "Body.Topics[1]", "Body.Topics[1].Name"}));
}

TEST(ExplainView, PathEnd) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.path = "Partitions[0].IsrNodes";  // below every topic
  std::vector<std::string> isr;
  for (const std::string& p : Paths(*SelectNodes(ex.nodes, v))) {
    if (p.find("IsrNodes") != std::string::npos && p.find('.', p.find("IsrNodes")) == std::string::npos &&
        p.find("IsrNodes[") == std::string::npos) {
      isr.push_back(p);
    }
  }
  EXPECT_EQ(isr, (std::vector<std::string>{
                     "Body.Topics[0].Partitions[0].IsrNodes", "Body.Topics[1].Partitions[0].IsrNodes",
                     "Body.Topics[2].Partitions[0].IsrNodes", "Body.Topics[3].Partitions[0].IsrNodes",
                     "Body.Topics[4].Partitions[0].IsrNodes"}));
}

TEST(ExplainView, PathMatchesNothing) {
  const FrameExplanation ex = Metadata();
  ExplainView v;
  v.path = "Topic[1]";
  const absl::StatusOr<std::string> text = RenderExplainView(ex, v, 120);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(std::string(text.status().message()),
            "--path 'Topic[1]' matches no row of MetadataResponse (the fields of "
            "MetadataResponse: ThrottleTimeMs, Brokers, ClusterId, ControllerId, Topics)");
}

}  // namespace
}  // namespace kwire::cli
