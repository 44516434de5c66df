// `kwire apis` and `kwire minimal`.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/harness/minimal.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"

namespace kwire::cli::internal {

// ---- Commands.

std::string RangeText(VersionRange r) {
  if (r.empty()) return "none";
  if (r.lo == r.hi) return absl::StrFormat("%d", r.lo);
  return absl::StrFormat("%d-%d", r.lo, r.hi);
}

// "2.4", "<=2.2" (the oldest release imported), "-" (never stable), from a release span.
std::string FirstRelease(const VersionReleases& r) {
  if (r.first == nullptr) return "-";
  return r.or_earlier ? absl::StrCat("<=", r.first) : std::string(r.first);
}

// The Kafka releases that have an API at all (unstable versions included): "<=2.2-4.4",
// "2.8-3.9", "4.4".
std::string ApiReleases(const ApiInfo& api) {
  const ReleaseSpan span = ApiReleaseSpan(api);
  if (span.first == nullptr || span.last == nullptr) return "-";
  if (!span.or_earlier && std::string_view(span.first) == span.last) return span.first;
  return absl::StrCat(span.or_earlier ? "<=" : "", span.first, "-", span.last);
}

// One line per version of one API: the releases that have it and what it is today.
int ApiVersionsTable(const ApiInfo& api, std::ostream& out) {
  const VersionRange all = api.request_versions();
  const VersionRange cur = api.current_versions();
  out << absl::StrFormat("%d %s%s\n", api.api_key, api.name,
                         *api.formerly != '\0' ? absl::StrCat(" (formerly ", api.formerly, ")")
                                                : std::string());
  out << absl::StrFormat("%-8s %-8s %-7s %-7s %-12s %-8s %s\n", "version", "flexible", "req.hdr",
                         "resp.hdr", "first", "last", "status");
  for (int16_t v = all.lo; v <= all.hi; ++v) {
    const VersionReleases* r = api.ReleasesOf(v);
    std::string status = cur.Contains(v) ? "current" : "removed";
    if (r != nullptr && r->first == nullptr) {
      status = absl::StrCat(status, ", unstable (", r->seen, "-", r->last, ")");
    } else if (r != nullptr && r->seen != nullptr) {
      status = absl::StrCat(status, " (unstable in ", r->seen, ")");
    }
    if (cur.Contains(v) && api.latest_unstable() && v == all.hi) status = "current, unstable";
    std::string line = absl::StrFormat(
        "%-8d %-8s %-7d %-7d %-12s %-8s %s", v, api.IsFlexible(v) ? "yes" : "no",
        RequestHeaderVersion(api.api_key, v), ResponseHeaderVersion(api.api_key, v),
        r != nullptr ? FirstRelease(*r) : "?", r != nullptr ? r->last : "?", status);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  return kExitOk;
}

int Apis(const Args& a, std::ostream& out, Usage& u) {
  if (a.positional.size() == 1) {
    const ApiInfo* api = nullptr;
    if (!ResolveApi(a.positional[0], api, u)) return kExitUsage;
    return ApiVersionsTable(*api, out);
  }
  if (!RequireNoPositional(a, 1, u)) return kExitUsage;
  out << absl::StrFormat("%-4s %-37s %-9s %-9s %-9s %-9s %-10s %s\n", "key", "name", "request",
                         "response", "flexible", "removed", "kafka", "notes");
  for (const ApiInfo& api : AllApis()) {
    const VersionRange req = api.request_versions();
    const VersionRange cur = api.current_versions();
    std::string removed = "-";
    if (cur.empty()) {
      removed = RangeText(req);
    } else if (cur.lo > req.lo) {
      removed = RangeText(VersionRange{req.lo, static_cast<int16_t>(cur.lo - 1)});
    }
    const int16_t flex = api.first_flexible_version();
    std::vector<std::string> notes;
    if (api.latest_unstable()) notes.push_back(absl::StrFormat("v%d unstable", req.hi));
    if (cur.empty()) {
      const VersionReleases* r = api.ReleasesOf(req.hi);
      notes.push_back(absl::StrCat("API removed; last in Kafka ", r != nullptr ? r->last : "?"));
    } else if (cur.lo > req.lo) {
      const VersionReleases* r = api.ReleasesOf(static_cast<int16_t>(cur.lo - 1));
      notes.push_back(absl::StrFormat("v%s last in Kafka %s", removed, r != nullptr ? r->last : "?"));
    }
    if (*api.formerly != '\0') notes.push_back(absl::StrCat("formerly ", api.formerly));
    std::string line = absl::StrFormat(
        "%-4d %-37s %-9s %-9s %-9s %-9s %-10s %s", api.api_key, api.name, RangeText(req),
        RangeText(api.response_versions()), flex < 0 ? "none" : absl::StrFormat("%d+", flex),
        removed, ApiReleases(api), absl::StrJoin(notes, "; "));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  return kExitOk;
}

int Minimal(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (a.positional.size() != 3) {
    u.Fail("expected <api key|name> <version|max> <request|response>");
    return kExitUsage;
  }
  const ApiInfo* api = nullptr;
  Direction dir = Direction::kRequest;
  int16_t version = 0;
  if (!ResolveApi(a.positional[0], api, u) || !ResolveDirection(a.positional[2], dir, u) ||
      !ResolveVersion(*api, dir, a.positional[1], version, u)) {
    return kExitUsage;
  }
  const auto frame = EncodeMinimalFrame(*api, version, dir);
  if (!frame.ok()) {
    err << "kwire minimal: " << frame.status().message() << "\n";
    return kExitFailure;
  }
  out << HexString(*frame) << "\n";
  return kExitOk;
}

// The frame commands' shared options.

}  // namespace kwire::cli::internal
