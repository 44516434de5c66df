// The documentation site (site.h): the pages of DescribeDelegationToken v3 and
// RenewDelegationToken v2 held side by side with conformance/vectors/seeds.txt (the two
// reference pages' four frames and trees): the same hex, and every tree row — offset,
// size, path, type and value — the same, in the same order. Then the index and the
// whole site.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "codec/protocol/registry.h"
#include "conformance/check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/html/page.h"
#include "tools/html/site.h"

namespace kwire::html {
namespace {

using ::testing::ElementsAre;

std::string HexOf(const std::vector<uint8_t>& bytes) {
  std::string s;
  for (uint8_t b : bytes) s += absl::StrFormat("%02x", b);
  return s;
}

// One tree row as seeds.txt writes it: "0x000f 4 Body.Owners []DescribeDelegationTokenOwner 1".
std::string SeedRow(size_t offset, size_t size, const std::string& path,
                    const std::string& type_value) {
  return absl::StrFormat("0x%04x %d %s %s", offset, size, path, type_value);
}

// The rows of one frame of a page's data, paths rebuilt as the page's script does.
std::vector<std::string> PageRows(const Json& frame) {
  std::vector<std::string> rows, stack;
  for (const Json& n : frame["nodes"]) {
    const size_t depth = n[0].get<size_t>();
    stack.resize(depth);
    std::string path = depth > 0 ? stack[depth - 1].substr(0, n[10].get<size_t>()) : "";
    path += n[11].get<std::string>();
    stack.push_back(path);
    std::string tv = n[6].get<std::string>();
    const std::string value = n[7].get<std::string>();
    if (!value.empty()) tv += (tv.empty() ? "" : " ") + value;
    rows.push_back(SeedRow(n[1].get<size_t>(), n[2].get<size_t>(), path, tv));
  }
  return rows;
}

class SeedPages : public ::testing::Test {
 protected:
  // The site as `kwire site` writes it, once.
  static void SetUpTestSuite() {
    seeds_ = new conformance::VectorFile(conformance::LoadVectorFile(KWIRE_TEST_SEEDS));
    dir_ = new std::filesystem::path(std::filesystem::path(::testing::TempDir()) / "kwire-seed-site");
    std::filesystem::remove_all(*dir_);
    SiteOptions options;
    options.out_dir = dir_->string();
    site_ = new absl::StatusOr<SiteResult>(WriteSite(options));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete seeds_;
    delete dir_;
    delete site_;
  }

  // Checks the site's page of (key, version) against the seed vectors of both directions.
  void CheckPage(int16_t key, int16_t version) {
    ASSERT_TRUE(seeds_->errors.empty()) << seeds_->errors[0];
    const ApiInfo* api = FindApi(key);
    ASSERT_NE(api, nullptr);
    // The site writes the API's newest version: these are the newest.
    ASSERT_EQ(api->request_versions().hi, version);
    ASSERT_TRUE(site_->ok()) << site_->status();
    std::ifstream in(*dir_ / ApiPageName(*api, version, true));
    const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::optional<std::string> text = PageDataText(page);
    ASSERT_TRUE(text.has_value());
    const Json data = Json::parse(*text);
    EXPECT_EQ(data["name"], api->name);
    EXPECT_EQ(data["version"], version);
    ASSERT_EQ(data["frames"].size(), 2u);
    size_t checked = 0;
    for (const conformance::Vector& v : seeds_->vectors) {
      if (v.api_key != key || v.version != version) continue;
      const Json& frame = data["frames"][v.dir == Direction::kRequest ? 0 : 1];
      SCOPED_TRACE(v.Id());
      EXPECT_EQ(frame["direction"], v.dir == Direction::kRequest ? "request" : "response");
      EXPECT_EQ(frame["hex"], HexOf(v.bytes));
      EXPECT_EQ(frame["size"], v.declared_size);
      EXPECT_EQ(frame["status"], "ok");
      std::vector<std::string> want;
      for (const conformance::SeedNode& n : v.nodes) {
        want.push_back(SeedRow(n.offset, n.size, n.path, n.type_value));
      }
      EXPECT_EQ(PageRows(frame), want);
      ++checked;
    }
    EXPECT_EQ(checked, 2u) << "seeds.txt has a request and a response of each";
  }

  static conformance::VectorFile* seeds_;
  static std::filesystem::path* dir_;
  static absl::StatusOr<SiteResult>* site_;
};
conformance::VectorFile* SeedPages::seeds_ = nullptr;
std::filesystem::path* SeedPages::dir_ = nullptr;
absl::StatusOr<SiteResult>* SeedPages::site_ = nullptr;

TEST_F(SeedPages, DescribeDelegationTokenV3) { CheckPage(41, 3); }
TEST_F(SeedPages, RenewDelegationTokenV2) { CheckPage(39, 2); }

TEST(ApiPage, SummaryVersionsAndSchema) {
  const ApiInfo* api = FindApi(41);
  ASSERT_NE(api, nullptr);
  const Json data = Json::parse(*PageDataText(ApiPage(*api, 3, true)));
  EXPECT_EQ(data["page"], "api");
  EXPECT_EQ(data["name"], "DescribeDelegationToken");
  // The seed page's summary: key, version, flexible versions, headers, versions, sizes.
  const Json want1 = Json::parse(R"j([["API key","41"],["encoded at","v3"],
      ["flexible versions","2+"],["headers","req v2, resp v1"],
      ["request versions","1-3 (removed: 0)"],["response versions","0-3"],
      ["request size","20 bytes"],["response size","52 bytes"],["v3 in Kafka","3.3 \u2013 4.4"]])j");
  EXPECT_EQ(data["summary"], want1)
      << data["summary"].dump();
  // Versions 0-3, their first releases (codec/defs: 0 and 1 "2.2 or earlier", 2 in 2.5,
  // 3 in 3.3) and links to the per-version pages.
  ASSERT_EQ(data["versions"].size(), 4u);
  EXPECT_EQ(data["versions"][0]["first"], "\u22642.2");
  EXPECT_EQ(data["versions"][0]["last"], "3.9");
  EXPECT_EQ(data["versions"][0]["status"], "removed");
  EXPECT_EQ(data["versions"][2]["first"], "2.5");
  EXPECT_EQ(data["versions"][3]["first"], "3.3");
  EXPECT_EQ(data["versions"][0]["href"], "DescribeDelegationToken-v0.html");
  EXPECT_EQ(data["versions"][3]["href"], "DescribeDelegationToken.html");
  // The schema is kwire's definition (codec/defs/DescribeDelegationTokenRequest.kdef).
  const Json& schema = data["frames"][0]["schema"];
  EXPECT_EQ(schema["message"], "DescribeDelegationTokenRequest");
  const Json want2 = Json::parse(R"j([
      [0,"Owners","[]DescribeDelegationTokenOwner","0+","0+",null,"none",true,0],
      [1,"PrincipalType","string","0+","none",null,"none",true,0],
      [1,"PrincipalName","string","0+","none",null,"none",true,0]])j");
  EXPECT_EQ(schema["rows"], want2);
  // The response's TokenRequester fields exist from v3; its Hmac is sensitive.
  const Json& rows = data["frames"][1]["schema"]["rows"];
  std::vector<std::string> flagged;
  for (const Json& r : rows) {
    if (r[8].get<int>() & 1) flagged.push_back(r[1].get<std::string>());
    if (r[1] == "TokenRequesterPrincipalType") {
      EXPECT_EQ(r[3], "3+");
    }
  }
  EXPECT_THAT(flagged, ElementsAre("Hmac"));
  // An older version's page marks the fields it lacks.
  const Json v2 = Json::parse(*PageDataText(ApiPage(*api, 2, true)));
  for (const Json& r : v2["frames"][1]["schema"]["rows"]) {
    if (r[1] == "TokenRequesterPrincipalType") {
      EXPECT_EQ(r[7], false);
    }
  }
}

TEST(IndexPage, EveryApiWithItsReleases) {
  const Json data = Json::parse(*PageDataText(IndexPage()));
  EXPECT_EQ(data["page"], "index");
  ASSERT_EQ(data["apis"].size(), AllApis().size());
  const Json* ddt = nullptr;
  for (const Json& a : data["apis"]) {
    if (a["key"] == 41) ddt = &a;
  }
  ASSERT_NE(ddt, nullptr);
  EXPECT_EQ((*ddt)["name"], "DescribeDelegationToken");
  EXPECT_EQ((*ddt)["href"], "DescribeDelegationToken.html");
  EXPECT_EQ((*ddt)["request"], "0-3");
  EXPECT_EQ((*ddt)["flexible"], "2+");
  EXPECT_EQ((*ddt)["removed"], "0");
  EXPECT_EQ((*ddt)["kafka"], "\u22642.2\u20134.4");
  const Json want3 = Json::parse(R"j([["0","\u22642.2"],["1","\u22642.2"],["2","2.5"],["3","3.3"]])j");
  EXPECT_EQ((*ddt)["releases"], want3);
  EXPECT_EQ((*ddt)["notes"], "v0 last in Kafka 3.9");
  EXPECT_THAT(data["subtitle"].get<std::string>(), ::testing::HasSubstr("Apache Kafka 4.4"));
}

TEST(Site, WritesEveryPage) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "kwire-site-test";
  std::filesystem::remove_all(dir);
  SiteOptions options;
  options.out_dir = dir.string();
  const absl::StatusOr<SiteResult> r = WriteSite(options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->failures, ::testing::IsEmpty());
  EXPECT_EQ(r->pages, AllApis().size() + 1);
  size_t files = 0, bytes = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    bytes += e.file_size();
  }
  EXPECT_EQ(files, r->pages);
  EXPECT_EQ(bytes, r->bytes);
  std::ifstream in(dir / "Produce.html");
  const std::string produce((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Json data = Json::parse(*PageDataText(produce));
  EXPECT_EQ(data["version"], FindApi(0)->request_versions().hi);
  // The minimal Produce request holds the empty 61-byte RecordBatch v2.
  bool batch = false;
  for (const Json& run : data["frames"][0]["sections"]) {
    if (run[2] == static_cast<int>(Section::kRecordBatch)) {
      batch = true;
      EXPECT_EQ(run[1].get<size_t>() - run[0].get<size_t>(), 61u);
    }
  }
  EXPECT_TRUE(batch);
  std::filesystem::remove_all(dir);

  SiteOptions bad;
  bad.out_dir = "/proc/kwire-site-test";
  EXPECT_FALSE(WriteSite(bad).ok());
}

}  // namespace
}  // namespace kwire::html
