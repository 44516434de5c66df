// The testee runner's reports (testee.h, Render*): summary, list, JUnit and JSON.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "conformance/testee.h"
#include "conformance/testee_internal.h"
#include "conformance/xml_escape.h"
#include "tools/json/json.h"

namespace kwire::conformance {
namespace {

using Json = nlohmann::ordered_json;
using testee_internal::Clean;
using testee_internal::kOps;
using testee_internal::Shorten;

// Report text for the JUnit file: cleaned (testee_internal::Clean), then XML-escaped.
std::string JunitText(const std::string& text) { return XmlEscape(Clean(text)); }

std::string Describe(const JsonlVector& v, const TesteeResult& r) {
  std::vector<std::string> parts;
  for (const OpResult& op : r.ops) {
    if (op.verdict == "fail" || op.verdict == "not run") {
      parts.push_back(absl::StrCat(op.op, ": ", op.detail));
    }
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace

std::string RenderTesteeList(const std::vector<JsonlVector>& vectors) {
  std::string out;
  const std::vector<std::string> all(std::begin(kOps), std::end(kOps));
  for (const JsonlVector& v : vectors) {
    for (const std::string& op : OperationsFor(v, all)) absl::StrAppend(&out, v.id, " ", op, "\n");
  }
  return out;
}

namespace {

// Under a vector's line in the summary: how the vector was made from a valid frame
// (its `mutation`) and the command that explains its frame.
// `res` (may be null): a failed decode's first differing value is looked at with --path.
void AppendMutationAndLook(std::string& out, const TesteeReport& r, const JsonlVector& v,
                           const TesteeResult* res = nullptr) {
  if (auto m = v.record.find("mutation"); m != v.record.end() && m->is_string()) {
    absl::StrAppend(&out, "\n      mutation: ", Clean(m->get<std::string>()));
  }
  absl::StrAppend(&out, "\n      look: kwire explain --vector ", r.options.dir, "/", v.file, ":", v.line);
  if (res == nullptr) return;
  for (const OpResult& op : res->ops) {
    if (op.differences.is_array() && !op.differences.empty() &&
        op.differences[0].contains("tree_path")) {
      // The command shows the vector's frame, so the value at --path is the expected one
      // (a new user read it as their answer); the shell comment says so.
      absl::StrAppend(&out, " --path '", Clean(op.differences[0]["path"].get<std::string>()),
                      "'  # the vector's frame: the expected value, and the bytes it is read from");
      return;
    }
  }
}

}  // namespace

std::string RenderTesteeSummary(const TesteeReport& r, size_t max_failures) {
  std::string out = absl::StrCat("kwire conformance: testee `", r.options.command, "`");
  if (!r.name.empty()) absl::StrAppend(&out, ": ", r.name, r.version.empty() ? "" : " ", r.version);
  if (!r.operations.empty()) absl::StrAppend(&out, " (", absl::StrJoin(r.operations, ", "), ")");
  absl::StrAppend(&out, "\nvectors: ", r.vectors.size(), " from ", r.options.dir);
  if (r.options.lenient) absl::StrAppend(&out, " (", r.left_out_lenient, " lenient ones left out)");
  absl::StrAppend(&out, "\n\n");
  // "other-err": passed vectors a testee rejected with another error than the vector's
  // (kind, offset or path), listed below the failures; --strict-errors fails them.
  absl::StrAppend(&out, absl::StrFormat("%-10s %8s %8s %10s %8s %12s %9s %11s %8s\n", "category",
                                        "vectors", "passed", "other-err", "failed", "unsupported",
                                        "expected", "unexpected", "not-run"));
  std::vector<std::string> cats = Categories();
  cats.push_back("");
  for (const std::string& c : cats) {
    size_t n = 0;
    for (const TesteeResult& res : r.results) n += c.empty() || r.vectors[res.vector].category == c;
    if (n == 0 && !c.empty()) continue;
    absl::StrAppend(
        &out, absl::StrFormat("%-10s %8d %8d %10d %8d %12d %9d %11d %8d\n", c.empty() ? "total" : c, n,
                              r.Count(TesteeOutcome::kPass, c), r.CountOtherErrors(c),
                              r.Count(TesteeOutcome::kFail, c),
                              r.Count(TesteeOutcome::kUnsupported, c),
                              r.Count(TesteeOutcome::kExpectedFailure, c),
                              r.Count(TesteeOutcome::kUnexpectedPass, c), r.Count(TesteeOutcome::kNotRun, c)));
  }
  for (size_t i = 0; i < r.errors.size() && i < 20; ++i) absl::StrAppend(&out, "\nerror: ", r.errors[i]);
  if (r.errors.size() > 20) absl::StrAppend(&out, "\n... and ", r.errors.size() - 20, " more errors (--json has all)");
  if (!r.faults.empty()) {
    absl::StrAppend(&out, "\n", r.faults.size(), " testee fault(s), ", r.restarts, " restart(s):");
    for (size_t i = 0; i < r.faults.size() && i < 10; ++i) absl::StrAppend(&out, "\n  ", r.faults[i]);
  }
  for (size_t i = 0; i < r.warnings.size() && i < 20; ++i) absl::StrAppend(&out, "\nwarning: ", r.warnings[i]);
  size_t shown = 0, bad = 0;
  for (const TesteeResult& res : r.results) {
    if (res.outcome != TesteeOutcome::kFail && res.outcome != TesteeOutcome::kUnexpectedPass) continue;
    ++bad;
    if (shown++ == 0) absl::StrAppend(&out, "\n\nfailures:");
    if (shown > max_failures) continue;
    const JsonlVector& v = r.vectors[res.vector];
    absl::StrAppend(&out, "\n  ", v.id, " (", v.file, ":", v.line, "): ",
                    res.outcome == TesteeOutcome::kUnexpectedPass
                        ? absl::StrCat("passes, but is listed as an expected failure (", res.expected_reason, ")")
                        : Describe(v, res));
    if (res.outcome == TesteeOutcome::kFail) AppendMutationAndLook(out, r, v, &res);
  }
  if (bad > max_failures) absl::StrAppend(&out, "\n  ... and ", bad - max_failures, " more (--json has all)");
  // Rejections for another reason than the vector's: right verdict, wrong diagnosis
  // (--strict-errors makes them failures).
  size_t other = 0;
  for (const TesteeResult& res : r.results) {
    for (const OpResult& op : res.ops) {
      if (!op.other_error || op.verdict == "fail") continue;
      if (other++ == 0) {
        absl::StrAppend(&out, "\n\nrejected with another error than the vector's (kind, offset or path; "
                              "--strict-errors makes these failures):");
      }
      if (other <= max_failures) {
        const JsonlVector& v = r.vectors[res.vector];
        absl::StrAppend(&out, "\n  ", v.id, " (", v.file, ":", v.line, "): ", op.op, ": ", op.detail);
        AppendMutationAndLook(out, r, v);
      }
    }
  }
  if (other > max_failures) absl::StrAppend(&out, "\n  ... and ", other - max_failures, " more (--json has all)");
  absl::StrAppend(&out, "\n\n", r.ok() ? "PASS" : "FAIL", "\n");
  return out;
}

std::string RenderTesteeJUnit(const TesteeReport& r) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out, "<testsuites name=\"kwire conformance: ", JunitText(r.name.empty() ? r.options.command : r.name),
                  "\" tests=\"", r.results.size(), "\" failures=\"",
                  r.Count(TesteeOutcome::kFail) + r.Count(TesteeOutcome::kUnexpectedPass) +
                      r.Count(TesteeOutcome::kNotRun),
                  "\">\n");
  for (const std::string& c : Categories()) {
    std::string cases;
    size_t n = 0, failures = 0, skipped = 0;
    for (const TesteeResult& res : r.results) {
      const JsonlVector& v = r.vectors[res.vector];
      if (v.category != c) continue;
      ++n;
      absl::StrAppend(&cases, "    <testcase classname=\"kwire.conformance.", c, "\" name=\"", JunitText(v.id), "\">");
      switch (res.outcome) {
        case TesteeOutcome::kPass: break;
        case TesteeOutcome::kFail:
        case TesteeOutcome::kNotRun:
          ++failures;
          absl::StrAppend(&cases, "<failure message=\"", JunitText(Shorten(Describe(v, res), 300)), "\">",
                          JunitText(Describe(v, res)), "</failure>");
          break;
        case TesteeOutcome::kUnexpectedPass:
          ++failures;
          absl::StrAppend(&cases, "<failure message=\"passes, but is listed as an expected failure\">",
                          JunitText(res.expected_reason), "</failure>");
          break;
        case TesteeOutcome::kUnsupported:
          ++skipped;
          absl::StrAppend(&cases, "<skipped message=\"unsupported\"/>");
          break;
        case TesteeOutcome::kExpectedFailure:
          ++skipped;
          absl::StrAppend(&cases, "<skipped message=\"expected failure: ", JunitText(res.expected_reason), "\"/>");
          break;
      }
      absl::StrAppend(&cases, "</testcase>\n");
    }
    if (n == 0) continue;
    absl::StrAppend(&out, "  <testsuite name=\"", c, "\" tests=\"", n, "\" failures=\"", failures,
                    "\" skipped=\"", skipped, "\">\n", cases, "  </testsuite>\n");
  }
  absl::StrAppend(&out, "</testsuites>\n");
  return out;
}

std::string RenderTesteeJson(const TesteeReport& r) {
  Json j;
  j["protocol"] = kTesteeProtocol;
  j["testee"] = {{"command", r.options.command}, {"name", r.name}, {"version", r.version},
                 {"operations", r.operations}};
  j["dir"] = r.options.dir;
  j["lenient_left_out"] = r.left_out_lenient;
  j["ok"] = r.ok();
  Json cats = Json::object();
  std::vector<std::string> all = Categories();
  all.push_back("");
  for (const std::string& c : all) {
    Json t;
    size_t n = 0;
    for (const TesteeResult& res : r.results) n += c.empty() || r.vectors[res.vector].category == c;
    t["vectors"] = n;
    t["passed"] = r.Count(TesteeOutcome::kPass, c);
    t["failed"] = r.Count(TesteeOutcome::kFail, c);
    t["unsupported"] = r.Count(TesteeOutcome::kUnsupported, c);
    t["expected_failures"] = r.Count(TesteeOutcome::kExpectedFailure, c);
    t["unexpected_passes"] = r.Count(TesteeOutcome::kUnexpectedPass, c);
    t["not_run"] = r.Count(TesteeOutcome::kNotRun, c);
    if (c.empty()) {
      j["totals"] = t;
    } else if (n > 0) {
      cats[c] = t;
    }
  }
  j["categories"] = cats;
  j["errors"] = r.errors;
  j["faults"] = r.faults;
  j["warnings"] = r.warnings;
  j["restarts"] = r.restarts;
  Json vs = Json::array();
  for (const TesteeResult& res : r.results) {
    const JsonlVector& v = r.vectors[res.vector];
    Json x = {{"id", v.id}, {"category", v.category}, {"expect", v.refuse ? "refuse" : v.accept ? "accept" : "reject"},
              {"outcome", TesteeOutcomeName(res.outcome)}};
    if (v.lenient) x["lenient"] = true;
    if (!res.expected_reason.empty()) x["expected_reason"] = res.expected_reason;
    Json ops = Json::array();
    for (const OpResult& op : res.ops) {
      Json y = {{"op", op.op}, {"verdict", op.verdict}, {"answer", op.answer}};
      if (!op.detail.empty()) y["detail"] = op.detail;
      if (!op.error.empty()) y["error"] = op.error;
      if (!op.expected_error.is_null()) y["expected_error"] = op.expected_error;
      if (!op.answered_error.is_null()) y["answered_error"] = op.answered_error;
      if (op.other_error) y["other_error"] = true;
      if (!op.differences.is_null()) y["differences"] = op.differences;
      ops.push_back(std::move(y));
    }
    x["ops"] = std::move(ops);
    vs.push_back(std::move(x));
  }
  j["vectors"] = std::move(vs);
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}


}  // namespace kwire::conformance
