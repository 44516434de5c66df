// `kwire broker-fuzz` (brokerfuzz.h): the campaign, its report and its files.
#include "tools/brokerfuzz/brokerfuzz.h"

#include <fnmatch.h>
#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "tools/diff/diff.h"
#include "tools/diff/minimize.h"
#include "tools/diff/seeds.h"
#include "tools/json/json.h"

namespace kwire::brokerfuzz {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int sig) {
  g_interrupted.store(true);
  signal(sig, SIG_DFL);  // a second one ends the program
}

constexpr size_t kMaxSignatures = 200;
// Rows of Report::apis for frames without a request header and for unknown API keys.
constexpr int16_t kNoHeader = -1, kUnknownKey = -2;
constexpr size_t kMaxObservations = 500;
constexpr uint64_t kMiB = 1024 * 1024;

std::string ApiText(const Plan& p) {
  if (!p.ids) return absl::StrCat("(", FramingName(p.framing), ")");
  const ApiInfo* api = FindApi(p.ids->api_key);
  return absl::StrCat(api != nullptr ? std::string(api->name) : absl::StrCat("api ", p.ids->api_key), " v",
                      p.ids->api_version);
}

std::string Signature(const Plan& p, const Hit& h) {
  std::string s = absl::StrCat(FindingKindName(h.kind), " ", ApiText(p));
  if (!h.where.empty()) absl::StrAppend(&s, " | ", h.where);
  return s;
}

std::string ViewText(const diff::LocalView& v) {
  std::string s = v.kind;
  if (!v.path.empty()) absl::StrAppend(&s, " @ ", diff::NormalizePath(v.path));
  return s;
}

bool Matches(const std::vector<std::string>& patterns, const std::string& signature) {
  for (const std::string& p : patterns) {
    if (p == signature || fnmatch(p.c_str(), signature.c_str(), 0) == 0) return true;
  }
  return false;
}

bool StrictReads(const Plan& p) { return p.strict.kind == "accepted" || p.strict.kind.rfind("refused", 0) == 0; }

std::string Thousands(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// The campaign's shared state: counters, findings and the coordination of the workers
// with the main thread (ApiVersions checks, RSS, progress).
class Campaign {
 public:
  Campaign(const Options& o, Report& r, std::vector<diff::Seed> seeds, std::vector<std::string> patterns)
      : o_(o), r_(r), seeds_(std::move(seeds)), patterns_(std::move(patterns)) {
    xo_.timeout_seconds = o.timeout_seconds;
    xo_.max_answer_bytes = o.max_answer_bytes;
  }

  void Run(std::ostream& progress) {
    start_ = Clock::now();
    if (o_.time_seconds > 0) deadline_ = Deadline(o_.time_seconds);
    SampleRss();
    std::vector<std::thread> workers;
    last_sent_.resize(o_.connections);
    for (size_t i = 0; i < o_.connections; ++i) workers.emplace_back([this, i] { Worker(i); });
    Clock::time_point next_check = Deadline(o_.check_seconds);
    Clock::time_point next_rss = Deadline(1);
    Clock::time_point next_progress = Deadline(o_.progress_seconds);
    for (;;) {
      bool check_now = false;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, std::chrono::milliseconds(200),
                     [&] { return done_workers_ == o_.connections || need_check_; });
        if (done_workers_ == o_.connections) break;
        check_now = need_check_;
      }
      if (g_interrupted.load() && !stop_.load()) {
        Stop("interrupted");
      }
      const Clock::time_point now = Clock::now();
      if (check_now || (o_.check_seconds > 0 && now >= next_check)) {
        Check();
        next_check = Deadline(o_.check_seconds);
      }
      if (now >= next_rss) {
        SampleRss();
        next_rss = Deadline(1);
      }
      if (o_.progress_seconds > 0 && now >= next_progress) {
        progress << ProgressLine() << std::endl;
        next_progress = Deadline(o_.progress_seconds);
      }
    }
    for (std::thread& t : workers) t.join();
    SampleRss();
    if (!r_.broker_down) Check();  // the broker still answers at the end
    if (o_.progress_seconds > 0) progress << ProgressLine() << std::endl;
    r_.seconds = Seconds();
    Minimize(progress);
  }

 private:
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void Stop(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mu_);
    if (r_.stop_reason.empty()) r_.stop_reason = reason;
    stop_.store(true);
    cv_.notify_all();
  }

  // The next mutant index, or none when the run is over.
  std::optional<uint64_t> TakeIndex() {
    if (stop_.load() || g_interrupted.load()) return std::nullopt;
    if (o_.time_seconds > 0 && Clock::now() >= deadline_) return std::nullopt;
    const uint64_t i = next_index_.fetch_add(1);
    if (o_.count > 0 && i >= o_.count) return std::nullopt;
    return i;
  }

  void Worker(size_t slot) {
    bool over = false;
    while (!over) {
      absl::StatusOr<Connection> c = Connection::Open(o_.broker, o_.timeout_seconds);
      if (!c.ok()) {
        std::unique_lock<std::mutex> lock(mu_);
        ++r_.connect_failures;
        need_check_ = true;
        const uint64_t epoch = check_epoch_;
        cv_.notify_all();
        cv_.wait_for(lock, std::chrono::duration<double>(o_.timeout_seconds),
                     [&] { return stop_.load() || check_epoch_ != epoch; });
        if (stop_.load() || (o_.time_seconds > 0 && Clock::now() >= deadline_)) break;
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++r_.connections;
      }
      for (size_t k = 0; k < o_.requests_per_connection;) {
        const std::optional<uint64_t> i = TakeIndex();
        if (!i) {
          over = true;
          break;
        }
        diff::Mutant m;
        {
          std::lock_guard<std::mutex> lock(mutator_mu_);  // the fuzz mutator keeps global counters
          m = diff::MakeMutant(seeds_, o_.seed, *i);
        }
        if (m.frame.size() >= 8 && o_.exclude_api_keys.count(m.api_key)) {
          std::lock_guard<std::mutex> lock(mu_);
          ++r_.skipped;
          continue;
        }
        ++k;
        Plan p = MakePlan(std::move(m));
        {
          std::lock_guard<std::mutex> lock(mu_);
          last_sent_[slot] = LastSent{Clock::now(), ApiText(p), p.bytes};
        }
        Outcome out = Exchange(*c, p, xo_);
        if (HasStall(out) && !KnownStall(p, out)) ConfirmStall(p, out);
        Record(p, out);
        if (!out.reusable) break;
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++done_workers_;
    cv_.notify_all();
  }

  static bool HasStall(const Outcome& out) {
    return std::any_of(out.hits.begin(), out.hits.end(), [](const Hit& h) { return h.kind == FindingKind::kStall; });
  }

  // Whether every stall of `out` has a signature already confirmed (then it is not sent
  // again: a stall costs the timeout each time).
  bool KnownStall(const Plan& p, const Outcome& out) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Hit& h : out.hits) {
      if (h.kind == FindingKind::kStall && finding_index_.count(Signature(p, h)) == 0) return false;
    }
    return true;
  }

  // A stall counts only when the same bytes stall again on a fresh connection: a broker
  // that is busy (a garbage collection, a machine short of CPU) can miss the timeout once
  // on any request. One that does not is a transient timeout (counted, an observation).
  void ConfirmStall(const Plan& p, Outcome& out) {
    absl::StatusOr<Connection> c = Connection::Open(o_.broker, o_.timeout_seconds);
    Outcome again;
    if (c.ok()) again = Exchange(*c, p, xo_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++r_.stall_replays;
    }
    if (c.ok() && HasStall(again)) {
      for (Hit& h : out.hits) {
        if (h.kind == FindingKind::kStall) h.detail += "; again on a fresh connection";
      }
      return;
    }
    std::erase_if(out.hits, [](const Hit& h) { return h.kind == FindingKind::kStall; });
    out.transient = true;
    out.happened += absl::StrCat("; sent again on a fresh connection: ",
                                 c.ok() ? again.happened : std::string(c.status().message()));
  }

  // Counts one exchange and keeps its findings and observations (takes mu_).
  void Record(const Plan& p, const Outcome& out) {
    std::lock_guard<std::mutex> lock(mu_);
    ++r_.requests;
    r_.probes += p.probe;
    r_.trimmed += p.trimmed;
    r_.short_frames += p.framing == Framing::kShort;
    r_.bad_sizes += p.framing == Framing::kBadSize;
    r_.no_prefix += p.framing == Framing::kNoPrefix;
    ApiCounts& a = r_.apis[!p.ids ? kNoHeader : FindApi(p.ids->api_key) == nullptr ? kUnknownKey : p.ids->api_key];
    ++a.sent;
    a.strict_ok += StrictReads(p);
    const bool any_answer = out.answered || out.answered_bad;
    r_.answered += out.answered;
    a.answered += out.answered;
    r_.answered_bad += out.answered_bad;
    a.answered_bad += out.answered_bad;
    if (out.closed && !any_answer) {
      ++r_.closes;
      ++a.closed;
    } else if (out.closed) {
      ++r_.closes_after_answer;
    }
    if (out.timed_out && !out.held && !out.transient) {
      ++r_.timeouts;
      ++a.timeouts;
    }
    if (out.transient) {
      ++r_.transient_timeouts;
      Observe(absl::StrCat("transient_timeout ", ApiText(p), " | ", ViewText(p.strict)), p, out);
    }
    r_.held += out.held;
    a.held += out.held;
    r_.no_answer += out.no_answer;
    a.no_answer += out.no_answer;
    r_.oversized += out.oversized;
    r_.unknown_server_errors += !out.unknown_server_error.empty();
    a.unknown_server_errors += !out.unknown_server_error.empty();
    for (const Hit& h : out.hits) AddFinding(Signature(p, h), h, &p, &out);
    // Observations: the broker's reading against kwire's strict one.
    if (p.framing == Framing::kWhole && p.ids) {
      const auto range = r_.ranges.find(p.ids->api_key);
      const bool advertised = range != r_.ranges.end() && p.ids->api_version >= range->second.first &&
                              p.ids->api_version <= range->second.second;
      if (out.closed && !any_answer && StrictReads(p) && advertised) {
        Observe(absl::StrCat("closes ", ApiText(p), " | ", ViewText(p.strict)), p, out);
      } else if (out.answered && !StrictReads(p)) {
        Observe(absl::StrCat("answers ", ApiText(p), " | ", ViewText(p.strict)), p, out);
      }
      if (!out.unknown_server_error.empty()) {
        Observe(absl::StrCat("unknown_server_error ", ApiText(p), " | ", out.unknown_server_error, " (kwire: ",
                             ViewText(p.strict), ")"),
                p, out);
      }
    }
  }

  // Under mu_.
  void Observe(const std::string& sig, const Plan& p, const Outcome& out) {
    auto it = observation_index_.find(sig);
    if (it != observation_index_.end()) {
      ++r_.observations[it->second].count;
      return;
    }
    if (r_.observations.size() >= kMaxObservations) return;
    Observation ob;
    ob.signature = sig;
    ob.count = 1;
    ob.mutant_index = p.mutant.index;
    ob.request = p.bytes;
    ob.happened = out.happened;
    observation_index_[sig] = r_.observations.size();
    r_.observations.push_back(std::move(ob));
  }

  // Under mu_. `p`/`out` for findings of a request.
  void AddFinding(const std::string& sig, const Hit& h, const Plan* p, const Outcome* out) {
    auto it = finding_index_.find(sig);
    if (it != finding_index_.end()) {
      ++r_.findings[it->second].count;
      return;
    }
    if (r_.findings.size() >= kMaxSignatures) {
      if (r_.warnings.empty() || r_.warnings.back().rfind("more than", 0) != 0) {
        r_.warnings.push_back(absl::StrCat("more than ", kMaxSignatures, " signatures: later ones not kept"));
      }
      return;
    }
    Finding f;
    f.id = absl::StrCat("broker-fuzz/", o_.seed, "/", r_.findings.size() + 1);
    f.signature = sig;
    f.kind = h.kind;
    f.expected = Matches(patterns_, sig);
    f.count = 1;
    f.at_seconds = Seconds();
    f.detail = h.detail;
    if (p != nullptr) {
      f.has_request = true;
      f.mutant_index = p->mutant.index;
      f.seed_id = seeds_[p->mutant.seed].id;
      f.steps = p->mutant.steps;
      if (p->trimmed) f.steps.push_back("trimmed to its size prefix");
      f.request = p->bytes;
      f.minimized = p->bytes;
      f.framing = p->framing;
      f.probe = p->probe;
      f.strict_view = ViewText(p->strict);
      f.answers = out->answers;
      f.happened = out->happened;
    }
    finding_index_[sig] = r_.findings.size();
    r_.findings.push_back(std::move(f));
  }

  void AddBrokerFinding(FindingKind k, const std::string& where, const std::string& detail) {
    std::lock_guard<std::mutex> lock(mu_);
    AddFinding(absl::StrCat(FindingKindName(k), " | ", where), Hit{k, where, detail}, nullptr, nullptr);
  }

  // An ApiVersions check on a fresh connection; the broker going down ends the run.
  void Check() {
    const ApiVersionsCheck ch = CheckApiVersions(o_.broker, check_id_++, xo_);
    const bool dead = o_.broker_pid > 0 && !ProcessAlive(o_.broker_pid);
    {
      std::lock_guard<std::mutex> lock(mu_);
      need_check_ = false;
      ++check_epoch_;
      cv_.notify_all();
      if (ch.ok) {
        ++r_.checks_ok;
        failed_checks_in_a_row_ = 0;
      } else {
        ++r_.checks_failed;
        ++failed_checks_in_a_row_;
      }
    }
    if (ch.ok) {
      CheckRegistration();
      return;
    }
    if (dead) {
      BrokerDown(absl::StrFormat("the broker process %d exited", o_.broker_pid), "exited");
      return;
    }
    if (ch.refused) {
      BrokerDown(absl::StrCat("the broker refuses connections: ", ch.detail), "refuses connections");
      return;
    }
    AddBrokerFinding(FindingKind::kApiVersions, ch.reason,
                     absl::StrFormat("ApiVersions on a fresh connection at %.1f s: %s", Seconds(), ch.detail));
    if (failed_checks_in_a_row_ >= 3) Stop("the broker stopped answering ApiVersions (3 checks in a row)");
  }

  // The broker must still list a broker in Metadata (a mutated UnregisterBroker, for one,
  // can drop its registration for good: it then leads no partition).
  void CheckRegistration() {
    const MetadataCheck m = CheckMetadata(o_.broker, check_id_++, xo_);
    bool report = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!m.answered) {
        ++r_.metadata_unanswered;
      } else if (m.brokers > 0) {
        ++r_.metadata_listed;
      } else {
        ++r_.metadata_unlisted;
        report = !unregistered_reported_;
        unregistered_reported_ = true;
      }
    }
    if (report) {
      AddBrokerFinding(FindingKind::kUnregistered, "no broker in Metadata",
                       absl::StrFormat("at %.1f s: %s (its registration was dropped, or it is fenced: it leads no "
                                       "partition from now on)",
                                       Seconds(), m.detail));
    }
  }

  void BrokerDown(const std::string& detail, const std::string& where) {
    AddBrokerFinding(FindingKind::kBrokerDown, where, absl::StrFormat("at %.1f s: %s", Seconds(), detail));
    {
      std::lock_guard<std::mutex> lock(mu_);
      r_.broker_down = true;
      // The request that took it down is among the last each connection sent.
      std::vector<const LastSent*> last;
      for (const LastSent& l : last_sent_) {
        if (!l.bytes.empty()) last.push_back(&l);
      }
      std::sort(last.begin(), last.end(), [](const LastSent* a, const LastSent* b) { return a->at > b->at; });
      for (Finding& f : r_.findings) {
        if (f.kind != FindingKind::kBrokerDown || !f.suspects.empty()) continue;
        for (const LastSent* l : last) f.suspects.emplace_back(l->api, l->bytes);
      }
    }
    Stop(detail);
  }

  void SampleRss() {
    if (o_.broker_pid <= 0) return;
    const uint64_t rss = ProcessRssBytes(o_.broker_pid);
    if (rss == 0) {
      if (!ProcessAlive(o_.broker_pid) && !r_.broker_down) {
        BrokerDown(absl::StrFormat("the broker process %d exited", o_.broker_pid), "exited");
      }
      return;
    }
    bool over = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      r_.rss_min = r_.rss_samples == 0 ? rss : std::min(r_.rss_min, rss);
      r_.rss_max = std::max(r_.rss_max, rss);
      ++r_.rss_samples;
      rss_last_ = rss;
      over = o_.max_rss_mib > 0 && rss > o_.max_rss_mib * kMiB && !rss_reported_;
      if (over) rss_reported_ = true;
    }
    if (over) {
      AddBrokerFinding(FindingKind::kRss, absl::StrCat("over ", o_.max_rss_mib, " MiB"),
                       absl::StrFormat("the broker's RSS reached %d MiB at %.1f s (--max-rss %d)", rss / kMiB,
                                       Seconds(), o_.max_rss_mib));
    }
  }

  std::string ProgressLine() {
    std::lock_guard<std::mutex> lock(mu_);
    const double s = Seconds();
    size_t unexpected = 0;
    for (const Finding& f : r_.findings) unexpected += !f.expected;
    return absl::StrFormat(
        "broker-fuzz: %.0f s, %s requests (%.0f/s), %s connections; answers %s (%s do not decode), closes %s, "
        "timeouts %s, held %s; ApiVersions %d ok %d failed; RSS %s; findings %d (%d unexpected)",
        s, Thousands(r_.requests), r_.requests / std::max(s, 1e-9), Thousands(r_.connections),
        Thousands(r_.answered + r_.answered_bad), Thousands(r_.answered_bad), Thousands(r_.closes),
        Thousands(r_.timeouts), Thousands(r_.held), r_.checks_ok, r_.checks_failed,
        o_.broker_pid > 0 ? absl::StrCat(rss_last_ / kMiB, " MiB") : std::string("not watched"), r_.findings.size(),
        unexpected);
  }

  // Each finding of a request made smaller by replays on fresh connections, while its
  // signature holds.
  void Minimize(std::ostream& progress) {
    if (o_.minimize_budget == 0 || r_.broker_down) return;
    const Clock::time_point until = Deadline(o_.minimize_seconds);
    for (Finding& f : r_.findings) {
      if (!f.has_request || f.expected || f.request.size() < 12 || f.framing != Framing::kWhole) continue;
      if (Clock::now() >= until || g_interrupted.load()) break;
      diff::Mutant base;
      base.frame = f.request;
      diff::TakeRequestIds(base);
      // A stalling candidate costs the timeout: 3 s at most while minimizing (a request
      // the broker never answers is not answered in 3 s either), the result confirmed
      // with the full timeout below.
      ExchangeOptions mx = xo_;
      if (f.kind == FindingKind::kStall) mx.timeout_seconds = std::min(mx.timeout_seconds, 3.0);
      auto shows = [&](const std::vector<uint8_t>& candidate, const ExchangeOptions& eo) {
        diff::Mutant m = base;
        m.frame = candidate;
        diff::TakeRequestIds(m);
        const Plan p = MakePlan(std::move(m));
        absl::StatusOr<Connection> c = Connection::Open(o_.broker, eo.timeout_seconds);
        if (!c.ok()) return false;
        const Outcome out = Exchange(*c, p, eo);
        for (const Hit& h : out.hits) {
          if (Signature(p, h) == f.signature) return true;
        }
        return false;
      };
      auto still = [&](const std::vector<uint8_t>& candidate) {
        if (Clock::now() >= until || g_interrupted.load()) return false;
        return shows(candidate, mx);
      };
      const diff::Minimized mz = diff::Minimize(base, still, o_.minimize_budget);
      f.minimized = mz.frame;
      f.evaluations = mz.evaluations;
      r_.minimize_evaluations += mz.evaluations;
      if (f.kind == FindingKind::kStall && f.minimized != f.request && !shows(f.minimized, xo_)) {
        f.minimized = f.request;  // it stalled for 3 s, not for the timeout: keep the original
      }
      if (o_.progress_seconds > 0) {
        progress << absl::StrFormat("broker-fuzz: minimized %s: %d -> %d bytes (%d replays)", f.id, f.request.size(),
                                    f.minimized.size(), mz.evaluations)
                 << std::endl;
      }
    }
  }

  const Options& o_;
  Report& r_;
  const std::vector<diff::Seed> seeds_;
  const std::vector<std::string> patterns_;
  ExchangeOptions xo_;
  Clock::time_point start_, deadline_;
  std::atomic<uint64_t> next_index_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutator_mu_;
  std::mutex mu_;  // guards r_ and what follows
  std::condition_variable cv_;
  size_t done_workers_ = 0;
  bool need_check_ = false;
  uint64_t check_epoch_ = 0;
  int failed_checks_in_a_row_ = 0;
  int32_t check_id_ = 1000000000;  // the main thread's only
  uint64_t rss_last_ = 0;
  bool rss_reported_ = false;
  bool unregistered_reported_ = false;
  std::map<std::string, size_t> finding_index_, observation_index_;
  struct LastSent {
    Clock::time_point at;
    std::string api;
    std::vector<uint8_t> bytes;
  };
  std::vector<LastSent> last_sent_;  // per worker
};

std::string Octal(std::span<const uint8_t> b) {
  std::string s;
  for (uint8_t c : b) absl::StrAppendFormat(&s, "\\%03o", c);
  return s;
}

std::string HostPort(const proxy::Endpoint& e) {
  return e.host.find(':') != std::string::npos ? absl::StrCat("[", e.host, "]:", e.port)
                                               : absl::StrCat(e.host, ":", e.port);
}

// A bash line that sends `frame` (or the hex file) and prints what comes back.
std::string ShellLine(const Options& o, std::span<const uint8_t> frame, const std::string& hex_file) {
  const int wait = static_cast<int>(std::ceil(o.timeout_seconds)) + 2;
  const std::string send = frame.size() <= 1024 ? absl::StrCat("printf '", Octal(frame), "' >&3")
                                                : absl::StrCat("xxd -r -p ", hex_file, " >&3");
  return absl::StrFormat("bash -c 'exec 3<>/dev/tcp/%s/%d; %s; timeout %d od -An -tx1 <&3'", o.broker.host,
                         o.broker.port, absl::StrReplaceAll(send, {{"'", ""}}), wait);
}

Json FindingJson(const Report& r, const Finding& f, const std::string& hex_file) {
  Json j;
  j["id"] = f.id;
  j["kind"] = FindingKindName(f.kind);
  j["signature"] = f.signature;
  j["expected"] = f.expected;
  j["count"] = f.count;
  j["at_seconds"] = std::round(f.at_seconds * 10) / 10;
  j["detail"] = f.detail;
  if (!f.suspects.empty()) {
    Json suspects = Json::array();
    for (const auto& [api, bytes] : f.suspects) suspects.push_back(Json{{"request", api}, {"frame", HexString(bytes)}});
    j["suspects"] = std::move(suspects);
    j["replay"] = absl::StrFormat("kwire broker-fuzz --broker HOST:PORT --broker-pid PID --replay %s", hex_file);
  }
  if (!f.has_request) return j;
  j["happened"] = f.happened;
  j["mutant"] = f.mutant_index;
  j["seed_id"] = f.seed_id;
  j["steps"] = f.steps;
  j["framing"] = FramingName(f.framing);
  j["probe"] = f.probe;
  j["kwire_strict"] = f.strict_view;
  j["request"] = HexString(f.request);
  j["minimized"] = HexString(f.minimized);
  j["minimize_replays"] = f.evaluations;
  Json answers = Json::array();
  for (const auto& a : f.answers) answers.push_back(HexString(a));
  j["answers"] = std::move(answers);
  j["replay"] = absl::StrFormat("kwire broker-fuzz --broker %s --replay %s --timeout %g", HostPort(r.options.broker),
                                hex_file, r.options.timeout_seconds);
  j["shell"] = ShellLine(r.options, f.minimized, hex_file);
  return j;
}

std::vector<std::vector<uint8_t>> ReadFrames(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = absl::StrCat("cannot read ", path, ": ", std::strerror(errno));
    return {};
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::vector<uint8_t>> frames;
  bool hex = true;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t hash = line.find('#');
    if (hash != absl::string_view::npos) line = line.substr(0, hash);
    std::string digits;
    for (char c : line) {
      if (absl::ascii_isspace(static_cast<unsigned char>(c))) continue;
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) hex = false;
      digits += c;
    }
    if (!hex) break;
    if (digits.empty()) continue;
    if (digits.size() % 2 != 0) {
      error = absl::StrCat(path, ": a line of hex with an odd number of digits");
      return {};
    }
    ParseHex(digits, frames.emplace_back());  // digits checked above
  }
  if (!hex) frames = {std::vector<uint8_t>(text.begin(), text.end())};
  if (frames.empty()) error = absl::StrCat(path, ": no frame in it");
  return frames;
}

bool ParseSeconds(const std::map<std::string, std::string>& v, const char* name, double& out, bool positive,
                  std::string& error) {
  auto it = v.find(name);
  if (it == v.end()) return true;
  double d = 0;
  if (!absl::SimpleAtod(it->second, &d) || !(d >= 0) || d > 1e9 || (positive && d == 0)) {
    error = absl::StrCat("--", name, " takes seconds (a number ", positive ? "above" : ">=", " 0), not '",
                         it->second, "'");
    return false;
  }
  out = d;
  return true;
}

template <class T>
bool ParseCount(const std::map<std::string, std::string>& v, const char* name, T& out, uint64_t min, uint64_t max,
                std::string& error) {
  auto it = v.find(name);
  if (it == v.end()) return true;
  uint64_t n = 0;
  if (!absl::SimpleAtoi(it->second, &n) || n < min || n > max) {
    error = absl::StrCat("--", name, " takes a number (", min, " to ", max, "), not '", it->second, "'");
    return false;
  }
  out = static_cast<T>(n);
  return true;
}

bool ParseApis(const std::map<std::string, std::string>& v, const char* name, std::set<int16_t>& out,
               std::string& error) {
  auto it = v.find(name);
  if (it == v.end()) return true;
  for (absl::string_view s : absl::StrSplit(it->second, absl::ByAnyChar(",\n"), absl::SkipEmpty())) {
    const ApiInfo* api = nullptr;
    int n = 0;
    if (absl::SimpleAtoi(s, &n)) {
      api = n >= 0 && n <= INT16_MAX ? FindApi(static_cast<int16_t>(n)) : nullptr;
    } else {
      api = FindApiByName(std::string_view(s.data(), s.size()));
    }
    if (api == nullptr) {
      error = absl::StrCat("--", name, ": unknown API '", s, "' (see `kwire apis`)");
      return false;
    }
    out.insert(api->api_key);
  }
  return true;
}

}  // namespace

const char* const kUsage =
    "usage: kwire broker-fuzz --broker HOST:PORT | --broker-env FILE [--seeds FILE|DIR]...\n"
    "                         [--time SECONDS] [--count N] [--seed S] [--connections N]\n"
    "                         [--requests-per-connection N] [--timeout SECONDS]\n"
    "                         [--check-every SECONDS] [--broker-pid PID] [--max-rss MIB]\n"
    "                         [--api LIST] [--exclude-api LIST] [--all-versions] [--out DIR]\n"
    "                         [--expected FILE] [--minimize N] [--minimize-time SECONDS]\n"
    "       kwire broker-fuzz --broker HOST:PORT --replay FILE [--timeout SECONDS]\n"
    "\n"
    "A live broker under hostile frames: mutated requests (kwire diff's mutants: the\n"
    "structure-aware fuzz mutator, lengths and counts at boundary values, byte changes) of\n"
    "request seeds are sent to a running broker on loopback from --connections connections\n"
    "at once, each opened again after --requests-per-connection requests or a close. After\n"
    "each request the broker must answer with a frame that decodes strictly as the response\n"
    "to it (its API and version; correlated by the correlation id) or close the connection,\n"
    "within --timeout. A frame whose size prefix counts more bytes than sent is followed by\n"
    "EOF (the broker must then close); one that counts fewer is cut to its prefix. Allowed\n"
    "without an answer: Produce with acks = 0 (an ApiVersions request follows every Produce\n"
    "request on its connection: its answer shows the broker chose not to answer) and\n"
    "requests a broker parks (Fetch and ShareFetch up to MaxWaitMs, ElectLeaders up to\n"
    "TimeoutMs, JoinGroup, SyncGroup): those are \"held\". A timeout counts as a stall only\n"
    "when the same bytes time out again on a fresh connection (else it is transient: a busy\n"
    "broker); once a stall's signature is confirmed, later ones are not sent again. Every\n"
    "--check-every seconds and at the end a fresh connection must get an ApiVersions v3\n"
    "answer, and a Metadata v12 answer must list a broker (a broker whose registration a\n"
    "request dropped lists none); the broker's RSS is read from /proc/PID/status every\n"
    "second.\n"
    "\n"
    "Findings: an answer that does not decode strictly (which field, which byte) or does\n"
    "not re-encode to its bytes, another correlation id, an answer to a frame the broker\n"
    "cannot have read whole or to acks = 0, no answer to a Produce request that asks for one,\n"
    "a stall (neither answer nor close within --timeout, twice), an answer cut short, a\n"
    "failed ApiVersions check, no broker in Metadata, a broker that exits or refuses\n"
    "connections (the run stops), RSS above --max-rss. Each is deduplicated by its\n"
    "signature (\"<kind> <API> v<version> | <where>\") and, outside --expected, minimized by\n"
    "replaying smaller frames on fresh connections. Closes are normal (a broker closes on a\n"
    "request it cannot parse); those of requests kwire reads at an advertised version,\n"
    "answers to requests kwire rejects and answers carrying UNKNOWN_SERVER_ERROR (-1) are\n"
    "listed as observations (not findings).\n"
    "\n"
    "options:\n"
    "  --broker HOST:PORT     the broker (loopback only: 127.0.0.0/8, ::1, localhost)\n"
    "  --broker-env FILE      the broker.env of tools/kafka-broker/broker.sh: the broker from\n"
    "                         KWIRE_KAFKA_BOOTSTRAP, --broker-pid from KWIRE_KAFKA_PID\n"
    "  --seeds PATH           a *.jsonl vector file (its request frames), a folder of them,\n"
    "                         or a fuzz corpus folder (corpus/request_frame_fuzzer);\n"
    "                         repeatable; default: every vector of conformance/vectors\n"
    "  --time SECONDS         stop sending after this long (default 60; 0: no limit)\n"
    "  --count N              stop after N mutants (default: no limit)\n"
    "  --seed S               the campaign's seed (default 1); mutant i is the same each run\n"
    "  --connections N        connections at once, one thread each (default 4)\n"
    "  --requests-per-connection N   then the connection is opened again (default 100)\n"
    "  --timeout SECONDS      per request, and per ApiVersions check (default 10)\n"
    "  --check-every SECONDS  ApiVersions on a fresh connection this often (default 5; 0: at\n"
    "                         the start and the end only)\n"
    "  --broker-pid PID       the broker's process: RSS watched, its exit ends the run\n"
    "  --max-rss MIB          a broker RSS above this is a finding (default: none)\n"
    "  --max-answer MIB       answers above this are not read (the connection is dropped;\n"
    "                         counted; default 64)\n"
    "  --api LIST             seeds of these APIs only (names or keys, comma-separated)\n"
    "  --exclude-api LIST     mutants whose header names these APIs are not sent\n"
    "  --all-versions         also seeds at versions the broker does not advertise\n"
    "  --out DIR              findings.jsonl (request and minimized request as hex, answers,\n"
    "                         what happened, a replay command and a bash line), finding-N.hex,\n"
    "                         signatures.txt, observations.jsonl, summary.txt\n"
    "  --expected FILE        known signatures, one a line, exact or fnmatch(3) patterns ('#'\n"
    "                         starts a comment): their findings do not fail the run\n"
    "  --minimize N           replays per finding outside --expected while minimizing\n"
    "                         (default 50; 0: none)\n"
    "  --minimize-time SECONDS   for all minimizations together (default 120)\n"
    "  --replay FILE          send each frame of FILE (hex, one a line; or raw bytes) on a\n"
    "                         fresh connection and say what happened\n"
    "\n"
    "Progress goes to stderr every 5 s; the summary to stdout. Ctrl-C ends the run early,\n"
    "with the summary and files. Exit status: 0 no finding outside --expected, 1 findings\n"
    "(or the broker went down), 2 usage error or no broker answering ApiVersions at the\n"
    "start. Example (tools/kafka-broker/broker.sh start prints the broker.env's path):\n"
    "  kwire broker-fuzz --broker-env /tmp/kwire-kafka-broker.XXXXXX/broker.env \\\n"
    "      --seeds conformance/vectors --seeds corpus/request_frame_fuzzer --time 1200 \\\n"
    "      --out broker-fuzz-out\n";

size_t Report::Unexpected() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return !f.expected; }));
}

Report RunBrokerFuzz(const Options& o, std::ostream& progress) {
  Report r;
  r.options = o;
  if (!proxy::IsLoopbackHost(o.broker.host)) {
    r.errors.push_back(absl::StrCat("broker address '", o.broker.host,
                                    "' is not loopback: kwire broker-fuzz connects to loopback only"));
    return r;
  }
  if (o.connections == 0 || o.requests_per_connection == 0) {
    r.errors.push_back("--connections and --requests-per-connection must be at least 1");
    return r;
  }
  std::vector<std::string> patterns;
  if (std::string e; !o.expected_file.empty() && !diff::LoadExpected(o.expected_file, patterns, e)) {
    r.errors.push_back(e);
    return r;
  }
  diff::SeedFilter filter;
  filter.api_keys = o.api_keys;
  filter.request = true;
  std::vector<std::string> seed_errors;
  std::vector<diff::Seed> seeds = diff::LoadSeeds(o.seeds, filter, seed_errors, &r.seeds_skipped);
  for (std::string& e : seed_errors) r.errors.push_back(std::move(e));
  if (!r.errors.empty()) return r;
  r.seeds_loaded = seeds.size();
  ExchangeOptions xo;
  xo.timeout_seconds = o.timeout_seconds;
  xo.max_answer_bytes = o.max_answer_bytes;
  const ApiVersionsCheck first = CheckApiVersions(o.broker, 999999999, xo);
  if (!first.ok) {
    r.errors.push_back(absl::StrCat("no broker answers ApiVersions at ", HostPort(o.broker), ": ", first.detail));
    return r;
  }
  r.started = true;
  r.checks_ok = 1;
  r.ranges = first.ranges;
  if (!o.all_versions) {
    std::erase_if(seeds, [&](const diff::Seed& s) {
      const auto it = r.ranges.find(s.api_key);
      return it == r.ranges.end() || s.version < it->second.first || s.version > it->second.second;
    });
  }
  r.seeds_used = seeds.size();
  if (seeds.empty()) {
    r.errors.push_back(absl::StrCat("no request seed", o.all_versions ? "" : " at a version the broker advertises",
                                    " in ", absl::StrJoin(o.seeds, ", ")));
    return r;
  }
  Campaign c(o, r, std::move(seeds), std::move(patterns));
  c.Run(progress);
  return r;
}

std::string RenderSummary(const Report& r) {
  std::string s;
  for (const std::string& e : r.errors) absl::StrAppend(&s, "kwire broker-fuzz: ", e, "\n");
  if (!r.started) return s;
  const Options& o = r.options;
  absl::StrAppendFormat(&s,
                        "kwire broker-fuzz: %s requests in %.1f s (%.0f/s) to %s over %s connections (%d at once), "
                        "seed %d, %d of %d seeds%s\n",
                        Thousands(r.requests), r.seconds, r.requests / std::max(r.seconds, 1e-9), HostPort(o.broker),
                        Thousands(r.connections), o.connections, o.seed, r.seeds_used, r.seeds_loaded,
                        o.all_versions ? "" : " (at versions the broker advertises)");
  if (!r.stop_reason.empty()) absl::StrAppend(&s, "stopped early: ", r.stop_reason, "\n");
  for (const std::string& w : r.warnings) absl::StrAppend(&s, "warning: ", w, "\n");
  s += "\n| | count |\n|---|---:|\n";
  auto row = [&](const std::string& what, uint64_t n) { absl::StrAppendFormat(&s, "| %s | %s |\n", what, Thousands(n)); };
  row("requests sent", r.requests);
  row("  of them Produce, each followed by an ApiVersions probe", r.probes);
  row("  cut to their size prefix (it counted fewer bytes)", r.trimmed);
  row("  size prefix counting more bytes than sent, then EOF", r.short_frames);
  row("  size prefix negative or above 100 MiB", r.bad_sizes);
  row("  fewer than 4 bytes, then EOF", r.no_prefix);
  row("mutants not sent (--exclude-api)", r.skipped);
  row("connections", r.connections);
  row("connections refused or timed out", r.connect_failures);
  row("answers that decode strictly", r.answered);
  row("  of them carrying UNKNOWN_SERVER_ERROR (-1)", r.unknown_server_errors);
  row("answers that do not decode", r.answered_bad);
  row("closes without an answer", r.closes);
  row("closes after the answer", r.closes_after_answer);
  row("no answer by design (acks = 0; the probe answered)", r.no_answer);
  row("held past the timeout by design (parked requests)", r.held);
  row("timeouts (stalls, confirmed on a fresh connection)", r.timeouts);
  row("answers above --max-answer", r.oversized);
  row("ApiVersions checks ok", r.checks_ok);
  row("ApiVersions checks failed", r.checks_failed);
  row("Metadata checks listing a broker", r.metadata_listed);
  row("Metadata checks listing no broker", r.metadata_unlisted);
  row("Metadata checks not answered", r.metadata_unanswered);
  row("timeouts that did not recur on a fresh connection (transient)", r.transient_timeouts);
  row("requests sent again to confirm a stall", r.stall_replays);
  row("replays while minimizing", r.minimize_evaluations);
  if (r.rss_samples > 0) {
    absl::StrAppendFormat(&s, "\nbroker RSS (pid %d, %d samples): min %d MiB, max %d MiB\n", o.broker_pid,
                          r.rss_samples, r.rss_min / kMiB, r.rss_max / kMiB);
  } else {
    s += "\nbroker RSS: not watched (--broker-pid or --broker-env)\n";
  }
  s += "\n| key | API | sent | kwire reads | answered | -1 in answer | bad answers | closed | timeouts | held | no "
       "answer |\n";
  s += "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [key, a] : r.apis) {
    const ApiInfo* api = key >= 0 ? FindApi(key) : nullptr;
    absl::StrAppendFormat(&s, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n",
                          key >= 0 ? std::to_string(key) : "-",
                          api != nullptr       ? std::string(api->name)
                          : key == kNoHeader   ? std::string("(fewer than 12 bytes, or not framed whole)")
                                               : std::string("(API keys Kafka does not have)"),
                          a.sent, a.strict_ok, a.answered, a.unknown_server_errors, a.answered_bad, a.closed,
                          a.timeouts, a.held, a.no_answer);
  }
  absl::StrAppendFormat(&s, "\n%d finding signatures, %d of them unexpected\n", r.findings.size(), r.Unexpected());
  for (const Finding& f : r.findings) {
    absl::StrAppendFormat(&s, "  %s%s  %s  (%d times; %s)\n", f.expected ? "(expected) " : "", f.id, f.signature,
                          f.count, f.detail);
    if (f.has_request) {
      absl::StrAppendFormat(&s, "      request %d -> %d bytes: %s\n", f.request.size(), f.minimized.size(),
                            HexString(f.minimized).substr(0, 160));
    }
    for (const auto& [api, bytes] : f.suspects) {
      absl::StrAppendFormat(&s, "      sent just before: %s, %d bytes: %s\n", api, bytes.size(), HexString(bytes).substr(0, 120));
    }
  }
  if (!r.observations.empty()) {
    std::vector<const Observation*> obs;
    for (const Observation& ob : r.observations) obs.push_back(&ob);
    std::stable_sort(obs.begin(), obs.end(),
                     [](const Observation* a, const Observation* b) { return a->count > b->count; });
    absl::StrAppendFormat(&s, "\nobservations (%d signatures; not findings), the most frequent:\n", obs.size());
    for (size_t i = 0; i < obs.size() && i < 15; ++i) {
      absl::StrAppendFormat(&s, "  %6d  %s\n", obs[i]->count, obs[i]->signature);
    }
  }
  return s;
}

bool WriteOutputs(const Report& r, const std::string& dir, std::string& error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = absl::StrCat(dir, ": ", ec.message());
    return false;
  }
  std::ofstream findings(fs::path(dir) / "findings.jsonl");
  std::ofstream signatures(fs::path(dir) / "signatures.txt");
  std::ofstream observations(fs::path(dir) / "observations.jsonl");
  std::ofstream summary(fs::path(dir) / "summary.txt");
  bool ok = true;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    const std::string hex_file = (fs::path(dir) / absl::StrCat("finding-", i + 1, ".hex")).string();
    if (f.has_request) {
      std::ofstream h(hex_file);
      h << "# " << f.id << ": " << f.signature << "\n" << HexString(f.minimized) << "\n";
      ok &= static_cast<bool>(h);
    } else if (!f.suspects.empty()) {  // the last requests before the broker went down, oldest first
      std::ofstream h(hex_file);
      h << "# " << f.id << ": " << f.signature << ": the last request of each connection, oldest first\n";
      for (auto it = f.suspects.rbegin(); it != f.suspects.rend(); ++it) h << "# " << it->first << "\n" << HexString(it->second) << "\n";
      ok &= static_cast<bool>(h);
    }
    findings << FindingJson(r, f, hex_file).dump() << "\n";
    signatures << f.signature << "\n";
  }
  for (const Observation& ob : r.observations) {
    Json j;
    j["signature"] = ob.signature;
    j["count"] = ob.count;
    j["mutant"] = ob.mutant_index;
    j["request"] = HexString(ob.request);
    j["happened"] = ob.happened;
    observations << j.dump() << "\n";
  }
  summary << RenderSummary(r);
  if (!ok || !findings || !signatures || !observations || !summary) {
    error = absl::StrCat(dir, ": cannot write its files");
    return false;
  }
  return true;
}

int ExitStatus(const Report& r) {
  if (!r.started) return 2;
  if (!r.errors.empty() || r.broker_down || r.Unexpected() > 0) return 1;
  return 0;
}

int Replay(const Options& o, std::ostream& out, std::ostream& err) {
  std::string error;
  const std::vector<std::vector<uint8_t>> frames = ReadFrames(o.replay_file, error);
  if (frames.empty()) {
    err << "kwire broker-fuzz: " << error << "\n";
    return 2;
  }
  ExchangeOptions xo;
  xo.timeout_seconds = o.timeout_seconds;
  xo.max_answer_bytes = o.max_answer_bytes;
  int findings = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    diff::Mutant m;
    m.frame = frames[i];
    diff::TakeRequestIds(m);
    const Plan p = MakePlan(std::move(m));
    absl::StatusOr<Connection> c = Connection::Open(o.broker, o.timeout_seconds);
    if (!c.ok()) {
      err << "kwire broker-fuzz: " << c.status().message() << "\n";
      return 2;
    }
    const Outcome oc = Exchange(*c, p, xo);
    out << absl::StrFormat("frame %d: %s, %d bytes%s (kwire: %s): %s (%.3f s)\n", i + 1, ApiText(p), p.bytes.size(),
                           p.trimmed ? ", cut to its size prefix" : "", ViewText(p.strict), oc.happened, oc.seconds);
    for (const Hit& h : oc.hits) {
      out << "  finding " << Signature(p, h) << ": " << h.detail << "\n";
      ++findings;
    }
    for (const auto& a : oc.answers) out << "  answer: " << HexString(a).substr(0, 400) << "\n";
    if (o.broker_pid > 0) {
      // A broker that ends itself closes first and exits a moment later: after a close,
      // wait for the exit up to 3 s (the timeout at most).
      const Clock::time_point until = Deadline(oc.closed ? std::min(o.timeout_seconds, 3.0) : 0.0);
      while (ProcessAlive(o.broker_pid) && Clock::now() < until) {
        pollfd none{-1, 0, 0};
        poll(&none, 0, 50);
      }
      if (!ProcessAlive(o.broker_pid)) {
        out << "  finding broker_down | exited: the broker process " << o.broker_pid << " exited after this frame\n";
        return 1;
      }
    }
  }
  return findings > 0 ? 1 : 0;
}

int BrokerFuzzMain(const Options& options, std::ostream& out, std::ostream& err) {
  if (!options.replay_file.empty()) return Replay(options, out, err);
  g_interrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  const Report r = RunBrokerFuzz(options, err);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (!r.started) {
    for (const std::string& e : r.errors) err << "kwire broker-fuzz: " << e << "\n";
    return 2;
  }
  out << RenderSummary(r);
  if (!options.out_dir.empty()) {
    std::string error;
    if (!WriteOutputs(r, options.out_dir, error)) {
      err << "kwire broker-fuzz: " << error << "\n";
      return 1;
    }
    out << "\nfindings: " << (fs::path(options.out_dir) / "findings.jsonl").string() << "\n";
  }
  return ExitStatus(r);
}

absl::Status ReadBrokerEnv(const std::string& path, Options& o) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::map<std::string, std::string> env;
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos || line[0] == '#') continue;
    std::string value = line.substr(eq + 1);
    if (const size_t hash = value.find(" #"); hash != std::string::npos) value.resize(hash);
    env[line.substr(0, eq)] = std::string(absl::StripAsciiWhitespace(value));
  }
  const auto bootstrap = env.find("KWIRE_KAFKA_BOOTSTRAP");
  if (bootstrap == env.end()) return absl::InvalidArgumentError(absl::StrCat(path, " has no KWIRE_KAFKA_BOOTSTRAP"));
  absl::StatusOr<proxy::Endpoint> e = proxy::ParseEndpoint(bootstrap->second);
  if (!e.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": KWIRE_KAFKA_BOOTSTRAP: ", e.status().message()));
  o.broker = *e;
  if (const auto pid = env.find("KWIRE_KAFKA_PID"); pid != env.end()) {
    if (!absl::SimpleAtoi(pid->second, &o.broker_pid) || o.broker_pid <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": KWIRE_KAFKA_PID is not a process id: ", pid->second));
    }
  }
  return absl::OkStatus();
}

bool ParseOptions(const std::map<std::string, std::string>& v, const std::set<std::string>& flags,
                  const std::vector<std::string>& default_seeds, Options& o, std::string& error) {
  auto get = [&](const char* name) -> const std::string* {
    auto it = v.find(name);
    return it == v.end() ? nullptr : &it->second;
  };
  if (const std::string* env = get("broker-env")) {
    if (absl::Status s = ReadBrokerEnv(*env, o); !s.ok()) {
      error = absl::StrCat("--broker-env: ", s.message());
      return false;
    }
  }
  if (const std::string* b = get("broker")) {
    absl::StatusOr<proxy::Endpoint> e = proxy::ParseEndpoint(*b);
    if (!e.ok()) {
      error = absl::StrCat("--broker: ", e.status().message());
      return false;
    }
    o.broker = *e;
  } else if (get("broker-env") == nullptr) {
    error = "--broker HOST:PORT or --broker-env FILE is required";
    return false;
  }
  if (!proxy::IsLoopbackHost(o.broker.host)) {
    error = absl::StrCat("the broker '", o.broker.host, "' is not loopback: kwire broker-fuzz connects to loopback only");
    return false;
  }
  if (const std::string* s = get("seeds")) {
    o.seeds = absl::StrSplit(*s, '\n', absl::SkipEmpty());
  } else {
    o.seeds = default_seeds;
  }
  size_t max_answer_mib = o.max_answer_bytes >> 20;
  if (!ParseSeconds(v, "time", o.time_seconds, false, error) ||
      !ParseSeconds(v, "timeout", o.timeout_seconds, true, error) ||
      !ParseSeconds(v, "check-every", o.check_seconds, false, error) ||
      !ParseSeconds(v, "minimize-time", o.minimize_seconds, false, error) ||
      !ParseCount(v, "count", o.count, 0, UINT64_MAX, error) || !ParseCount(v, "seed", o.seed, 0, UINT64_MAX, error) ||
      !ParseCount(v, "connections", o.connections, 1, 1024, error) ||
      !ParseCount(v, "requests-per-connection", o.requests_per_connection, 1, 1000000000, error) ||
      !ParseCount(v, "broker-pid", o.broker_pid, 1, INT32_MAX, error) ||
      !ParseCount(v, "max-rss", o.max_rss_mib, 0, 1u << 30, error) ||
      !ParseCount(v, "minimize", o.minimize_budget, 0, 1000000, error) ||
      !ParseCount(v, "max-answer", max_answer_mib, 1, 2048, error) || !ParseApis(v, "api", o.api_keys, error) ||
      !ParseApis(v, "exclude-api", o.exclude_api_keys, error)) {
    return false;
  }
  o.max_answer_bytes = max_answer_mib * kMiB;
  o.all_versions = flags.count("all-versions") > 0;
  if (const std::string* s = get("out")) o.out_dir = *s;
  if (const std::string* s = get("expected")) o.expected_file = *s;
  if (const std::string* s = get("replay")) o.replay_file = *s;
  return true;
}

const std::set<std::string>& ValuedOptions() {
  static const std::set<std::string> s = {
      "broker", "broker-env", "seeds", "time", "count", "seed", "connections", "requests-per-connection",
      "timeout", "check-every", "broker-pid", "max-rss", "max-answer", "api", "exclude-api", "out", "expected",
      "minimize", "minimize-time", "replay"};
  return s;
}

const std::set<std::string>& FlagOptions() {
  static const std::set<std::string> s = {"all-versions"};
  return s;
}

const std::set<std::string>& RepeatableOptions() {
  static const std::set<std::string> s = {"seeds", "api", "exclude-api"};
  return s;
}

}  // namespace kwire::brokerfuzz
