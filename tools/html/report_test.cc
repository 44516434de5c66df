// The conformance report page (report.h): counts, the failing byte or field marked in a
// failure's frame, expected vs answered with the differing members, a testee's hostile
// error text kept as data, and the page's bounds. What the script draws from the data is
// browser_test.py's (the conformance report page).
#include "tools/html/report.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codec/wire/error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/html/html_test_util.h"

namespace kwire::html {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kDdt3Request = "0000001000290003000000000000000201010000";

Json Data(const std::string& page) {
  const std::optional<std::string> text = PageDataText(page);
  EXPECT_TRUE(text.has_value());
  return text ? Json::parse(*text) : Json();
}

using test_util::Count;

TEST(ReportDiff, PathsAsTheRunnerNamesThem) {
  const Json want = Json::parse(
      R"({"result":"ok","header":{"A":1},"body":{"T":[{"N":"x"},{"N":"y"}],"L":[1,2],"M":"5","Gone":true}})");
  const Json got = Json::parse(
      R"({"seq":4,"result":"ok","error":"e","header":{"A":1,"B":2},"body":{"T":[{"N":"x"},{"N":"z"}],"L":[1],"M":5}})");
  // Extra members of the top level (seq, error) are not differences; an int64 answered
  // as a number equals its string; the rest in the vector's member order.
  EXPECT_THAT(JsonDiffPaths(want, got),
              ElementsAre("header.B", "body.T[1].N", "body.L", "body.Gone"));
  EXPECT_THAT(JsonDiffPaths(want, got, 2), ElementsAre("header.B", "body.T[1].N"));
  EXPECT_TRUE(JsonDiffPaths(want, want).empty());
  EXPECT_THAT(JsonDiffPaths(Json::parse(R"({"result":"ok"})"), Json::parse(R"({"result":"rejected"})")),
              ElementsAre("result"));
}

TEST(ReportDiff, TreePathsOfJsonPaths) {
  EXPECT_EQ(TreePathOfJsonPath("header.CorrelationId", Direction::kRequest),
            "RequestHeader.correlation_id");
  EXPECT_EQ(TreePathOfJsonPath("header.RequestApiKey", Direction::kRequest),
            "RequestHeader.request_api_key");
  EXPECT_EQ(TreePathOfJsonPath("header.CorrelationId", Direction::kResponse),
            "ResponseHeader.correlation_id");
  EXPECT_EQ(TreePathOfJsonPath("body.Topics[10].Name", Direction::kRequest), "Body.Topics[10].Name");
  EXPECT_EQ(TreePathOfJsonPath("result", Direction::kRequest), "");
  const FrameExplanation ex = ExplainRequestFrame(std::vector<uint8_t>{
      0, 0, 0, 0x10, 0, 0x29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0, 0});
  ASSERT_TRUE(ex.status.ok()) << ex.status;
  const PrintNode* n = FindTreeNode(ex, "Body.Owners[0].PrincipalType");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->offset, 16u);
  // A path the tree does not have: its nearest ancestor that it has.
  n = FindTreeNode(ex, "Body.Owners[0].Bogus[3]");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->path, "Body.Owners[0]");
  const std::vector<uint8_t> a = {1, 2, 3}, b = {1, 2, 4}, c = {1, 2};
  EXPECT_EQ(FirstDifferentByte(a, b).value_or(99), 2u);
  EXPECT_EQ(FirstDifferentByte(a, c).value_or(99), 2u);
  EXPECT_FALSE(FirstDifferentByte(c, c).has_value());
}

// A native run of three vectors: one passes, one does not decode (a request read as a
// response: unexpected_null at byte 11), one decodes but is not the minimal frame
// (correlation_id 7: byte 11).
class NativeReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(testing::TempDir()) / "kwire-report-native";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream v(dir_ / "mini.txt");
    v << "# test vectors\n"
      << "41 DescribeDelegationToken 3 request 20 " << kDdt3Request << "\n"
      << "41 DescribeDelegationToken 3 response 20 " << kDdt3Request << "\n"
      << "41 DescribeDelegationToken 3 request 20 0000001000290003000000070000000201010000\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(NativeReport, CountsMarksAndBounds) {
  const conformance::Report report = conformance::RunConformance(dir_.string(), "");
  ASSERT_EQ(report.results.size(), 3u);
  const Json data = Data(NativeReportPage(report));
  EXPECT_EQ(data["page"], "conformance");
  EXPECT_EQ(data["mode"], "native");
  EXPECT_EQ(data["ok"], false);
  EXPECT_EQ(data["outcomes"], Json::parse(R"(["pass","fail","expected failure","unexpected pass"])"));
  EXPECT_EQ(data["totals"], Json::parse("[1,2,0,0]"));
  EXPECT_EQ(data["sets"], Json::parse(R"([["mini.txt",3,1,2,0,0]])"));
  EXPECT_EQ(data["apis"], Json::parse(R"([[41,"DescribeDelegationToken",3,3,1,2,0,0]])"));
  EXPECT_EQ(data["failures_total"], 2);
  ASSERT_EQ(data["failures"].size(), 2u);
  EXPECT_TRUE(data["failures_more"].empty());

  const Json& bad_decode = data["failures"][0];
  EXPECT_EQ(bad_decode["id"], "41 DescribeDelegationToken v3 response");
  EXPECT_EQ(bad_decode["file"], "mini.txt");
  EXPECT_EQ(bad_decode["line"], 3);
  EXPECT_EQ(bad_decode["checks"][0]["check"], "decode");
  EXPECT_THAT(bad_decode["checks"][0]["message"].get<std::string>(), HasSubstr("unexpected_null at byte 11"));
  EXPECT_EQ(bad_decode["mark"]["offset"], 11);  // the decoder's error offset
  EXPECT_EQ(bad_decode["mark"]["path"], "Body.Tokens.length");  // where decoding stopped
  EXPECT_EQ(bad_decode["frame"]["error"]["offset"], 11);
  EXPECT_EQ(bad_decode["command"],
            std::string("echo ") + kDdt3Request + " | kwire explain response --api 41 --version 3");

  const Json& not_minimal = data["failures"][1];
  EXPECT_EQ(not_minimal["line"], 4);
  ASSERT_EQ(not_minimal["checks"].size(), 1u);
  EXPECT_EQ(not_minimal["checks"][0]["check"], "minimal instance");
  EXPECT_EQ(not_minimal["mark"]["offset"], 11);  // the first byte that differs
  EXPECT_EQ(not_minimal["mark"]["path"], "RequestHeader.correlation_id");
  EXPECT_THAT(not_minimal["mark"]["why"].get<std::string>(),
              HasSubstr("byte 11, 0x07 expected, 0x00 in the codec's"));
  EXPECT_EQ(not_minimal["frame"]["status"], "ok");
  EXPECT_EQ(not_minimal["frame"]["size"], 20);

  // Bounded: one drawn in full, the other listed by id.
  ReportLimits one;
  one.max_failures = 1;
  const Json bounded = NativeReportData(report, one);
  EXPECT_EQ(bounded["failures_total"], 2);
  EXPECT_EQ(bounded["failures"].size(), 1u);
  ASSERT_EQ(bounded["failures_more"].size(), 1u);
  EXPECT_EQ(bounded["failures_more"][0][0], "41 DescribeDelegationToken v3 request");
  EXPECT_EQ(bounded["failures_more"][0][1], "fail");
  EXPECT_EQ(bounded["failures_more"][0][2], "mini.txt:4");
}

conformance::JsonlVector Vector(const std::string& line) {
  conformance::JsonlVector v;
  v.record = Json::parse(line);
  v.file = v.record["set"].get<std::string>() + ".jsonl";
  v.line = 7;
  v.id = v.record["id"];
  v.set = v.record["set"];
  v.category = conformance::CategoryOfSet(v.set);
  v.api_key = v.record["api_key"];
  v.version = v.record["version"];
  v.request = v.record["direction"] == "request";
  v.refuse = v.record["expect"] == "refuse";
  v.accept = v.record["expect"] == "accept" || v.refuse;
  v.lenient = v.record.value("lenient", false);
  return v;
}

conformance::OpResult Judged(const conformance::JsonlVector& v, const std::string& op,
                             const std::string& answer) {
  conformance::OpResult r;
  const Json a = Json::parse(answer);
  conformance::JudgeAnswer(v, op, a, r);
  if (r.verdict == "fail") r.answered = a;  // as RunTestee keeps it
  return r;
}

// A testee that gets the minimal DescribeDelegationToken v3 request wrong three ways and
// accepts a frame that must be rejected.
conformance::TesteeReport WrongTestee() {
  conformance::TesteeReport r;
  r.options.command = "python3 wrong.py";
  r.options.dir = "/v";
  r.name = "wrong";
  r.version = "1";
  r.operations = {"decode", "roundtrip", "validate"};
  r.vectors.push_back(Vector(
      R"({"format":1,"id":"minimal/DescribeDelegationToken/v3/request","set":"minimal","api_key":41,"api_name":"DescribeDelegationToken","version":3,"direction":"request","header_version":2,"frame":"0000001000290003000000000000000201010000","expect":"accept","header":{"RequestApiKey":41,"RequestApiVersion":3,"CorrelationId":0,"ClientId":""},"body":{"Owners":[{"PrincipalType":"","PrincipalName":""}]}})"));
  r.vectors.push_back(Vector(
      R"({"format":1,"id":"negative/DescribeDelegationToken/v3/request/varint_overflow","set":"negative","api_key":41,"api_name":"DescribeDelegationToken","version":3,"direction":"request","header_version":2,"frame":"000000140029000300000000000000028180808010010000","expect":"reject","error":{"kind":"varint_overflow","offset":16,"path":"DescribeDelegationTokenRequest.Owners[0].PrincipalType"},"lenient":true,"mutation":"minimal/DescribeDelegationToken/v3/request: DescribeDelegationTokenRequest.Owners[0].PrincipalType uvarint length 1 rewritten as 8180808010"})"));
  conformance::TesteeResult a;
  a.vector = 0;
  a.outcome = conformance::TesteeOutcome::kFail;
  a.ops.push_back(Judged(r.vectors[0], "decode",
                         R"({"seq":1,"result":"ok","header":{"RequestApiKey":41,"RequestApiVersion":3,"CorrelationId":0,"ClientId":""},"body":{"Owners":[{"PrincipalType":"User","PrincipalName":""}]}})"));
  a.ops.push_back(Judged(r.vectors[0], "roundtrip",
                         R"({"seq":2,"result":"ok","frame":"0000001000290003000000010000000201010000"})"));
  a.ops.push_back(Judged(r.vectors[0], "validate",
                         R"({"seq":3,"result":"rejected","error":"</script><script>window.__pwned=1</script>","kind":"truncated","offset":16})"));
  r.results.push_back(a);
  conformance::TesteeResult b;
  b.vector = 1;
  b.outcome = conformance::TesteeOutcome::kFail;
  b.ops.push_back(Judged(r.vectors[1], "validate", R"({"seq":4,"result":"ok"})"));
  r.results.push_back(b);
  return r;
}

TEST(TesteeReport, FailuresWithMarksAndAnswers) {
  const conformance::TesteeReport report = WrongTestee();
  for (const auto& res : report.results) {
    for (const auto& op : res.ops) ASSERT_EQ(op.verdict, "fail") << op.op << ": " << op.detail;
  }
  const Json data = Data(TesteeReportPage(report));
  EXPECT_EQ(data["mode"], "testee");
  EXPECT_EQ(data["title"], "kwire conformance: wrong 1");
  EXPECT_EQ(data["totals"], Json::parse("[0,2,0,0,0,0]"));
  EXPECT_EQ(data["sets"], Json::parse(R"([["minimal.jsonl",1,0,1,0,0,0,0],["negative.jsonl",1,0,1,0,0,0,0]])"));
  EXPECT_EQ(data["apis"], Json::parse(R"([[41,"DescribeDelegationToken",3,2,0,2,0,0,0,0]])"));
  ASSERT_EQ(data["failures"].size(), 2u);

  const Json& f = data["failures"][0];
  EXPECT_EQ(f["id"], "minimal/DescribeDelegationToken/v3/request");
  EXPECT_EQ(f["command"], "kwire explain --vector /v/minimal.jsonl:7");
  ASSERT_EQ(f["checks"].size(), 3u);
  // decode: expected vs answered, the differing member named, and marked in the frame.
  const Json& decode = f["checks"][0];
  EXPECT_EQ(decode["check"], "decode");
  EXPECT_EQ(decode["compare"]["diffs"], Json::parse(R"(["body.Owners[0].PrincipalType"])"));
  EXPECT_EQ(decode["compare"]["expected"]["body"]["Owners"][0]["PrincipalType"], "");
  EXPECT_EQ(decode["compare"]["answered"]["body"]["Owners"][0]["PrincipalType"], "User");
  EXPECT_FALSE(decode["compare"]["answered"].contains("seq"));
  EXPECT_EQ(f["mark"]["offset"], 16);
  EXPECT_EQ(f["mark"]["path"], "Body.Owners[0].PrincipalType");
  // roundtrip: the frame, differing at byte 11.
  const Json& roundtrip = f["checks"][1];
  EXPECT_EQ(roundtrip["compare"]["diffs"], Json::parse(R"(["frame"])"));
  EXPECT_THAT(roundtrip["message"].get<std::string>(), HasSubstr("first difference at byte 11"));
  // validate: a valid frame rejected, with the testee's own (hostile) error text.
  const Json& validate = f["checks"][2];
  EXPECT_EQ(validate["answer"], "rejected");
  EXPECT_EQ(validate["error"], "</script><script>window.__pwned=1</script> [truncated at byte 16]");
  EXPECT_EQ(validate["compare"]["diffs"], Json::parse(R"(["result"])"));

  // The roundtrip alone marks its first differing byte; the rejection its offset.
  const std::vector<uint8_t> ddt = {0, 0, 0, 0x10, 0, 0x29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0, 0};
  const FrameExplanation ex = ExplainRequestFrame(ddt);
  const conformance::TesteeResult& a = report.results[0];
  FailureMark m = TesteeMark(report.vectors[0], {a.ops[1]}, ex);
  EXPECT_EQ(m.offset.value_or(999), 11u);
  EXPECT_EQ(m.path, "RequestHeader.correlation_id");
  EXPECT_THAT(m.why, HasSubstr("byte 11, 0x00 expected, 0x01 answered"));
  m = TesteeMark(report.vectors[0], {a.ops[2]}, ex);
  EXPECT_EQ(m.offset.value_or(999), 16u);
  EXPECT_EQ(m.path, "Body.Owners[0].PrincipalType");

  // A frame that must be rejected, accepted: the vector's error offset, and its mutation.
  const Json& g = data["failures"][1];
  EXPECT_EQ(g["expect"], "reject");
  EXPECT_THAT(g["mutation"].get<std::string>(), HasSubstr("uvarint length 1 rewritten as 8180808010"));
  EXPECT_EQ(g["mark"]["offset"], 16);
  EXPECT_THAT(g["mark"]["why"].get<std::string>(), HasSubstr("varint_overflow"));
  EXPECT_EQ(g["frame"]["error"]["kind"], ErrorKindName(ErrorKind::kVarintOverflow));
  EXPECT_EQ(g["frame"]["error"]["offset"], 16);
  EXPECT_EQ(g["checks"][0]["compare"]["expected"]["result"], "rejected");
  EXPECT_EQ(g["checks"][0]["compare"]["expected"]["offset"], 16);
}

TEST(TesteeReport, HostileTesteeTextIsData) {
  const std::string page = TesteeReportPage(WrongTestee());
  // The template's two script elements and nothing else; the testee's text escaped.
  EXPECT_EQ(Count(page, "<script"), 2u);
  EXPECT_EQ(Count(page, "</script>"), 2u);
  const std::string data = *PageDataText(page);
  // Only in the data: the check's message, the error text and the answer's "error".
  EXPECT_EQ(Count(data, "window.__pwned"), 3u);
  EXPECT_EQ(Count(page, "window.__pwned"), 3u);
  for (const char* forbidden : {"<", ">", "&"}) {
    EXPECT_EQ(data.find(forbidden), std::string::npos) << forbidden;
  }
  EXPECT_THAT(data, HasSubstr("\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned=1"));
}

}  // namespace
}  // namespace kwire::html
