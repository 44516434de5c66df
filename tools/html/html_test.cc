// The HTML renderer (page.h): hostile strings stay data, bytes get their sections, a
// failing frame's data names the error, a 100,000-node explanation renders in bounded
// size. What the page's script draws from the data is browser_test.py's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codec/generated/describe_delegation_token_request.h"
#include "codec/generated/produce_request.h"
#include "codec/harness/explain.h"
#include "codec/harness/print_records.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/records/record_batch.h"
#include "codec/wire/utf8.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/html/html_test_util.h"
#include "tools/html/page.h"
#include "tools/html/schema.h"

namespace kwire::html {
namespace {

using ::testing::ElementsAre;

// ---- Hand-made frames.

void Put16(std::vector<uint8_t>& v, int16_t x) {
  v.push_back(static_cast<uint8_t>(static_cast<uint16_t>(x) >> 8));
  v.push_back(static_cast<uint8_t>(x));
}
void Put32(std::vector<uint8_t>& v, int32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(static_cast<uint32_t>(x) >> s));
}
void PutString16(std::vector<uint8_t>& v, std::string_view s) {
  Put16(v, static_cast<int16_t>(s.size()));
  v.insert(v.end(), s.begin(), s.end());
}
void PutCompact(std::vector<uint8_t>& v, std::string_view s) {  // lengths < 127
  v.push_back(static_cast<uint8_t>(s.size() + 1));
  v.insert(v.end(), s.begin(), s.end());
}
std::vector<uint8_t> Sized(const std::vector<uint8_t>& body) {
  std::vector<uint8_t> f;
  Put32(f, static_cast<int32_t>(body.size()));
  f.insert(f.end(), body.begin(), body.end());
  return f;
}

// A DescribeDelegationToken v3 request (request header v2) with these strings.
std::vector<uint8_t> DescribeTokens(std::string_view client_id, std::string_view type,
                                    std::string_view name) {
  std::vector<uint8_t> b;
  Put16(b, 41);
  Put16(b, 3);
  Put32(b, 7);
  PutString16(b, client_id);
  b.push_back(0);  // header tagged fields
  b.push_back(2);  // Owners: one element
  PutCompact(b, type);
  PutCompact(b, name);
  b.push_back(0);  // owner tagged fields
  b.push_back(0);  // body tagged fields
  return Sized(b);
}

// The page's data, parsed back.
Json Data(const std::string& page) {
  const std::optional<std::string> text = PageDataText(page);
  EXPECT_TRUE(text.has_value());
  return text ? Json::parse(*text) : Json();
}

// The path of every node row, rebuilt as the page's script does (parent's path, its
// first `keep` characters, then `rest`).
std::vector<std::string> Paths(const Json& frame) {
  std::vector<std::string> paths, stack;
  for (const Json& n : frame["nodes"]) {
    const size_t depth = n[0].get<size_t>();
    stack.resize(depth);
    std::string p;  // the parent: the last node at depth - 1
    if (depth > 0) p = stack[depth - 1].substr(0, n[10].get<size_t>());
    p += n[11].get<std::string>();
    stack.push_back(p);
    paths.push_back(p);
  }
  return paths;
}

using test_util::Count;

const Json* NodeAt(const Json& frame, const std::vector<std::string>& paths,
                   const std::string& path) {
  auto it = std::find(paths.begin(), paths.end(), path);
  return it == paths.end() ? nullptr : &frame["nodes"][static_cast<size_t>(it - paths.begin())];
}

// ---- Escaping.

TEST(Escaping, ScriptSafeJsonEscapesWhatCouldEndTheScript) {
  const Json j = Json::array({"</script><!--", "a & b > c", "\xe2\x80\xa8|\xe2\x80\xa9", "\"q\""});
  EXPECT_EQ(ScriptSafeJson(j),
            "[\"\\u003c/script\\u003e\\u003c!--\",\"a \\u0026 b \\u003e c\","
            "\"\\u2028|\\u2029\",\"\\\"q\\\"\"]");
  EXPECT_EQ(Json::parse(ScriptSafeJson(j)), j);  // the same strings once parsed
}

TEST(Escaping, InvalidUtf8BecomesReplacementCharacters) {
  FrameView f;
  f.ex.bytes = {0, 0, 0, 0};
  f.ex.title = "t\xff";
  f.heading = "h\xc3(";
  PrintNode n;
  n.size = 4;
  n.label = "a\xff" "b";
  n.value = "\xed\xa0\x80";  // an encoded surrogate: not UTF-8
  n.path = "p";
  f.ex.nodes = {n};
  Json page;
  page["frames"] = Json::array({FrameData(f)});
  const std::string text = ScriptSafeJson(page);
  EXPECT_TRUE(IsValidUtf8(text));
  const Json back = Json::parse(text);
  EXPECT_EQ(back["frames"][0]["title"], "t\xef\xbf\xbd");
  EXPECT_EQ(back["frames"][0]["heading"], "h\xef\xbf\xbd(");
  EXPECT_EQ(back["frames"][0]["nodes"][0][5], "a\xef\xbf\xbd" "b");
  EXPECT_THAT(back["frames"][0]["nodes"][0][7].get<std::string>(),
              ::testing::StartsWith("\xef\xbf\xbd"));
  EXPECT_EQ(EscapeHtml("<a href=\"x\">'&\xff"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;\xef\xbf\xbd");
}

TEST(Escaping, HostileStringsOfAFrameAreDataInThePage) {
  const std::string script = "<script>alert(1)</script>";
  const std::string end = "</script><script>window.__pwned=1</script>";
  const std::string quotes = "\"'\xe2\x80\xa8&amp;";
  FrameView f;
  f.ex = ExplainRequestFrame(DescribeTokens(script, end, quotes));
  ASSERT_TRUE(f.ex.status.ok()) << f.ex.status;
  const std::string page = ExplainPage({f});
  // The template's two script elements and nothing else.
  EXPECT_EQ(Count(page, "<script"), 2u);
  EXPECT_EQ(Count(page, "</script>"), 2u);
  EXPECT_EQ(Count(page, "window.__pwned"), 1u);  // escaped, inside the data
  const std::string data_text = *PageDataText(page);
  for (const char* forbidden : {"<", ">", "&", "\xe2\x80\xa8"}) {
    EXPECT_EQ(data_text.find(forbidden), std::string::npos) << forbidden;
  }
  const Json data = Json::parse(data_text);
  const Json& frame = data["frames"][0];
  const std::vector<std::string> paths = Paths(frame);
  const Json* client = NodeAt(frame, paths, "RequestHeader.client_id");
  const Json* type = NodeAt(frame, paths, "Body.Owners[0].PrincipalType");
  const Json* name = NodeAt(frame, paths, "Body.Owners[0].PrincipalName");
  ASSERT_TRUE(client && type && name);
  // The strings as the explanation writes them (quoted, as `kwire explain` prints).
  EXPECT_EQ((*client)[7], "\"" + script + "\"");
  EXPECT_EQ((*type)[7], "\"" + end + "\"");
  EXPECT_EQ((*name)[7], "\"\\\"'\xe2\x80\xa8&amp;\"");
}

TEST(Escaping, InvalidUtf8InAFrame) {
  const std::vector<uint8_t> bytes = DescribeTokens("c", "ok", "bad\xff\xfe");
  // Strict: the decoder stops at the first bad byte: size prefix 4, header 12 (key, version,
  // correlation id, client_id "c", tagged fields), Owners count 1, "ok" 3, the length 1 and
  // "bad" 3 of the name: byte 24.
  FrameView strict;
  strict.ex = ExplainRequestFrame(bytes);
  const Json s = FrameData(strict);
  EXPECT_EQ(s["status"], "error");
  EXPECT_EQ(s["error"]["kind"], ErrorKindName(ErrorKind::kInvalidUtf8));
  EXPECT_EQ(s["error"]["offset"], 24);
  EXPECT_EQ(s["error"]["path"], "DescribeDelegationTokenRequest.Owners[0].PrincipalName");
  // Under the quirk the value is shown with the bad bytes escaped, as text.
  PrintOptions quirks;
  quirks.decode.quirks = kQuirkInvalidUtf8;
  FrameView lenient;
  lenient.ex = ExplainRequestFrame(bytes, quirks);
  ASSERT_TRUE(lenient.ex.status.ok()) << lenient.ex.status;
  const Json data = Json::parse(*PageDataText(ExplainPage({lenient})));
  const Json& frame = data["frames"][0];
  const Json* name = NodeAt(frame, Paths(frame), "Body.Owners[0].PrincipalName");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ((*name)[7], "\"bad\\xff\\xfe\"");
  EXPECT_THAT((*name)[9].get<std::string>(), ::testing::StartsWith("invalid UTF-8 at byte 24"));
}

TEST(Page, TemplateIsSelfContained) {
  const std::string page = ExplainPage({});
  EXPECT_EQ(page.find("http:"), std::string::npos);
  EXPECT_EQ(page.find("https:"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@KWIRE_"), std::string::npos);  // every slot filled
  EXPECT_THAT(page, ::testing::HasSubstr("script-src 'sha256-"));
  EXPECT_THAT(page, ::testing::HasSubstr("default-src 'none'"));
  EXPECT_EQ(Data(page)["frames"], Json::array());
  EXPECT_THAT(page, ::testing::HasSubstr("<title>kwire explain: 0 frames</title>"));
}

// ---- Sections.

TEST(Sections, ProduceRequestWithRecords) {
  const std::string key = "k", value = "value", hkey = "h", hvalue = "v";
  Record r1;
  r1.key = key;
  r1.value = value;
  r1.headers.push_back(RecordHeader{hkey, hvalue});
  Record r2;
  r2.offset_delta = 1;
  r2.value = value;
  BatchHeader bh;
  bh.last_offset_delta = 1;
  const absl::StatusOr<std::string> batch = EncodeRecordBatch(bh, std::vector<Record>{r1, r2});
  ASSERT_TRUE(batch.ok()) << batch.status();
  ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 1000;
  req.topic_data.emplace_back();
  req.topic_data[0].name = "t";
  req.topic_data[0].partition_data.emplace_back();
  req.topic_data[0].partition_data[0].records = Records{*batch};
  const absl::StatusOr<std::vector<uint8_t>> bytes =
      EncodeRequestFrame(int16_t{9}, 1, std::string("c"), req);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  PrintOptions options;
  options.records = &PrintRecordBatches;
  const FrameExplanation ex = ExplainRequestFrame(*bytes, options);
  ASSERT_TRUE(ex.status.ok()) << ex.status;

  // Produce v9, request header v2 with client_id "c": 4 framing bytes, 12 header bytes
  // of which the last is the header's tagged-field count, then the body: transactional_id
  // (null, 1), acks (2), timeout (4), topics count (1), name (2), partitions count (1),
  // index (4), records length (1) = 16 bytes before the batch at 32; the batch header is
  // 61 bytes, its two records follow; after the records: partition, topic and body
  // tagged-field counts (3 bytes).
  const std::vector<Section> s = ByteSections(ex, Direction::kRequest);
  ASSERT_EQ(s.size(), bytes->size());
  const size_t batch_at = 4 + 12 + 16, records_at = batch_at + 61;
  const size_t record1 = 1 + 1 + 1 + 1 + 1 + 1 + 1 + 5 + 1 + 1 + 1 + 1 + 1;  // 17
  const size_t record2 = 1 + 1 + 1 + 1 + 1 + 1 + 5 + 1;                          // 12
  ASSERT_EQ(bytes->size(), records_at + record1 + record2 + 3);
  std::vector<std::pair<size_t, Section>> runs;
  for (size_t i = 0; i < s.size(); ++i) {
    if (runs.empty() || runs.back().second != s[i]) runs.emplace_back(i, s[i]);
  }
  EXPECT_THAT(runs, ElementsAre(std::pair(size_t{0}, Section::kFraming),
                                std::pair(size_t{4}, Section::kHeader),
                                std::pair(size_t{15}, Section::kTaggedFields),
                                std::pair(size_t{16}, Section::kRequestBody),
                                std::pair(batch_at, Section::kRecordBatch),
                                std::pair(records_at, Section::kRecord),
                                std::pair(records_at + record1 + record2, Section::kTaggedFields)));
  // Two records back to back: one run; the record nodes say where each starts.
  size_t starts = 0;
  for (const PrintNode& n : ex.nodes) {
    if (n.label.rfind("Record[", 0) == 0) {
      EXPECT_EQ(n.offset, starts == 0 ? records_at : records_at + record1) << n.path;
      ++starts;
    }
  }
  EXPECT_EQ(starts, 2u);

  // The page's data carries the same runs and names them in the legend's order.
  FrameView f;
  f.ex = ex;
  const Json data = FrameData(f);
  ASSERT_EQ(data["sections"].size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(data["sections"][i][0], runs[i].first);
    EXPECT_EQ(data["sections"][i][2], static_cast<int>(runs[i].second));
  }
  EXPECT_EQ(data["sections"].back()[1], bytes->size());
  EXPECT_STREQ(SectionName(Section::kRecordBatch), "RecordBatch");
  EXPECT_STREQ(SectionName(Section::kHeader), "rpc header");
  EXPECT_STREQ(SectionName(Section::kTaggedFields), "tagged_fields");
  // Summary: API, key, version, header version, flexible versions, size.
  const Json want1 = Json::parse(R"j([["API","Produce"],["API key","0"],["version","9"],
      ["header version","request header v2"],["flexible versions","9+"],
      ["API versions","0-13 (current 3-13)"],["size","125 bytes (size prefix 121)"]])j");
  EXPECT_EQ(data["summary"], want1)
      << data["summary"].dump();
}

TEST(Sections, ResponseBodyAndRedactedBytes) {
  // RenewDelegationToken v2 request: its Hmac is sensitive, hidden in the hex.
  std::vector<uint8_t> b;
  Put16(b, 39);
  Put16(b, 2);
  Put32(b, 0);
  PutString16(b, "");
  b.push_back(0);
  PutCompact(b, "\x01\x02\x03");  // Hmac
  for (int i = 0; i < 8; ++i) b.push_back(0);  // RenewPeriodMs
  b.push_back(0);
  FrameView f;
  f.ex = ExplainRequestFrame(Sized(b));
  ASSERT_TRUE(f.ex.status.ok()) << f.ex.status;
  const Json data = FrameData(f);
  // The length prefix stays, the three payload bytes are hidden.
  EXPECT_EQ(data["hex"].get<std::string>().substr(30, 8), "04******");

  // A response: its body is a response body.
  FrameView r;
  r.dir = Direction::kResponse;
  r.api_key = 39;
  r.api_version = 2;
  std::vector<uint8_t> ok(24, 0);
  ok[3] = 20;
  r.ex = ExplainResponseFrame(ok, 39, 2);
  ASSERT_TRUE(r.ex.status.ok()) << r.ex.status;
  const std::vector<Section> s = ByteSections(r.ex, Direction::kResponse);
  EXPECT_EQ(s[9], Section::kResponseBody);
  EXPECT_EQ(s[23], Section::kTaggedFields);
  EXPECT_EQ(FrameData(r)["summary"][3], Json::array({"header version", "response header v1"}));
}

// ---- A frame that does not decode.

TEST(FailingFrame, DataNamesTheErrorAndTheFailedNodes) {
  // The README's example: one byte short (the body's tagged-field count is missing).
  const std::vector<uint8_t> bytes = {0, 0, 0, 0x0f, 0, 0x29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0};
  FrameView f;
  f.ex = ExplainRequestFrame(bytes);
  ASSERT_FALSE(f.ex.status.ok());
  const Json data = Json::parse(*PageDataText(ExplainPage({f})));
  const Json& frame = data["frames"][0];
  EXPECT_EQ(frame["status"], "error");
  EXPECT_EQ(frame["error"]["kind"], "truncated");
  EXPECT_EQ(frame["error"]["offset"], 19);
  EXPECT_EQ(frame["error"]["path"], "DescribeDelegationTokenRequest.tagged_fields");
  EXPECT_EQ(frame["error"]["detail"], "uvarint: need 1, have 0");
  EXPECT_EQ(frame["error"]["message"], std::string(f.ex.status.message()));
  const std::vector<std::string> paths = Paths(frame);
  std::vector<std::string> failed;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (frame["nodes"][i][4].get<int>() & 1) failed.push_back(paths[i]);
  }
  EXPECT_THAT(failed, ElementsAre("DescribeDelegationTokenRequest", "Body", "Body.tagged_fields"));
  EXPECT_EQ(frame["size"], 19);
  EXPECT_EQ(frame["hex"], "0000000f002900030000000000000002010100");  // 19 bytes
}

TEST(FailingFrame, DataCarriesTheHints) {
  const std::vector<uint8_t> bytes = {0, 0, 0, 0x0f, 0, 0x29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0};
  FrameView f;
  f.ex = ExplainRequestFrame(bytes);
  f.hints = {"the size prefix at byte 0 reads 15; with 14 the frame decodes cleanly"};
  const Json data = Json::parse(*PageDataText(ExplainPage({f})));
  EXPECT_EQ(data["frames"][0]["error"]["hints"], Json::array({f.hints[0]}));
  f.hints.clear();
  const Json none = Json::parse(*PageDataText(ExplainPage({f})));
  EXPECT_EQ(none["frames"][0]["error"]["hints"], Json::array());
}

TEST(FailingFrame, UnreadableHeaderStillGivesAPage) {
  FrameView f;
  f.ex = ExplainRequestFrame(std::vector<uint8_t>{0, 0});
  const Json data = FrameData(f);
  EXPECT_EQ(data["status"], "error");
  EXPECT_EQ(data["summary"][0], Json::array({"API", "unknown (the header is not readable)"}));
  EXPECT_EQ(data["error"]["kind"], "truncated");
}

// ---- Bounds.

TEST(Bounds, HundredThousandNodesRenderInBoundedSize) {
  // An explanation shaped like a big array: 100,000 nodes, 4 bytes each.
  constexpr size_t kNodes = 100000;
  FrameView f;
  f.ex.bytes.assign(4 * kNodes, 0xab);
  f.ex.title = "big";
  f.ex.nodes.reserve(kNodes);
  PrintNode root;
  root.kind = PrintNode::Kind::kMessage;
  root.size = f.ex.bytes.size();
  root.path = "BigRequest";
  root.label = "BigRequest";
  f.ex.nodes.push_back(root);
  PrintNode body;
  body.kind = PrintNode::Kind::kBody;
  body.depth = 1;
  body.size = f.ex.bytes.size();
  body.path = "Body";
  body.label = "Big";
  f.ex.nodes.push_back(body);
  for (size_t i = 2; i < kNodes; ++i) {
    PrintNode n;
    n.depth = 2;
    n.offset = 4 * i;
    n.size = 4;
    n.path = "Body.Partitions[" + std::to_string(i) + "].LeaderEpoch";
    n.label = "LeaderEpoch";
    n.type = "int32";
    n.value = "-1";
    f.ex.nodes.push_back(std::move(n));
  }
  const std::string page = ExplainPage({f});
  // Template + 2 hex digits per byte + at most 100 bytes of data per node of this shape
  // (85 measured: paths are written relative to the parent's, not whole).
  const std::string empty = ExplainPage({});
  EXPECT_LT(page.size(), empty.size() + 2 * f.ex.bytes.size() + 100 * kNodes) << page.size();
  // Whole paths would not fit: the 100,000 paths alone are 3.3 MB.
  size_t whole = 0;
  for (const PrintNode& n : f.ex.nodes) whole += n.path.size();
  EXPECT_GT(whole, 3000000u);
  const Json data = Json::parse(*PageDataText(page));
  const Json& frame = data["frames"][0];
  ASSERT_EQ(frame["nodes"].size(), kNodes);
  EXPECT_EQ(frame["nodes_dropped"], 0);
  EXPECT_EQ(Paths(frame)[kNodes - 1], "Body.Partitions[99999].LeaderEpoch");
  EXPECT_EQ(frame["nodes"][kNodes - 1][10], 4);  // "Body" kept from the parent

  // Beyond the page limit nodes are dropped, and the page says how many.
  PageLimits limits;
  limits.max_nodes = 60000;
  EXPECT_EQ(FrameData(f, limits)["nodes_dropped"], 40000);
  EXPECT_EQ(FrameData(f, limits)["nodes"].size(), 60000u);
}

// ---- Schema (site pages).

TEST(Schema, FieldsOfKwiresDefinitions) {
  std::vector<std::string> rows;
  for (const SchemaRow& r : SchemaOf(&DescribeDelegationTokenRequest::kMessage)) {
    rows.push_back(absl::StrCat(r.depth, " ", r.field->name, " ", r.field->type_name, " ",
                                RangeText(r.field->versions), " ", RangeText(r.field->nullable)));
  }
  EXPECT_THAT(rows, ElementsAre("0 Owners []DescribeDelegationTokenOwner 0+ 0+",
                                "1 PrincipalType string 0+ none", "1 PrincipalName string 0+ none"));
  // Tagged fields carry their tag: ApiVersionsResponse v3+ SupportedFeatures is tag 0.
  const ApiInfo* api = FindApi(18);
  ASSERT_NE(api, nullptr);
  bool found = false;
  for (const SchemaRow& r : SchemaOf(api->response->spec)) {
    if (std::string_view(r.field->name) == "SupportedFeatures") {
      found = true;
      EXPECT_EQ(r.depth, 0);
      EXPECT_EQ(r.field->tag, 0);
      EXPECT_EQ(RangeText(r.field->tagged), "3+");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(SchemaOf(nullptr).empty());
}

}  // namespace
}  // namespace kwire::html
