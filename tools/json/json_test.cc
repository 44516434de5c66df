// The JSON mapping (conformance/FORMAT.md): exact texts for known frames and values,
// the round trip frame → JSON → frame for every API × version × direction (minimal and
// rich instances: nulls, tagged and unknown tags, records, float64 specials), and the
// errors of MessageFromJson / FrameFromJson with their JSON paths.
#include "tools/json/json.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "codec/generated/describe_delegation_token_request.h"
#include "codec/generated/fetch_request.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/protocol/frame_test_util.h"
#include "tools/json/json_test_util.h"

namespace kwire {
namespace {

using frame_testing::AllCases;
using frame_testing::Case;
using frame_testing::CaseOf;
using json_testing::FrameJson;

std::vector<uint8_t> Unhex(std::string_view hex) {
  const std::string raw = absl::HexStringToBytes(std::string(hex));
  return {raw.begin(), raw.end()};
}

// The documented minimal frame of DescribeDelegationToken v3 (`kwire minimal 41 3
// request`, conformance/vectors/minimal.txt) as JSON, member by member.
TEST(FrameJson, MinimalFrameHasTheDocumentedText) {
  const std::vector<uint8_t> frame = Unhex("0000001000290003000000000000000201010000");
  absl::StatusOr<Json> j = FrameJson(CaseOf("DescribeDelegationToken", Direction::kRequest, 3),
                                     frame);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->dump(),
            R"({"api_key":41,"api_name":"DescribeDelegationToken","version":3,)"
            R"("direction":"request","header_version":2,"header":{"RequestApiKey":41,)"
            R"("RequestApiVersion":3,"CorrelationId":0,"ClientId":""},)"
            R"("body":{"Owners":[{"PrincipalType":"","PrincipalName":""}]}})");
  absl::StatusOr<std::vector<uint8_t>> back = FrameFromJson(*j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, frame);
}

// A response header v0 frame (ApiVersions responses always use v0) and null vs empty.
TEST(FrameJson, NullIsNotEmpty) {
  MetadataRequest m;
  m.topics.reset();  // null: every topic (v1+)
  AnyMessage body(*FindApi(3)->request);
  *body.get<MetadataRequest>() = m;
  absl::StatusOr<Json> j = MessageToJson(body, 12);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->dump(),
            R"({"Topics":null,"AllowAutoTopicCreation":true,)"
            R"("IncludeTopicAuthorizedOperations":false})");
  body.get<MetadataRequest>()->topics.emplace();
  j = MessageToJson(body, 12);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["Topics"], Json::array());
  // v0 has no null Topics: null is refused with its path.
  AnyMessage back(*FindApi(3)->request);
  absl::Status s = MessageFromJson(Json::parse(R"({"Topics": null})"), 0, &back);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Topics: null, but the field is not nullable at this version");
}

// The expected strings are what Java 17's `new String(bytes, StandardCharsets.UTF_8)`
// returned for these bytes (printed as UTF-16 code units, run on this project's JDK).
TEST(ScalarJson, JavaStringOfReplacesLikeTheJdk) {
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD
  const std::pair<std::string, std::string> cases[] = {
      {"\xff", r},
      {"a\xc3", "a" + r},
      {"\xed\xa0\x80", r},  // a surrogate: one U+FFFD for three bytes
      {"\xc0\x80", r + r},
      {"ok\xf4\x90\x80\x80", "ok" + r + r + r + r},
      {"\xe2\x82", r},
      {"\xe2\x82" "a", r + "a"},
      {"\xf0\x9f\x98", r},
      {"\xf0\x80\x80\x80", r + r + r + r},
      {"\xe0\x80\x80", r + r + r},
      {"\xed\xbf\xbf" "x", r + "x"},
      {"\xf8\x88\x80\x80\x80", r + r + r + r + r},
      {"\xed\xa0", r},
      {"\xed\xa0" "A", r + "A"},
      {"\xf0\x9f" "A", r + "A"},
      {"\xf0\x9f\x98" "A", r + "A"},
      {"\xe0\xa0", r},
      {"\xf4\x8f\xbf", r},
      {"\xed\x80\x80", "\xed\x80\x80"},  // U+D000, well-formed
      {"\xc2" "A", r + "A"},
      {"\xf4\x90", r + r},
      {"\xed\xa0\x80\xed\xa0\x80", r + r},
      {"\xf0\x9f\x98\x80 \xe6\x97\xa5", "\xf0\x9f\x98\x80 \xe6\x97\xa5"},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(JavaStringOf(in), want) << absl::CHexEscape(in);
  }
}

TEST(ScalarJson, Int64IsADecimalString) {
  using json_internal::Int64ToJson;
  EXPECT_EQ(Int64ToJson(-1).dump(), R"("-1")");
  EXPECT_EQ(Int64ToJson(std::numeric_limits<int64_t>::max()).dump(), R"("9223372036854775807")");
  EXPECT_EQ(Int64ToJson(std::numeric_limits<int64_t>::min()).dump(), R"("-9223372036854775808")");
  json_internal::Context c{{0, false}, "", {}};
  int64_t v = 0;
  json_internal::FromJson(c, Json("-9223372036854775808"), v);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
  json_internal::FromJson(c, Json(42), v);  // numbers accepted on input
  EXPECT_EQ(v, 42);
  for (const char* bad : {"9223372036854775808", "+1", " 1", "1 ", "", "0x10", "1e3"}) {
    json_internal::Context e{{0, false}, "X", {}};
    json_internal::FromJson(e, Json(bad), v);
    EXPECT_EQ(e.error, absl::StrCat("X: \"", bad, "\" is not an int64 in decimal")) << bad;
  }
}

TEST(ScalarJson, Float64KeepsEveryBit) {
  using json_internal::Float64ToJson;
  EXPECT_EQ(Float64ToJson(0.1).dump(), "0.1");
  EXPECT_EQ(Float64ToJson(-0.0).dump(), "-0.0");
  EXPECT_EQ(Float64ToJson(1.0).dump(), "1.0");
  EXPECT_EQ(Float64ToJson(5e-324).dump(), "5e-324");
  EXPECT_EQ(Float64ToJson(std::numeric_limits<double>::infinity()).dump(), R"("Infinity")");
  EXPECT_EQ(Float64ToJson(-std::numeric_limits<double>::infinity()).dump(), R"("-Infinity")");
  EXPECT_EQ(Float64ToJson(std::bit_cast<double>(0x7ff8000000000000ull)).dump(), R"("NaN")");
  EXPECT_EQ(Float64ToJson(std::bit_cast<double>(0xfff8000000000001ull)).dump(),
            R"("NaN:0xfff8000000000001")");
  const uint64_t samples[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x3fb999999999999aull,
                              0x7fefffffffffffffull, 0x0000000000000001ull, 0x7ff0000000000000ull,
                              0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull,
                              0xffffffffffffffffull, 0x400921fb54442d18ull};
  for (uint64_t bits : samples) {
    const Json j = Json::parse(Float64ToJson(std::bit_cast<double>(bits)).dump());
    json_internal::Context c{{0, false}, "", {}};
    double v = 0;
    json_internal::FromJson(c, j, v);
    ASSERT_TRUE(c.ok()) << c.error;
    EXPECT_EQ(std::bit_cast<uint64_t>(v), bits) << j.dump();
  }
  json_internal::Context c{{0, false}, "F", {}};
  double v = 0;
  json_internal::FromJson(c, Json("NaN:0x7ff0000000000000"), v);  // infinity, not a NaN
  EXPECT_EQ(c.error.rfind("F: expected a float64", 0), 0u) << c.error;
}

TEST(ScalarJson, UuidAndBytesAreHex) {
  Uuid u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(i * 17);
  EXPECT_EQ(json_internal::UuidToJson(u).dump(), R"("00112233445566778899aabbccddeeff")");
  EXPECT_EQ(json_internal::HexToJson(std::string("\x00\xff\x10", 3)).dump(), R"("00ff10")");
  json_internal::Context c{{0, false}, "B", {}};
  std::string b;
  json_internal::BlobFromJson(c, Json("ABcd"), FieldType::kBytes, b);
  EXPECT_EQ(b, "\xab\xcd");
  json_internal::BlobFromJson(c, Json("abc"), FieldType::kBytes, b);
  EXPECT_EQ(c.error, "B: expected bytes as an even number of hex digits");
}

// Every API × version × direction: the documented minimal instance and three rich ones
// (random values, nulls, tagged and unknown tags, records) go frame → JSON → text →
// JSON → frame to the same bytes, and decode → JSON is stable.
TEST(FrameJson, EveryCaseRoundTrips) {
  size_t frames = 0, with_unknown_tags = 0;
  for (const Case& c : AllCases()) {
    std::vector<AnyMessage> bodies{frame_testing::Minimal(c)};
    for (uint64_t seed : {1, 2, 3}) bodies.push_back(frame_testing::Rich(c, seed));
    for (const AnyMessage& body : bodies) {
      const std::vector<uint8_t> frame = frame_testing::EncodeFrame(c, body);
      absl::StatusOr<Json> j = FrameJson(c, frame);
      ASSERT_TRUE(j.ok()) << c.Name() << ": " << j.status();
      const std::string text = j->dump();
      with_unknown_tags += text.find("_unknownTaggedFields") != std::string::npos;
      absl::StatusOr<std::vector<uint8_t>> back = FrameFromJson(Json::parse(text));
      ASSERT_TRUE(back.ok()) << c.Name() << ": " << back.status() << "\n" << text;
      ASSERT_EQ(absl::BytesToHexString(std::string(back->begin(), back->end())),
                absl::BytesToHexString(std::string(frame.begin(), frame.end())))
          << c.Name() << "\n" << text;
      ++frames;
    }
  }
  EXPECT_EQ(frames, 4 * AllCases().size());
  EXPECT_GT(with_unknown_tags, 100u);  // the rich instances carry unknown tags
}

// Known tagged fields appear only when present, by name; unknown ones in order.
TEST(FrameJson, TaggedFields) {
  FetchRequest m;
  m.cluster_id.emplace(std::nullopt);  // tag 0, present and null
  m.unknown_tagged_fields.push_back({5, std::string("\x01\x02", 2)});
  AnyMessage body(*FindApi(1)->request);
  *body.get<FetchRequest>() = m;
  absl::StatusOr<Json> j = MessageToJson(body, 12);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["ClusterId"], Json(nullptr));
  EXPECT_FALSE(j->contains("ReplicaState"));  // tag 1, absent
  EXPECT_EQ((*j)["_unknownTaggedFields"].dump(), R"([{"tag":5,"data":"0102"}])");
  AnyMessage back(*FindApi(1)->request);
  ASSERT_TRUE(MessageFromJson(*j, 12, &back).ok());
  EXPECT_EQ(*back.get<FetchRequest>(), m);
  // v11 is not flexible: no tagged fields at all.
  absl::Status s = MessageFromJson(Json::parse(R"({"ClusterId": null})"), 11, &back);
  EXPECT_EQ(s.message(), "ClusterId: FetchRequest.ClusterId does not exist at version 11");
  s = MessageFromJson(Json::parse(R"({"_unknownTaggedFields": [{"tag": 0, "data": ""}]})"), 12,
                      &back);
  EXPECT_EQ(s.message(),
            "_unknownTaggedFields[0]: tag 0 is a known tagged field here: give it by name");
  s = MessageFromJson(
      Json::parse(R"({"_unknownTaggedFields": [{"tag": 9, "data": ""}, {"tag": 7, "data": ""}]})"),
      12, &back);
  EXPECT_EQ(s.message(), "_unknownTaggedFields[1]: tag 7 after tag 9: tags must be ascending");
}

TEST(MessageJson, ErrorsNameTheJsonPath) {
  AnyMessage m(*FindApi(3)->response);
  struct Bad {
    const char* json;
    int16_t version;
    const char* error;
  } cases[] = {
      {R"({"Brokers": [{"NodeId": "1"}]})", 5,
       "Brokers[0].NodeId: expected an int32 number, got string"},
      {R"({"Brokers": [{"NodeId": 2147483648}]})", 5,
       "Brokers[0].NodeId: 2147483648 is out of range for int32"},
      {R"({"Brokers": {}})", 5, "Brokers: expected an array"},
      {R"({"Brokerz": []})", 5, "Brokerz: MetadataResponse has no field Brokerz"},
      {R"({"ThrottleTimeMs": 0})", 0,
       "ThrottleTimeMs: MetadataResponse.ThrottleTimeMs does not exist at version 0"},
      {R"({"Topics": [{"TopicId": "00"}]})", 12,
       R"(Topics[0].TopicId: expected a uuid as 32 hex digits, got "00")"},
      {R"({"Topics": [{"Name": 5}]})", 12, "Topics[0].Name: expected a string, got number"},
      {R"({"Brokers": [{"Host": null}]})", 5,
       "Brokers[0].Host: expected a string, got null, but the field is not nullable at this version"},
      {R"({"_unknownTaggedFields": []})", 5,
       "_unknownTaggedFields: tagged fields exist only in flexible versions; MetadataResponse v5 "
       "is not flexible"},
      {R"([])", 5, "expected an object (MetadataResponse)"},
  };
  for (const Bad& b : cases) {
    absl::Status s = MessageFromJson(Json::parse(b.json), b.version, &m);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << b.json;
    EXPECT_EQ(s.message(), b.error) << b.json;
  }
}

TEST(FrameJson, FrameMembersAreChecked) {
  const char* base = R"({"api_key": 41, "version": 3, "direction": "request",
      "header": {"CorrelationId": 7}, "body": {}})";
  Json j = Json::parse(base);
  absl::StatusOr<std::vector<uint8_t>> f = FrameFromJson(j);
  ASSERT_TRUE(f.ok()) << f.status();
  // Missing members keep their defaults: ClientId "" (int16 length 0, never compact),
  // no header tags, Owners empty (compact count 1), no body tags.
  EXPECT_EQ(absl::BytesToHexString(std::string(f->begin(), f->end())),
            "0000000d" "0029" "0003" "00000007" "0000" "00" "01" "00");
  Json wrong = j;
  wrong["header_version"] = 1;
  EXPECT_EQ(FrameFromJson(wrong).status().message(),
            "header_version 1 but DescribeDelegationTokenRequest v3 uses header v2");
  wrong = j;
  wrong["api_name"] = "Fetch";
  EXPECT_EQ(FrameFromJson(wrong).status().message(),
            R"(api_name "Fetch" but API key 41 is DescribeDelegationToken)");
  wrong = j;
  wrong["header"]["RequestApiVersion"] = 2;
  EXPECT_EQ(FrameFromJson(wrong).status().message(),
            "header names API key 41 v2 but the frame is API key 41 v3");
  wrong = j;
  wrong["version"] = 99;
  EXPECT_EQ(FrameFromJson(wrong).status().code(), absl::StatusCode::kUnimplemented);
  wrong = j;
  wrong["api_key"] = 999;
  EXPECT_EQ(FrameFromJson(wrong).status().message(), "unknown API key 999");
  wrong = j;
  wrong.erase("direction");
  EXPECT_EQ(FrameFromJson(wrong).status().message(),
            R"(member "direction" must be "request" or "response")");
  wrong = j;
  wrong["body"]["Owners"] = Json::parse(R"([{"PrincipalType": 1}])");
  EXPECT_EQ(FrameFromJson(wrong).status().message(),
            "body.Owners[0].PrincipalType: expected a string, got number");
}

}  // namespace
}  // namespace kwire
