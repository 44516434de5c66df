// The explain (print) visitor: for every API x version x direction, minimal and random
// instances, the object tree tiles the frame exactly, decodes the same message as the
// decoder, and fails exactly where (and how) the decoder fails on truncated or corrupted
// bytes. Plus redaction, tagged fields, records and the text renderers.
#include "codec/harness/print.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "codec/generated/delete_groups_request.h"
#include "codec/generated/describe_delegation_token_request.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/sasl_authenticate_request.h"
#include "codec/harness/explain.h"
#include "codec/harness/minimal.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/protocol/registry.h"

namespace kwire {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Kind = PrintNode::Kind;

using frame_testing::AllCases;
using frame_testing::Case;

FrameExplanation Explain(const Case& c, std::span<const uint8_t> frame,
                         const PrintOptions& options = {}) {
  return c.dir == Direction::kRequest
             ? ExplainRequestFrame(frame, options)
             : ExplainResponseFrame(frame, c.api->api_key, c.version, options);
}

// A well-formed tree: the root covers the frame; depths step by at most one; the
// children of every node tile it exactly, in order; nothing failed.
void CheckTiling(const FrameExplanation& ex, const std::string& what) {
  SCOPED_TRACE(what);
  const auto& nodes = ex.nodes;
  ASSERT_FALSE(nodes.empty());
  EXPECT_EQ(nodes[0].depth, 0);
  EXPECT_EQ(nodes[0].offset, 0u);
  EXPECT_EQ(nodes[0].size, ex.bytes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const PrintNode& n = nodes[i];
    EXPECT_FALSE(n.failed) << n.path;
    if (i > 0) {
      EXPECT_GE(n.depth, 1) << n.path;
      EXPECT_LE(n.depth, nodes[i - 1].depth + 1) << n.path;
    }
    if (n.kind == Kind::kLength || n.kind == Kind::kTagHeader || n.kind == Kind::kTaggedFields) {
      EXPECT_GT(n.size, 0u) << n.path;
    }
    size_t expect = n.offset;
    bool any = false;
    for (size_t j = i + 1; j < nodes.size() && nodes[j].depth > n.depth; ++j) {
      if (nodes[j].depth != n.depth + 1) continue;
      any = true;
      EXPECT_EQ(nodes[j].offset, expect) << nodes[j].path << " in " << n.path;
      expect = nodes[j].offset + nodes[j].size;
    }
    if (any) {
      EXPECT_EQ(expect, n.offset + n.size) << "children of " << n.path;
    }
  }
}

TEST(ExplainTest, MinimalFramesTile) {
  for (const Case& c : AllCases()) {
    const auto frame = EncodeMinimalFrame(*c.api, c.version, c.dir);
    ASSERT_TRUE(frame.ok()) << c.Name();
    const FrameExplanation ex = Explain(c, *frame);
    ASSERT_TRUE(ex.status.ok()) << c.Name() << ": " << ex.status;
    EXPECT_TRUE(ex.tree_status.ok()) << c.Name() << ": " << ex.tree_status;
    CheckTiling(ex, c.Name());
  }
}

// Random instances (arrays of 0-3, nulls, known and unknown tagged fields, nullable
// structs): the tree tiles the frame, and the explain visitor decodes the same message.
TEST(ExplainTest, RandomInstancesTileAndDecodeTheSame) {
  std::mt19937_64 rng(20250101);
  size_t tags = 0, unknown = 0, presence = 0, records = 0;
  for (const Case& c : AllCases()) {
    const MessageOps& ops = c.api->ops(c.dir);
    for (int i = 0; i < 4; ++i) {
      AnyMessage m(ops);
      FillRandom(rng, c.version, m);
      const auto frame = frame_testing::EncodeFrame(c, m);
      const FrameExplanation ex = Explain(c, frame);
      ASSERT_TRUE(ex.status.ok()) << c.Name() << ": " << ex.status;
      EXPECT_TRUE(ex.tree_status.ok()) << c.Name();
      CheckTiling(ex, c.Name());
      for (const PrintNode& n : ex.nodes) {
        tags += n.kind == Kind::kTag;
        unknown += n.kind == Kind::kUnknownTag;
        presence += n.kind == Kind::kPresence;
        records += n.kind == Kind::kRecords;
      }
      // Body alone, through the explain table (PrintAnyBody): same message as the original.
      Writer w;
      ops.encode(w, c.version, m.raw());
      ASSERT_TRUE(w.ok());
      const std::vector<uint8_t> body = w.Release();
      Reader r(body);
      std::vector<PrintNode> nodes;
      PrintOptions options;
      PrintBuilder b(body, options, nodes);
      AnyMessage back(ops);
      PrintAnyBody(r, c.version, b, back);
      EXPECT_TRUE(r.ok()) << c.Name() << ": " << r.error().ToString();
      EXPECT_TRUE(r.AtEnd()) << c.Name();
      EXPECT_TRUE(back == m) << c.Name() << ": explain decoded a different message";
    }
  }
  // The random instances exercise every kind of node.
  EXPECT_GT(tags, 100u);
  EXPECT_GT(unknown, 100u);
  EXPECT_GT(presence, 10u);
  EXPECT_GT(records, 10u);
}

// Truncated (size prefix patched) and corrupted frames: the explain visitor stops with
// exactly the decoder's error, and its nodes stay inside the frame.
TEST(ExplainTest, FailsExactlyLikeTheDecoder) {
  std::mt19937_64 rng(7);
  size_t checked = 0;
  for (const Case& c : AllCases()) {
    const VersionRange r = c.api->ops(c.dir).spec->valid;
    if (c.version != r.lo && c.version != r.hi) continue;
    AnyMessage m(c.api->ops(c.dir));
    FillRandom(rng, c.version, m);
    const auto frame = frame_testing::EncodeFrame(c, m);
    auto check = [&](const std::vector<uint8_t>& bad, const std::string& what) {
      const FrameExplanation ex = Explain(c, bad);
      // The observed walk (explain) against the plain one (the decoder's instantiation
      // with the observer compiled out): the same verdict, error for error.
      const absl::Status plain =
          c.dir == Direction::kRequest
              ? DecodeRequestFrame(bad).status()
              : DecodeResponseFrame(bad, c.api->api_key, c.version).status();
      EXPECT_EQ(ex.status, plain) << c.Name() << " " << what;
      EXPECT_EQ(ex.tree_status, ex.status) << c.Name() << " " << what;
      for (const PrintNode& n : ex.nodes) {
        EXPECT_LE(n.offset + n.size, bad.size()) << c.Name() << " " << what << " " << n.path;
      }
      ++checked;
    };
    for (size_t len = 4; len < frame.size(); ++len) {
      std::vector<uint8_t> t(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(len));
      const uint32_t size = static_cast<uint32_t>(len - 4);
      t[0] = static_cast<uint8_t>(size >> 24);
      t[1] = static_cast<uint8_t>(size >> 16);
      t[2] = static_cast<uint8_t>(size >> 8);
      t[3] = static_cast<uint8_t>(size);
      check(t, absl::StrFormat("truncated to %d", len));
    }
    for (size_t at = 4; at < frame.size(); ++at) {
      for (uint8_t b : {0xff, 0x80, 0x02}) {
        std::vector<uint8_t> t = frame;
        t[at] = b;
        check(t, absl::StrFormat("byte %d = %02x", at, b));
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

// Regression (hostile-frame review): when the frame did not decode, secrets the explain
// visitor never located (a size prefix one too big, a trailing byte, the secret's own
// length running past the end) were printed in the byte layout. Such frames of messages
// with sensitive fields now hide everything from the body on.
TEST(ExplainTest, SecretsOfAFrameThatDoesNotDecodeAreHidden) {
  SaslAuthenticateRequest req;
  req.auth_bytes = "SECRETPASSWD";
  const auto good = EncodeRequestFrame<SaslAuthenticateRequest>(0, 0, "", req);
  ASSERT_TRUE(good.ok());
  const std::string secret_hex = "53 45 43 52 45 54";  // "SECRET"
  std::vector<std::vector<uint8_t>> bad;
  bad.push_back(*good);  // size prefix one too big
  bad.back()[3] = static_cast<uint8_t>(bad.back()[3] + 1);
  bad.push_back(*good);  // a trailing byte
  bad.back().push_back(0);
  bad.back()[3] = static_cast<uint8_t>(bad.back()[3] + 1);
  bad.push_back(*good);  // truncated inside the secret (size prefix consistent)
  bad.back().resize(bad.back().size() - 3);
  bad.back()[3] = static_cast<uint8_t>(bad.back()[3] - 3);
  bad.push_back(*good);  // an unsupported version: the body is not explained at all
  bad.back()[7] = 99;
  for (size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(i);
    const FrameExplanation ex = ExplainRequestFrame(bad[i]);
    ASSERT_FALSE(ex.status.ok());
    const std::string text = RenderFrameExplanation(ex);
    EXPECT_THAT(text, Not(HasSubstr(secret_hex)));
    EXPECT_THAT(text, Not(HasSubstr("SECRET")));
    EXPECT_THAT(text, HasSubstr("cannot be located"));
    PrintOptions show;
    show.show_secrets = true;
    EXPECT_THAT(RenderFrameExplanation(ExplainRequestFrame(bad[i], show)), HasSubstr(secret_hex));
  }
  // A frame that decodes keeps the precise per-field redaction (no blanket node).
  const FrameExplanation ok = ExplainRequestFrame(*good);
  ASSERT_TRUE(ok.status.ok());
  EXPECT_THAT(RenderFrameExplanation(ok), Not(HasSubstr("cannot be located")));
}

// Regression (hostile-frame review): explaining a 4 MB DeleteGroups request with 4 million
// empty group names built 4 million nodes (4 GB, 20 s). Arrays show
// PrintOptions::max_array_elements elements; the rest are decoded by the decoder itself
// (same status, same failure offsets) under one summary node.
TEST(ExplainTest, LongArraysAreSummarizedAndStillFailLikeTheDecoder) {
  DeleteGroupsRequest req;
  req.groups_names.assign(5000, "");
  const auto frame = EncodeRequestFrame<DeleteGroupsRequest>(2, 1, "c", req);
  ASSERT_TRUE(frame.ok());
  const FrameExplanation ex = ExplainRequestFrame(*frame);
  ASSERT_TRUE(ex.status.ok()) << ex.status;
  EXPECT_TRUE(ex.tree_status.ok()) << ex.tree_status;
  EXPECT_LT(ex.nodes.size(), 1100u);
  const PrintNode* summary = nullptr;
  for (const PrintNode& n : ex.nodes) {
    if (n.label == "GroupsNames[1000...]") summary = &n;
  }
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->value, "4000 more elements");
  EXPECT_EQ(summary->size, 4000u);  // one byte (compact length 1) per empty name
  EXPECT_EQ(summary->offset + summary->size + 1, frame->size());  // then the tag section
  // Truncated inside the summarized part: the decoder's error, at the decoder's offset.
  std::vector<uint8_t> cut(frame->begin(), frame->end() - 100);
  const uint32_t size = static_cast<uint32_t>(cut.size() - 4);
  for (int i = 0; i < 4; ++i) cut[static_cast<size_t>(i)] = static_cast<uint8_t>(size >> (24 - 8 * i));
  const FrameExplanation bad = ExplainRequestFrame(cut);
  ASSERT_FALSE(bad.status.ok());
  EXPECT_EQ(bad.status, DecodeRequestFrame(cut).status());
  EXPECT_EQ(bad.tree_status, bad.status);
  EXPECT_LT(bad.nodes.size(), 1100u);
  // max_nodes: once reached, arrays show no element.
  PrintOptions few;
  few.max_nodes = 1;
  const FrameExplanation tiny = ExplainRequestFrame(*frame, few);
  EXPECT_TRUE(tiny.status.ok());
  EXPECT_LT(tiny.nodes.size(), 20u);
}

TEST(ExplainTest, SensitiveFieldsAreRedactedUnlessAsked) {
  SaslAuthenticateRequest req;
  req.auth_bytes = "hunter2-secret";
  const auto frame = EncodeRequestFrame<SaslAuthenticateRequest>(2, 5, "cli", req);
  ASSERT_TRUE(frame.ok());
  const std::string secret_hex = "68756e746572322d736563726574";

  const FrameExplanation ex = ExplainRequestFrame(*frame);
  ASSERT_TRUE(ex.status.ok()) << ex.status;
  const std::string tree = RenderObjectTree(ex.nodes);
  const std::string layout = RenderByteLayout(ex.bytes, ex.nodes);
  EXPECT_THAT(tree, HasSubstr("AuthBytes"));
  EXPECT_THAT(tree, HasSubstr("<redacted, 14 bytes>"));
  EXPECT_THAT(tree, Not(HasSubstr("hunter2")));
  EXPECT_THAT(tree, Not(HasSubstr("68756e")));
  EXPECT_THAT(layout, HasSubstr("** ** **"));
  EXPECT_THAT(layout, Not(HasSubstr("68 75 6e")));
  EXPECT_THAT(layout, HasSubstr("redacted"));
  // The compact length (len+1 = 15 = 0x0f) stays visible.
  EXPECT_THAT(layout, HasSubstr(" 0f **"));

  PrintOptions show;
  show.show_secrets = true;
  const FrameExplanation shown = ExplainRequestFrame(*frame, show);
  EXPECT_THAT(RenderObjectTree(shown.nodes), HasSubstr("0x" + secret_hex));
  EXPECT_THAT(RenderByteLayout(shown.bytes, shown.nodes), HasSubstr("68 75 6e"));
}

// Known and unknown tagged fields: a `tag N` node with `tag`, `size` and the value.
// A Uuid shows as Kafka prints topic IDs (base64url, 22 characters) with the JSON
// mapping's hex (conformance/FORMAT.md) in its detail, so either can be searched for.
TEST(ExplainTest, UuidInBothSpellings) {
  MetadataRequest req;
  req.topics.emplace();
  req.topics->emplace_back();
  for (uint8_t i = 0; i < 16; ++i) (*req.topics)[0].topic_id.bytes[i] = static_cast<uint8_t>(i * 17);
  const auto frame = EncodeRequestFrame<MetadataRequest>(12, 0, "", req);
  ASSERT_TRUE(frame.ok());
  const FrameExplanation ex = ExplainRequestFrame(*frame);
  ASSERT_TRUE(ex.status.ok()) << ex.status;
  const PrintNode* id = nullptr;
  for (const PrintNode& n : ex.nodes) {
    if (n.path == "Body.Topics[0].TopicId") id = &n;
  }
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->type, "uuid");
  EXPECT_EQ(id->value, "ABEiM0RVZneImaq7zN3u_w");
  EXPECT_EQ(id->detail, "(hex 00112233445566778899aabbccddeeff)");
  EXPECT_EQ(id->size, 16u);
}

TEST(ExplainTest, TaggedFields) {
  // RequestHeader v2 ClientId is not tagged; use unknown tags on the body instead.
  DescribeDelegationTokenRequest req;
  req.owners.emplace();
  req.unknown_tagged_fields.push_back({7, "ab"});
  req.unknown_tagged_fields.push_back({300, ""});
  const auto frame = EncodeRequestFrame<DescribeDelegationTokenRequest>(3, 0, "", req);
  ASSERT_TRUE(frame.ok());
  const FrameExplanation ex = ExplainRequestFrame(*frame);
  ASSERT_TRUE(ex.status.ok()) << ex.status;
  CheckTiling(ex, "tagged");
  std::vector<std::string> rows;
  for (const PrintNode& n : ex.nodes) {
    if (n.path.rfind("Body.tagged_fields", 0) == 0) {
      rows.push_back(absl::StrFormat("%d %s %s %s [%d,%d]", n.depth, n.path, n.type, n.value,
                                     n.offset, n.size));
    }
  }
  EXPECT_THAT(rows, ::testing::ElementsAre("2 Body.tagged_fields uvarint 2 [16,8]",
                                           "3 Body.tagged_fields.count uvarint 2 [16,1]",
                                           "3 Body.tagged_fields.tag7 tagged_field  [17,4]",
                                           "4 Body.tagged_fields.tag7.tag uvarint 7 [17,1]",
                                           "4 Body.tagged_fields.tag7.size uvarint 2 [18,1]",
                                           "4 Body.tagged_fields.tag7.data bytes 0x6162 [19,2]",
                                           "3 Body.tagged_fields.tag300 tagged_field  [21,3]",
                                           "4 Body.tagged_fields.tag300.tag uvarint 300 [21,2]",
                                           "4 Body.tagged_fields.tag300.size uvarint 0 [23,1]",
                                           "4 Body.tagged_fields.tag300.data bytes empty [24,0]"));
}

// Records: opaque by default, or whatever the RecordsPrinter hook appends.
bool FakeBatches(const RecordsPrintInput& in, std::vector<PrintNode>& out) {
  EXPECT_EQ(in.field.records.layout, RecordsLayout::kWholeBatches);  // Produce's policy
  EXPECT_EQ(in.version, 9);
  PrintNode n;
  n.kind = Kind::kRecords;
  n.depth = in.depth;
  n.offset = in.offset;
  n.size = in.data.size();
  n.path = in.path + ".RecordBatch[0]";
  n.label = "RecordBatch[0]";
  n.type = "RecordBatch v2";
  out.push_back(n);
  return true;
}

TEST(ExplainTest, RecordsOpaqueOrHook) {
  const ApiInfo* produce = FindApi(0);
  const auto frame = EncodeMinimalFrame(*produce, 9, Direction::kRequest);
  ASSERT_TRUE(frame.ok());
  const FrameExplanation ex = ExplainRequestFrame(*frame);
  ASSERT_TRUE(ex.status.ok());
  const PrintNode* batches = nullptr;
  for (const PrintNode& n : ex.nodes) {
    if (n.kind == Kind::kRecords) batches = &n;
  }
  ASSERT_NE(batches, nullptr);
  EXPECT_EQ(batches->size, 61u);
  EXPECT_EQ(batches->value, "61 bytes");
  EXPECT_THAT(batches->path, ::testing::EndsWith(".Records.batches"));

  PrintOptions options;
  options.records = &FakeBatches;
  const FrameExplanation hooked = ExplainRequestFrame(*frame, options);
  CheckTiling(hooked, "hooked");
  bool found = false;
  for (const PrintNode& n : hooked.nodes) {
    if (n.type == "RecordBatch v2") {
      found = true;
      EXPECT_EQ(n.size, 61u);
    }
    EXPECT_NE(n.label, "batches");
  }
  EXPECT_TRUE(found);
  EXPECT_THAT(RenderByteLayout(hooked.bytes, hooked.nodes), HasSubstr("RRRR"));
}

// The text tree in the documentation pages' style. The RenewDelegationToken v2 request
// tree is the page's (../shared/seeds, conformance/vectors/seeds.txt) column for column;
// only the description column differs: kwire's definitions carry no "about" texts, so
// body fields have no note.
TEST(ExplainTest, RenderedTreeMatchesThePage) {
  const auto frame = EncodeMinimalFrame(*FindApi(39), 2, Direction::kRequest);
  ASSERT_TRUE(frame.ok());
  const FrameExplanation ex = ExplainRequestFrame(*frame);
  EXPECT_EQ(ex.title, "RenewDelegationTokenRequest v2, request header v2, 25 bytes on the wire");
  EXPECT_EQ(
      RenderObjectTree(ex.nodes),
      R"(RenewDelegationTokenRequest      message v2                                    [0x0000, 25B]
+-- Frame                                                                      [0x0000, 4B]   length-delimited framing
|   +-- size                     int32            = 21                         [0x0000, 4B]   number of bytes that follow
+-- RequestHeader                v2                                            [0x0004, 11B]  common request header
|   +-- request_api_key          int16            = 39 (RenewDelegationToken)  [0x0004, 2B]   numeric id of the API being invoked
|   +-- request_api_version      int16            = 2                          [0x0006, 2B]   version of the API being invoked
|   +-- correlation_id           int32            = 0                          [0x0008, 4B]   echoed back by the broker in the response
|   +-- client_id                nullable_string  = "" (int16 len=0)           [0x000c, 2B]   always a non-flexible int16-prefixed string
|   +-- tagged_fields            uvarint          = 0                          [0x000e, 1B]   number of tagged fields in the header
+-- RenewDelegationTokenRequest  struct                                        [0x000f, 10B]  message body, version 2
    +-- Hmac                     bytes            = empty (compact, len+1=1)   [0x000f, 1B]
    +-- RenewPeriodMs            int64            = 0                          [0x0010, 8B]
    +-- tagged_fields            uvarint          = 0                          [0x0018, 1B]   number of tagged fields in this struct
)");
  EXPECT_EQ(RenderByteLayout(ex.bytes, ex.nodes),
            R"(byte layout (25 bytes, 16 bytes per row)
       0  1  2  3  4  5  6  7  8  9  A  B  C  D  E  F    regions
0000   00 00 00 15 00 27 00 02 00 00 00 00 00 00 00 01   FFFFHHHHHHHHHHTB
0010   00 00 00 00 00 00 00 00 00                        BBBBBBBBT
regions: F frame, H header, B body, R records, T tagged fields
)");
}

TEST(ExplainTest, RenderedTreeNestedArrays) {
  const auto frame = EncodeMinimalFrame(*FindApi(41), 3, Direction::kRequest);
  ASSERT_TRUE(frame.ok());
  const std::string tree = RenderObjectTree(ExplainRequestFrame(*frame).nodes);
  EXPECT_THAT(tree, HasSubstr("+-- Owners"));
  EXPECT_THAT(tree, HasSubstr("= 1 element"));
  EXPECT_THAT(tree, HasSubstr("|   +-- length"));
  EXPECT_THAT(tree, HasSubstr("= 2 (compact, n+1)"));
  EXPECT_THAT(tree, HasSubstr("|   +-- DescribeDelegationTokenOwner[0]"));
  EXPECT_THAT(tree, HasSubstr("= struct"));
  EXPECT_THAT(tree, HasSubstr("|       +-- PrincipalType"));
  EXPECT_THAT(tree, HasSubstr("= \"\" (compact, len+1=1)"));
  EXPECT_THAT(tree, HasSubstr("[0x0013, 1B]"));
}

// A truncated frame: the tree up to the failure, the failing node marked.
TEST(ExplainTest, TruncatedFrameMarksTheFailure) {
  std::vector<uint8_t> frame = *EncodeMinimalFrame(*FindApi(41), 3, Direction::kRequest);
  frame.pop_back();
  frame[3] = static_cast<uint8_t>(frame.size() - 4);
  const FrameExplanation ex = ExplainRequestFrame(frame);
  EXPECT_THAT(std::string(ex.status.message()),
              HasSubstr("truncated at byte 19 in DescribeDelegationTokenRequest.tagged_fields"));
  EXPECT_EQ(ex.status, DecodeRequestFrame(frame).status());
  EXPECT_EQ(ex.tree_status, ex.status);
  const std::string tree = RenderObjectTree(ex.nodes);
  EXPECT_TRUE(ex.nodes[0].failed);
  // Marked once, on the deepest failed row (its ancestors failed too).
  size_t marks = 0;
  for (size_t at = tree.find("decoding failed here"); at != std::string::npos;
       at = tree.find("decoding failed here", at + 1)) {
    ++marks;
  }
  EXPECT_EQ(marks, 1u) << tree;
  EXPECT_THAT(tree, HasSubstr("\n    +-- tagged_fields"));
  const std::string last = tree.substr(tree.rfind("\n", tree.size() - 2) + 1);
  EXPECT_THAT(last, testing::StartsWith("    +-- tagged_fields "));
  EXPECT_THAT(last, HasSubstr("<-- decoding failed here"));
}

// Rows narrower than their text (--width): an encoding detail moves to the note, a value
// too wide alone is given whole on the next line ("= (below)" in its column: never cut,
// never repeated), notes wrap, and every continuation line keeps the tree's guides.
TEST(ExplainTest, NarrowRowsKeepTheGuides) {
  auto node = [](Kind kind, int depth, std::string label, std::string type, std::string value,
                 size_t offset, size_t size, std::string note = "", std::string detail = "",
                 bool is_struct = false) {
    PrintNode n;
    n.is_struct = is_struct;
    n.kind = kind;
    n.depth = depth;
    n.label = std::move(label);
    n.type = std::move(type);
    n.value = std::move(value);
    n.offset = offset;
    n.size = size;
    n.note = std::move(note);
    n.detail = std::move(detail);
    return n;
  };
  const std::vector<PrintNode> nodes = {
      node(Kind::kMessage, 0, "M", "message v0", "", 0, 40),
      node(Kind::kField, 1, "Topics", "[]T", "2", 0, 36),
      node(Kind::kElement, 2, "T[0]", "T", "", 4, 20, "", "", true),
      node(Kind::kField, 3, "Name", "string", "\"a-rather-long-topic-name\"", 4, 20, "",
           "(int16 len=24)"),
      node(Kind::kElement, 2, "T[1]", "T", "", 24, 12, "", "", true),
      node(Kind::kField, 3, "Id", "int32", "7", 24, 4,
           "a note long enough to wrap onto two lines at this width"),
      node(Kind::kField, 3, "Key", "bytes", "0x00112233445566778899aabbccddeeff", 28, 8),
      node(Kind::kField, 1, "Last", "int32", "1", 36, 4),
  };
  EXPECT_EQ(RenderObjectTree(nodes, 64),
            R"(M                 message v0                       [0x0000, 40B]
+-- Topics        []T         = 2 elements         [0x0000, 36B]
|   +-- T[0]      T           = struct             [0x0004, 20B]
|   |   +-- Name  string      = (below)            [0x0004, 20B]
|   |             = "a-rather-long-topic-name" (int16 len=24)
|   +-- T[1]      T           = struct             [0x0018, 12B]
|       +-- Id    int32       = 7                  [0x0018, 4B]
|       |         a note long enough to wrap onto two lines at
|       |         this width
|       +-- Key   bytes       = (below)            [0x001c, 8B]
|                 = 0x00112233445566778899aabbccddeeff
+-- Last          int32       = 1                  [0x0024, 4B]
)");
  // Room for the value without its detail: the detail goes to the note, below the row.
  std::vector<PrintNode> one = {nodes[0], nodes[1], nodes[2], nodes[3]};
  one[3].value = "\"short\"";
  EXPECT_EQ(RenderObjectTree(one, 60),
            R"(M                 message v0                   [0x0000, 40B]
+-- Topics        []T         = 2 elements     [0x0000, 36B]
    +-- T[0]      T           = struct         [0x0004, 20B]
        +-- Name  string      = "short"        [0x0004, 20B]
                  (int16 len=24)
)");
  // On the failed row the marker follows the moved detail as it follows a note: two
  // spaces, no "; " (the new user's stray ';').
  one[3].failed = true;
  EXPECT_EQ(RenderObjectTree(one, 60),
            R"(M                 message v0                   [0x0000, 40B]
+-- Topics        []T         = 2 elements     [0x0000, 36B]
    +-- T[0]      T           = struct         [0x0004, 20B]
        +-- Name  string      = "short"        [0x0004, 20B]
                  (int16 len=24)  <-- decoding failed here
)");
}

TEST(ExplainTest, SnakeCase) {
  EXPECT_EQ(PrintBuilder::SnakeCase("RequestApiKey"), "request_api_key");
  EXPECT_EQ(PrintBuilder::SnakeCase("ClientId"), "client_id");
  EXPECT_EQ(PrintBuilder::SnakeCase("ThrottleTimeMs"), "throttle_time_ms");
  EXPECT_EQ(PrintBuilder::SnakeCase("HMACKey"), "hmac_key");
}

}  // namespace
}  // namespace kwire
