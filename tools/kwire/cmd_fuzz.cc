// `kwire diff` and `kwire broker-fuzz`.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#if KWIRE_HAVE_DIFF
#include "tools/diff/diff.h"
#endif
#if KWIRE_HAVE_BROKERFUZZ
#include "tools/brokerfuzz/brokerfuzz.h"
#endif
#include "tools/kwire/help.h"

namespace kwire::cli::internal {

int Diff(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
#if KWIRE_HAVE_DIFF
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  diff::DiffOptions o;
  auto list = [&](const char* name) {  // repeated options are joined by '\n'
    std::vector<std::string> v;
    if (auto s = a.Get(name)) v = absl::StrSplit(*s, '\n', absl::SkipEmpty());
    return v;
  };
  o.testees = list("testee");
  if (o.testees.empty()) {
    u.Fail("--testee CMD is required (once per implementation)");
    return kExitUsage;
  }
  o.seeds = list("seeds");
  if (o.seeds.empty()) o.seeds = {DefaultVectorsDir()};
  auto seconds = [&](const char* name, double& v) {
    auto s = a.Get(name);
    return !s || (absl::SimpleAtod(*s, &v) && v >= 0 && v < 1e9) ||
           u.Fail(absl::StrCat("--", name, " takes seconds (a number >= 0), not '", *s, "'"));
  };
  auto number = [&](const char* name, auto& v) {
    auto s = a.Get(name);
    return !s || absl::SimpleAtoi(*s, &v) || u.Fail(absl::StrCat("--", name, " takes a number, not '", *s, "'"));
  };
  if (!seconds("time", o.time_seconds) || !seconds("timeout", o.timeout_seconds) || !number("count", o.count) ||
      !number("seed", o.seed) || !number("minimize", o.minimize_budget) || !number("max-rss", o.max_rss_mib)) {
    return kExitUsage;
  }
  if (o.timeout_seconds <= 0) {
    u.Fail("--timeout must be above 0");
    return kExitUsage;
  }
  o.op = a.Get("op").value_or("validate");
  if (o.op != "validate" && o.op != "decode" && o.op != "roundtrip") {
    u.Fail("--op takes validate, decode or roundtrip, not '" + o.op + "'");
    return kExitUsage;
  }
  if (auto d = a.Get("direction")) {
    Direction dir;
    if (!ResolveDirection(*d, dir, u)) return kExitUsage;
    o.request = dir == Direction::kRequest;
  }
  if (auto apis = a.Get("api")) {
    for (absl::string_view name : absl::StrSplit(*apis, ',', absl::SkipEmpty())) {
      const ApiInfo* api = nullptr;
      if (!ResolveApi(std::string(name), api, u)) return kExitUsage;
      o.api_keys.insert(api->api_key);
    }
  }
  o.out_dir = a.Get("out").value_or("");
  o.expected_file = a.Get("expected").value_or("");
  return diff::DiffMain(o, out, err);
#else
  err << "kwire diff: not in this build: it needs the fuzz mutator (configure with\n"
         "KWIRE_FUZZERS=ON, the default of a top-level build)\n";
  return kExitUsage;
#endif
}


// `kwire broker-fuzz` (tools/brokerfuzz): its options parsed there, then BrokerFuzzMain.
int BrokerFuzz(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
#if KWIRE_HAVE_BROKERFUZZ
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  brokerfuzz::Options o;
  std::string error;
  if (!brokerfuzz::ParseOptions(a.values, a.flags, {DefaultVectorsDir()}, o, error)) {
    u.Fail(error);
    return kExitUsage;
  }
  return brokerfuzz::BrokerFuzzMain(o, out, err);
#else
  (void)a, (void)out, (void)u;
  err << kBrokerFuzzUnavailable;
  return kExitUsage;
#endif
}

}  // namespace kwire::cli::internal
