// The API registry: API key → name, request/response message types and versions, and
// the header-version rules (protocol guide "Headers"; KIP-482 flexible versions;
// KIP-511: ApiVersions responses always use response header v0).
#ifndef KWIRE_CODEC_PROTOCOL_REGISTRY_H_
#define KWIRE_CODEC_PROTOCOL_REGISTRY_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "codec/schema/message.h"
#include "codec/schema/spec.h"

namespace kwire {

/// The Apache Kafka releases that have some versions of an API, from the kafka-clients
/// release jars pinned in tools/kafka-releases.txt (codec/defs/README.md). Releases are
/// "MAJOR.MINOR" strings.
struct VersionReleases {
  VersionRange versions;
  /// First release in which these versions are stable, or nullptr if none is yet.
  const char* first;
  /// First release that has them at all, when that differs from `first` (they were
  /// `latestVersionUnstable` there), else nullptr.
  const char* seen;
  /// Newest release that has them: the newest release imported while they are current.
  const char* last;
  /// `first` is the oldest release imported (2.2, the first jar with the definitions), so
  /// the versions may be older: "2.2 or earlier".
  bool or_earlier;
};

/// One Kafka API (request and response message types).
struct ApiInfo {
  int16_t api_key;
  const char* name;             ///< e.g. "Fetch" (message names minus Request/Response).
  const MessageOps* request;
  const MessageOps* response;
  /// Names the API had in older releases, space separated (e.g. "ListClientMetricsResources"
  /// for key 74, renamed ListConfigResources in Kafka 4.1), or "".
  const char* formerly;
  /// Release spans of every version in request_versions(), in version order.
  std::span<const VersionReleases> releases;

  /// Every version kwire speaks, versions removed in Kafka 4.0 (KIP-896) included.
  VersionRange request_versions() const { return request->spec->valid; }
  VersionRange response_versions() const { return response->spec->valid; }
  /// Versions the newest imported release (Kafka 4.4) has; the others are "removed" (by
  /// KIP-896 in 4.0, the share-group v0 in 4.1; ZooKeeper-only APIs have none).
  VersionRange current_versions() const { return request->spec->current; }
  /// The release span of `version`, or nullptr if the API has no such version.
  const VersionReleases* ReleasesOf(int16_t version) const {
    for (const VersionReleases& r : releases) {
      if (r.versions.Contains(version)) return &r;
    }
    return nullptr;
  }
  /// Lowest flexible version (KIP-482), or −1 if the API has none.
  int16_t first_flexible_version() const {
    return request->spec->flexible.empty() ? int16_t{-1} : request->spec->flexible.lo;
  }
  bool IsFlexible(int16_t version) const { return request->spec->flexible.Contains(version); }
  bool IsRemoved(int16_t version) const {
    return request_versions().Contains(version) && !current_versions().Contains(version);
  }
  /// The highest version is marked unstable upstream (latestVersionUnstable).
  bool latest_unstable() const { return request->spec->latest_unstable; }
  const MessageOps& ops(Direction d) const {
    return d == Direction::kRequest ? *request : *response;
  }
};

/// Whether Kafka release `a` ("3.9") comes before `b` ("3.10", "4.0"): by major, then
/// minor version (the names of tools/kafka-releases.txt).
bool ReleaseBefore(std::string_view a, std::string_view b);

/// The Kafka releases that have an API at all, unstable versions included.
struct ReleaseSpan {
  const char* first = nullptr;  ///< oldest release with any version, nullptr if none
  bool or_earlier = false;      ///< `first` is the oldest release imported: "2.2 or earlier"
  const char* last = nullptr;   ///< newest release with any version
};
/// The span of `api` over every version's VersionReleases.
ReleaseSpan ApiReleaseSpan(const ApiInfo& api);

/// Every API, ordered by API key.
std::span<const ApiInfo> AllApis();
/// The API with this key, or nullptr.
const ApiInfo* FindApi(int16_t api_key);
/// The API with this name ("Fetch", case-insensitive; "FetchRequest" also works; a former
/// name such as "ListClientMetricsResources" finds the renamed API), or nullptr.
const ApiInfo* FindApiByName(std::string_view name);

/// Request header version for (api_key, api_version): 2 for flexible versions, else 1;
/// ControlledShutdown (7) v0 uses 0. Unknown APIs get 1.
int16_t RequestHeaderVersion(int16_t api_key, int16_t api_version);
/// Response header version: 1 for flexible versions, else 0; ApiVersions (18) always 0
/// (KIP-511: a client must be able to read it before it knows the broker's versions).
int16_t ResponseHeaderVersion(int16_t api_key, int16_t api_version);

}  // namespace kwire

#endif  // KWIRE_CODEC_PROTOCOL_REGISTRY_H_
