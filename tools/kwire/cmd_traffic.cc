// `kwire proxy` and `kwire pcap`.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "tools/proxy/proxy.h"
#if KWIRE_HAVE_PCAP
#include "tools/pcap/pcap.h"
#endif

namespace kwire::cli::internal {

bool ResolveCheckOptions(const Args& a, traffic::CheckOptions& check, Usage& u) {
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, check.quirks, u)) return false;
  if (!ResolveRecords(a, check.records, u)) return false;
  if (auto n = a.Get("max-frame-size")) {
    const std::optional<long> v = ParseNumber(*n);
    if (!v || *v < 12 || *v > INT32_MAX) {
      return u.Fail("--max-frame-size takes a number of bytes (12 to 2147483647), not '" + *n +
                    "'");
    }
    check.max_frame_size = static_cast<int32_t>(*v);
  }
  return true;
}

// --log FILE (or "-", the default: `out`): where one JSON line per frame goes. Null, with
// the reason on `err`, when FILE cannot be written.
std::ostream* OpenLog(const Args& a, const char* cmd, std::ostream& out, std::ostream& err,
                      std::ofstream& file) {
  const std::optional<std::string> path = a.Get("log");
  if (!path || *path == "-") return &out;
  file.open(*path);
  if (!file) {
    err << "kwire " << cmd << ": cannot write --log " << *path << ": " << std::strerror(errno)
        << "\n";
    return nullptr;
  }
  return &file;
}

int Proxy(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  proxy::Options o;
  const std::optional<std::string> broker = a.Get("broker");
  if (!broker) {
    u.Fail("--broker HOST:PORT is required");
    return kExitUsage;
  }
  absl::StatusOr<proxy::Endpoint> b = proxy::ParseEndpoint(*broker);
  if (!b.ok()) {
    u.Fail("--broker: " + std::string(b.status().message()));
    return kExitUsage;
  }
  o.broker = *b;
  if (auto l = a.Get("listen")) {
    absl::StatusOr<proxy::Endpoint> e = proxy::ParseEndpoint(*l);
    if (!e.ok()) {
      u.Fail("--listen: " + std::string(e.status().message()));
      return kExitUsage;
    }
    o.listen = *e;
  }
  if (!ResolveCheckOptions(a, o.check, u)) return kExitUsage;
  if (auto n = a.Get("max-connections")) {
    const std::optional<long> v = ParseNumber(*n);
    if (!v || *v < 1 || *v > 1000000) {
      u.Fail("--max-connections takes a number (1 to 1000000), not '" + *n + "'");
      return kExitUsage;
    }
    o.max_connections = static_cast<size_t>(*v);
  }
  if (auto c = a.Get("check")) {
    if (*c != "on" && *c != "off") {
      u.Fail("--check takes on or off, not '" + *c + "'");
      return kExitUsage;
    }
    o.check_frames = *c == "on";
  }
  if (auto n = a.Get("check-threads")) {
    const std::optional<long> v = ParseNumber(*n);
    if (!v || *v < 1 || *v > 256) {
      u.Fail("--check-threads takes a number (1 to 256), not '" + *n + "'");
      return kExitUsage;
    }
    o.check_threads = static_cast<size_t>(*v);
  }
  o.fail_fast = a.flags.count("fail-fast") > 0;
  o.rewrite_addresses = a.flags.count("no-rewrite") == 0;
  o.include_frames = a.flags.count("frames") > 0;
  std::ofstream file;
  std::ostream* log = OpenLog(a, "proxy", out, err, file);
  if (log == nullptr) return kExitUsage;
  return proxy::RunUntilSignal(std::move(o), *log, err, a.Get("port-file").value_or(""),
                               a.Get("summary-json").value_or(""));
}

int Pcap(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
#if KWIRE_HAVE_PCAP
  if (a.positional.empty()) {
    u.Fail("a capture FILE is required");
    return kExitUsage;
  }
  if (!RequireNoPositional(a, 1, u)) return kExitUsage;
  pcap::Options o;
  if (auto ports = a.Get("port")) {
    const std::vector<std::string> list = absl::StrSplit(*ports, absl::ByAnyChar(",\n"));
    for (const std::string& p : list) {
      const std::optional<long> v = ParseNumber(p);
      if (!v || *v < 1 || *v > 65535) {
        u.Fail("--port takes a TCP port (1 to 65535), not '" + p + "'");
        return kExitUsage;
      }
      o.ports.push_back(static_cast<uint16_t>(*v));
    }
  }
  if (!ResolveCheckOptions(a, o.check, u)) return kExitUsage;
  o.fail_fast = a.flags.count("fail-fast") > 0;
  o.include_frames = a.flags.count("frames") > 0;
  std::ofstream file;
  std::ostream* log = OpenLog(a, "pcap", out, err, file);
  if (log == nullptr) return kExitUsage;
  return pcap::Run(a.positional[0], std::move(o), *log, err, a.Get("summary-json").value_or(""));
#else
  err << "kwire pcap: not in this build: it needs libpcap and libtins (Debian libpcap-dev and\n"
         "libtins-dev; tools/install-deps.sh installs them), then a new configure (KWIRE_PCAP\n"
         "is ON by default: cmake -S . -B BUILD -DKWIRE_PCAP=ON) and build\n";
  return kExitUsage;
#endif
}

}  // namespace kwire::cli::internal
