// The documentation site (`kwire site OUTDIR`): an index of every API kwire speaks and
// one page per API at its newest version with its documented minimal request and
// response frames (codec/harness/minimal.h) — summary, byte grid coloured by section,
// object tree — and the message schema from kwire's own definitions (schema.h).
// conformance/vectors/seeds.txt holds two such pages' frames and trees
// (DescribeDelegationToken v3, RenewDelegationToken v2); site_test.cc holds the pages
// written here against them.
//
// Files: OUTDIR/index.html, OUTDIR/<Api>.html (e.g. Produce.html), and with
// `all_versions` OUTDIR/<Api>-v<N>.html for every version. Every page is self-contained
// (page.h).
#ifndef KWIRE_TOOLS_HTML_SITE_H_
#define KWIRE_TOOLS_HTML_SITE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codec/protocol/registry.h"

namespace kwire::html {

/// What `kwire site` writes.
struct SiteOptions {
  std::string out_dir;        ///< Created if missing; files in it are overwritten.
  bool all_versions = false;  ///< Also a page per version (OUTDIR/<Api>-v<N>.html).
};

/// What was written.
struct SiteResult {
  size_t pages = 0;  ///< Files written (index included).
  size_t bytes = 0;  ///< Their total size.
  /// Frames that could not be made or explained ("Produce v13 request: ..."); the
  /// pages show them as errors. Empty for a sound codec.
  std::vector<std::string> failures;
};

/// The file name of an API's page: "<Name>.html" (newest version) or "<Name>-v<N>.html".
std::string ApiPageName(const ApiInfo& api, int16_t version, bool newest);

/// The page of `api` at `version`: minimal request and response frames, summary,
/// versions table (links to the per-version pages when `link_versions`). Frames that
/// cannot be made are appended to `failures` (and shown as errors).
std::string ApiPage(const ApiInfo& api, int16_t version, bool link_versions,
                    std::vector<std::string>* failures = nullptr);

/// The index page: every API with its key, versions, flexible versions, removed versions
/// and the Kafka releases in which each version first appeared (the release spans of
/// codec/defs, ApiInfo::releases).
std::string IndexPage();

/// Writes the whole site. Errors: a directory or file that cannot be written
/// (kPermissionDenied / kInternal, naming the path).
absl::StatusOr<SiteResult> WriteSite(const SiteOptions& options);

}  // namespace kwire::html

#endif  // KWIRE_TOOLS_HTML_SITE_H_
