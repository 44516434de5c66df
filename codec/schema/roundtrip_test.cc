// Every API × every valid version × request and response: a minimal instance and
// randomized rich instances encode → decode → equal, and re-encode byte-identically.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_format.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/protocol/registry.h"
#include "codec/schema/message.h"

namespace kwire {
namespace {

using frame_testing::AllCases;
using frame_testing::Case;

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
  ops.decode(r, c.version, back.raw());
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd()) << r.remaining() << " bytes left";
  EXPECT_TRUE(back == m) << "decoded message differs";

  Writer w2;
  ops.encode(w2, c.version, back.raw());
  EXPECT_EQ(w2.Release(), bytes) << "re-encoding is not byte-identical";
  return bytes;
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
