#include "tools/kwire/cli.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/harness/diagnose.h"
#include "codec/harness/explain.h"
#include "codec/harness/minimal.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "conformance/check.h"
#include "conformance/testee.h"
#include "tools/kwire/explain_view.h"
#include "tools/kwire/testee.h"
#include "tools/proxy/proxy.h"
#if KWIRE_HAVE_PCAP
#include "tools/pcap/pcap.h"
#endif
#if KWIRE_HAVE_DIFF
#include "tools/diff/diff.h"
#endif
#if KWIRE_HAVE_BROKERFUZZ
#include "tools/brokerfuzz/brokerfuzz.h"
#endif
#include "tools/html/page.h"
#include "tools/html/report.h"
#include "tools/html/site.h"
#include "tools/json/json.h"
#if KWIRE_HAVE_RECORDS_PRINT
#include "codec/harness/print_records.h"
#endif
#include "tools/kwire/cli_internal.h"
#include "tools/kwire/help.h"

namespace kwire::cli {
namespace {

using namespace internal;  // NOLINT: the commands and their help texts

struct Command {
  const char* name;
  const char* usage;
  std::set<std::string> valued;
  std::set<std::string> flags;
  std::set<std::string> repeatable = {};  ///< Valued options given more than once.
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"apis", kApisUsage, {}, {}},
      {"minimal", kMinimalUsage, {}, {}},
      {"decode", kDecodeUsage, {"api", "version", "quirks", "records", "requests", "vector"},
       {"binary", "quiet", "json"}},
      {"encode", kEncodeUsage, {}, {"binary"}},
      {"explain", kExplainUsage,
       {"api", "version", "quirks", "records", "requests", "width", "vector", "html", "depth",
        "path", "offsets"},
       {"binary", "show-secrets", "no-bytes", "lengths"}},
      {"conformance", kConformanceUsage,
       {"expected-failures", "junit", "json", "html", "testee", "category", "api", "version",
        "direction", "id", "timeout", "testee-log"},
       {"lenient", "list", "strict-errors"}},
      {"testee", kTesteeUsage, {"quirks", "records"}, {}},
      {"proxy", kProxyUsage,
       {"broker", "listen", "quirks", "records", "log", "port-file", "summary-json",
        "max-frame-size", "max-connections", "check", "check-threads"},
       {"fail-fast", "no-rewrite", "frames"}},
      {"pcap", kPcapUsage,
       {"port", "quirks", "records", "log", "summary-json", "max-frame-size"},
       {"fail-fast", "frames"},
       {"port"}},
      {"diff", kDiffUsage,
       {"testee", "seeds", "time", "count", "seed", "out", "op", "api", "direction", "timeout",
        "expected", "minimize", "max-rss"},
       {},
       {"testee", "seeds"}},
      {"site", kSiteUsage, {}, {"all-versions"}},
#if KWIRE_HAVE_BROKERFUZZ
      {"broker-fuzz", brokerfuzz::kUsage, brokerfuzz::ValuedOptions(), brokerfuzz::FlagOptions(),
       brokerfuzz::RepeatableOptions()},
#else
      {"broker-fuzz", kBrokerFuzzUnavailable, {}, {}},
#endif
  };
  return commands;
}

// After a usage error: the command's synopsis (its usage text's first lines, up to the
// first blank line) and where the rest is, not the whole help again.
std::string UsageHint(const Command& cmd) {
  const std::string usage = cmd.usage;
  const size_t blank = usage.find("\n\n");
  return usage.substr(0, blank == std::string::npos ? usage.size() : blank + 1) + "Run 'kwire " +
         cmd.name + " --help' for the options.\n";
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

int Run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  if (args.empty()) {
    err << kMainUsage;
    return kExitUsage;
  }
  const std::string& name = args[0];
  if (name == "-h" || name == "--help") {
    if (args.size() > 1) {  // `kwire --help --bogus`: a usage error, like every command's
      err << "kwire: unexpected argument '" << args[1] << "' after " << name << "\n\n"
          << kMainUsage;
      return kExitUsage;
    }
    out << kMainUsage;
    return kExitOk;
  }
  if (name == "help") {
    if (args.size() == 1) {
      out << kMainUsage;
      return kExitOk;
    }
    const Command* c = FindCommand(args[1]);
    if (c == nullptr || args.size() > 2) {
      err << "kwire help: unknown command '" << args[1] << "'\n\n" << kMainUsage;
      return kExitUsage;
    }
    out << c->usage;
    return kExitOk;
  }
  const Command* cmd = FindCommand(name);
  if (cmd == nullptr) {
    err << "kwire: unknown command '" << name << "'\n\n" << kMainUsage;
    return kExitUsage;
  }
  Args a;
  std::string error;
  if (!Parse(args, 1, cmd->valued, cmd->flags, a, error, cmd->repeatable)) {
    err << "kwire " << cmd->name << ": " << error << "\n" << UsageHint(*cmd);
    return kExitUsage;
  }
  if (a.help) {
    out << cmd->usage;
    return kExitOk;
  }
  Usage u;
  int rc = kExitUsage;
  if (name == "apis")
    rc = Apis(a, out, u);
  else if (name == "minimal")
    rc = Minimal(a, out, err, u);
  else if (name == "decode")
    rc = Decode(a, in, out, err, u);
  else if (name == "encode")
    rc = Encode(a, in, out, err, u);
  else if (name == "explain")
    rc = Explain(a, in, out, err, u);
  else if (name == "testee")
    rc = Testee(a, in, out, u);
  else if (name == "proxy")
    rc = Proxy(a, out, err, u);
  else if (name == "pcap")
    rc = Pcap(a, out, err, u);
  else if (name == "diff")
    rc = Diff(a, out, err, u);
  else if (name == "broker-fuzz")
    rc = BrokerFuzz(a, out, err, u);
  else if (name == "site")
    rc = Site(a, out, err, u);
  else
    rc = Conformance(a, out, err, u);
  if (!u.ok()) {
    err << "kwire " << cmd->name << ": " << u.error << "\n" << UsageHint(*cmd);
    return kExitUsage;
  }
  return rc;
}

}  // namespace kwire::cli
