#include "tools/html/site.h"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codec/harness/explain.h"
#include "codec/harness/minimal.h"
#include "codec/harness/print_records.h"
#include "tools/html/page.h"
#include "tools/html/schema.h"

namespace kwire::html {
namespace {

// "2.4", "≤2.2" (the oldest release imported: 2.2 or earlier), "unstable (seen in 4.4)".
std::string FirstRelease(const VersionReleases& r) {
  if (r.first == nullptr) {
    return r.seen != nullptr ? absl::StrCat("not stable yet (in ", r.seen, ")") : "not stable yet";
  }
  std::string s = r.or_earlier ? absl::StrCat("\xe2\x89\xa4", r.first) : std::string(r.first);
  if (r.seen != nullptr) absl::StrAppend(&s, " (unstable in ", r.seen, ")");
  return s;
}

// The releases that have the API at all: "≤2.2–4.4", "2.8–3.9", "4.4".
std::string ApiReleases(const ApiInfo& api) {
  const ReleaseSpan span = ApiReleaseSpan(api);
  if (span.first == nullptr || span.last == nullptr) return "-";
  if (!span.or_earlier && std::string_view(span.first) == span.last) return span.first;
  return absl::StrCat(span.or_earlier ? "\xe2\x89\xa4" : "", span.first, "\xe2\x80\x93", span.last);
}

// The newest release any API has: the newest imported (tools/kafka-releases.txt).
std::string NewestRelease() {
  const char* newest = nullptr;
  for (const ApiInfo& api : AllApis()) {
    for (const VersionReleases& r : api.releases) {
      if (r.last != nullptr && (newest == nullptr || ReleaseBefore(newest, r.last))) newest = r.last;
    }
  }
  return newest == nullptr ? "?" : newest;
}

std::string RemovedText(const ApiInfo& api) {
  const VersionRange req = api.request_versions(), cur = api.current_versions();
  if (cur.empty()) return RangeText(req);
  if (cur.lo > req.lo) return RangeText(VersionRange{req.lo, static_cast<int16_t>(cur.lo - 1)});
  return "-";
}

std::string VersionStatus(const ApiInfo& api, int16_t v) {
  const VersionReleases* r = api.ReleasesOf(v);
  std::string status = api.current_versions().Contains(v) ? "current" : "removed";
  if (r != nullptr && r->first == nullptr) {
    status = absl::StrCat(status, ", unstable");
  } else if (api.current_versions().Contains(v) && api.latest_unstable() &&
             v == api.request_versions().hi) {
    status = "current, unstable";
  }
  return status;
}

std::string Flexible(const ApiInfo& api) {
  const int16_t flex = api.first_flexible_version();
  return flex < 0 ? "none" : absl::StrFormat("%d+", flex);
}

std::string Headers(const ApiInfo& api, int16_t v) {
  return absl::StrFormat("req v%d, resp v%d", RequestHeaderVersion(api.api_key, v),
                         ResponseHeaderVersion(api.api_key, v));
}

// The documented minimal frame of (api, version, dir), explained as `kwire explain` does.
FrameView MinimalFrame(const ApiInfo& api, int16_t version, Direction dir,
                       std::vector<std::string>* failures) {
  FrameView f;
  f.dir = dir;
  f.api_key = api.api_key;
  f.api_version = version;
  f.heading = dir == Direction::kRequest ? "Request" : "Response";
  f.show_schema = true;
  const absl::StatusOr<std::vector<uint8_t>> bytes = EncodeMinimalFrame(api, version, dir);
  if (!bytes.ok()) {
    f.ex.status = bytes.status();
    f.ex.title = absl::StrFormat("%s v%d %s: no minimal frame", api.name, version,
                                 dir == Direction::kRequest ? "request" : "response");
  } else {
    PrintOptions options;
    options.records = &PrintRecordBatches;  // the empty RecordBatch v2 of records fields
    f.ex = dir == Direction::kRequest ? ExplainRequestFrame(*bytes, options)
                                      : ExplainResponseFrame(*bytes, api.api_key, version, options);
  }
  if (!f.ex.status.ok() && failures != nullptr) {
    failures->push_back(absl::StrFormat("%s v%d %s: %s", api.name, version,
                                        dir == Direction::kRequest ? "request" : "response",
                                        f.ex.status.message()));
  }
  return f;
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError("cannot write " + path.string());
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return absl::InternalError("error writing " + path.string());
  return absl::OkStatus();
}

}  // namespace

std::string ApiPageName(const ApiInfo& api, int16_t version, bool newest) {
  return newest ? absl::StrCat(api.name, ".html") : absl::StrFormat("%s-v%d.html", api.name, version);
}

std::string ApiPage(const ApiInfo& api, int16_t version, bool link_versions,
                    std::vector<std::string>* failures) {
  FrameView request = MinimalFrame(api, version, Direction::kRequest, failures);
  FrameView response = MinimalFrame(api, version, Direction::kResponse, failures);
  const bool flexible = api.IsFlexible(version);

  Json data = Json::object();
  data["page"] = "api";
  data["name"] = api.name;
  data["key"] = api.api_key;
  data["version"] = version;
  data["intro"] = absl::StrCat(
      "The smallest legal request and response of ", api.name, " at version ", version,
      ", as kwire encodes them (the documented minimal frame: correlation_id 0, client_id "
      "\"\", numbers zero, strings and bytes empty, one element in every array, an empty "
      "61-byte RecordBatch v2 in records fields, tagged fields absent), with every byte's "
      "place in the object tree. ",
      flexible ? absl::StrFormat("Version %d is flexible (KIP-482): strings, bytes and arrays "
                                 "have compact (length + 1) uvarint prefixes, and every struct "
                                 "ends with a uvarint count of tagged fields. ",
                                 version)
               : absl::StrFormat("Version %d is not flexible: strings have int16 length "
                                 "prefixes, bytes and arrays int32 ones, and there are no "
                                 "tagged fields. ",
                                 version),
      "Sizes include the int32 size prefix. Hover or click a byte to find its field, or a "
      "field to see its bytes.");

  Json summary = Json::array();
  auto row = [&](std::string name, std::string value) {
    summary.push_back(Json::array({std::move(name), std::move(value)}));
  };
  row("API key", absl::StrCat(api.api_key));
  row("encoded at", absl::StrFormat("v%d", version));
  row("flexible versions", Flexible(api));
  row("headers", Headers(api, version));
  std::string req_versions = RangeText(api.current_versions());
  if (const std::string removed = RemovedText(api); removed != "-") {
    absl::StrAppend(&req_versions, " (removed: ", removed, ")");
  }
  row("request versions", req_versions);
  row("response versions", RangeText(api.response_versions()));
  row("request size", absl::StrFormat("%d bytes", request.ex.bytes.size()));
  row("response size", absl::StrFormat("%d bytes", response.ex.bytes.size()));
  if (const VersionReleases* r = api.ReleasesOf(version)) {
    row(absl::StrFormat("v%d in Kafka", version),
        absl::StrCat(FirstRelease(*r), " \xe2\x80\x93 ", r->last));
  }
  if (*api.formerly != '\0') row("formerly", api.formerly);
  data["summary"] = std::move(summary);

  Json versions = Json::array();
  const VersionRange all = api.request_versions();
  for (int16_t v = all.lo; v <= all.hi; ++v) {
    const VersionReleases* r = api.ReleasesOf(v);
    Json j = Json::object();
    j["version"] = v;
    j["flexible"] = api.IsFlexible(v);
    j["headers"] = Headers(api, v);
    j["first"] = r != nullptr ? FirstRelease(*r) : "?";
    j["last"] = r != nullptr && r->last != nullptr ? r->last : "?";
    j["status"] = VersionStatus(api, v);
    j["href"] = link_versions ? Json(ApiPageName(api, v, v == all.hi)) : Json(nullptr);
    versions.push_back(std::move(j));
  }
  data["versions"] = std::move(versions);
  Json frames = Json::array();
  frames.push_back(FrameData(request));
  frames.push_back(FrameData(response));
  data["frames"] = std::move(frames);
  return RenderPage(absl::StrFormat("%s v%d \xe2\x80\x94 kwire", api.name, version), data);
}

std::string IndexPage() {
  const std::string newest = NewestRelease();
  Json data = Json::object();
  data["page"] = "index";
  data["title"] = "kwire: the Kafka wire protocol, API by API";
  data["subtitle"] = absl::StrFormat("%d APIs, Apache Kafka %s (codec/defs)", AllApis().size(),
                                     newest);
  data["intro"] =
      "Every API kwire reads and writes, with its request and response versions (versions "
      "Kafka removed since 2.2 included), its flexible versions (KIP-482) and the Kafka release "
      "in which each version was first stable, from the kafka-clients release jars pinned in "
      "tools/kafka-releases.txt (\xe2\x89\xa4" "2.2: 2.2 or earlier, the oldest imported). "
      "Each API's page shows its minimal request and response at the newest version, byte "
      "by byte, and its message schema as kwire defines it.";
  Json apis = Json::array();
  for (const ApiInfo& api : AllApis()) {
    Json a = Json::object();
    a["key"] = api.api_key;
    a["name"] = api.name;
    a["href"] = ApiPageName(api, api.request_versions().hi, true);
    a["request"] = RangeText(api.request_versions());
    a["response"] = RangeText(api.response_versions());
    a["flexible"] = Flexible(api);
    a["removed"] = RemovedText(api);
    a["kafka"] = ApiReleases(api);
    Json releases = Json::array();
    for (const VersionReleases& r : api.releases) {
      releases.push_back(Json::array({RangeText(r.versions), FirstRelease(r)}));
    }
    a["releases"] = std::move(releases);
    std::vector<std::string> notes;
    if (api.latest_unstable()) {
      notes.push_back(absl::StrFormat("v%d unstable", api.request_versions().hi));
    }
    if (api.current_versions().empty()) {
      const VersionReleases* r = api.ReleasesOf(api.request_versions().hi);
      notes.push_back(absl::StrCat("API removed; last in Kafka ", r != nullptr ? r->last : "?"));
    } else if (const std::string removed = RemovedText(api); removed != "-") {
      const VersionReleases* r =
          api.ReleasesOf(static_cast<int16_t>(api.current_versions().lo - 1));
      notes.push_back(absl::StrFormat("v%s last in Kafka %s", removed, r != nullptr ? r->last : "?"));
    }
    if (*api.formerly != '\0') notes.push_back(absl::StrCat("formerly ", api.formerly));
    a["notes"] = absl::StrJoin(notes, "; ");
    a["formerly"] = api.formerly;
    apis.push_back(std::move(a));
  }
  data["apis"] = std::move(apis);
  return RenderPage("kwire: the Kafka wire protocol, API by API", data);
}

absl::StatusOr<SiteResult> WriteSite(const SiteOptions& options) {
  namespace fs = std::filesystem;
  const fs::path dir(options.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", dir.string(), ec ? ": " + ec.message() : ""));
  }
  SiteResult result;
  auto write = [&](const std::string& name, const std::string& text) -> absl::Status {
    if (absl::Status s = WriteFile(dir / name, text); !s.ok()) return s;
    ++result.pages;
    result.bytes += text.size();
    return absl::OkStatus();
  };
  if (absl::Status s = write("index.html", IndexPage()); !s.ok()) return s;
  for (const ApiInfo& api : AllApis()) {
    const VersionRange all = api.request_versions();
    if (absl::Status s = write(ApiPageName(api, all.hi, true),
                               ApiPage(api, all.hi, options.all_versions, &result.failures));
        !s.ok()) {
      return s;
    }
    if (!options.all_versions) continue;
    for (int16_t v = all.lo; v < all.hi; ++v) {
      if (absl::Status s = write(ApiPageName(api, v, false),
                                 ApiPage(api, v, true, &result.failures));
          !s.ok()) {
        return s;
      }
    }
  }
  return result;
}

}  // namespace kwire::html
