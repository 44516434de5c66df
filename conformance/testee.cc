// The testee runner (testee.h): vectors, verdicts and reports; the testee process itself is
// a LineProcess (line_process.h).
#include "conformance/testee.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "codec/wire/utf8.h"
#include "conformance/line_process.h"
#include "conformance/testee_internal.h"
#include "tools/json/json.h"

namespace kwire::conformance {
namespace testee_internal {

std::string Clean(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    // The codec's own UTF-8 check (codec/wire/utf8.h) finds the next ill-formed byte.
    const size_t bad = i + FindInvalidUtf8(std::string_view(s).substr(i));
    for (; i < bad; ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      out += (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : s[i];
    }
    if (i < s.size()) {
      out += '?';
      ++i;
    }
  }
  return out;
}

std::string Shorten(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return Clean(s);
}

}  // namespace testee_internal

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using testee_internal::Clean;
using testee_internal::kOps;
using testee_internal::Shorten;

// The hello waits at least this long: a testee may compile or load a runtime first.
constexpr double kHelloSeconds = 60;
// A testee whose stdout ended is given this long (at most --timeout) to exit before it
// is killed, so that the report can say how it ended.
constexpr double kExitGraceSeconds = 1;

// Parses one answer line; a member repeated within one object (which a plain parse
// would resolve silently, the last one winning) is reported in `*duplicate`.
Json ParseAnswer(const std::string& line, std::string* duplicate) {
  std::vector<std::set<std::string>> keys;
  auto cb = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty() && parsed.is_string()) {
      if (!keys.back().insert(parsed.get<std::string>()).second && duplicate->empty()) {
        *duplicate = parsed.get<std::string>();
      }
    }
    return true;
  };
  return Json::parse(line, cb, false);
}


std::string WithStderr(const LineProcess& p) {
  std::string t = Clean(p.StderrTail());
  if (t.empty()) return "";
  // Last few lines only.
  size_t pos = t.size();
  for (int lines = 0; lines < 5 && pos > 0; ++lines) {
    size_t nl = t.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    pos = nl;
  }
  t.erase(0, pos == 0 ? 0 : pos + 1);
  // At most 600 characters, its end kept (the last lines say most): from the first
  // line that starts within them, or "..." and the middle of a long line.
  constexpr size_t kMax = 600;
  if (t.size() > kMax) {
    const size_t from = t.size() - kMax;
    const size_t nl = t.find('\n', from);
    t = nl != std::string::npos && nl + 1 < t.size() ? t.substr(nl + 1) : "..." + t.substr(from);
  }
  return absl::StrCat("; its stderr ends: ", t);
}

// Sends the hello; fills the report's name/version/operations. False with `error`.
bool Hello(LineProcess& p, const TesteeOptions& o, TesteeReport& report, std::string& error) {
  const Json hello = {{"type", "hello"}, {"protocol", kTesteeProtocol}, {"format", 1}};
  std::string line;
  size_t extra = 0;
  const double wait = std::max(o.timeout_seconds, kHelloSeconds);
  switch (p.Exchange(hello.dump(), wait, line, &extra)) {
    case LineProcess::kLine: break;
    case LineProcess::kTimeout:
      error = absl::StrCat("no answer to the hello within ", wait, " s");
      return false;
    case LineProcess::kClosed:
    case LineProcess::kTooLong:
      p.Finish(std::min(o.timeout_seconds, kExitGraceSeconds));  // reaps it: its exit status
      error = absl::StrCat("the testee ended before answering the hello (", p.exit_description(), ")",
                           WithStderr(p));
      return false;
  }
  Json a = Json::parse(line, nullptr, false);
  if (!a.is_object() || a.value("type", "") != "hello") {
    error = absl::StrCat("the answer to the hello is not {\"type\":\"hello\",...}: ", Shorten(line));
    return false;
  }
  if (!a.contains("protocol") || !a["protocol"].is_number_integer() ||
      a["protocol"].get<int>() != kTesteeProtocol) {
    error = absl::StrCat("the testee speaks protocol ", a.contains("protocol") ? a["protocol"].dump() : "(none)",
                         "; this runner speaks ", kTesteeProtocol);
    return false;
  }
  std::vector<std::string> ops;
  if (auto it = a.find("operations"); it != a.end() && it->is_array()) {
    for (const Json& op : *it) {
      if (!op.is_string()) continue;
      const std::string s = op.get<std::string>();
      if (std::find(std::begin(kOps), std::end(kOps), s) == std::end(kOps)) {
        report.warnings.push_back(absl::StrCat("the testee names an unknown operation \"", s, "\" (ignored)"));
      }
    }
    for (const char* known : kOps) {
      for (const Json& op : *it) {
        if (op.is_string() && op.get<std::string>() == known) {
          ops.push_back(known);
          break;
        }
      }
    }
  }
  if (ops.empty()) {
    error = absl::StrCat("the hello names no operation of ", absl::StrJoin(kOps, ", "), ": ", Shorten(line));
    return false;
  }
  if (report.operations.empty()) {
    report.name = Clean(a.value("name", std::string()));
    report.version = Clean(a.value("version", std::string()));
    report.operations = ops;
  } else if (ops != report.operations) {
    report.warnings.push_back("the restarted testee names other operations; the first hello's are used");
  }
  return true;
}

// Whether `line` is a JSON object whose integer "seq" is below `seq`: an answer to a
// request that was answered already.
bool AnswersEarlierSeq(const std::string& line, uint64_t seq) {
  const Json a = Json::parse(line, nullptr, false);
  if (!a.is_object()) return false;
  auto it = a.find("seq");
  return it != a.end() && it->is_number_unsigned() && it->get<uint64_t>() < seq;
}

Json RequestFor(const JsonlVector& v, const std::string& op, uint64_t seq) {
  const Json& r = v.record;
  Json q = {{"type", "request"},
            {"seq", seq},
            {"op", op},
            {"id", v.id},
            {"api_key", v.api_key},
            {"api_name", r.value("api_name", std::string())},
            {"version", v.version},
            {"direction", v.request ? "request" : "response"},
            {"header_version", r.value("header_version", 0)}};
  if (op == "encode") {
    q["header"] = r.value("header", Json::object());
    q["body"] = r.value("body", Json::object());
    // The kip511 set: the body is at this version (0), not at "version" (FORMAT.md).
    if (r.contains("body_version")) q["body_version"] = r["body_version"];
  } else {
    q["frame"] = r.value("frame", std::string());
  }
  return q;
}

std::map<std::string, std::string> LoadIdList(const std::string& path,
                                              std::vector<std::string>& errors) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  if (!in) {
    errors.push_back(absl::StrCat(path, ": cannot read the expected-failures file"));
    return out;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string reason;
    if (size_t h = line.find('#'); h != std::string::npos) {
      reason = std::string(absl::StripAsciiWhitespace(line.substr(h + 1)));
      line = line.substr(0, h);
    }
    std::string id(absl::StripAsciiWhitespace(line));
    if (id.empty()) continue;
    if (id.find_first_of(" \t") != std::string::npos) {
      errors.push_back(absl::StrCat(path, ":", n, ": expected `<vector id>  # reason`"));
      continue;
    }
    if (!out.emplace(id, reason).second) {
      errors.push_back(absl::StrCat(path, ":", n, ": ", id, " listed twice"));
    }
  }
  return out;
}


}  // namespace

std::string CategoryOfSet(const std::string& set) {
  if (set == "minimal-removed" || set == "seeds") return "minimal";
  return set;
}

const std::vector<std::string>& Categories() {
  static const std::vector<std::string> c = {"minimal", "rich", "negative", "records", "kip511",
                                             "java", "live"};
  return c;
}

const char* TesteeOutcomeName(TesteeOutcome o) {
  switch (o) {
    case TesteeOutcome::kPass: return "pass";
    case TesteeOutcome::kFail: return "fail";
    case TesteeOutcome::kUnsupported: return "unsupported";
    case TesteeOutcome::kExpectedFailure: return "expected failure";
    case TesteeOutcome::kUnexpectedPass: return "unexpected pass";
    case TesteeOutcome::kNotRun: return "not run";
  }
  return "?";
}

size_t TesteeReport::Count(TesteeOutcome o, const std::string& category) const {
  size_t n = 0;
  for (const TesteeResult& r : results) {
    if (r.outcome == o && (category.empty() || vectors[r.vector].category == category)) ++n;
  }
  return n;
}

size_t TesteeReport::CountOtherErrors(const std::string& category) const {
  size_t n = 0;
  for (const TesteeResult& r : results) {
    if (r.outcome != TesteeOutcome::kPass ||
        !(category.empty() || vectors[r.vector].category == category)) {
      continue;
    }
    n += std::any_of(r.ops.begin(), r.ops.end(), [](const OpResult& op) { return op.other_error; });
  }
  return n;
}

bool TesteeReport::ok() const {
  return errors.empty() && Count(TesteeOutcome::kFail) == 0 &&
         Count(TesteeOutcome::kUnexpectedPass) == 0 && Count(TesteeOutcome::kNotRun) == 0;
}

std::vector<JsonlVector> LoadJsonlVectors(const TesteeOptions& o, std::vector<std::string>& errors,
                                          size_t* left_out_lenient, std::set<std::string>* all_ids) {
  std::vector<JsonlVector> out;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(o.dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".jsonl") files.push_back(it->path());
  }
  if (ec) errors.push_back(absl::StrCat(o.dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  if (files.empty() && !ec) errors.push_back(absl::StrCat(o.dir, ": no *.jsonl vector files"));
  std::set<std::string> ids;
  for (const fs::path& path : files) {
    std::ifstream in(path);
    if (!in) {
      errors.push_back(absl::StrCat(path.string(), ": cannot read"));
      continue;
    }
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
      ++line;
      if (text.empty()) continue;
      const std::string where = absl::StrCat(path.filename().string(), ":", line);
      Json r = Json::parse(text, nullptr, false);
      if (!r.is_object()) {
        errors.push_back(absl::StrCat(where, ": not a JSON object"));
        continue;
      }
      JsonlVector v;
      v.file = path.filename().string();
      v.line = line;
      try {
        v.id = r.at("id").get<std::string>();
        v.set = r.at("set").get<std::string>();
        v.api_key = r.at("api_key").get<int16_t>();
        v.version = r.at("version").get<int16_t>();
        const std::string dir = r.at("direction").get<std::string>();
        const std::string expect = r.at("expect").get<std::string>();
        if ((dir != "request" && dir != "response") ||
            (expect != "accept" && expect != "reject" && expect != "refuse") ||
            !r.at("frame").is_string() || r.at("format").get<int>() != 1) {
          throw std::invalid_argument("direction, expect, frame or format");
        }
        v.request = dir == "request";
        v.refuse = expect == "refuse";
        v.accept = expect == "accept" || v.refuse;
        if (v.refuse && (!r.at("refusals").is_array() || r.at("refusals").empty())) {
          throw std::invalid_argument("refusals");
        }
        v.lenient = (!v.accept || v.refuse) && r.value("lenient", false);
        if (v.accept && (!r.at("header").is_object() || !r.at("body").is_object())) {
          throw std::invalid_argument("header or body");
        }
      } catch (const std::exception& e) {
        errors.push_back(absl::StrCat(where, ": not a format-1 vector record (", e.what(), ")"));
        continue;
      }
      if (!ids.insert(v.id).second) {
        errors.push_back(absl::StrCat(where, ": id ", v.id, " appears twice"));
        continue;
      }
      v.category = CategoryOfSet(v.set);
      if (!o.categories.empty() && !o.categories.count(v.category)) continue;
      if (!o.api_keys.empty() && !o.api_keys.count(v.api_key)) continue;
      if (!o.versions.empty() && !o.versions.count(v.version)) continue;
      if (o.request && *o.request != v.request) continue;
      if (!o.id_prefixes.empty() &&
          std::none_of(o.id_prefixes.begin(), o.id_prefixes.end(),
                       [&](const std::string& p) { return v.id.compare(0, p.size(), p) == 0; })) {
        continue;
      }
      if (o.lenient && v.lenient) {
        if (left_out_lenient) ++*left_out_lenient;
        continue;
      }
      v.record = std::move(r);
      out.push_back(std::move(v));
    }
  }
  if (all_ids) *all_ids = std::move(ids);
  return out;
}

TesteeReport RunTestee(const TesteeOptions& o) {
  TesteeReport report;
  report.options = o;
  std::map<std::string, std::string> expected;
  std::set<std::string> all_ids;
  report.vectors = LoadJsonlVectors(o, report.errors, &report.left_out_lenient, &all_ids);
  if (!o.expected_failures.empty()) {
    expected = LoadIdList(o.expected_failures, report.errors);
    std::set<std::string> selected;
    for (const JsonlVector& v : report.vectors) selected.insert(v.id);
    size_t not_selected = 0;
    for (const auto& [id, reason] : expected) {
      if (!all_ids.count(id)) {
        report.warnings.push_back(absl::StrCat(o.expected_failures, ": ", id, " is no vector"));
      } else if (!selected.count(id)) {
        ++not_selected;
      }
    }
    if (not_selected > 0) {
      report.warnings.push_back(absl::StrCat(not_selected, " listed expected failure(s) not run: left out by ",
                                             o.lenient ? "--lenient or " : "", "the filters"));
    }
  }
  if (report.errors.empty() && report.vectors.empty()) {
    report.errors.push_back("no vector matches the filters: nothing was tested");
  }
  if (!report.errors.empty()) return report;

  std::FILE* log = nullptr;
  if (!o.log_file.empty()) {
    log = std::fopen(o.log_file.c_str(), "w");
    if (log == nullptr) {
      report.errors.push_back(absl::StrCat(o.log_file, ": cannot write: ", std::strerror(errno)));
      return report;
    }
  }
  // A testee that closes its stdin early must not kill the runner; a runner stopped by
  // a signal takes its testee with it.
  const KillChildOnSignal guard;
  LineProcess p(log);
  bool started = false;  // a live testee that answered the hello
  bool stopped = false;  // it never started, or failed again after max_restarts restarts
  size_t extra_answers = 0;
  std::string first_extra;
  // Starts the testee (a restart after a fault when `restart`); false when stopped.
  auto start = [&](bool restart) -> bool {
    for (;;) {
      if (restart) {
        if (report.restarts >= o.max_restarts) {
          report.errors.push_back(absl::StrCat("the testee failed again after ", report.restarts,
                                               " restart(s); the remaining vectors are not run"));
          stopped = true;
          return false;
        }
        ++report.restarts;
      }
      std::string error;
      if (p.Start(o.command, error) && Hello(p, o, report, error)) {
        started = true;
        return true;
      }
      p.Kill();
      if (report.operations.empty()) {  // never worked: no point in retrying
        report.errors.push_back(absl::StrCat("testee `", o.command, "`: ", error));
        stopped = true;
        return false;
      }
      report.faults.push_back(absl::StrCat("restart failed: ", error));
      restart = true;
    }
  };
  start(false);

  uint64_t seq = 0;
  for (size_t i = 0; i < report.vectors.size(); ++i) {
    const JsonlVector& v = report.vectors[i];
    TesteeResult res;
    res.vector = i;
    for (const std::string& op : OperationsFor(v, report.operations)) {
      OpResult r;
      r.op = op;
      if (!stopped && !started) start(true);
      if (stopped) {
        r.verdict = "not run";
        r.detail = "the testee is not running";
        res.ops.push_back(std::move(r));
        continue;
      }
      const uint64_t want_seq = ++seq;
      std::string line;
      size_t extra = 0;
      // A fault of the process: the operation fails, the testee is stopped (restarted
      // for the next operation) and the fault is listed.
      auto fault = [&](const char* answer, std::string detail, bool stderr_tail) {
        p.Kill();
        started = false;
        r.verdict = "fail";
        r.answer = answer;
        r.detail = stderr_tail ? absl::StrCat(detail, WithStderr(p)) : std::move(detail);
        report.faults.push_back(absl::StrCat(v.id, " ", op, ": ", r.detail));
      };
      LineProcess::Status status =
          p.Exchange(RequestFor(v, op, want_seq).dump(), o.timeout_seconds, line, &extra);
      // A line for an earlier seq that arrived after this request was written (a testee
      // that wrote a second answer late): it answers no request either. Dropped and
      // counted like the lines waiting before the request, and the answer is read on;
      // otherwise whether it is caught would depend on the scheduler.
      while (status == LineProcess::kLine && AnswersEarlierSeq(line, want_seq)) {
        ++extra;
        status = p.ReadLine(o.timeout_seconds, line);
      }
      if (extra > 0) {
        if (extra_answers == 0) first_extra = absl::StrCat("before seq ", want_seq, " (", v.id, " ", op, ")");
        extra_answers += extra;
      }
      switch (status) {
        case LineProcess::kLine: {
          std::string duplicate;
          Json a = ParseAnswer(line, &duplicate);
          r.answer = "garbage";
          r.verdict = "fail";
          if (!a.is_object()) {
            r.detail = absl::StrCat("the answer is not a JSON object: ", Shorten(line));
          } else if (!a.contains("seq") || !(a["seq"].is_number_integer() || a["seq"].is_number_unsigned()) ||
                     a["seq"] != want_seq) {
            r.detail = absl::StrCat("the answer is for seq ", a.contains("seq") ? Shorten(a["seq"].dump()) : "(none)",
                                    ", not ", want_seq);
          } else if (!duplicate.empty()) {
            r.detail = absl::StrCat("the answer repeats the member \"", Shorten(duplicate), "\"");
          } else {
            r.answer.clear();
            r.verdict.clear();
            JudgeAnswer(v, op, a, r);
            if (r.other_error && o.strict_errors) r.verdict = "fail";
            if (r.verdict == "fail" && o.keep_answers) r.answered = std::move(a);
          }
          break;
        }
        case LineProcess::kTimeout:
          fault("timeout", absl::StrCat("no answer within ", o.timeout_seconds, " s (killed)"), true);
          break;
        case LineProcess::kTooLong:
          fault("garbage", absl::StrCat("an answer line longer than ", kMaxLineBytes >> 20, " MiB (killed)"),
                false);
          break;
        case LineProcess::kClosed:
          p.Finish(std::min(o.timeout_seconds, kExitGraceSeconds));  // its exit status, if it ends
          fault("died", absl::StrCat("the testee ended before answering (", p.exit_description(), ")"), true);
          break;
      }
      res.ops.push_back(std::move(r));
    }
    size_t answered = 0, failed = 0, not_run = 0;
    for (const OpResult& r : res.ops) {
      if (r.verdict == "fail") ++failed;
      if (r.verdict == "not run") ++not_run;
      if (r.verdict != "unsupported") ++answered;
    }
    if (report.operations.empty()) {
      res.outcome = TesteeOutcome::kNotRun;  // the testee never started
    } else if (failed > 0) {
      res.outcome = TesteeOutcome::kFail;
    } else if (not_run > 0) {
      res.outcome = TesteeOutcome::kNotRun;
    } else if (answered == 0) {
      res.outcome = TesteeOutcome::kUnsupported;
    } else {
      res.outcome = TesteeOutcome::kPass;
    }
    if (auto it = expected.find(v.id); it != expected.end()) {
      res.expected_reason = it->second;
      if (res.outcome == TesteeOutcome::kFail) res.outcome = TesteeOutcome::kExpectedFailure;
      else if (res.outcome == TesteeOutcome::kPass) res.outcome = TesteeOutcome::kUnexpectedPass;
      else if (res.outcome == TesteeOutcome::kUnsupported) {
        report.warnings.push_back(absl::StrCat(v.id, " is listed as an expected failure but unsupported"));
      }
    }
    if (res.outcome == TesteeOutcome::kExpectedFailure) {
      for (OpResult& r : res.ops) r.answered = nullptr;  // shown nowhere: not kept
    }
    report.results.push_back(std::move(res));
  }
  if (started) {
    const std::string end = p.Finish(o.timeout_seconds);
    if (end != "exit status 0") {
      report.warnings.push_back(absl::StrCat("at the end the testee ", end, WithStderr(p)));
    }
  }
  p.Kill();
  if (extra_answers > 0) {
    report.errors.push_back(absl::StrCat("the testee wrote ", extra_answers,
                                         " answer line(s) that answer no request, first ", first_extra,
                                         ": one answer per request, after reading it whole"));
  }
  if (!report.results.empty() && report.Count(TesteeOutcome::kUnsupported) == report.results.size()) {
    report.warnings.push_back("every answer was `unsupported`: nothing was tested");
  }
  if (log != nullptr) std::fclose(log);
  return report;
}

}  // namespace kwire::conformance
