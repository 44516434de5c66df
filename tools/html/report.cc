#include "tools/html/report.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/harness/minimal.h"
#include "codec/harness/print_records.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/byte_diff.h"
#include "codec/wire/error.h"
#include "codec/wire/hex.h"

namespace kwire::html {
namespace {

using conformance::JsonlVector;
using conformance::OpResult;
using conformance::Outcome;
using conformance::TesteeOutcome;

// The frame of a vector, explained as `kwire explain` does (records shown and checked).
FrameExplanation Explain(std::span<const uint8_t> bytes, Direction dir, int16_t key,
                         int16_t version) {
  PrintOptions options;
  options.records = &PrintRecordBatches;
  return dir == Direction::kRequest ? ExplainRequestFrame(bytes, options)
                                    : ExplainResponseFrame(bytes, key, version, options);
}

// The deepest node whose bytes hold byte `b` (pre-order: the last such node), or, at or
// past the decoder's stop, the last node marked failed (where decoding stopped).
const PrintNode* NodeAtByte(const FrameExplanation& ex, size_t b) {
  if (!ex.status.ok()) {
    const std::optional<Error> e = ErrorFromStatus(ex.status);
    if (e && b >= e->offset) {
      for (auto it = ex.nodes.rbegin(); it != ex.nodes.rend(); ++it) {
        if (it->failed) return &*it;
      }
    }
  }
  const PrintNode* at = nullptr;
  for (const PrintNode& n : ex.nodes) {
    if (n.size > 0 && n.offset <= b && b < n.offset + n.size) at = &n;
  }
  return at;
}

FailureMark MarkAt(const FrameExplanation& ex, size_t offset, std::string why) {
  FailureMark m;
  m.offset = std::min(offset, ex.bytes.size());
  if (const PrintNode* n = NodeAtByte(ex, *m.offset)) m.path = n->path;
  m.why = std::move(why);
  return m;
}

std::string ByteText(std::span<const uint8_t> bytes, size_t i) {
  return i < bytes.size() ? absl::StrFormat("0x%02x", bytes[i]) : std::string("nothing");
}

// "byte 11: 0x00 expected, 0x01 answered" (`who` answered).
std::string DifferenceText(std::span<const uint8_t> want, std::span<const uint8_t> got,
                           size_t at, std::string_view who) {
  return absl::StrFormat("first differing byte: byte %d, %s expected, %s %s (%d bytes expected, %d %s)",
                         at, ByteText(want, at), ByteText(got, at), who, want.size(), got.size(),
                         who);
}

FailureMark ErrorMark(const FrameExplanation& ex) {
  const std::optional<Error> e = ErrorFromStatus(ex.status);
  if (!e) return {};
  return MarkAt(ex, e->offset,
                absl::StrCat("kwire's decoder stops here: ", ErrorKindName(e->kind),
                             e->path.empty() ? "" : " in " + e->path));
}

// A JSON byte offset: a non-negative integer.
std::optional<size_t> AsOffset(const Json& j) {
  if (j.is_number_unsigned()) return j.get<size_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<size_t>(j.get<int64_t>());
  return std::nullopt;
}



// What the vector expects of `op`, in the answer's shape.
Json ExpectedAnswer(const JsonlVector& v, const std::string& op) {
  Json e = Json::object();
  const bool refusal = v.refuse && (op == "decode" || op == "validate");
  if (!v.accept) {
    e["result"] = "rejected";
    const Json err = v.record.value("error", Json::object());
    for (const char* k : {"kind", "offset", "path"}) {
      if (err.contains(k)) e[k] = err[k];
    }
    return e;
  }
  e["result"] = refusal ? "refused" : "ok";
  if (refusal) e["refusals"] = v.record.value("refusals", Json::array());
  if (op == "decode") {
    for (const char* k : {"body_version", "header", "body"}) {
      if (v.record.contains(k)) e[k] = v.record[k];
    }
  } else if (op == "encode" || op == "roundtrip") {
    e["frame"] = v.record.value("frame", "");
  }
  return e;
}

// Refusals compared as the runner compares them: part and error code.
Json JudgedRefusals(const Json& refusals) {
  if (!refusals.is_array()) return refusals;
  Json out = Json::array();
  for (const Json& r : refusals) {
    if (!r.is_object()) {
      out.push_back(r);
      continue;
    }
    Json j = Json::object();
    for (const char* k : {"part", "error_code"}) {
      if (r.contains(k)) j[k] = r[k];
    }
    out.push_back(std::move(j));
  }
  return out;
}

// {"expected", "answered", "diffs"} of one failed operation, or null (no answer).
Json Compare(const JsonlVector& v, const OpResult& op) {
  if (!op.answered.is_object()) return nullptr;
  Json expected = ExpectedAnswer(v, op.op);
  Json answered = op.answered;
  answered.erase("seq");
  Json want = expected, got = answered;
  if (want.contains("refusals")) want["refusals"] = JudgedRefusals(want["refusals"]);
  if (got.contains("refusals")) got["refusals"] = JudgedRefusals(got["refusals"]);
  // A rejection's kind, offset and path are judged where the answer gives them, and only
  // under --strict-errors (OpResult::other_error); otherwise they are shown, not marked.
  if (!v.accept && got.value("result", "") == "rejected") {
    for (const char* k : {"kind", "offset", "path"}) {
      if (!op.other_error || !got.contains(k)) want.erase(k);
    }
  }
  Json c = Json::object();
  c["expected"] = std::move(expected);
  c["answered"] = std::move(answered);
  c["diffs"] = JsonDiffPaths(want, got);
  return c;
}

// The native check a failure message comes from (conformance/check.cc's wording).
std::string NativeCheck(const std::string& m) {
  if (absl::StartsWith(m, "decode -> encode") || absl::StartsWith(m, "re-encode")) return "re-encode";
  if (absl::StartsWith(m, "decode:")) return "decode";
  if (absl::StartsWith(m, "header names")) return "header";
  if (absl::StrContains(m, "minimal instance")) return "minimal instance";
  if (absl::StrContains(m, "seed") || absl::StrContains(m, "codec's tree") ||
      absl::StartsWith(m, "explain")) {
    return "seed tree";
  }
  if (absl::StrContains(m, "KIP-896")) return "removed versions";
  if (absl::StartsWith(m, "hex has")) return "size";
  if (absl::StartsWith(m, "unknown api key") || absl::StartsWith(m, "api key")) return "api";
  if (absl::StartsWith(m, "listed in")) return "expected failures";
  return "vector";
}

Json MarkJson(const FailureMark& m) {
  if (!m.offset && m.path.empty()) return nullptr;
  Json j = Json::object();
  j["offset"] = m.offset ? Json(*m.offset) : Json(nullptr);
  j["path"] = m.path;
  j["why"] = m.why;
  return j;
}

// Per-API-and-version counts: (key, version) -> counts per outcome.
struct ApiRow {
  std::string name;
  size_t vectors = 0;
  std::vector<size_t> counts;
};

Json ApisJson(const std::map<std::pair<int16_t, int16_t>, ApiRow>& rows,
              const std::vector<size_t>& bad_columns) {
  std::vector<std::tuple<bool, int16_t, int16_t, const ApiRow*>> order;
  for (const auto& [k, row] : rows) {
    bool bad = false;
    for (size_t c : bad_columns) bad |= row.counts[c] > 0;
    order.emplace_back(!bad, k.first, k.second, &row);
  }
  std::sort(order.begin(), order.end());
  Json out = Json::array();
  for (const auto& [good, key, version, row] : order) {
    Json r = Json::array({key, row->name, version, row->vectors});
    for (size_t c : row->counts) r.push_back(c);
    out.push_back(std::move(r));
  }
  return out;
}

std::string ApiName(int16_t key, const std::string& fallback) {
  const ApiInfo* api = FindApi(key);
  return api != nullptr ? std::string(api->name) : fallback;
}

// Adds one failure drawn in full or, past the limits, listed by id.
struct FailureList {
  const ReportLimits& limits;
  size_t nodes = 0;
  size_t total = 0;
  Json full = Json::array();
  Json more = Json::array();

  // `make` fills the failure's JSON (frame included) and returns its node count.
  template <typename Make>
  void Add(const std::string& id, const std::string& outcome, const std::string& where,
           const std::string& first_message, Make make) {
    ++total;
    if (full.size() < limits.max_failures && nodes < limits.max_nodes_total) {
      Json f = Json::object();
      nodes += make(f);
      full.push_back(std::move(f));
      return;
    }
    more.push_back(Json::array({id, outcome, where, first_message.substr(0, 300)}));
  }
};

Json FrameJson(FrameExplanation ex, Direction dir, int16_t key, int16_t version,
               const ReportLimits& limits, size_t& nodes) {
  FrameView view;
  view.dir = dir;
  view.api_key = key;
  view.api_version = version;
  nodes = std::min(ex.nodes.size(), limits.max_nodes_per_frame);
  view.ex = std::move(ex);
  PageLimits pl;
  pl.max_nodes = limits.max_nodes_per_frame;
  return FrameData(view, pl);
}

}  // namespace

std::vector<std::string> JsonDiffPaths(const Json& expected, const Json& answered, size_t limit) {
  // The runner's own comparison (conformance::ValueDifferences), member by member of the
  // top level: members the vector does not have ("seq", "error") are no differences.
  std::vector<std::string> out;
  for (const auto& [k, v] : expected.items()) {
    if (out.size() >= limit) break;
    auto it = answered.find(k);
    if (it == answered.end()) {
      out.push_back(k);
      continue;
    }
    for (const conformance::ValueDifference& d :
         conformance::ValueDifferences(v, *it, k, limit - out.size())) {
      out.push_back(d.path);
    }
  }
  return out;
}

std::optional<size_t> FirstDifferentByte(std::span<const uint8_t> want,
                                         std::span<const uint8_t> got) {
  const size_t i = FirstDifference(want, got);  // codec/wire/byte_diff.h
  if (i == want.size() && i == got.size()) return std::nullopt;
  return i;
}

FailureMark NativeMark(const conformance::Vector& v, const FrameExplanation& ex) {
  if (!ex.status.ok()) return ErrorMark(ex);
  const std::span<const uint8_t> bytes = v.bytes;
  absl::StatusOr<std::vector<uint8_t>> reencoded = absl::UnknownError("not decoded");
  if (v.dir == Direction::kRequest) {
    if (auto f = DecodeRequestFrame(bytes); f.ok()) reencoded = EncodeRequestFrame(f->header, f->body);
  } else if (auto f = DecodeResponseFrame(bytes, v.api_key, v.version); f.ok()) {
    reencoded = EncodeResponseFrame(f->header, v.api_key, f->body_version, f->body);
  }
  if (reencoded.ok()) {
    if (auto at = FirstDifferentByte(bytes, *reencoded)) {
      return MarkAt(ex, *at, absl::StrCat("decode -> encode: ",
                                          DifferenceText(bytes, *reencoded, *at, "re-encoded")));
    }
  }
  if (const ApiInfo* api = FindApi(v.api_key)) {
    const auto minimal = EncodeMinimalFrame(*api, v.version, v.dir);
    if (minimal.ok()) {
      if (auto at = FirstDifferentByte(bytes, *minimal)) {
        return MarkAt(ex, *at, absl::StrCat("the codec's minimal frame: ",
                                            DifferenceText(bytes, *minimal, *at, "in the codec's")));
      }
    }
  }
  for (const conformance::SeedNode& s : v.nodes) {
    const PrintNode* n = nullptr;
    for (const PrintNode& c : ex.nodes) {
      if (c.path == s.path) n = &c;
    }
    std::string tv;
    if (n != nullptr) {
      tv = n->type;
      if (!n->value.empty()) tv += (tv.empty() ? "" : " ") + n->value;
    }
    if (n == nullptr || n->offset != s.offset || n->size != s.size || tv != s.type_value) {
      FailureMark m;
      m.offset = std::min(s.offset, ex.bytes.size());
      m.path = n != nullptr ? n->path : (FindTreeNode(ex, s.path) ? FindTreeNode(ex, s.path)->path : "");
      m.why = n == nullptr
                  ? absl::StrFormat("seed node %s [0x%04x, %d] is not in the codec's tree", s.path,
                                    s.offset, s.size)
                  : absl::StrFormat("seed node %s: seed [0x%04x, %d] '%s', codec [0x%04x, %d] '%s'",
                                    s.path, s.offset, s.size, s.type_value, n->offset, n->size, tv);
      return m;
    }
  }
  return {};
}

FailureMark TesteeMark(const JsonlVector& v, const std::vector<OpResult>& ops,
                       const FrameExplanation& ex) {
  const Direction dir = v.request ? Direction::kRequest : Direction::kResponse;
  std::vector<uint8_t> frame;
  ParseHex(v.record.value("frame", ""), frame);
  for (const OpResult& op : ops) {
    if (op.verdict != "fail" || !op.answered.is_object()) continue;
    const Json& a = op.answered;
    const std::string result = a.value("result", "");
    if (!v.accept && (result == "ok" || result == "refused")) {
      const Json e = v.record.value("error", Json::object());
      if (const auto at = AsOffset(e.value("offset", Json()))) {
        return MarkAt(ex, *at,
                      absl::StrCat("the vector's error (", e.value("kind", "?"),
                                   "), which the testee's ", op.op, " did not report"));
      }
    }
    if (v.accept && (result == "rejected" || result == "crashed")) {
      if (const auto at = AsOffset(a.value("offset", Json()))) {
        return MarkAt(ex, *at,
                      absl::StrCat("the testee's ", op.op, " stops here",
                                   a.contains("kind") && a["kind"].is_string()
                                       ? " (" + a["kind"].get<std::string>() + ")"
                                       : std::string(),
                                   " on a valid frame"));
      }
    }
    if (result == "ok" && (op.op == "encode" || op.op == "roundtrip")) {
      std::vector<uint8_t> got;
      if (a.contains("frame") && a["frame"].is_string() &&
          ParseHex(a["frame"].get<std::string>(), got)) {
        if (auto at = FirstDifferentByte(frame, got)) {
          return MarkAt(ex, *at, absl::StrCat(op.op, ": ", DifferenceText(frame, got, *at, "answered")));
        }
      }
    }
    if (op.op == "decode" && (result == "ok" || result == "refused") && v.accept) {
      Json want = Json::object(), got = Json::object();
      for (const char* k : {"header", "body"}) {
        want[k] = v.record.value(k, Json());
        got[k] = a.value(k, Json());
      }
      const std::vector<std::string> diffs = JsonDiffPaths(want, got, 1);
      if (!diffs.empty()) {
        const std::string tree_path = TreePathOfJsonPath(diffs[0], dir);
        if (const PrintNode* n = FindTreeNode(ex, tree_path)) {
          FailureMark m;
          m.offset = std::min(n->offset, ex.bytes.size());
          m.path = n->path;
          m.why = absl::StrCat("decode: the first differing member, ", diffs[0],
                               n->path == tree_path ? "" : absl::StrCat(" (in ", n->path, ")"));
          return m;
        }
      }
    }
  }
  if (!ex.status.ok()) return ErrorMark(ex);
  return {};
}

Json NativeReportData(const conformance::Report& report, const ReportLimits& limits) {
  const std::vector<std::string> outcomes = {"pass", "fail", "expected failure", "unexpected pass"};
  Json data = Json::object();
  data["page"] = "conformance";
  data["mode"] = "native";
  data["title"] = "kwire conformance";
  data["subtitle"] = absl::StrCat("the vectors of ", report.dir, " against kwire's codec");
  data["dir"] = report.dir;
  data["expected_failures"] = report.expected_failures_path;
  data["ok"] = report.ok();
  data["outcomes"] = outcomes;
  Json totals = Json::array();
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kExpectedFailure, Outcome::kUnexpectedPass}) {
    totals.push_back(report.Count(o));
  }
  data["totals"] = std::move(totals);
  data["vectors"] = report.results.size();

  std::vector<std::vector<size_t>> per_file(report.files.size(), std::vector<size_t>(4));
  std::map<std::pair<int16_t, int16_t>, ApiRow> apis;
  FailureList failures{limits};
  for (const conformance::Result& r : report.results) {
    const conformance::VectorFile& file = report.files[r.file];
    const conformance::Vector& v = file.vectors[r.vector];
    const size_t o = static_cast<size_t>(r.outcome);
    ++per_file[r.file][o];
    ApiRow& row = apis[{v.api_key, v.version}];
    if (row.counts.empty()) {
      row.counts.assign(4, 0);
      row.name = ApiName(v.api_key, v.name);
    }
    ++row.vectors;
    ++row.counts[o];
    if (r.outcome != Outcome::kFail && r.outcome != Outcome::kUnexpectedPass) continue;
    const std::string where = absl::StrCat(v.file, ":", v.line);
    failures.Add(v.Id(), outcomes[o], where, r.failures.empty() ? "" : r.failures[0], [&](Json& f) {
      f["id"] = v.Id();
      f["set"] = v.file;
      f["file"] = v.file;
      f["line"] = v.line;
      f["api_key"] = v.api_key;
      f["api_name"] = ApiName(v.api_key, v.name);
      f["version"] = v.version;
      f["direction"] = v.dir == Direction::kRequest ? "request" : "response";
      f["expect"] = "accept";
      f["outcome"] = outcomes[o];
      f["mutation"] = "";
      f["expected_reason"] = r.expected_reason;
      Json checks = Json::array();
      for (const std::string& m : r.failures) {
        Json c = {{"check", NativeCheck(m)}, {"verdict", "fail"}, {"answer", ""},
                  {"message", m},           {"error", ""},       {"compare", nullptr}};
        checks.push_back(std::move(c));
      }
      f["checks"] = std::move(checks);
      FrameExplanation ex = Explain(v.bytes, v.dir, v.api_key, v.version);
      f["mark"] = r.outcome == Outcome::kFail ? MarkJson(NativeMark(v, ex)) : Json(nullptr);
      f["command"] =
          absl::StrCat("echo ", HexString(v.bytes),
                       " | kwire explain ",
                       v.dir == Direction::kRequest
                           ? std::string("request")
                           : absl::StrFormat("response --api %d --version %d", v.api_key, v.version));
      size_t nodes = 0;
      f["frame"] = FrameJson(std::move(ex), v.dir, v.api_key, v.version, limits, nodes);
      return nodes;
    });
  }
  Json sets = Json::array();
  for (size_t i = 0; i < report.files.size(); ++i) {
    Json row = Json::array({report.files[i].name, report.files[i].vectors.size()});
    for (size_t c : per_file[i]) row.push_back(c);
    sets.push_back(std::move(row));
  }
  data["sets"] = std::move(sets);
  data["apis"] = ApisJson(apis, {1, 3});
  data["errors"] = report.errors;
  data["warnings"] = report.warnings;
  data["faults"] = Json::array();
  data["max_failures"] = limits.max_failures;
  data["failures_total"] = failures.total;
  data["failures"] = std::move(failures.full);
  data["failures_more"] = std::move(failures.more);
  return data;
}

Json TesteeReportData(const conformance::TesteeReport& report, const ReportLimits& limits) {
  const std::vector<std::string> outcomes = {"pass", "fail", "unsupported", "expected failure",
                                             "unexpected pass", "not run"};
  const conformance::TesteeOptions& o = report.options;
  Json data = Json::object();
  data["page"] = "conformance";
  data["mode"] = "testee";
  data["title"] = absl::StrCat("kwire conformance: ", report.name.empty() ? o.command : report.name,
                               report.version.empty() ? "" : " ", report.version);
  data["subtitle"] = absl::StrCat("testee `", o.command, "`, the vectors of ", o.dir);
  data["testee"] = {{"command", o.command}, {"name", report.name}, {"version", report.version},
                    {"operations", report.operations}};
  data["dir"] = o.dir;
  data["expected_failures"] = o.expected_failures;
  data["ok"] = report.ok();
  data["outcomes"] = outcomes;
  Json totals = Json::array();
  for (size_t i = 0; i < outcomes.size(); ++i) totals.push_back(report.Count(static_cast<TesteeOutcome>(i)));
  data["totals"] = std::move(totals);
  data["vectors"] = report.results.size();

  std::map<std::string, std::pair<size_t, std::vector<size_t>>> per_file;  // sorted by name
  std::map<std::pair<int16_t, int16_t>, ApiRow> apis;
  FailureList failures{limits};
  for (const conformance::TesteeResult& r : report.results) {
    const JsonlVector& v = report.vectors[r.vector];
    const size_t oc = static_cast<size_t>(r.outcome);
    auto& file = per_file[v.file];
    if (file.second.empty()) file.second.assign(outcomes.size(), 0);
    ++file.first;
    ++file.second[oc];
    ApiRow& row = apis[{v.api_key, v.version}];
    if (row.counts.empty()) {
      row.counts.assign(outcomes.size(), 0);
      row.name = ApiName(v.api_key, v.record.value("api_name", "?"));
    }
    ++row.vectors;
    ++row.counts[oc];
    if (r.outcome != TesteeOutcome::kFail && r.outcome != TesteeOutcome::kUnexpectedPass) continue;
    std::string first;
    for (const OpResult& op : r.ops) {
      if (op.verdict == "fail" && first.empty()) first = absl::StrCat(op.op, ": ", op.detail);
    }
    if (r.outcome == TesteeOutcome::kUnexpectedPass) {
      first = absl::StrCat("passes, but is listed as an expected failure (", r.expected_reason, ")");
    }
    const std::string where = absl::StrCat(v.file, ":", v.line);
    failures.Add(v.id, outcomes[oc], where, first, [&](Json& f) {
      const Direction dir = v.request ? Direction::kRequest : Direction::kResponse;
      f["id"] = v.id;
      f["set"] = v.set;
      f["file"] = v.file;
      f["line"] = v.line;
      f["api_key"] = v.api_key;
      f["api_name"] = row.name;
      f["version"] = v.version;
      f["direction"] = v.request ? "request" : "response";
      f["expect"] = v.refuse ? "refuse" : v.accept ? "accept" : "reject";
      f["outcome"] = outcomes[oc];
      const Json m = v.record.value("mutation", Json());
      f["mutation"] = m.is_string() ? m.get<std::string>() : "";
      f["expected_reason"] = r.expected_reason;
      Json checks = Json::array();
      for (const OpResult& op : r.ops) {
        if (op.verdict == "pass" && r.outcome != TesteeOutcome::kUnexpectedPass) continue;
        Json c = {{"check", op.op},        {"verdict", op.verdict}, {"answer", op.answer},
                  {"message", op.detail},  {"error", op.error}};
        c["compare"] = op.verdict == "fail" ? Compare(v, op) : Json(nullptr);
        checks.push_back(std::move(c));
      }
      f["checks"] = std::move(checks);
      std::vector<uint8_t> bytes;
      ParseHex(v.record.value("frame", ""), bytes);
      FrameExplanation ex = Explain(bytes, dir, v.api_key, v.version);
      f["mark"] = r.outcome == TesteeOutcome::kFail ? MarkJson(TesteeMark(v, r.ops, ex)) : Json(nullptr);
      f["command"] = absl::StrCat("kwire explain --vector ", o.dir, "/", v.file, ":", v.line);
      size_t nodes = 0;
      f["frame"] = FrameJson(std::move(ex), dir, v.api_key, v.version, limits, nodes);
      return nodes;
    });
  }
  Json sets = Json::array();
  for (const auto& [name, counts] : per_file) {
    Json row = Json::array({name, counts.first});
    for (size_t c : counts.second) row.push_back(c);
    sets.push_back(std::move(row));
  }
  data["sets"] = std::move(sets);
  data["apis"] = ApisJson(apis, {1, 4, 5});
  data["errors"] = report.errors;
  data["warnings"] = report.warnings;
  data["faults"] = report.faults;
  data["max_failures"] = limits.max_failures;
  data["failures_total"] = failures.total;
  data["failures"] = std::move(failures.full);
  data["failures_more"] = std::move(failures.more);
  return data;
}

std::string NativeReportPage(const conformance::Report& report, const ReportLimits& limits) {
  const Json data = NativeReportData(report, limits);
  return RenderPage(data["title"].get<std::string>(), data);
}

std::string TesteeReportPage(const conformance::TesteeReport& report, const ReportLimits& limits) {
  const Json data = TesteeReportData(report, limits);
  return RenderPage(data["title"].get<std::string>(), data);
}

}  // namespace kwire::html
