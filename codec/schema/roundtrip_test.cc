// Every API × every valid version × request and response: a minimal instance and
// randomized rich instances encode → decode → equal, and re-encode byte-identically.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_format.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/protocol/registry.h"
#include "codec/generated/fetch_request.h"
#include "codec/schema/message.h"

namespace kwire {
namespace {

using frame_testing::AllCases;
using frame_testing::Case;
using frame_testing::ErrorOf;

std::string CaseName(const testing::TestParamInfo<Case>& info) { return info.param.Name(); }

// Encodes `m`, decodes the bytes into a fresh message, checks equality, re-encodes and
// checks byte identity. Returns the encoding.
std::vector<uint8_t> RoundTrip(const Case& c, const AnyMessage& m) {
  const MessageOps& ops = c.api->ops(c.dir);
  Writer w;
  ops.encode(w, c.version, m.raw());
  EXPECT_TRUE(w.ok()) << w.error().ToString();
  std::vector<uint8_t> bytes = w.Release();

  AnyMessage back(ops);
  Reader r(bytes);
  ops.decode(r, c.version, back.raw(), RecordsDecode{});
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd()) << r.remaining() << " bytes left";
  EXPECT_TRUE(back == m) << "decoded message differs";

  Writer w2;
  ops.encode(w2, c.version, back.raw());
  EXPECT_EQ(w2.Release(), bytes) << "re-encoding is not byte-identical";
  return bytes;
}

// Known tagged fields are written in place (issue 37 item 4): the size, reserved as one
// byte, is patched after the value, moving it up when the value is 128 bytes or more;
// unknown tags follow the known ones by number.
TEST(TaggedFieldsInPlace, LongValuesAndUnknownTagsBetweenKnownOnes) {
  FetchRequest m;
  m.cluster_id = std::string(200, 'x');  // tag 0: a compact string of 200 bytes
  m.replica_state.emplace();             // tag 1: ReplicaState {1, 2}
  m.replica_state->replica_id = 1;
  m.replica_state->replica_epoch = 2;
  m.unknown_tagged_fields.push_back({5, "ab"});
  auto bytes = EncodeMessage(m, 15);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // The body's tagged-field section: count 3; tag 0, size 202 (ca 01), the string's
  // compact length 201 (c9 01) and 200 x; tag 1, size 13, the struct (int32, int64, its
  // own empty tag section); tag 5, size 2, "ab".
  const std::string want = std::string("\x03\x00\xca\x01\xc9\x01", 6) + std::string(200, 'x') +
                           std::string("\x01\x0d\x00\x00\x00\x01"
                                       "\x00\x00\x00\x00\x00\x00\x00\x02\x00",
                                       15) +
                           "\x05\x02" + "ab";
  // The section closes the body (FetchRequest's last field before it is Topics' and
  // ForgottenTopicsData's arrays and RackId; the section is what ends the bytes).
  const std::string got(bytes->begin(), bytes->end());
  ASSERT_GE(got.size(), want.size());
  EXPECT_EQ(got.substr(got.size() - want.size()), want);
  auto back = DecodeMessage<FetchRequest>(*bytes, 15);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, m);
  // An unknown tag numbered like a known one, and unknown tags out of order: refused.
  m.unknown_tagged_fields.insert(m.unknown_tagged_fields.begin(), UnknownTaggedField{0, "z"});
  EXPECT_EQ(ErrorOf(EncodeMessage(m, 15).status()).kind, ErrorKind::kTagDuplicate);
  m.unknown_tagged_fields.erase(m.unknown_tagged_fields.begin());
  m.unknown_tagged_fields.push_back({3, "c"});  // 5 then 3: out of order
  EXPECT_EQ(ErrorOf(EncodeMessage(m, 15).status()).kind, ErrorKind::kTagOutOfOrder);
}

// A struct whose tagged fields are declared in descending tag order (no Kafka definition
// does that today): the encoder writes them in ascending order all the same.
struct TwoTagsDescending {
  static constexpr const char* kStructName = "TwoTagsDescending";
  static constexpr bool kHasTaggedFields = true;
  static constexpr FieldSpec kFields[] = {
      {.name = "Seven", .type_name = "int32", .type = FieldType::kInt32,
       .element = FieldType::kInt32, .versions = {0, 32767}, .nullable = kNoVersions,
       .tagged = {0, 32767}, .tag = 7, .flexible = kAllVersions, .ignorable = true,
       .sensitive = false},
      {.name = "Two", .type_name = "string", .type = FieldType::kString,
       .element = FieldType::kString, .versions = {0, 32767}, .nullable = kNoVersions,
       .tagged = {0, 32767}, .tag = 2, .flexible = kAllVersions, .ignorable = true,
       .sensitive = false},
  };
  Tagged<int32_t> seven{};
  Tagged<std::string> two{};
  UnknownTaggedFields unknown_tagged_fields;
  template <class V, class... S>
  static void VisitFields(V&& v, S&... s) {
    v(kFields[0], s.seven...);
    v(kFields[1], s.two...);
  }
  friend bool operator==(const TwoTagsDescending&, const TwoTagsDescending&) = default;
};

// Kafka's definitions declare tags ascending (one pass writes them); this struct takes the
// sorting path.
static_assert(schema_internal::kTagsDeclaredAscending<FetchRequest>);
static_assert(!schema_internal::kTagsDeclaredAscending<TwoTagsDescending>);

TEST(TaggedFieldsInPlace, DeclaredOutOfOrderWrittenInAscendingOrder) {
  TwoTagsDescending s;
  s.seven.emplace(0x01020304);
  s.two.emplace(130, 'y');
  s.unknown_tagged_fields = {{1, "a"}, {5, "b"}, {9, "c"}};
  Writer w;
  EncodeStruct(w, 0, /*flexible=*/true, s);
  ASSERT_TRUE(w.ok()) << w.error().ToString();
  const std::string got(reinterpret_cast<const char*>(w.data()), w.size());
  const std::string want = std::string("\x05\x01\x01", 3) + "a" +
                           std::string("\x02\x84\x01\x83\x01", 5) + std::string(130, 'y') +
                           std::string("\x05\x01", 2) + "b" +
                           std::string("\x07\x04\x01\x02\x03\x04", 6) +
                           std::string("\x09\x01", 2) + "c";
  EXPECT_EQ(got, want);
  TwoTagsDescending back;
  Reader r(w.bytes());
  DecodeStruct(r, 0, true, back);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(back, s);
}

class RoundTripTest : public testing::TestWithParam<Case> {};

TEST_P(RoundTripTest, Minimal) {
  const Case& c = GetParam();
  AnyMessage m(c.api->ops(c.dir));
  FillMinimal(c.version, m);
  const std::vector<uint8_t> bytes = RoundTrip(c, m);
  EXPECT_FALSE(HasFailure());
  (void)bytes;
}

TEST_P(RoundTripTest, Random) {
  const Case& c = GetParam();
  std::mt19937_64 rng(0x6b77697265ull ^ (uint64_t(c.api->api_key) << 20) ^
                      (uint64_t(c.version) << 8) ^ uint64_t(c.dir));
  for (int i = 0; i < 20 && !HasFailure(); ++i) {
    AnyMessage m(c.api->ops(c.dir));
    FillRandom(rng, c.version, m);
    RoundTrip(c, m);
  }
}

INSTANTIATE_TEST_SUITE_P(AllApis, RoundTripTest, testing::ValuesIn(AllCases()), CaseName);

TEST(Registry, Kafka44ApiKeys) {
  ASSERT_EQ(AllApis().size(), 95u);  // keys 0-94 of Kafka 4.4.0
  int versions = 0, removed = 0;
  for (size_t i = 0; i < AllApis().size(); ++i) {
    const ApiInfo& a = AllApis()[i];
    EXPECT_EQ(a.api_key, static_cast<int16_t>(i));
    versions += a.request_versions().hi - a.request_versions().lo + 1;
    versions += a.response_versions().hi - a.response_versions().lo + 1;
    for (int v = a.request_versions().lo; v <= a.request_versions().hi; ++v) {
      removed += a.IsRemoved(static_cast<int16_t>(v)) ? 2 : 0;
    }
  }
  EXPECT_EQ(versions, 618 + 118);
  EXPECT_EQ(removed, 118);
}

// The release spans come from the kafka-clients jars (tools/kafka-releases.txt).
TEST(Registry, ReleasesOfEveryVersion) {
  for (const ApiInfo& a : AllApis()) {
    for (int v = a.request_versions().lo; v <= a.request_versions().hi; ++v) {
      const VersionReleases* r = a.ReleasesOf(static_cast<int16_t>(v));
      ASSERT_NE(r, nullptr) << a.name << " v" << v;
      ASSERT_NE(r->last, nullptr);
      // Current versions are in the newest release; removed ones are not.
      EXPECT_EQ(std::string_view(r->last) == "4.4", !a.IsRemoved(static_cast<int16_t>(v)))
          << a.name << " v" << v << " last " << r->last;
    }
  }
  const ApiInfo* produce = FindApi(0);
  ASSERT_NE(produce, nullptr);
  const VersionReleases* v2 = produce->ReleasesOf(2);
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(std::string_view(v2->first), "2.2");
  EXPECT_TRUE(v2->or_earlier);
  EXPECT_EQ(std::string_view(v2->last), "3.9");
  const VersionReleases* v13 = produce->ReleasesOf(13);
  ASSERT_NE(v13, nullptr);
  EXPECT_EQ(std::string_view(v13->first), "4.1");
  EXPECT_FALSE(v13->or_earlier);
  EXPECT_EQ(produce->ReleasesOf(14), nullptr);
  // ShareFetch v0 was never stable (3.9 and 4.0 had it unstable) and 4.1 removed it.
  const VersionReleases* sf0 = FindApi(78)->ReleasesOf(0);
  ASSERT_NE(sf0, nullptr);
  EXPECT_EQ(sf0->first, nullptr);
  EXPECT_EQ(std::string_view(sf0->seen), "3.9");
  EXPECT_EQ(std::string_view(sf0->last), "4.0");
  EXPECT_TRUE(FindApi(78)->IsRemoved(0));
  // LeaderAndIsr: the whole API is gone from 4.x.
  EXPECT_TRUE(FindApi(4)->current_versions().empty());
}

TEST(Registry, RenamedApisKeepTheirOldNames) {
  const ApiInfo* a = FindApiByName("ListConfigResources");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->api_key, 74);
  EXPECT_EQ(FindApiByName("ListClientMetricsResources"), a);
  EXPECT_EQ(FindApiByName("listclientmetricsresourcesrequest"), a);
  EXPECT_EQ(FindApiByName("ListOffset"), FindApi(2));  // Kafka 2.2-2.4's name
  EXPECT_EQ(FindApiByName("ListClientMetrics"), nullptr);
  EXPECT_EQ(FindApi(94)->name, std::string_view("UnregisterController"));
}

TEST(Registry, ReleasesCompareByMajorThenMinor) {
  EXPECT_TRUE(ReleaseBefore("3.9", "3.10"));
  EXPECT_FALSE(ReleaseBefore("3.10", "3.9"));
  EXPECT_TRUE(ReleaseBefore("2.8", "3.0"));
  EXPECT_FALSE(ReleaseBefore("4.4", "4.4"));
}

TEST(Registry, ApiReleaseSpanCoversEveryVersion) {
  const ReleaseSpan produce = ApiReleaseSpan(*FindApi(0));  // v0-2 end in 3.9, v3+ in 4.4
  EXPECT_STREQ(produce.first, "2.2");
  EXPECT_TRUE(produce.or_earlier);
  EXPECT_STREQ(produce.last, "4.4");
  const ReleaseSpan leader_and_isr = ApiReleaseSpan(*FindApi(4));  // ZooKeeper only
  EXPECT_STREQ(leader_and_isr.first, "2.2");
  EXPECT_STREQ(leader_and_isr.last, "3.9");
  const ReleaseSpan heartbeat = ApiReleaseSpan(*FindApi(68));  // KIP-848, from 3.7
  EXPECT_STREQ(heartbeat.first, "3.7");
  EXPECT_FALSE(heartbeat.or_earlier);
  EXPECT_STREQ(heartbeat.last, "4.4");
}

}  // namespace
}  // namespace kwire
