#include "tools/proxy/address_rewrite.h"

#include "codec/generated/describe_cluster_response.h"
#include "codec/generated/fetch_response.h"
#include "codec/generated/find_coordinator_response.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_response.h"
#include "codec/generated/share_acknowledge_response.h"
#include "codec/generated/share_fetch_response.h"

namespace kwire::proxy {
namespace {

// One struct with `host` and `port` members.
template <class S>
int Rewrite(S& s, const AddressMap& map) {
  const std::optional<HostPort> to = map(HostPort{s.host, s.port});
  if (!to || (to->host == s.host && to->port == s.port)) return 0;
  s.host = to->host;
  s.port = to->port;
  return 1;
}

template <class V>
int RewriteAll(V& structs, const AddressMap& map) {
  int n = 0;
  for (auto& s : structs) n += Rewrite(s, map);
  return n;
}

template <class T>
int RewriteTagged(Tagged<T>& structs, const AddressMap& map) {
  return structs.has_value() ? RewriteAll(*structs, map) : 0;
}

}  // namespace

bool AdvertisesBrokers(int16_t api_key) {
  switch (api_key) {
    case 0: case 1: case 3: case 10: case 60: case 78: case 79: return true;
    default: return false;
  }
}

int RewriteAddresses(int16_t api_key, AnyMessage& body, const AddressMap& map) {
  switch (api_key) {
    case 0:
      if (auto* m = body.get<ProduceResponse>()) return RewriteTagged(m->node_endpoints, map);
      break;
    case 1:
      if (auto* m = body.get<FetchResponse>()) return RewriteTagged(m->node_endpoints, map);
      break;
    case 3:
      if (auto* m = body.get<MetadataResponse>()) return RewriteAll(m->brokers, map);
      break;
    case 10:
      if (auto* m = body.get<FindCoordinatorResponse>()) {
        // v0-v3: one coordinator in the body (an empty host when there is an error);
        // v4+ (KIP-699): one per key.
        int n = RewriteAll(m->coordinators, map);
        if (!m->host.empty()) n += Rewrite(*m, map);
        return n;
      }
      break;
    case 60:
      if (auto* m = body.get<DescribeClusterResponse>()) return RewriteAll(m->brokers, map);
      break;
    case 78:
      if (auto* m = body.get<ShareFetchResponse>()) return RewriteAll(m->node_endpoints, map);
      break;
    case 79:
      if (auto* m = body.get<ShareAcknowledgeResponse>()) return RewriteAll(m->node_endpoints, map);
      break;
    default:
      break;
  }
  return 0;
}

}  // namespace kwire::proxy
