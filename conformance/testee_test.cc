// The testee runner (conformance/testee.h): verdicts on crafted answers, and whole runs
// against small testee programs (python3 scripts written by the test) that answer
// wrongly, answer garbage, die, hang, never start or flood stderr. The full suite against
// kwire's own testee is the ctest `kwire.conformance_testee` (tools/kwire/CMakeLists.txt).
#include "conformance/testee.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "conformance/line_process.h"
#include "conformance/xml_escape.h"

#ifndef KWIRE_CONFORMANCE_DIR
#error "KWIRE_CONFORMANCE_DIR must name conformance/vectors"
#endif

namespace kwire::conformance {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<Json> ReadJsonl(const std::string& name) {
  std::vector<Json> out;
  std::ifstream in(fs::path(KWIRE_CONFORMANCE_DIR) / name);
  std::string line;
  while (std::getline(in, line)) out.push_back(Json::parse(line));
  return out;
}

Json FindById(const std::string& file, const std::string& id) {
  for (Json& j : ReadJsonl(file)) {
    if (j["id"] == id) return j;
  }
  ADD_FAILURE() << "no vector " << id << " in " << file;
  return Json::object();
}

JsonlVector Make(const Json& record) {
  JsonlVector v;
  v.id = record["id"];
  v.set = record["set"];
  v.category = CategoryOfSet(v.set);
  v.api_key = record["api_key"];
  v.version = record["version"];
  v.request = record["direction"] == "request";
  v.refuse = record["expect"] == "refuse";
  v.accept = record["expect"] == "accept" || v.refuse;
  v.lenient = (!v.accept || v.refuse) && record.value("lenient", false);
  v.record = record;
  return v;
}

OpResult Judge(const JsonlVector& v, const std::string& op, const Json& answer) {
  OpResult r;
  JudgeAnswer(v, op, answer, r);
  return r;
}

// A vector whose body has an int64 (a decimal string in the vector).
const Json& ListOffsets() {
  static const Json j = FindById("rich.jsonl", "rich/ListOffsets/v1/request");
  return j;
}

TEST(JudgeAnswer, DecodeExactAndInt64AsNumber) {
  const JsonlVector v = Make(ListOffsets());
  Json a = {{"seq", 1}, {"result", "ok"}, {"header", v.record["header"]}, {"body", v.record["body"]}};
  EXPECT_EQ(Judge(v, "decode", a).verdict, "pass");
  // The partition's Timestamp is an int64: "-9223372036854775807"-like strings may be numbers.
  Json& ts = a["body"]["Topics"][1]["Partitions"][0]["Timestamp"];
  ASSERT_TRUE(ts.is_string());
  ts = std::stoll(ts.get<std::string>());
  EXPECT_EQ(Judge(v, "decode", a).verdict, "pass") << Judge(v, "decode", a).detail;
  ts = ts.get<int64_t>() ^ 1;
  OpResult r = Judge(v, "decode", a);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "body.Topics[1].Partitions[0].Timestamp (byte ")) << r.detail;
}

TEST(JudgeAnswer, DecodeMembersMustMatch) {
  const JsonlVector v = Make(ListOffsets());
  Json a = {{"seq", 1}, {"result", "ok"}, {"header", v.record["header"]}, {"body", v.record["body"]}};
  Json missing = a;
  missing["body"].erase("ReplicaId");
  OpResult r = Judge(v, "decode", missing);
  EXPECT_EQ(r.verdict, "fail");
  // ReplicaId, the body's first field, follows the header v1: size, key, version,
  // correlation id, client id (int16 length and bytes).
  const size_t replica_at = 4 + 2 + 2 + 4 + 2 + v.record["header"]["ClientId"].get<std::string>().size();
  EXPECT_EQ(r.detail, absl::StrCat("body.ReplicaId (byte ", replica_at, "): missing"));
  EXPECT_EQ(r.differences, Json::parse(absl::StrCat(
                               R"([{"path": "body.ReplicaId", "text": "missing", "offset": )",
                               replica_at, R"(, "tree_path": "Body.ReplicaId"}])")));
  Json extra = a;
  extra["header"]["Bogus"] = 1;
  r = Judge(v, "decode", extra);
  EXPECT_EQ(r.detail, "header.Bogus: not in the vector (an unexpected member)");
  Json shorter = a;
  shorter["body"]["Topics"].erase(0);
  r = Judge(v, "decode", shorter);
  EXPECT_TRUE(absl::StrContains(r.detail, "body.Topics (byte ")) << r.detail;
  EXPECT_TRUE(absl::StrContains(r.detail, "): 3 elements expected, 2 answered")) << r.detail;
  // Equal as JSON numbers (1 == 1.0) but not a valid int32: caught by the JSON mapping.
  Json float_int = a;
  float_int["body"]["ReplicaId"] = static_cast<double>(a["body"]["ReplicaId"].get<int32_t>());
  r = Judge(v, "decode", float_int);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "not a valid message in the JSON mapping")) << r.detail;
  Json no_body = a;
  no_body.erase("body");
  EXPECT_EQ(Judge(v, "decode", no_body).detail, "the answer has no \"body\"");
}

// Every difference is named, in wire order (the vector's member order), not only the
// first in alphabetical order: a testee that swaps two fields is told about both.
TEST(JudgeAnswer, DecodeNamesEveryDifferenceInWireOrder) {
  const JsonlVector v = Make(FindById("minimal.jsonl", "minimal/ApiVersions/v3/request"));
  Json a = {{"seq", 1}, {"result", "ok"}, {"header", v.record["header"]}, {"body", v.record["body"]}};
  a["body"]["ClientSoftwareName"] = "b";
  a["body"]["ClientSoftwareVersion"] = "a";
  a["header"]["CorrelationId"] = 7;
  const OpResult r = Judge(v, "decode", a);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.detail,
            "header.CorrelationId (byte 8): expected 0, answered 7; "
            "body.ClientSoftwareName (byte 15): expected \"\", answered \"b\"; "
            "body.ClientSoftwareVersion (byte 16): expected \"\", answered \"a\"");
}

// A rejection for another reason than the vector's passes (right verdict) but is marked,
// with both errors structured for the JSON report; --strict-errors makes it a failure.
TEST(JudgeAnswer, RejectedWithAnotherErrorIsMarked) {
  const JsonlVector v = Make(FindById("negative.jsonl", "negative/ApiVersions/v3/request/truncated-length"));
  OpResult same = Judge(v, "validate", {{"result", "rejected"}, {"error", "short"}, {"kind", "truncated"},
                                        {"offset", 16}, {"path", "ApiVersionsRequest.ClientSoftwareVersion"}});
  EXPECT_EQ(same.verdict, "pass");
  EXPECT_FALSE(same.other_error);
  EXPECT_EQ(same.expected_error["offset"], 16);
  OpResult other = Judge(v, "validate", {{"result", "rejected"}, {"error", "short"}, {"kind", "truncated"},
                                         {"offset", 14}});
  EXPECT_EQ(other.verdict, "pass");
  EXPECT_TRUE(other.other_error);
  EXPECT_EQ(other.detail,
            "rejected with another error: offset 14 (expected 16); answered truncated at byte "
            "14, expected truncated at byte 16 in ApiVersionsRequest.ClientSoftwareVersion");
  EXPECT_EQ(other.answered_error, (Json{{"kind", "truncated"}, {"offset", 14}, {"error", "short"}}));
  // An answer without an offset: the detail says only what it gives.
  OpResult no_offset = Judge(v, "validate", {{"result", "rejected"}, {"kind", "invalid_length"}});
  EXPECT_EQ(no_offset.detail,
            "rejected with another error: kind invalid_length (expected truncated); answered "
            "invalid_length, expected truncated at byte 16 in "
            "ApiVersionsRequest.ClientSoftwareVersion");
  EXPECT_EQ(other.expected_error["path"], "ApiVersionsRequest.ClientSoftwareVersion");
  // No kind, offset or path in the answer: nothing to compare.
  EXPECT_FALSE(Judge(v, "validate", {{"result", "rejected"}, {"error", "short"}}).other_error);
}

TEST(JudgeAnswer, FramesCompareByteForByte) {
  const JsonlVector v = Make(ListOffsets());
  std::string hex = v.record["frame"];
  EXPECT_EQ(Judge(v, "roundtrip", {{"result", "ok"}, {"frame", hex}}).verdict, "pass");
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(Judge(v, "encode", {{"result", "ok"}, {"frame", upper}}).verdict, "pass");
  std::string changed = hex;
  changed[20] = changed[20] == '0' ? '1' : '0';  // byte 10
  OpResult r = Judge(v, "encode", {{"result", "ok"}, {"frame", changed}});
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "first difference at byte 10")) << r.detail;
  r = Judge(v, "roundtrip", {{"result", "ok"}, {"frame", "0g"}});
  EXPECT_EQ(r.detail, "the answer has no \"frame\" of hex digits");
}

// A Produce v9 request whose partition holds two batches: it reads, and a broker answers
// the partition with INVALID_RECORD (FORMAT.md, "refuse").
TEST(JudgeAnswer, RefuseVectorsWantTheRefusalNotARejection) {
  const JsonlVector v = Make(FindById("records.jsonl", "records/Produce/v9/request/two-batches"));
  ASSERT_TRUE(v.refuse);
  ASSERT_TRUE(v.accept);
  const Json& want = v.record["refusals"];
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(want[0]["part"], "ProduceRequest.TopicData[0].PartitionData[0].Records");
  EXPECT_EQ(want[0]["error_code"], 87);
  Json refused = {{"result", "refused"},
                  {"header", v.record["header"]},
                  {"body", v.record["body"]},
                  {"refusals", {{{"part", want[0]["part"]}, {"error_code", 87}}}}};
  EXPECT_EQ(Judge(v, "decode", refused).verdict, "pass") << Judge(v, "decode", refused).detail;
  EXPECT_EQ(Judge(v, "validate", {{"result", "refused"}, {"refusals", refused["refusals"]}}).verdict,
            "pass");
  // The decoded values still count.
  Json wrong_body = refused;
  wrong_body["body"]["Acks"] = 1;
  EXPECT_EQ(Judge(v, "decode", wrong_body).verdict, "fail");
  // Another error code, another partition, or none: a different answer from a broker's.
  Json other_code = refused;
  other_code["refusals"][0]["error_code"] = 2;
  OpResult r = Judge(v, "decode", other_code);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "a broker answers \"INVALID_RECORD\" (87) for "
                                          "ProduceRequest.TopicData[0].PartitionData[0].Records"))
      << r.detail;
  Json other_part = refused;
  other_part["refusals"][0]["part"] = "ProduceRequest.TopicData[0].PartitionData[1].Records";
  EXPECT_EQ(Judge(v, "decode", other_part).verdict, "fail");
  Json none = refused;
  none.erase("refusals");
  EXPECT_EQ(Judge(v, "decode", none).detail, "the answer has no \"refusals\" array");
  // Reading it whole (Java's parser alone) or calling it unreadable both fail.
  r = Judge(v, "decode", {{"result", "ok"}, {"header", v.record["header"]}, {"body", v.record["body"]}});
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "accepted a frame a broker refuses in part")) << r.detail;
  r = Judge(v, "validate", {{"result", "rejected"}, {"error", "records not allowed"}});
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "called a frame unreadable that a broker reads")) << r.detail;
  // encode and roundtrip write the frame's bytes, as for accept.
  EXPECT_EQ(Judge(v, "roundtrip", {{"result", "ok"}, {"frame", v.record["frame"]}}).verdict, "pass");
  EXPECT_EQ(Judge(v, "roundtrip", refused).verdict, "fail");
  // A refusal is no answer to an accept or a reject vector.
  const JsonlVector accept = Make(ListOffsets());
  EXPECT_TRUE(absl::StrContains(Judge(accept, "validate", refused).detail,
                                "refused a frame a broker takes whole"));
  const JsonlVector reject = Make(FindById("records.jsonl", "records/Fetch/v4/response/crc_mismatch-legacy"));
  EXPECT_TRUE(absl::StrContains(Judge(reject, "validate", refused).detail,
                                "read a frame that cannot be read"));
}

TEST(JudgeAnswer, AcceptRejectUnsupportedAndGarbage) {
  const JsonlVector good = Make(ListOffsets());
  Json neg;
  for (Json& j : ReadJsonl("negative.jsonl")) {
    if (!j.value("lenient", true)) {
      neg = j;
      break;
    }
  }
  ASSERT_TRUE(neg.is_object());
  const JsonlVector bad = Make(neg);
  EXPECT_EQ(Judge(good, "validate", {{"result", "ok"}}).verdict, "pass");
  OpResult r = Judge(good, "validate", {{"result", "rejected"}, {"error", "nope"}, {"kind", "truncated"}});
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.error, "nope [truncated]");
  EXPECT_EQ(Judge(bad, "validate", {{"result", "rejected"}}).verdict, "pass");
  r = Judge(bad, "decode", {{"result", "ok"}, {"header", {}}, {"body", {}}});
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_TRUE(absl::StrContains(r.detail, "accepted a frame that must be rejected (" +
                                              neg["error"]["kind"].get<std::string>()))
      << r.detail;
  r = Judge(good, "decode", {{"result", "unsupported"}, {"reason", "no such API"}});
  EXPECT_EQ(r.verdict, "unsupported");
  EXPECT_EQ(r.detail, "no such API");
  r = Judge(bad, "validate", {{"result", "crashed"}, {"error", "panic: index out of range"}});
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.detail, "the implementation crashed: panic: index out of range");
  EXPECT_EQ(Judge(good, "decode", {{"result", "maybe"}}).answer, "garbage");
  EXPECT_EQ(Judge(good, "decode", {{"seq", 1}}).verdict, "fail");
}

// ---- Whole runs against small testee programs.

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("kwire_testee_test_", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                        "_", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "vectors");
    std::ofstream out(dir_ / "vectors" / "v.jsonl");
    out << FindById("minimal.jsonl", "minimal/ApiVersions/v3/request").dump() << "\n"
        << ListOffsets().dump() << "\n";
    for (Json& j : ReadJsonl("negative.jsonl")) {
      if (j["id"] == "negative/Produce/v3/request/truncated-length" || (j.value("lenient", false) && !lenient_)) {
        out << j.dump() << "\n";
        if (j.value("lenient", false)) lenient_ = true;
      }
    }
    options_.dir = (dir_ / "vectors").string();
    options_.timeout_seconds = 5;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A python3 testee: answers the hello with `ops`, then `answer(q)` per request (a
  // Python expression over the request `q`, giving the answer object or None for no
  // answer at all). `before` runs per request first (a Python statement).
  std::string Script(const std::string& ops, const std::string& answer, const std::string& before = "pass") {
    const fs::path p = dir_ / absl::StrCat("testee", scripts_++, ".py");
    std::ofstream s(p);
    s << "import json, sys\n"
      << "for line in sys.stdin:\n"
      << "    q = json.loads(line)\n"
      << "    if q['type'] == 'hello':\n"
      << "        print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 't', 'version': '1', "
         "'operations': " << ops << "}), flush=True)\n"
      << "        continue\n"
      << "    " << before << "\n"
      << "    a = " << answer << "\n"
      << "    if a is None: continue\n"
      << "    print(a if isinstance(a, str) else json.dumps(dict(a, seq=q['seq'])), flush=True)\n";
    return absl::StrCat("python3 ", p.string());
  }

  // Two vectors, both passed, and one answer line that answers no request, caught while
  // waiting for seq 2's answer: the run fails.
  void ExpectOneExtraLineBeforeSeq2() {
    options_.categories = {"minimal", "rich"};
    TesteeReport r = RunTestee(options_);
    EXPECT_EQ(r.Count(TesteeOutcome::kPass), 2u);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_TRUE(absl::StrContains(r.errors[0], "1 answer line(s) that answer no request, first before seq 2"))
        << r.errors[0];
    EXPECT_FALSE(r.ok());
  }

  fs::path dir_;
  TesteeOptions options_;
  bool lenient_ = false;
  int scripts_ = 0;
};

TEST_F(RunTest, ValidateEverythingOk) {
  options_.command = Script("['validate']", "{'result': 'ok'}");
  TesteeReport r = RunTestee(options_);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  EXPECT_EQ(r.name, "t");
  EXPECT_EQ(r.operations, std::vector<std::string>{"validate"});
  ASSERT_EQ(r.vectors.size(), 4u);
  EXPECT_EQ(r.Count(TesteeOutcome::kPass), 2u);      // the accept vectors
  EXPECT_EQ(r.Count(TesteeOutcome::kFail), 2u);      // the reject vectors
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.faults.empty());
  // --lenient leaves the lenient one out.
  options_.lenient = true;
  r = RunTestee(options_);
  EXPECT_EQ(r.vectors.size(), 3u);
  EXPECT_EQ(r.left_out_lenient, 1u);
  EXPECT_EQ(r.Count(TesteeOutcome::kFail), 1u);
}

TEST_F(RunTest, ExpectedFailuresAndUnexpectedPasses) {
  options_.command = Script("['validate']", "{'result': 'ok'}");
  std::ofstream(dir_ / "xfail.txt") << "# known\n"
                                     << "negative/Produce/v3/request/truncated-length  # accepts everything\n"
                                     << "rich/ListOffsets/v1/request  # listed, but passes\n"
                                     << "no/such/vector\n";
  options_.expected_failures = (dir_ / "xfail.txt").string();
  options_.categories = {"negative", "rich"};
  options_.lenient = true;
  TesteeReport r = RunTestee(options_);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(r.Count(TesteeOutcome::kExpectedFailure), 1u);
  EXPECT_EQ(r.Count(TesteeOutcome::kUnexpectedPass), 1u);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.warnings[0], "no/such/vector is no vector")) << r.warnings[0];
  // A listed vector the filters leave out is said to be not run.
  options_.categories = {"negative"};
  r = RunTestee(options_);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[1], "1 listed expected failure(s) not run: left out by --lenient or the filters");
}

TEST_F(RunTest, UnsupportedIsCountedApart) {
  options_.command = Script("['decode', 'encode']", "{'result': 'unsupported', 'reason': 'r'}");
  TesteeReport r = RunTestee(options_);
  EXPECT_EQ(r.Count(TesteeOutcome::kUnsupported), 4u);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.results[0].ops.size(), 2u);  // accept: decode and encode
  EXPECT_EQ(r.results[2].ops.size(), 1u);  // reject: decode only
}

TEST_F(RunTest, GarbageAndWrongSeqFailWithoutRestart) {
  options_.command = Script("['validate']", "'not json' if q['seq'] % 2 else json.dumps({'result': 'ok', 'seq': 99})",
                            "pass");
  TesteeReport r = RunTestee(options_);
  EXPECT_EQ(r.Count(TesteeOutcome::kFail), 4u);
  EXPECT_EQ(r.restarts, 0);
  EXPECT_TRUE(absl::StrContains(r.results[0].ops[0].detail, "not a JSON object: not json"));
  EXPECT_TRUE(absl::StrContains(r.results[1].ops[0].detail, "the answer is for seq")) << r.results[1].ops[0].detail;
}

// The transport on its own (line_process.h): a line out, a line back; stderr kept; the
// child's exit described.
TEST(LineProcess, ExchangesLinesAndDescribesTheExit) {
  LineProcess p;
  std::string error, answer;
  ASSERT_TRUE(p.Start("echo started >&2; while read -r l; do echo \"got $l\"; done; exit 3", error))
      << error;
  size_t extra = 0;
  ASSERT_EQ(p.Exchange("one", 30, answer, &extra), LineProcess::kLine);
  EXPECT_EQ(answer, "got one");
  EXPECT_EQ(extra, 0u);
  ASSERT_EQ(p.Exchange("two", 30, answer, &extra), LineProcess::kLine);
  EXPECT_EQ(answer, "got two");
  EXPECT_EQ(p.Finish(30), "exit status 3");
  EXPECT_EQ(p.exit_description(), "exit status 3");
  EXPECT_EQ(p.StderrTail(), "started");
  EXPECT_FALSE(p.running());
}

TEST(LineProcess, AChildThatEndsIsClosedAndOnlyTheTailOfItsStderrIsKept) {
  LineProcess p;
  std::string error, answer;
  // 5,000 bytes of stderr, then an exit without answering.
  ASSERT_TRUE(p.Start("head -c 5000 /dev/zero | tr '\\0' x >&2; exit 7", error)) << error;
  size_t extra = 0;
  EXPECT_EQ(p.Exchange("hello", 30, answer, &extra), LineProcess::kClosed);
  // As the runner does after kClosed: stdout closed does not mean the child is reaped
  // yet (it closes its pipes before it becomes a zombie), so wait for its exit. Kill()
  // here raced with the exit on a loaded machine and said "killed".
  EXPECT_EQ(p.Finish(30), "exit status 7");
  EXPECT_EQ(p.exit_description(), "exit status 7");
  // One line of 5,000 bytes: its last kStderrTailBytes, marked as cut.
  EXPECT_EQ(p.StderrTail(), "..." + std::string(kStderrTailBytes, 'x'));
}

TEST(LineProcess, AStderrTailStartsAtALineNotInsideOne) {
  LineProcess p;
  std::string error;
  // 30 lines of 100 bytes (newline included), "line 10 " to "line 39 ": the last
  // kStderrTailBytes start at byte 952, inside "line 19 ", so the tail starts at line 20.
  ASSERT_TRUE(p.Start("for i in $(seq 10 39); do printf 'line %02d %091d\\n' $i 0 >&2; done; exit 0",
                      error))
      << error;
  EXPECT_EQ(p.Finish(30), "exit status 0");
  const std::string tail = p.StderrTail();
  EXPECT_EQ(tail.substr(0, 8), "line 20 ");
  EXPECT_EQ(tail.size(), 20u * 100 - 1);  // lines 20..39 whole, the last without its newline
  EXPECT_EQ(tail.substr(tail.size() - 99, 8), "line 39 ");
}

TEST_F(RunTest, DyingTesteeIsRestartedThenTheRunStops) {
  options_.command = Script("['validate']", "None", "sys.stderr.write('boom\\n'); sys.exit(3)");
  options_.max_restarts = 2;
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[0].outcome, TesteeOutcome::kFail);
  EXPECT_TRUE(absl::StrContains(r.results[0].ops[0].detail, "exit status 3")) << r.results[0].ops[0].detail;
  EXPECT_TRUE(absl::StrContains(r.results[0].ops[0].detail, "boom")) << r.results[0].ops[0].detail;
  EXPECT_EQ(r.Count(TesteeOutcome::kFail), 3u);  // the first start and two restarts
  EXPECT_EQ(r.Count(TesteeOutcome::kNotRun), 1u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "failed again after 2 restart(s)")) << r.errors[0];
  EXPECT_EQ(r.restarts, 2);
}

TEST_F(RunTest, HangingTesteeTimesOut) {
  options_.command = Script("['validate']", "None");  // reads, never answers
  options_.timeout_seconds = 0.2;  // the hello still gets 60 s
  options_.max_restarts = 1;
  options_.categories = {"minimal", "rich"};
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.results.size(), 2u);
  ASSERT_EQ(r.results[0].ops.size(), 1u);
  ASSERT_EQ(r.results[1].ops.size(), 1u) << RenderTesteeSummary(r);
  EXPECT_EQ(r.results[0].ops[0].answer, "timeout");
  EXPECT_EQ(r.results[1].ops[0].answer, "timeout");
  EXPECT_EQ(r.faults.size(), 2u);
  EXPECT_TRUE(r.ok() == false);
}

TEST_F(RunTest, ExtraAnswerLinesFailTheRunAndShiftNothing) {
  // Answers seq 1 twice: the second copy must not be taken as the answer to seq 2.
  options_.command = Script("['validate']",
                            "(json.dumps(dict(result='ok', seq=1)) + chr(10) + json.dumps(dict(result='ok', seq=1))) "
                            "if q['seq'] == 1 else {'result': 'ok'}");
  ExpectOneExtraLineBeforeSeq2();
}

TEST_F(RunTest, ALateSecondAnswerIsDroppedNotTakenForTheNextRequest) {
  // The second answer to seq 1 comes only after request 2 was read (the testee writes it
  // while answering seq 2), so it cannot be waiting in the pipe before request 2 is sent:
  // it must still be dropped and counted, and seq 2's own answer taken.
  options_.command = Script("['validate']",
                            "(json.dumps(dict(result='ok', seq=1)) + chr(10) + json.dumps(dict(result='ok', seq=2))) "
                            "if q['seq'] == 2 else {'result': 'ok'}");
  ExpectOneExtraLineBeforeSeq2();
}

TEST_F(RunTest, RepeatedMembersAndNonIntegerSeqAreGarbage) {
  options_.command = Script("['validate']",
                            "'{\"seq\": %d, \"result\": \"ok\", \"result\": \"rejected\"}' % q['seq'] "
                            "if q['seq'] == 1 else '{\"seq\": %d.0, \"result\": \"ok\"}' % q['seq']");
  options_.categories = {"minimal", "rich"};
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].ops[0].detail, "the answer repeats the member \"result\"");
  EXPECT_EQ(r.results[1].ops[0].detail, "the answer is for seq 2.0, not 2");
}

TEST_F(RunTest, NothingSelectedFails) {
  options_.command = Script("['validate']", "{'result': 'ok'}");
  options_.versions = {99};
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "no vector matches the filters: nothing was tested");
  EXPECT_FALSE(r.ok());
}

TEST_F(RunTest, ACrashIsReportedWithItsSignal) {
  // A simple command is exec'ed, so the report names the signal, not the shell's status.
  std::ofstream(dir_ / "segv.sh") << "read l\n"
                                  << "echo '{\"type\":\"hello\",\"protocol\":1,\"operations\":[\"validate\"]}'\n"
                                  << "read l\nkill -SEGV $$\n";
  options_.command = absl::StrCat("sh ", (dir_ / "segv.sh").string());
  options_.categories = {"minimal"};
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.results[0].ops[0].detail, "killed by signal 11")) << r.results[0].ops[0].detail;
}

TEST_F(RunTest, TesteeThatNeverStarts) {
  options_.command = absl::StrCat((dir_ / "no-such-program").string(), " --flag");
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "exit status 127")) << r.errors[0];
  EXPECT_TRUE(absl::StrContains(r.errors[0], "not found")) << r.errors[0];
  EXPECT_EQ(r.Count(TesteeOutcome::kNotRun), 4u);
  EXPECT_FALSE(r.ok());
}

TEST_F(RunTest, HelloMustNameProtocolAndOperations) {
  options_.command = "read l; echo '{\"type\":\"hello\",\"protocol\":2,\"operations\":[\"decode\"]}'";
  TesteeReport r = RunTestee(options_);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "speaks protocol 2")) << r.errors[0];
  options_.command = "read l; echo '{\"type\":\"hello\",\"protocol\":1,\"operations\":[\"fly\"]}'";
  r = RunTestee(options_);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "names no operation")) << r.errors[0];
}

TEST_F(RunTest, LargeRequestsAndStderrFloodDoNotDeadlock) {
  // A 1 MiB frame (valid for `validate` only) and 1 MiB of stderr before each answer:
  // both exceed any pipe buffer, so a runner that blocks on one pipe would hang.
  Json big = ListOffsets();
  big["id"] = "rich/big";
  big["frame"] = std::string(size_t{2} << 20, 'a');
  std::ofstream(dir_ / "vectors" / "v.jsonl", std::ios::app) << big.dump() << "\n";
  options_.command = Script("['validate']", "{'result': 'ok'}", "sys.stderr.write('x' * (1 << 20))");
  options_.categories = {"rich"};
  options_.log_file = (dir_ / "stderr.log").string();
  TesteeReport r = RunTestee(options_);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  EXPECT_EQ(r.Count(TesteeOutcome::kPass), 2u);
  EXPECT_EQ(fs::file_size(options_.log_file), size_t{2} << 20);
}

// Both JUnit writers (kwire check --junit, kwire conformance --junit) escape with this one
// function: entities for markup, control pictures for the C0 controls XML 1.0 cannot hold.
TEST(XmlEscape, EntitiesAndControlPictures) {
  EXPECT_EQ(XmlEscape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(XmlEscape(std::string_view("\x01\x1f\n\t\x00", 5)), "&#x2401;&#x241f;\n\t&#x2400;");
  EXPECT_EQ(XmlEscape("caf\xc3\xa9"), "caf\xc3\xa9");
}

// A rejection with another error than the vector's passes (without --strict-errors) and
// is listed apart, with the vector's file and line, its mutation and the explain command.
TEST_F(RunTest, OtherErrorsAreListedWithTheirMutation) {
  options_.command = Script("['validate']", "{'result': 'rejected', 'kind': 'truncated', 'offset': 99999}");
  options_.categories = {"negative"};
  TesteeReport r = RunTestee(options_);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  EXPECT_EQ(r.Count(TesteeOutcome::kPass), 2u);
  const std::string summary = RenderTesteeSummary(r);
  // The table counts them apart from a clean pass (helper-27's stumble 6).
  EXPECT_TRUE(absl::StrContains(summary, "category    vectors   passed  other-err   failed")) << summary;
  EXPECT_TRUE(absl::StrContains(summary, "\nnegative          2        2          2        0")) << summary;
  const size_t section = summary.find("rejected with another error than the vector's");
  ASSERT_NE(section, std::string::npos) << summary;
  const std::string rest = summary.substr(section);
  const size_t line = rest.find("\n  negative/Produce/v3/request/truncated-length (v.jsonl:3): ");
  ASSERT_NE(line, std::string::npos) << rest;
  const std::string after = rest.substr(line + 1);
  const std::vector<std::string> lines = absl::StrSplit(after, '\n');
  ASSERT_GE(lines.size(), 3u) << after;
  EXPECT_TRUE(absl::StrContains(lines[0], "validate: rejected with another error: offset 99999 (expected 12)"))
      << lines[0];
  EXPECT_TRUE(absl::StartsWith(lines[1], "      mutation: ")) << lines[1];
  EXPECT_TRUE(absl::StartsWith(lines[2], "      look: kwire explain --vector ")) << lines[2];
}

// A failed decode's look command goes to the first differing value, and says that what it
// shows is the vector's (the expected value), not the answer (helper-26's stumble 6).
TEST_F(RunTest, ALookCommandSaysItShowsTheVectorsValue) {
  options_.command = Script("['decode']", "{'result': 'ok', 'header': {}, 'body': {}}");
  options_.categories = {"rich"};
  TesteeReport r = RunTestee(options_);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  const std::string summary = RenderTesteeSummary(r);
  const size_t look = summary.find("      look: kwire explain --vector ");
  ASSERT_NE(look, std::string::npos) << summary;
  const std::string line = summary.substr(look, summary.find('\n', look) - look);
  EXPECT_TRUE(absl::StrContains(line, " --path 'header.")) << line;
  EXPECT_TRUE(absl::EndsWith(
      line, "'  # the vector's frame: the expected value, and the bytes it is read from"))
      << line;
}

TEST_F(RunTest, ReportsNameEveryVector) {
  options_.command = Script("['validate']", "{'result': 'ok'}");
  TesteeReport r = RunTestee(options_);
  const std::string junit = RenderTesteeJUnit(r);
  EXPECT_TRUE(absl::StrContains(junit, "<testsuite name=\"negative\" tests=\"2\" failures=\"2\" skipped=\"0\">"))
      << junit;
  EXPECT_TRUE(absl::StrContains(junit, "name=\"rich/ListOffsets/v1/request\"></testcase>")) << junit;
  const Json j = Json::parse(RenderTesteeJson(r));
  EXPECT_EQ(j["totals"]["vectors"], 4);
  EXPECT_EQ(j["categories"]["negative"]["failed"], 2);
  EXPECT_EQ(j["vectors"].size(), 4u);
  EXPECT_EQ(j["testee"]["operations"], Json::array({"validate"}));
  const std::string summary = RenderTesteeSummary(r);
  EXPECT_TRUE(absl::StrContains(summary, "negative/Produce/v3/request/truncated-length")) << summary;
  EXPECT_TRUE(absl::StrContains(summary, "\nFAIL\n")) << summary;
  const std::string list = RenderTesteeList(r.vectors);
  EXPECT_TRUE(absl::StrContains(list, "rich/ListOffsets/v1/request encode\n")) << list;
  EXPECT_FALSE(absl::StrContains(list, "truncated-length encode")) << list;
}

}  // namespace
}  // namespace kwire::conformance
