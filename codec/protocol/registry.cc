#include "codec/protocol/registry.h"

#include <cctype>
#include <charconv>
#include <utility>
#include <string>

namespace kwire {
namespace registry_internal {
extern const ApiInfo kApiTable[];
extern const size_t kApiTableSize;
}  // namespace registry_internal

std::span<const ApiInfo> AllApis() {
  return {registry_internal::kApiTable, registry_internal::kApiTableSize};
}

const ApiInfo* FindApi(int16_t api_key) {
  const auto apis = AllApis();
  // The table is sorted by key and (today) dense, so try the direct index first.
  if (api_key >= 0 && static_cast<size_t>(api_key) < apis.size() &&
      apis[static_cast<size_t>(api_key)].api_key == api_key) {
    return &apis[static_cast<size_t>(api_key)];
  }
  for (const ApiInfo& a : apis) {
    if (a.api_key == api_key) return &a;
  }
  return nullptr;
}

const ApiInfo* FindApiByName(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::string want = lower(name);
  for (const char* suffix : {"request", "response"}) {
    const std::string sfx = suffix;
    if (want.size() > sfx.size() && want.compare(want.size() - sfx.size(), sfx.size(), sfx) == 0) {
      want.resize(want.size() - sfx.size());
      break;
    }
  }
  for (const ApiInfo& a : AllApis()) {
    if (lower(a.name) == want) return &a;
  }
  for (const ApiInfo& a : AllApis()) {
    std::string_view former = a.formerly;
    while (!former.empty()) {
      const size_t space = former.find(' ');
      if (lower(former.substr(0, space)) == want) return &a;
      former = space == std::string_view::npos ? std::string_view() : former.substr(space + 1);
    }
  }
  return nullptr;
}

int16_t RequestHeaderVersion(int16_t api_key, int16_t api_version) {
  constexpr int16_t kControlledShutdown = 7;
  if (api_key == kControlledShutdown && api_version == 0) return 0;
  const ApiInfo* api = FindApi(api_key);
  return api != nullptr && api->IsFlexible(api_version) ? 2 : 1;
}

int16_t ResponseHeaderVersion(int16_t api_key, int16_t api_version) {
  constexpr int16_t kApiVersions = 18;
  if (api_key == kApiVersions) return 0;
  const ApiInfo* api = FindApi(api_key);
  return api != nullptr && api->IsFlexible(api_version) ? 1 : 0;
}

bool ReleaseBefore(std::string_view a, std::string_view b) {
  auto parse = [](std::string_view s) {
    int major = 0, minor = 0;
    const char* end = s.data() + s.size();
    const auto [dot, ec] = std::from_chars(s.data(), end, major);
    if (ec == std::errc() && dot != end && *dot == '.') std::from_chars(dot + 1, end, minor);
    return std::pair(major, minor);
  };
  return parse(a) < parse(b);
}

ReleaseSpan ApiReleaseSpan(const ApiInfo& api) {
  ReleaseSpan span;
  for (const VersionReleases& r : api.releases) {
    const char* f = r.seen != nullptr ? r.seen : r.first;
    if (f != nullptr && (span.first == nullptr || ReleaseBefore(f, span.first))) {
      span.first = f;
      span.or_earlier = r.or_earlier;
    }
    if (r.last != nullptr && (span.last == nullptr || ReleaseBefore(span.last, r.last))) {
      span.last = r.last;
    }
  }
  return span;
}

}  // namespace kwire
