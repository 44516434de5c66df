// The broker addresses a response advertises, rewritten: how `kwire proxy` keeps a client
// on the proxy. A client learns where brokers are from responses (Metadata's Brokers,
// FindCoordinator's coordinator, DescribeCluster's Brokers, and KIP-951's NodeEndpoints
// in Produce, Fetch, ShareFetch and ShareAcknowledge responses) and connects there
// directly; a proxy that wants to see that traffic gives each advertised broker a
// listener of its own and advertises it instead.
#ifndef KWIRE_TOOLS_PROXY_ADDRESS_REWRITE_H_
#define KWIRE_TOOLS_PROXY_ADDRESS_REWRITE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "codec/schema/message.h"

namespace kwire::proxy {

/// A broker address as responses carry it (host STRING, port INT32).
struct HostPort {
  std::string host;
  int32_t port = 0;
  auto operator<=>(const HostPort&) const = default;
};

/// The replacement for an advertised address, or nullopt to leave it.
using AddressMap = std::function<std::optional<HostPort>(const HostPort&)>;

/// The API keys whose responses advertise client-facing broker addresses: Metadata (3),
/// FindCoordinator (10), DescribeCluster (60), Produce (0) and Fetch (1) NodeEndpoints
/// (KIP-951), ShareFetch (78), ShareAcknowledge (79). Addresses of controllers (the Raft
/// APIs, DescribeQuorum) and of Kafka Streams application instances are not brokers a
/// client connects to through a proxy, and are left alone.
bool AdvertisesBrokers(int16_t api_key);

/// Rewrites every advertised broker address of response `body` (of `api_key`) through
/// `map`. Returns the number of addresses changed (0: the body is as it was).
int RewriteAddresses(int16_t api_key, AnyMessage& body, const AddressMap& map);

}  // namespace kwire::proxy

#endif  // KWIRE_TOOLS_PROXY_ADDRESS_REWRITE_H_
