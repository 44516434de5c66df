// `kwire diff` (diff.h): the campaign, its summary and its files.
#include "tools/diff/diff.h"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "tools/diff/minimize.h"
#include "tools/diff/seeds.h"
#include "tools/diff/testees.h"

namespace kwire::diff {
namespace {

using Clock = std::chrono::steady_clock;

bool Matches(const std::vector<std::string>& patterns, const std::string& signature) {
  for (const std::string& p : patterns) {
    if (p == signature || fnmatch(p.c_str(), signature.c_str(), 0) == 0) return true;
  }
  return false;
}

std::string PairText(const std::vector<std::string>& labels, const PairClass& c) {
  return c.a == c.b ? labels[c.a] : absl::StrCat(labels[c.a], " / ", labels[c.b]);
}

// The signature a class belongs to, of those of its mutant.
const std::string& SignatureOf(const Outcome& o, const PairClass& c) {
  if (c.a == c.b) {
    for (size_t i = 0; i < o.fault_testees.size(); ++i) {
      if (o.fault_testees[i] == c.a) return o.fault_signatures[i];
    }
  }
  return o.signature;
}

bool StillShows(const Outcome& o, const std::string& signature, bool fault) {
  if (!fault) return o.signature == signature;
  return std::find(o.fault_signatures.begin(), o.fault_signatures.end(), signature) != o.fault_signatures.end();
}

Json AnswerJson(const Answer& a) {
  Json j = a.json.is_object() ? a.json : Json::object();
  if (!a.json.is_object()) j["result"] = VerdictName(a.verdict);
  j["op"] = a.op;
  if (!a.detail.empty()) j["detail"] = a.detail;
  return j;
}

}  // namespace

size_t DiffReport::Unexpected() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return !f.expected; }));
}

bool LoadExpected(const std::string& path, std::vector<std::string>& patterns, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = absl::StrCat(path, ": cannot read the expected file");
    return false;
  }
  for (std::string line; std::getline(in, line);) {
    if (size_t h = line.find(" # "); h != std::string::npos) line.resize(h);
    const std::string p(absl::StripAsciiWhitespace(line));
    if (p.empty() || p[0] == '#') continue;
    patterns.push_back(p);
  }
  return true;
}

namespace {

// One campaign's state: the testees, the seeds, the report being filled.
class Campaign {
 public:
  Campaign(const DiffOptions& o, const std::vector<Seed>& seeds, std::vector<std::string> patterns,
           TesteeSet& set, DiffReport& r)
      : o_(o), seeds_(seeds), patterns_(std::move(patterns)), set_(set), r_(r), start_(Clock::now()) {}

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool OutOfTime() const { return (o_.time_seconds > 0 && Elapsed() >= o_.time_seconds) || StopRequested(); }

  void Run(std::ostream& progress) {
    double next_progress = o_.progress_seconds;
    for (uint64_t i = 0; (o_.count == 0 || i < o_.count) && !OutOfTime(); ++i) {
      Take(MakeMutant(seeds_, o_.seed, i));
      if (o_.progress_seconds > 0 && Elapsed() >= next_progress) {
        next_progress = Elapsed() + o_.progress_seconds;
        progress << absl::StrFormat("kwire diff: %d mutants, %.0f/s, %d findings (%d unexpected), %.0f s\n",
                                    r_.mutants, static_cast<double>(r_.mutants) / std::max(Elapsed(), 1e-9),
                                    r_.findings.size(), r_.Unexpected(), Elapsed())
                 << std::flush;
      }
    }
  }

 private:
  // Sends one mutant, counts the answers, records its findings and classes.
  void Take(const Mutant& m) {
    const std::vector<Answer> answers = set_.Ask(m);
    ++r_.mutants;
    for (size_t t = 0; t < answers.size(); ++t) ++r_.verdicts[t][answers[t].verdict];
    const Outcome oc = Classify(m, answers, r_.labels, KwireView(m));
    std::vector<std::pair<std::string, bool>> signatures;
    for (const std::string& s : oc.fault_signatures) signatures.emplace_back(s, true);
    if (!oc.signature.empty()) signatures.emplace_back(oc.signature, false);
    if (!signatures.empty()) ++r_.disagreeing;
    for (const auto& [sig, fault] : signatures) {
      if (auto it = by_signature_.find(sig); it != by_signature_.end()) {
        ++r_.findings[it->second].count;
        continue;
      }
      by_signature_[sig] = r_.findings.size();
      r_.findings.push_back(NewFinding(m, answers, oc, sig, fault));
    }
    for (const PairClass& c : oc.classes) {
      ClassRow& row = r_.classes[{PairText(r_.labels, c), c.cls}];
      row.pair = PairText(r_.labels, c);
      row.cls = c.cls;
      ++row.mutants;
      const std::string& sig = SignatureOf(oc, c);
      row.signatures.insert(sig);
      if (row.example.empty()) row.example = r_.findings[by_signature_.at(sig)].id;
    }
  }

  // The finding of a signature first seen in `m`, minimized.
  Finding NewFinding(const Mutant& m, const std::vector<Answer>& answers, const Outcome& oc,
                     const std::string& sig, bool fault) {
    Finding f;
    f.id = absl::StrFormat("diff/%d/%04d", o_.seed, r_.findings.size() + 1);
    f.signature = sig;
    f.fault = fault;
    f.expected = Matches(patterns_, sig);
    f.mutant = m;
    f.seed_id = seeds_[m.seed].id;
    f.classes = oc.classes;
    f.count = 1;
    // A hang costs the timeout per try: not minimized. A finding whose classes all have
    // an example already (a minimized one) gets an eighth of the budget.
    const bool hang = fault && std::any_of(answers.begin(), answers.end(),
                                           [](const Answer& a) { return a.verdict == Verdict::kHang; });
    const bool seen = std::all_of(oc.classes.begin(), oc.classes.end(), [&](const PairClass& c) {
      return SignatureOf(oc, c) != sig || r_.classes.count({PairText(r_.labels, c), c.cls}) > 0;
    });
    const size_t budget = hang ? 0 : seen ? o_.minimize_budget / 8 : o_.minimize_budget;
    // A disagreement is held to the testees it named: another one may answer otherwise.
    std::vector<bool> named(answers.size());
    for (size_t t = 0; t < answers.size(); ++t) named[t] = Comparable(answers[t].verdict);
    std::vector<Answer> last = answers;
    auto still_fails = [&](const std::vector<uint8_t>& candidate) {
      if (OutOfTime()) return false;
      Mutant c = m;
      c.frame = candidate;
      std::vector<Answer> a = set_.Ask(c);
      ++r_.evaluations;
      if (!StillShows(Classify(c, a, r_.labels, KwireView(c), fault ? nullptr : &named), sig, fault)) return false;
      last = std::move(a);
      return true;
    };
    const Minimized mz = Minimize(m, still_fails, budget);
    f.minimized = mz.frame;
    f.evaluations = mz.evaluations;
    f.answers = std::move(last);
    Mutant mm = m;
    mm.frame = f.minimized;
    f.view = KwireView(mm);
    return f;
  }

  const DiffOptions& o_;
  const std::vector<Seed>& seeds_;
  const std::vector<std::string> patterns_;
  TesteeSet& set_;
  DiffReport& r_;
  const Clock::time_point start_;
  std::map<std::string, size_t> by_signature_;
};

}  // namespace

DiffReport RunDiff(const DiffOptions& o, std::ostream& progress) {
  DiffReport r;
  r.options = o;
  if (o.testees.empty()) r.errors.push_back("no testee");
  if (o.op != "validate" && o.op != "decode" && o.op != "roundtrip") {
    r.errors.push_back(absl::StrCat("unknown operation '", o.op, "' (validate, decode, roundtrip)"));
  }
  std::vector<std::string> patterns;
  if (std::string e; !o.expected_file.empty() && !LoadExpected(o.expected_file, patterns, e)) r.errors.push_back(e);
  SeedFilter filter{o.api_keys, o.request};
  const std::vector<Seed> seeds = LoadSeeds(o.seeds, filter, r.errors, &r.seeds_skipped);
  r.seeds = seeds.size();
  if (r.errors.empty() && seeds.empty()) r.errors.push_back("no seed frame (none given, or none left by the filters)");
  if (!r.errors.empty()) return r;

  TesteeSet set({o.testees, o.op, o.timeout_seconds, o.max_restarts, o.max_rss_mib});
  if (std::string e; !set.Start(e)) {
    r.errors.push_back(e);
    return r;
  }
  r.labels = set.labels();
  r.versions = set.versions();
  r.ops = set.ops();
  r.verdicts.resize(r.labels.size());
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops[i] != o.op) {
      r.warnings.push_back(absl::StrCat(r.labels[i], " does not offer ", o.op, ": it is asked ", r.ops[i]));
    }
  }
  SetSoftStop(true);
  Campaign campaign(o, seeds, std::move(patterns), set, r);
  try {
    campaign.Run(progress);
  } catch (const std::exception& e) {  // the campaign stops; what it found is reported
    r.errors.push_back(absl::StrCat("stopped after ", r.mutants, " mutants: ", e.what()));
  }
  SetSoftStop(false);
  r.seconds = campaign.Elapsed();
  r.restarts = set.restarts();
  r.extra_lines = set.extra_lines();
  set.Finish();
  if (r.extra_lines > 0) {
    r.warnings.push_back(absl::StrCat(r.extra_lines, " answer line(s) answered no request (dropped)"));
  }
  return r;
}

std::string RenderDiffSummary(const DiffReport& r) {
  std::string s;
  const DiffOptions& o = r.options;
  for (const std::string& e : r.errors) absl::StrAppend(&s, "kwire diff: ", e, "\n");
  if (r.labels.empty()) return s;
  absl::StrAppendFormat(&s, "kwire diff: %d mutants in %.1f s (%.1f/s) from %d seeds, seed %d, op %s; %d sent while minimizing\n",
                        r.mutants, r.seconds, static_cast<double>(r.mutants) / std::max(r.seconds, 1e-9), r.seeds,
                        o.seed, o.op, r.evaluations);
  for (const std::string& w : r.warnings) absl::StrAppend(&s, "warning: ", w, "\n");
  s += "\n| testee | implementation | op | ok | rejected | refused | unsupported | faults | restarts |\n";
  s += "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < r.labels.size(); ++i) {
    const auto& v = r.verdicts[i];
    auto n = [&](Verdict x) { auto it = v.find(x); return it == v.end() ? uint64_t{0} : it->second; };
    const uint64_t faults = n(Verdict::kCrashed) + n(Verdict::kDied) + n(Verdict::kHang) + n(Verdict::kMemory) +
                            n(Verdict::kGarbage);
    absl::StrAppendFormat(&s, "| %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", r.labels[i], r.versions[i], r.ops[i],
                          n(Verdict::kOk), n(Verdict::kRejected), n(Verdict::kRefused), n(Verdict::kUnsupported),
                          faults, i < r.restarts.size() ? r.restarts[i] : 0);
  }
  absl::StrAppendFormat(&s, "\n%d mutants disagree or fault; %d signatures, %d of them unexpected\n", r.disagreeing,
                        r.findings.size(), r.Unexpected());
  if (!r.classes.empty()) {
    std::vector<const ClassRow*> rows;
    for (const auto& [k, row] : r.classes) rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(), [](const ClassRow* a, const ClassRow* b) {
      return a->pair != b->pair ? a->pair < b->pair : a->mutants > b->mutants;
    });
    s += "\n| pair | class | mutants | signatures | example |\n|---|---|---:|---:|---|\n";
    for (const ClassRow* row : rows) {
      absl::StrAppendFormat(&s, "| %s | %s | %d | %d | %s |\n", row->pair, absl::StrReplaceAll(row->cls, {{"|", "\\|"}}),
                            row->mutants, row->signatures.size(), row->example);
    }
  }
  bool header = false;
  for (const Finding& f : r.findings) {
    if (f.expected) continue;
    if (!header) s += "\nunexpected findings:\n";
    header = true;
    absl::StrAppendFormat(&s, "  %s  %s  (%d mutants; %d -> %d bytes: %s)\n", f.id, f.signature, f.count,
                          f.mutant.frame.size(), f.minimized.size(), HexString(f.minimized).substr(0, 160));
  }
  return s;
}

Json FindingRecord(const DiffReport& r, const Finding& f) {
  const Mutant& m = f.mutant;
  const ApiInfo* api = FindApi(m.api_key);
  Json j;
  j["format"] = 1;
  j["id"] = f.id;
  j["set"] = "diff";
  j["api_key"] = m.api_key;
  j["api_name"] = api ? api->name : "";
  j["version"] = m.version;
  j["direction"] = m.response ? "response" : "request";
  j["header_version"] = api == nullptr ? 0
                        : m.response   ? ResponseHeaderVersion(m.api_key, m.version)
                                       : RequestHeaderVersion(m.api_key, m.version);
  j["frame"] = HexString(f.minimized);
  // kwire's strict reading of the minimized frame.
  absl::StatusOr<Json> value = absl::UnknownError("");
  absl::Status error;
  Json refusals = Json::array();
  if (!m.response) {
    absl::StatusOr<BrokerRead> b = ReadRequestAsBroker(f.minimized);
    if (b.ok()) {
      value = RequestFrameToJson(b->frame);
      for (const Refusal& x : b->refusals) refusals.push_back(RefusalJson(x));
    } else {
      error = b.status();
    }
  } else if (api != nullptr) {
    absl::StatusOr<ResponseFrame> rf = DecodeResponseFrame(f.minimized, m.api_key, m.version);
    if (rf.ok()) {
      value = ResponseFrameToJson(*rf, m.api_key, m.version);
    } else {
      error = rf.status();
    }
  }
  if (value.ok()) {
    j["expect"] = refusals.empty() ? "accept" : "refuse";
    if (value->contains("body_version")) j["body_version"] = (*value)["body_version"];
    j["header"] = (*value)["header"];
    j["body"] = (*value)["body"];
    if (!refusals.empty()) j["refusals"] = refusals;
  } else {
    j["expect"] = "reject";
    std::optional<Error> e = ErrorFromStatus(error);
    j["error"] = {{"kind", e ? ErrorKindName(e->kind) : std::string("unknown_api_key")},
                  {"offset", e ? e->offset : 4},
                  {"path", e ? e->path : std::string("RequestHeader.RequestApiKey")}};
  }
  j["mutation"] = absl::StrCat(f.seed_id, ": ", absl::StrJoin(m.steps, ", "));
  j["source"] = absl::StrFormat("kwire diff --seed %d: mutant %d (%d bytes), minimized in %d evaluations",
                                r.options.seed, m.index, m.frame.size(), f.evaluations);
  j["signature"] = f.signature;
  j["expected"] = f.expected;
  j["count"] = f.count;
  Json classes = Json::array();
  for (const PairClass& c : f.classes) classes.push_back(absl::StrCat(PairText(r.labels, c), ": ", c.cls));
  j["classes"] = classes;
  Json answers = Json::object();
  for (size_t i = 0; i < f.answers.size() && i < r.labels.size(); ++i) answers[r.labels[i]] = AnswerJson(f.answers[i]);
  j["answers"] = answers;
  j["original_frame"] = HexString(m.frame);
  return j;
}

bool WriteDiffOutputs(const DiffReport& r, const std::string& dir, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = absl::StrCat(dir, ": ", ec.message());
    return false;
  }
  const std::filesystem::path d(dir);
  std::ofstream findings(d / "findings.jsonl"), signatures(d / "signatures.txt"), summary(d / "summary.txt");
  if (!findings || !signatures || !summary) {
    error = absl::StrCat(dir, ": cannot write its files");
    return false;
  }
  for (const Finding& f : r.findings) {
    findings << FindingRecord(r, f).dump(-1, ' ', true, Json::error_handler_t::replace) << "\n";
    signatures << f.signature << " # " << f.id << ", " << f.count << " mutants\n";
  }
  summary << RenderDiffSummary(r);
  if (!findings || !signatures || !summary) {
    error = absl::StrCat(dir, ": cannot write its files");
    return false;
  }
  return true;
}

int DiffExitStatus(const DiffReport& r) { return r.errors.empty() && r.Unexpected() == 0 ? 0 : 1; }

int DiffMain(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  const DiffReport r = RunDiff(options, err);
  if (r.labels.empty()) {  // it did not run
    for (const std::string& e : r.errors) err << "kwire diff: " << e << "\n";
    return 1;
  }
  out << RenderDiffSummary(r);
  if (!options.out_dir.empty()) {
    std::string error;
    if (!WriteDiffOutputs(r, options.out_dir, error)) {
      err << "kwire diff: " << error << "\n";
      return 1;
    }
    out << "\nfindings: " << (std::filesystem::path(options.out_dir) / "findings.jsonl").string() << "\n";
  }
  return DiffExitStatus(r);
}

}  // namespace kwire::diff
