// Which responses advertise broker addresses, and their rewriting.
#include "tools/proxy/address_rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>

#include "codec/generated/find_coordinator_response.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_response.h"
#include "codec/protocol/registry.h"

namespace kwire::proxy {
namespace {

const AddressMap kToProxy = [](const HostPort& a) -> std::optional<HostPort> {
  if (a.host == "leave.me") return std::nullopt;
  return HostPort{"127.0.0.1", 10000 + a.port};
};

TEST(AddressRewrite, MetadataBrokers) {
  MetadataResponse m;
  m.brokers.push_back({.node_id = 1, .host = "broker1", .port = 9092});
  m.brokers.push_back({.node_id = 2, .host = "leave.me", .port = 9093});
  AnyMessage body(*FindApi(3)->response);
  *body.get<MetadataResponse>() = m;
  EXPECT_EQ(RewriteAddresses(3, body, kToProxy), 1);
  const MetadataResponse& out = *body.get<MetadataResponse>();
  EXPECT_EQ(out.brokers[0].host, "127.0.0.1");
  EXPECT_EQ(out.brokers[0].port, 19092);
  EXPECT_EQ(out.brokers[1].host, "leave.me");
  EXPECT_EQ(out.brokers[1].port, 9093);
}

TEST(AddressRewrite, FindCoordinatorOldAndNew) {
  AnyMessage body(*FindApi(10)->response);
  FindCoordinatorResponse& f = *body.get<FindCoordinatorResponse>();
  f.host = "b";  // v0-v3
  f.port = 1;
  f.coordinators.push_back({.key = "g", .node_id = 1, .host = "c", .port = 2});  // v4+
  EXPECT_EQ(RewriteAddresses(10, body, kToProxy), 2);
  EXPECT_EQ(f.port, 10001);
  EXPECT_EQ(f.coordinators[0].port, 10002);
  f.host.clear();  // an error answer: no address to rewrite
  f.port = -1;
  f.coordinators.clear();
  EXPECT_EQ(RewriteAddresses(10, body, kToProxy), 0);
  EXPECT_EQ(f.port, -1);
}

TEST(AddressRewrite, ProduceNodeEndpointsOnlyWhenPresent) {
  AnyMessage body(*FindApi(0)->response);
  EXPECT_EQ(RewriteAddresses(0, body, kToProxy), 0);
  ProduceResponse& p = *body.get<ProduceResponse>();
  p.node_endpoints.emplace();
  p.node_endpoints->push_back({.node_id = 1, .host = "b", .port = 5});
  EXPECT_EQ(RewriteAddresses(0, body, kToProxy), 1);
  EXPECT_EQ((*p.node_endpoints)[0].port, 10005);
}

// Every response of Kafka's schema with a Host string and a Port (at any depth; read from
// codec/defs) is either rewritten or named here as not a broker a client connects to.
TEST(AddressRewrite, EveryResponseThatAdvertisesAnAddressIsKnown) {
  // Controllers (Raft: Vote 52, BeginQuorumEpoch 53, EndQuorumEpoch 54, DescribeQuorum 55,
  // FetchSnapshot 59, UpdateRaftVoter 82) and Kafka Streams instances (StreamsGroup* 88, 89).
  const std::set<int16_t> not_brokers = {52, 53, 54, 55, 59, 82, 88, 89};
  std::set<int16_t> found;
  for (const auto& entry : std::filesystem::directory_iterator(KWIRE_TEST_DEFS_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with("Response.kdef")) continue;
    std::ifstream in(entry.path());
    std::string line;
    int api_key = -1;
    bool host = false, port = false;
    while (std::getline(in, line)) {
      const std::string t = line.substr(std::min(line.find_first_not_of(' '), line.size()));
      if (t.rfind("api_key ", 0) == 0) api_key = std::stoi(t.substr(8));
      host |= t.rfind("field Host string", 0) == 0;
      port |= t.rfind("field Port ", 0) == 0;
    }
    if (host && port && api_key >= 0) found.insert(static_cast<int16_t>(api_key));
  }
  ASSERT_GE(found.size(), 10u);
  for (const int16_t key : found) {
    EXPECT_TRUE(AdvertisesBrokers(key) || not_brokers.count(key) > 0)
        << "API key " << key << " advertises a Host and Port the proxy does not rewrite";
  }
  for (const int16_t key : {0, 1, 3, 10, 60, 78, 79}) {
    EXPECT_TRUE(found.count(key) > 0) << key;
    EXPECT_TRUE(AdvertisesBrokers(key)) << key;
  }
}

}  // namespace
}  // namespace kwire::proxy
