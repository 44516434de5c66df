#include "conformance/check.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_format.h"
#include "codec/harness/explain.h"
#include "codec/harness/minimal.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/byte_diff.h"
#include "codec/wire/hex.h"
#include "conformance/xml_escape.h"

namespace kwire::conformance {
namespace {

bool ParseDirection(const std::string& s, Direction& d) {
  if (s == "request")
    d = Direction::kRequest;
  else if (s == "response")
    d = Direction::kResponse;
  else
    return false;
  return true;
}

bool ParseInt16(const std::string& s, int16_t& out) {
  if (s.empty() || s.size() > 6) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  long v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  if (s[0] == '-') v = -v;
  if (v < INT16_MIN || v > INT16_MAX) return false;
  out = static_cast<int16_t>(v);
  return true;
}

std::string Where(const std::string& file, int line) {
  return absl::StrFormat("%s:%d", file, line);
}

// Parses the `vector` line of a seeds block.
void ParseVectorHeader(std::istringstream& ss, Vector& v) {
  std::string key, version, dir, size;
  ss >> key >> v.name >> version >> dir >> size;
  int16_t k = 0, ver = 0;
  if (!ParseInt16(key, k) || !ParseInt16(version, ver) || !ParseDirection(dir, v.dir) ||
      size.empty() || size.find_first_not_of("0123456789") != std::string::npos) {
    v.parse_errors.push_back(Where(v.file, v.line) + ": malformed vector line");
    return;
  }
  v.api_key = k;
  v.version = ver;
  v.declared_size = std::stoul(size);
}

}  // namespace

std::string Vector::Id() const {
  return absl::StrFormat("%d %s v%d %s", api_key, name, version, DirectionName(dir));
}

VectorFile LoadVectorFile(const std::string& path) {
  VectorFile f;
  f.path = path;
  f.name = std::filesystem::path(path).filename().string();
  std::ifstream in(path);
  if (!in.good()) {
    f.errors.push_back("cannot open " + path);
    return f;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  for (const std::string& line : lines) {
    if (line.rfind("vector ", 0) == 0) f.seeds = true;
    if (line.rfind("#", 0) == 0 && line.find("Removed relative to") != std::string::npos) {
      f.removed_versions = true;
    }
    if (line.rfind("# Frames:", 0) == 0) {
      const std::string n = line.substr(9);
      const size_t p = n.find_first_not_of(' ');
      if (p != std::string::npos && std::isdigit(static_cast<unsigned char>(n[p]))) {
        f.declared_frames = std::stoul(n.substr(p));
      }
    }
  }
  Vector* open = nullptr;  // seeds: the block being read
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i + 1);
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    if (!f.seeds) {
      Vector v;
      v.file = f.name;
      v.line = ln;
      std::string key, version, dir, size, hex, extra;
      ss >> key >> v.name >> version >> dir >> size >> hex >> extra;
      int16_t k = 0, ver = 0;
      if (!ParseInt16(key, k) || !ParseInt16(version, ver) || !ParseDirection(dir, v.dir) ||
          size.empty() || size.find_first_not_of("0123456789") != std::string::npos ||
          !extra.empty()) {
        f.errors.push_back(Where(f.name, ln) + ": malformed line");
        continue;
      }
      v.api_key = k;
      v.version = ver;
      v.declared_size = std::stoul(size);
      if (!ParseHex(hex, v.bytes)) v.parse_errors.push_back(Where(f.name, ln) + ": bad hex");
      f.vectors.push_back(std::move(v));
      continue;
    }
    std::string word;
    ss >> word;
    if (word == "vector") {
      if (open != nullptr) f.errors.push_back(Where(f.name, ln) + ": vector inside a block");
      f.vectors.emplace_back();
      open = &f.vectors.back();
      open->file = f.name;
      open->line = ln;
      ParseVectorHeader(ss, *open);
    } else if (open == nullptr) {
      f.errors.push_back(Where(f.name, ln) + ": '" + word + "' outside a vector block");
    } else if (word == "hex") {
      std::string hex;
      ss >> hex;
      if (!ParseHex(hex, open->bytes))
        open->parse_errors.push_back(Where(f.name, ln) + ": bad hex");
    } else if (word == "node") {
      SeedNode n;
      n.line = ln;
      std::string off;
      ss >> off >> n.size >> n.path;
      std::getline(ss >> std::ws, n.type_value);
      while (!n.type_value.empty() && n.type_value.back() == ' ') n.type_value.pop_back();
      if (off.rfind("0x", 0) != 0 || n.path.empty() || ss.bad()) {
        open->parse_errors.push_back(Where(f.name, ln) + ": malformed node line");
        continue;
      }
      n.offset = std::stoul(off.substr(2), nullptr, 16);
      open->nodes.push_back(std::move(n));
    } else if (word == "end") {
      open = nullptr;
    } else {
      f.errors.push_back(Where(f.name, ln) + ": unknown line '" + word + "'");
    }
  }
  if (open != nullptr) f.errors.push_back(f.name + ": last vector block has no 'end'");
  if (f.declared_frames && *f.declared_frames != f.vectors.size()) {
    f.errors.push_back(absl::StrFormat("%s: header says %d frames, the file has %d", f.name,
                                       *f.declared_frames, f.vectors.size()));
  }
  return f;
}

std::vector<ExpectedFailure> LoadExpectedFailures(const std::string& path,
                                                  std::vector<std::string>& errors) {
  std::vector<ExpectedFailure> out;
  std::ifstream in(path);
  if (!in.good()) {
    errors.push_back("cannot open " + path);
    return out;
  }
  std::string line;
  for (int ln = 1; std::getline(in, line); ++ln) {
    std::string reason;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) {
      reason = line.substr(hash + 1);
      line.resize(hash);
      const size_t p = reason.find_first_not_of(' ');
      reason = p == std::string::npos ? "" : reason.substr(p);
    }
    std::istringstream ss(line);
    std::string key, version, dir, extra;
    ss >> key >> version >> dir >> extra;
    if (key.empty()) continue;  // blank or comment-only
    ExpectedFailure e;
    e.file = path;
    e.line = ln;
    e.reason = reason;
    if (!ParseInt16(key, e.api_key) || !ParseInt16(version, e.version) ||
        !ParseDirection(dir, e.dir) || !extra.empty()) {
      errors.push_back(
          absl::StrFormat("%s:%d: expected '<api_key> <version> "
                          "<request|response>  # reason'",
                          path, ln));
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> CheckSeedTree(const Vector& v, size_t* matched) {
  std::vector<std::string> failures;
  if (matched != nullptr) *matched = 0;
  const FrameExplanation ex = v.dir == Direction::kRequest
                                  ? ExplainRequestFrame(v.bytes)
                                  : ExplainResponseFrame(v.bytes, v.api_key, v.version);
  if (!ex.status.ok()) {
    failures.push_back("explain: " + std::string(ex.status.message()));
    return failures;
  }
  std::map<std::string, const PrintNode*> by_path;
  for (const PrintNode& n : ex.nodes) by_path.emplace(n.path, &n);
  std::map<std::string, bool> seen;
  size_t ok = 0;
  for (const SeedNode& s : v.nodes) {
    seen[s.path] = true;
    auto it = by_path.find(s.path);
    if (it == by_path.end()) {
      failures.push_back(absl::StrFormat("%s: seed node %s missing from the codec's tree",
                                         Where(v.file, s.line), s.path));
      continue;
    }
    const PrintNode& n = *it->second;
    std::string tv = n.type;
    if (!n.value.empty()) tv += (tv.empty() ? "" : " ") + n.value;
    if (n.offset != s.offset || n.size != s.size || tv != s.type_value) {
      failures.push_back(absl::StrFormat("%s: %s: seed [0x%04x, %d] '%s', codec [0x%04x, %d] '%s'",
                                         Where(v.file, s.line), s.path, s.offset, s.size,
                                         s.type_value, n.offset, n.size, tv));
      continue;
    }
    ++ok;
  }
  for (const PrintNode& n : ex.nodes) {
    if (!seen.count(n.path)) {
      failures.push_back(
          absl::StrFormat("%s: the codec's tree has %s [0x%04x, %d], the seed "
                          "does not",
                          Where(v.file, v.line), n.path, n.offset, n.size));
    }
  }
  if (!(ex.tree_status == ex.status)) {
    failures.push_back("explain visitor and decoder disagree: " + ex.tree_status.ToString() +
                       " vs " + ex.status.ToString());
  }
  if (matched != nullptr) *matched = ok;
  return failures;
}

std::vector<std::string> CheckVector(const Vector& v, const VectorFile& file,
                                     size_t* seed_matched) {
  std::vector<std::string> failures = v.parse_errors;
  if (!failures.empty()) return failures;
  const ApiInfo* api = FindApi(v.api_key);
  if (api == nullptr) {
    failures.push_back(absl::StrFormat("unknown api key %d", v.api_key));
    return failures;
  }
  if (api->name != v.name) {
    failures.push_back(
        absl::StrFormat("api key %d is %s, the vector says %s", v.api_key, api->name, v.name));
  }
  if (v.bytes.size() != v.declared_size) {
    failures.push_back(absl::StrFormat("hex has %d bytes, the size column says %d", v.bytes.size(),
                                       v.declared_size));
  }
  absl::StatusOr<std::vector<uint8_t>> reencoded;
  if (v.dir == Direction::kRequest) {
    auto f = DecodeRequestFrame(v.bytes);
    if (!f.ok()) {
      failures.push_back("decode: " + std::string(f.status().message()));
    } else {
      if (f->api_key() != v.api_key || f->api_version() != v.version) {
        failures.push_back(
            absl::StrFormat("header names api %d v%d", f->api_key(), f->api_version()));
      }
      reencoded = EncodeRequestFrame(f->header, f->body);
    }
  } else {
    auto f = DecodeResponseFrame(v.bytes, v.api_key, v.version);
    if (!f.ok()) {
      failures.push_back("decode: " + std::string(f.status().message()));
    } else {
      reencoded = EncodeResponseFrame(f->header, v.api_key, f->body_version, f->body);
    }
  }
  if (failures.empty()) {
    if (!reencoded.ok()) {
      failures.push_back("re-encode: " + std::string(reencoded.status().message()));
    } else if (*reencoded != v.bytes) {
      failures.push_back("decode -> encode is not byte-identical: " +
                         DescribeFrameDifference(v.bytes, *reencoded, "re-encoded") +
                         "; re-encoded " + HexString(*reencoded));
    }
  }
  const auto minimal = EncodeMinimalFrame(*api, v.version, v.dir);
  if (!minimal.ok()) {
    failures.push_back("minimal instance: " + std::string(minimal.status().message()));
  } else if (*minimal != v.bytes) {
    failures.push_back("the codec's minimal instance differs from the reference: " +
                       DescribeFrameDifference(v.bytes, *minimal, "codec") + "; codec " +
                       HexString(*minimal));
  }
  if (!file.seeds) {
    const bool removed = api->IsRemoved(v.version);
    if (file.removed_versions && !removed) {
      failures.push_back(
          absl::StrFormat("v%d is not a version removed by KIP-896, but the "
                          "file lists removed versions",
                          v.version));
    } else if (!file.removed_versions && removed) {
      failures.push_back(
          absl::StrFormat("v%d is a version removed by KIP-896, but the file "
                          "lists current versions",
                          v.version));
    }
  } else {
    for (std::string& s : CheckSeedTree(v, seed_matched)) failures.push_back(std::move(s));
  }
  return failures;
}

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kExpectedFailure:
      return "expected failure";
    case Outcome::kUnexpectedPass:
      return "unexpected pass";
  }
  return "?";
}

const ExpectedFailure* FindExpected(const std::vector<ExpectedFailure>& list, const Vector& v) {
  for (const ExpectedFailure& e : list) {
    if (e.api_key == v.api_key && e.version == v.version && e.dir == v.dir) return &e;
  }
  return nullptr;
}

Result Classify(std::vector<std::string> failures, const ExpectedFailure* expected) {
  Result r;
  if (expected == nullptr) {
    r.outcome = failures.empty() ? Outcome::kPass : Outcome::kFail;
  } else {
    r.expected_reason = expected->reason;
    r.outcome = failures.empty() ? Outcome::kUnexpectedPass : Outcome::kExpectedFailure;
    if (failures.empty()) {
      failures.push_back(absl::StrFormat(
          "listed in %s:%d (%s) but passes: remove it from the list", expected->file,
          expected->line, expected->reason));
    }
  }
  r.failures = std::move(failures);
  return r;
}

size_t Report::Count(Outcome o) const {
  return static_cast<size_t>(std::count_if(results.begin(), results.end(),
                                           [o](const Result& r) { return r.outcome == o; }));
}

bool Report::ok() const {
  return errors.empty() && Count(Outcome::kFail) == 0 && Count(Outcome::kUnexpectedPass) == 0;
}

Report RunConformance(const std::string& dir, const std::string& expected_failures) {
  Report report;
  report.dir = dir;
  report.expected_failures_path = expected_failures;
  if (!expected_failures.empty()) {
    report.expected = LoadExpectedFailures(expected_failures, report.errors);
  }
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto& p = entry.path();
    if (entry.is_regular_file() && p.extension() == ".txt" &&
        p.filename() != "expected_failures.txt") {
      paths.push_back(p.string());
    }
  }
  if (ec) report.errors.push_back("cannot read directory " + dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  if (paths.empty() && !ec) report.errors.push_back("no *.txt vector files in " + dir);
  std::vector<bool> used(report.expected.size(), false);
  for (const std::string& p : paths) {
    report.files.push_back(LoadVectorFile(p));
    const size_t fi = report.files.size() - 1;
    const VectorFile& f = report.files.back();
    for (const std::string& e : f.errors) report.errors.push_back(e);
    for (size_t vi = 0; vi < f.vectors.size(); ++vi) {
      const Vector& v = f.vectors[vi];
      const ExpectedFailure* e = FindExpected(report.expected, v);
      if (e != nullptr) used[static_cast<size_t>(e - report.expected.data())] = true;
      size_t matched = 0;
      Result r = Classify(CheckVector(v, f, &matched), e);
      r.file = fi;
      r.vector = vi;
      if (f.seeds) {
        r.seed_nodes = v.nodes.size();
        r.seed_matched = matched;
      }
      report.results.push_back(std::move(r));
    }
  }
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      const ExpectedFailure& e = report.expected[i];
      report.warnings.push_back(absl::StrFormat("%s:%d: %d v%d %s matches no vector",
                                                expected_failures, e.line, e.api_key, e.version,
                                                DirectionName(e.dir)));
    }
  }
  return report;
}

std::string RenderSummary(const Report& report, size_t max_failures) {
  std::string out = "kwire conformance: " + report.dir + "\n";
  size_t name_w = 0;
  for (const VectorFile& f : report.files) name_w = std::max(name_w, f.name.size());
  for (size_t fi = 0; fi < report.files.size(); ++fi) {
    const VectorFile& f = report.files[fi];
    size_t counts[4] = {0, 0, 0, 0}, nodes = 0, matched = 0;
    for (const Result& r : report.results) {
      if (r.file != fi) continue;
      ++counts[static_cast<int>(r.outcome)];
      nodes += r.seed_nodes;
      matched += r.seed_matched;
    }
    std::string line =
        absl::StrFormat("  %-*s %5d vectors %5d pass", name_w, f.name, f.vectors.size(), counts[0]);
    if (counts[1] > 0) line += absl::StrFormat(", %d FAIL", counts[1]);
    if (counts[2] > 0) line += absl::StrFormat(", %d expected failures", counts[2]);
    if (counts[3] > 0) line += absl::StrFormat(", %d UNEXPECTED PASS", counts[3]);
    if (f.seeds)
      line += absl::StrFormat("  (object trees: %d/%d seed nodes matched)", matched, nodes);
    out += line + "\n";
  }
  if (report.expected_failures_path.empty()) {
    out += "expected failures: no list used\n";
  } else {
    out += absl::StrFormat("expected failures: %d listed (%s)\n", report.expected.size(),
                           report.expected_failures_path);
  }
  size_t shown = 0;
  for (const Result& r : report.results) {
    if (r.outcome != Outcome::kFail && r.outcome != Outcome::kUnexpectedPass) continue;
    if (shown++ == max_failures) {
      out += "  ... more failures in the machine-readable report\n";
      break;
    }
    const Vector& v = report.files[r.file].vectors[r.vector];
    out += absl::StrFormat("%s %s:%d %s\n", r.outcome == Outcome::kFail ? "FAIL" : "XPASS", v.file,
                           v.line, v.Id());
    for (const std::string& f : r.failures) out += "    " + f + "\n";
  }
  for (const std::string& e : report.errors) out += "ERROR " + e + "\n";
  for (const std::string& w : report.warnings) out += "warning: " + w + "\n";
  out += absl::StrFormat(
      "%s: %d vectors, %d passed, %d failed, %d expected failures, %d unexpected passes%s\n",
      report.ok() ? "PASS" : "FAIL", report.results.size(), report.Count(Outcome::kPass),
      report.Count(Outcome::kFail), report.Count(Outcome::kExpectedFailure),
      report.Count(Outcome::kUnexpectedPass),
      report.errors.empty() ? "" : absl::StrFormat(", %d file errors", report.errors.size()));
  return out;
}

namespace {

std::string JsonEscape(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20) {
      out += absl::StrFormat("\\u%04x", u);
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

}  // namespace

std::string RenderJUnit(const Report& report) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const size_t failures = report.Count(Outcome::kFail) + report.Count(Outcome::kUnexpectedPass);
  out += absl::StrFormat(
      "<testsuites name=\"kwire conformance\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
      "skipped=\"%d\">\n",
      report.results.size(), failures, report.errors.size(),
      report.Count(Outcome::kExpectedFailure));
  for (size_t fi = 0; fi < report.files.size(); ++fi) {
    const VectorFile& f = report.files[fi];
    size_t tests = 0, failed = 0, skipped = 0;
    std::string cases;
    for (const Result& r : report.results) {
      if (r.file != fi) continue;
      ++tests;
      const Vector& v = f.vectors[r.vector];
      cases += absl::StrFormat("    <testcase classname=\"conformance.%s\" name=\"%s\"",
                               XmlEscape(f.name), XmlEscape(v.Id()));
      switch (r.outcome) {
        case Outcome::kPass:
          cases += "/>\n";
          break;
        case Outcome::kExpectedFailure:
          ++skipped;
          cases += absl::StrFormat(
              ">\n      <skipped message=\"expected failure: %s\"/>\n"
              "    </testcase>\n",
              XmlEscape(r.expected_reason));
          break;
        case Outcome::kFail:
        case Outcome::kUnexpectedPass:
          ++failed;
          cases += absl::StrFormat(
              ">\n      <failure message=\"%s\" type=\"%s\">%s:%d\n%s</failure>\n"
              "    </testcase>\n",
              XmlEscape(r.failures.empty() ? "" : r.failures[0]), OutcomeName(r.outcome),
              XmlEscape(v.file), v.line, XmlEscape(Join(r.failures, "\n")));
          break;
      }
    }
    const size_t ferrors = f.errors.size();
    out += absl::StrFormat(
        "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
        XmlEscape(f.name), tests, failed, ferrors, skipped);
    out += cases;
    if (ferrors > 0) {
      out += absl::StrFormat(
          "    <testcase classname=\"conformance.%s\" name=\"file\">\n"
          "      <error message=\"%s\">%s</error>\n    </testcase>\n",
          XmlEscape(f.name), XmlEscape(f.errors[0]), XmlEscape(Join(f.errors, "\n")));
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

std::string RenderJson(const Report& report) {
  std::string out = "{\n";
  out += "  \"dir\": " + JsonEscape(report.dir) + ",\n";
  out += "  \"expected_failures_file\": " + JsonEscape(report.expected_failures_path) + ",\n";
  out += absl::StrFormat(
      "  \"ok\": %s,\n  \"total\": %d,\n  \"passed\": %d,\n  \"failed\": %d,\n"
      "  \"expected_failures\": %d,\n  \"unexpected_passes\": %d,\n",
      report.ok() ? "true" : "false", report.results.size(), report.Count(Outcome::kPass),
      report.Count(Outcome::kFail), report.Count(Outcome::kExpectedFailure),
      report.Count(Outcome::kUnexpectedPass));
  auto strings = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + JsonEscape(v[i]);
    return s + "]";
  };
  out += "  \"errors\": " + strings(report.errors) + ",\n";
  out += "  \"warnings\": " + strings(report.warnings) + ",\n";
  out += "  \"files\": [";
  for (size_t fi = 0; fi < report.files.size(); ++fi) {
    const VectorFile& f = report.files[fi];
    out += absl::StrFormat("%s\n    {\"file\": %s, \"vectors\": %d, \"format\": \"%s\"}",
                           fi ? "," : "", JsonEscape(f.name), f.vectors.size(),
                           f.seeds ? "seeds" : "minimal");
  }
  out += "\n  ],\n  \"results\": [";
  for (size_t i = 0; i < report.results.size(); ++i) {
    const Result& r = report.results[i];
    const Vector& v = report.files[r.file].vectors[r.vector];
    out += absl::StrFormat(
        "%s\n    {\"file\": %s, \"line\": %d, \"api_key\": %d, \"api\": %s, \"version\": %d, "
        "\"direction\": \"%s\", \"outcome\": \"%s\", \"failures\": %s}",
        i ? "," : "", JsonEscape(v.file), v.line, v.api_key, JsonEscape(v.name), v.version,
        DirectionName(v.dir), OutcomeName(r.outcome), strings(r.failures));
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace kwire::conformance
