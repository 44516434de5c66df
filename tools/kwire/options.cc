// Argument parsing (CLI11) and the option resolution every command shares: --api,
// --version, --direction, --quirks, --records, hex or binary input.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"

namespace kwire::cli::internal {

// Parses `args[from..]` for a command that takes the options `valued` (--name VALUE or
// --name=VALUE, at most once) and `flags` (--name): CLI11 (Debian libcli11-dev) does the
// parsing; -h/--help anywhere, `--` ends options, every other argument is positional.
// The command's help
// text stays ours (the usage strings above). Returns false with `error` set on bad usage.
bool Parse(const std::vector<std::string>& args, size_t from, const std::set<std::string>& valued,
           const std::set<std::string>& flags, Args& out, std::string& error,
           const std::set<std::string>& repeatable) {
  CLI::App app;
  app.set_help_flag();  // the usage texts above are the help
  app.add_flag("-h,--help", out.help);
  std::vector<std::pair<std::string, CLI::Option*>> options;
  std::map<std::string, std::string> values;
  // Options in `repeatable` may be given more than once: their values joined by '\n'.
  for (const std::string& name : valued) {
    options.emplace_back(name, app.add_option("--" + name, values[name])
                                   ->multi_option_policy(repeatable.count(name)
                                                             ? CLI::MultiOptionPolicy::Join
                                                             : CLI::MultiOptionPolicy::Throw)
                                   ->allow_extra_args(false));
  }
  std::map<std::string, bool> flag_values;
  for (const std::string& name : flags) {
    options.emplace_back(name, app.add_flag("--" + name, flag_values[name])
                                   ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                                   ->disable_flag_override());
  }
  app.add_option("arguments", out.positional);
  // CLI11 reads the vector from its back.
  std::vector<std::string> opts(args.begin() + static_cast<std::ptrdiff_t>(from), args.end());
  std::reverse(opts.begin(), opts.end());
  try {
    app.parse(opts);
  } catch (const CLI::ParseError& e) {
    error = e.what();
    return false;
  }
  for (const auto& [name, option] : options) {
    if (option->count() == 0) continue;
    if (valued.count(name)) {
      out.values[name] = values[name];
    } else if (flag_values[name]) {
      out.flags.insert(name);
    }
  }
  return true;
}

std::optional<long> ParseNumber(const std::string& s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  long v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

bool ResolveApi(const std::string& s, const ApiInfo*& api, Usage& u) {
  if (auto n = ParseNumber(s)) {
    api = *n >= INT16_MIN && *n <= INT16_MAX ? FindApi(static_cast<int16_t>(*n)) : nullptr;
    return api != nullptr || u.Fail("unknown API key " + s + " (see `kwire apis`)");
  }
  api = FindApiByName(s);
  return api != nullptr || u.Fail("unknown API name '" + s + "' (see `kwire apis`)");
}

bool ResolveDirection(const std::string& s, Direction& dir, Usage& u) {
  if (s == "request")
    dir = Direction::kRequest;
  else if (s == "response")
    dir = Direction::kResponse;
  else
    return u.Fail("expected 'request' or 'response', got '" + s + "'");
  return true;
}

bool ResolveVersion(const ApiInfo& api, Direction dir, const std::string& s, int16_t& version,
                    Usage& u) {
  const VersionRange valid =
      dir == Direction::kRequest ? api.request_versions() : api.response_versions();
  if (s == "max") {
    version = valid.hi;
    return true;
  }
  auto n = ParseNumber(s);
  if (!n) return u.Fail("expected a version number or 'max', got '" + s + "'");
  if (*n < valid.lo || *n > valid.hi) {
    return u.Fail(absl::StrFormat("%s %s version %s is not valid; valid versions are %d-%d",
                                  api.name, DirectionName(dir), s, valid.lo, valid.hi));
  }
  version = static_cast<int16_t>(*n);
  return true;
}

bool ResolveQuirks(const std::string& list, uint32_t& q, Usage& u) {
  q = 0;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string name =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto it = std::find_if(std::begin(kQuirkNames), std::end(kQuirkNames),
                                 [&](const QuirkName& n) { return name == n.name; });
    if (it == std::end(kQuirkNames)) return u.Fail("unknown quirk '" + name + "' (see --help)");
    q |= it->quirks;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

// --records validate|opaque into `mode` (left as it is when the option is absent).
bool ResolveRecords(const Args& a, RecordsMode& mode, Usage& u) {
  const std::optional<std::string> m = a.Get("records");
  if (!m) return true;
  if (*m == "validate") {
    mode = RecordsMode::kValidate;
  } else if (*m == "opaque") {
    mode = RecordsMode::kOpaque;
  } else {
    return u.Fail("--records takes 'validate' or 'opaque', not '" + *m + "'");
  }
  return true;
}

// Reads stdin as hex (whitespace ignored) or raw bytes. Returns false with `error` set.
bool ReadInput(std::istream& in, bool binary, std::vector<uint8_t>& out, std::string& error) {
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (binary) {
    out.assign(data.begin(), data.end());
  } else {
    std::string hex;
    for (size_t i = 0; i < data.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(data[i]);
      if (std::isspace(c)) continue;
      if (!std::isxdigit(c)) {
        error = absl::StrFormat(
            "input is not hex: %s at input byte %d (0-based; use --binary for raw "
            "bytes)",
            std::isprint(c) ? absl::StrFormat("'%c'", c) : absl::StrFormat("byte 0x%02x", c), i);
        return false;
      }
      hex.push_back(static_cast<char>(c));
    }
    if (hex.size() % 2 != 0) {
      error = absl::StrFormat("input is not hex: odd number of hex digits (%d)", hex.size());
      return false;
    }
    ParseHex(hex, out);  // digits and length checked above
  }
  if (out.empty()) {
    error = "no input: expected a frame on stdin";
    return false;
  }
  return true;
}

bool RequireNoPositional(const Args& a, size_t n, Usage& u) {
  return a.positional.size() <= n || u.Fail("unexpected argument '" + a.positional[n] + "'");
}

}  // namespace kwire::cli::internal
