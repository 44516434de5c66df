// `kwire conformance` and `kwire testee`.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "conformance/check.h"
#include "conformance/testee.h"
#include "tools/kwire/testee.h"
#include "tools/html/page.h"
#include "tools/html/report.h"
#include "tools/json/json.h"

namespace kwire::cli::internal {

namespace fs = std::filesystem;

std::string DefaultVectorsDir() {
  if (const char* env = std::getenv("KWIRE_CONFORMANCE_DIR"); env != nullptr && *env != 0) {
    return env;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed =
        exe.parent_path() / ".." / "share" / "kwire" / "conformance" / "vectors";
    if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
#ifdef KWIRE_INSTALL_VECTORS_DIR
  if (fs::is_directory(KWIRE_INSTALL_VECTORS_DIR, ec)) return KWIRE_INSTALL_VECTORS_DIR;
#endif
#ifdef KWIRE_SOURCE_VECTORS_DIR
  if (fs::is_directory(KWIRE_SOURCE_VECTORS_DIR, ec)) return KWIRE_SOURCE_VECTORS_DIR;
#endif
  return "";
}

bool WriteFile(const std::string& path, const std::string& text, std::ostream& err) {
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  o << text;
  o.close();
  if (!o) {
    err << "kwire conformance: cannot write " << path << "\n";
    return false;
  }
  return true;
}

// `kwire conformance --testee CMD` / `--list`: the JSON Lines vectors against a testee.
int ConformanceTestee(const Args& a, const std::string& dir, std::ostream& out,
                      std::ostream& err, Usage& u) {
  conformance::TesteeOptions o;
  o.dir = dir;
  if (auto t = a.Get("testee")) o.command = *t;
  // A comma-separated option value; empty items (`--api ''`, `a,,b`) are usage errors.
  bool bad_list = false;
  auto list = [&](const std::string& s) {
    std::vector<std::string> items = absl::StrSplit(s, ',');
    for (const std::string& item : items) bad_list |= item.empty();
    return items;
  };
  if (auto c = a.Get("category")) {
    for (const std::string& name : list(*c)) {
      const auto& all = conformance::Categories();
      if (std::find(all.begin(), all.end(), name) == all.end()) {
        u.Fail("unknown category '" + name + "' (minimal, rich, negative, records, kip511, java)");
        return kExitUsage;
      }
      o.categories.insert(name);
    }
  }
  if (auto k = a.Get("api")) {
    for (const std::string& x : list(*k)) {
      const ApiInfo* api = nullptr;
      if (x.empty()) continue;
      if (!ResolveApi(x, api, u)) return kExitUsage;
      o.api_keys.insert(api->api_key);
    }
  }
  if (auto v = a.Get("version")) {
    for (const std::string& x : list(*v)) {
      if (x.empty()) continue;
      auto n = ParseNumber(x);
      if (!n || *n < 0 || *n > INT16_MAX) {
        u.Fail("--version takes version numbers, not '" + x + "'");
        return kExitUsage;
      }
      o.versions.insert(static_cast<int16_t>(*n));
    }
  }
  if (bad_list) {
    u.Fail("--category, --api and --version take comma-separated values, none empty");
    return kExitUsage;
  }
  if (auto d = a.Get("direction")) {
    Direction dir_value;
    if (!ResolveDirection(*d, dir_value, u)) return kExitUsage;
    o.request = dir_value == Direction::kRequest;
  }
  if (auto p = a.Get("id")) {
    if (p->empty()) {
      u.Fail("--id takes a non-empty prefix");
      return kExitUsage;
    }
    o.id_prefixes.push_back(*p);
  }
  o.lenient = a.flags.count("lenient") > 0;
  o.strict_errors = a.flags.count("strict-errors") > 0;
  o.keep_answers = a.Get("html").has_value();  // the page shows them
  if (auto t = a.Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*t, &seconds) || !(seconds > 0) || seconds > 86400) {
      u.Fail("--timeout takes seconds (> 0), not '" + *t + "'");
      return kExitUsage;
    }
    o.timeout_seconds = seconds;
  }
  if (auto l = a.Get("testee-log")) o.log_file = *l;
  std::error_code ec;
  if (auto e = a.Get("expected-failures")) {
    if (!fs::is_regular_file(*e, ec)) {
      u.Fail("no such file: " + *e);
      return kExitUsage;
    }
    o.expected_failures = *e;
  }
  if (a.flags.count("list")) {
    std::vector<std::string> errors;
    const auto vectors = conformance::LoadJsonlVectors(o, errors);
    for (const std::string& e : errors) err << "kwire conformance: " << e << "\n";
    out << conformance::RenderTesteeList(vectors);
    return errors.empty() ? kExitOk : kExitFailure;
  }
  if (o.command.empty()) {
    u.Fail("--testee needs a command");
    return kExitUsage;
  }
  bool any_jsonl = false;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    any_jsonl |= it->path().extension() == ".jsonl";
  }
  if (!any_jsonl) {
    u.Fail("no *.jsonl vector files in " + dir);
    return kExitUsage;
  }
  // Report files are checked before the run, not found unwritable after it.
  for (const char* option : {"junit", "json", "html", "testee-log"}) {
    if (auto f = a.Get(option)) {
      std::ofstream probe(*f, std::ios::app);
      if (!probe) {
        u.Fail(absl::StrCat("--", option, ": cannot write ", *f));
        return kExitUsage;
      }
    }
  }
  out.flush();
  const conformance::TesteeReport report = conformance::RunTestee(o);
  out << conformance::RenderTesteeSummary(report);
  bool wrote = true;
  if (auto j = a.Get("junit")) wrote &= WriteFile(*j, conformance::RenderTesteeJUnit(report), err);
  if (auto j = a.Get("json")) wrote &= WriteFile(*j, conformance::RenderTesteeJson(report), err);
  if (auto h = a.Get("html")) wrote &= WriteFile(*h, html::TesteeReportPage(report), err);
  return report.ok() && wrote ? kExitOk : kExitFailure;
}

int Conformance(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (!RequireNoPositional(a, 1, u)) return kExitUsage;
  const bool testee = a.Get("testee") || a.flags.count("list");
  if (!testee) {
    for (const char* only : {"category", "api", "version", "direction", "id", "timeout", "testee-log"}) {
      if (a.Get(only)) {
        u.Fail(std::string("--") + only + " needs --testee (or --list)");
        return kExitUsage;
      }
    }
    if (a.flags.count("lenient")) {
      u.Fail("--lenient needs --testee (or --list)");
      return kExitUsage;
    }
  }
  std::string dir = a.positional.empty() ? DefaultVectorsDir() : a.positional[0];
  if (dir.empty()) {
    u.Fail("no vector directory found; pass one (e.g. conformance/vectors)");
    return kExitUsage;
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    u.Fail("not a directory: " + dir);
    return kExitUsage;
  }
  if (testee) return ConformanceTestee(a, dir, out, err, u);
  std::string expected;
  if (auto e = a.Get("expected-failures")) {
    expected = *e;
    if (!fs::is_regular_file(expected, ec)) {
      u.Fail("no such file: " + expected);
      return kExitUsage;
    }
  } else {
    for (const fs::path& p : {fs::path(dir) / ".." / "expected_failures.txt",
                              fs::path(dir) / "expected_failures.txt"}) {
      if (fs::is_regular_file(p, ec)) {
        expected = fs::weakly_canonical(p, ec).string();
        break;
      }
    }
  }
  const conformance::Report report = conformance::RunConformance(dir, expected);
  out << conformance::RenderSummary(report);
  bool wrote = true;
  if (auto j = a.Get("junit")) wrote &= WriteFile(*j, conformance::RenderJUnit(report), err);
  if (auto j = a.Get("json")) wrote &= WriteFile(*j, conformance::RenderJson(report), err);
  if (auto h = a.Get("html")) wrote &= WriteFile(*h, html::NativeReportPage(report), err);
  return report.ok() && wrote ? kExitOk : kExitFailure;
}

int Testee(const Args& a, std::istream& in, std::ostream& out, Usage& u) {
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  uint32_t quirks = 0;
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, quirks, u)) return kExitUsage;
  RecordsMode records = RecordsMode::kValidate;
  if (!ResolveRecords(a, records, u)) return kExitUsage;
  return ServeTestee(in, out, quirks, records);
}

// The frame checks of `kwire proxy` and `kwire pcap` (tools/traffic): --quirks, --records,
// --max-frame-size.

}  // namespace kwire::cli::internal
