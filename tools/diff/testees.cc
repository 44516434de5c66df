// The testees of `kwire diff` (testees.h).
#include "tools/diff/testees.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"

namespace kwire::diff {
namespace {

using Clock = std::chrono::steady_clock;
using conformance::LineProcess;

constexpr double kHelloSeconds = 60;
constexpr double kExitGraceSeconds = 1;

// ---- Every testee's process group killed on SIGINT, SIGTERM and SIGHUP (LineProcess's
// own guard, KillChildOnSignal, knows only the one started last).
constexpr int kMaxGroups = 64;
std::atomic<pid_t> g_groups[kMaxGroups];
std::atomic<int> g_guards{0};
// With soft stops on, the first SIGINT / SIGTERM / SIGHUP only asks the campaign to stop.
std::atomic<bool> g_soft_stop{false};
std::atomic<bool> g_stop_requested{false};
struct sigaction g_old_pipe, g_old_int, g_old_term, g_old_hup;

extern "C" void KillGroupsAndDie(int sig) {
  if (g_soft_stop.load() && !g_stop_requested.exchange(true)) return;
  for (auto& g : g_groups) {
    const pid_t p = g.load();
    if (p > 0) kill(-p, SIGKILL);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void Guard() {
  if (g_guards++ > 0) return;
  struct sigaction ignore {}, die {};
  ignore.sa_handler = SIG_IGN;
  die.sa_handler = KillGroupsAndDie;
  sigaction(SIGPIPE, &ignore, &g_old_pipe);
  sigaction(SIGINT, &die, &g_old_int);
  sigaction(SIGTERM, &die, &g_old_term);
  sigaction(SIGHUP, &die, &g_old_hup);
}

void Unguard() {
  if (--g_guards > 0) return;
  sigaction(SIGPIPE, &g_old_pipe, nullptr);
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
}

void Register(pid_t g) {
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, g)) return;
  }
}

void Unregister(pid_t g) {
  for (auto& slot : g_groups) {
    pid_t mine = g;
    if (g > 0 && slot.compare_exchange_strong(mine, 0)) return;
  }
}

// The fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [2] pgrp,
// [19] starttime, [21] rss (pages).
std::vector<std::string> StatFields(const std::string& pid) {
  // read(2), not a stream: a process that ends while it is read fails the read (ESRCH),
  // which libstdc++'s filebuf reports by throwing.
  std::string s;
  const int fd = open(("/proc/" + pid + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[1024];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
    close(fd);
  }
  const size_t paren = s.rfind(')');
  std::vector<std::string> out;
  if (paren == std::string::npos) return out;
  std::istringstream rest(s.substr(paren + 1));
  for (std::string f; rest >> f;) out.push_back(f);
  return out;
}

template <class F>
void ForEachProcess(F&& f) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    const std::vector<std::string> fields = StatFields(e->d_name);
    if (fields.size() > 21) f(std::string(e->d_name), fields);
  }
  closedir(d);
}

// The process group of the child just started: a child of this process that leads its
// own group and is none of `known` (the newest, if several). LineProcess keeps its pid
// to itself.
pid_t NewChildGroup(const std::vector<pid_t>& known) {
  const std::string me = std::to_string(getpid());
  pid_t best = -1;
  unsigned long long best_start = 0;
  ForEachProcess([&](const std::string& pid, const std::vector<std::string>& f) {
    if (f[1] != me || f[2] != pid || f[0] == "Z") return;
    const pid_t p = static_cast<pid_t>(std::strtol(pid.c_str(), nullptr, 10));
    if (std::find(known.begin(), known.end(), p) != known.end()) return;
    const unsigned long long start = std::strtoull(f[19].c_str(), nullptr, 10);
    if (best < 0 || start >= best_start) {
      best = p;
      best_start = start;
    }
  });
  return best;
}

std::string Shorten(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(s.size() - n);
  for (char& c : s) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) c = '?';
  }
  return s;
}

}  // namespace

void SetSoftStop(bool on) {
  g_soft_stop.store(on);
  g_stop_requested.store(false);
}

bool StopRequested() { return g_stop_requested.load(); }

uint64_t GroupRssBytes(pid_t pgid) {
  if (pgid <= 0) return 0;
  const std::string g = std::to_string(pgid);
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t total = 0;
  ForEachProcess([&](const std::string&, const std::vector<std::string>& f) {
    if (f[2] == g) total += std::strtoull(f[21].c_str(), nullptr, 10) * page;
  });
  return total;
}

struct TesteeSet::Testee {
  std::string command;
  LineProcess p;
  bool up = false;
  bool given_up = false;
  int restarts = 0;
  pid_t pgid = -1;
  uint64_t seq = 0;
  bool hello_seen = false;
  std::string name, version, quirks;
  std::vector<std::string> ops;
  Clock::time_point rss_checked{};
};

TesteeSet::TesteeSet(TesteeSetOptions options) : options_(std::move(options)) {
  Guard();
  for (const std::string& c : options_.commands) {
    testees_.push_back(std::make_unique<Testee>());
    testees_.back()->command = c;
  }
}

TesteeSet::~TesteeSet() {
  for (auto& t : testees_) {
    t->p.Kill();
    Unregister(t->pgid);
  }
  Unguard();
}

std::vector<int> TesteeSet::restarts() const {
  std::vector<int> out;
  for (const auto& t : testees_) out.push_back(t->restarts);
  return out;
}

bool TesteeSet::StartOne(Testee& t, std::string& error) {
  std::vector<pid_t> known;
  for (const auto& o : testees_) {
    if (o->up && o->pgid > 0) known.push_back(o->pgid);
  }
  if (!t.p.Start(t.command, error)) return false;
  Unregister(t.pgid);
  t.pgid = NewChildGroup(known);
  Register(t.pgid);
  t.rss_checked = Clock::now();
  const Json hello = {{"type", "hello"}, {"protocol", 1}, {"format", 1}};
  std::string line;
  size_t extra = 0;
  const double wait = std::max(options_.timeout_seconds, kHelloSeconds);
  switch (t.p.Exchange(hello.dump(), wait, line, &extra)) {
    case LineProcess::kLine:
      break;
    case LineProcess::kTimeout:
      error = absl::StrCat("no answer to the hello within ", wait, " s");
      t.p.Kill();
      return false;
    default:
      t.p.Finish(kExitGraceSeconds);
      error = absl::StrCat("it ended before answering the hello (", t.p.exit_description(), "); its stderr ends: ",
                           Shorten(t.p.StderrTail(), 400));
      t.p.Kill();
      return false;
  }
  const Json a = Json::parse(line, nullptr, false);
  if (!a.is_object() || StringMember(a, "type") != "hello" || !a.contains("protocol") ||
      a["protocol"] != 1) {
    error = absl::StrCat("the answer to the hello is not {\"type\":\"hello\",\"protocol\":1,...}: ",
                         Shorten(line, 200));
    t.p.Kill();
    return false;
  }
  if (!t.hello_seen) {
    t.hello_seen = true;
    t.name = StringMember(a, "name");
    if (t.name.empty()) t.name = "testee";
    t.version = StringMember(a, "version");
    if (auto q = a.find("quirks"); q != a.end() && q->is_string()) t.quirks = q->get<std::string>();
    if (auto o = a.find("operations"); o != a.end() && o->is_array()) {
      for (const Json& op : *o) {
        if (op.is_string()) t.ops.push_back(op.get<std::string>());
      }
    }
  }
  t.up = true;
  return true;
}

bool TesteeSet::Start(std::string& error) {
  std::map<std::string, int> seen;
  for (auto& t : testees_) {
    std::string e;
    if (!StartOne(*t, e)) {
      error = absl::StrCat("testee `", t->command, "`: ", e);
      return false;
    }
    std::string op;
    for (const std::string& want : {options_.op, std::string("validate")}) {
      if (op.empty() && std::find(t->ops.begin(), t->ops.end(), want) != t->ops.end()) op = want;
    }
    if (op.empty()) {
      error = absl::StrCat("testee `", t->command, "` offers neither ", options_.op, " nor validate (it offers ",
                           absl::StrJoin(t->ops, ", "), ")");
      return false;
    }
    ops_.push_back(op);
    std::string label = t->quirks.empty() ? t->name : absl::StrCat(t->name, "[", t->quirks, "]");
    for (char& c : label) {
      if (c == ' ' || c == '=' || c == '|') c = '_';
    }
    if (const int n = ++seen[label]; n > 1) absl::StrAppend(&label, "#", n);
    labels_.push_back(label);
    versions_.push_back(absl::StrCat(t->name, " ", t->version));
  }
  return true;
}

Answer TesteeSet::AskOne(Testee& t, const std::string& request, uint64_t seq) {
  Answer a;
  std::string line;
  size_t extra = 0;
  const auto began = Clock::now();
  auto tail = [&] {
    const std::string s = Shorten(t.p.StderrTail(), 600);
    return s.empty() ? std::string() : absl::StrCat("; its stderr ends: ", s);
  };
  LineProcess::Status st = t.p.Exchange(request, options_.timeout_seconds, line, &extra);
  // A late answer to an earlier request answers nothing: read on.
  while (st == LineProcess::kLine) {
    const Json j = Json::parse(line, nullptr, false);
    auto it = j.is_object() ? j.find("seq") : j.end();
    if (!j.is_object() || it == j.end() || !it->is_number_unsigned() || it->get<uint64_t>() >= seq) break;
    ++extra;
    st = t.p.ReadLine(options_.timeout_seconds, line);
  }
  extra_lines_ += extra;
  switch (st) {
    case LineProcess::kLine: {
      Json j = Json::parse(line, nullptr, false);
      a.verdict = Verdict::kGarbage;
      if (!j.is_object()) {
        a.detail = absl::StrCat("not a JSON object: ", Shorten(line, 200));
      } else if (!j.contains("seq") || j["seq"] != seq) {
        a.detail = absl::StrCat("an answer for seq ", j.contains("seq") ? j["seq"].dump() : "(none)", ", not ", seq);
      } else {
        j.erase("seq");
        const std::string r = StringMember(j, "result");
        static const std::map<std::string, Verdict> kResults = {
            {"ok", Verdict::kOk},           {"rejected", Verdict::kRejected},
            {"refused", Verdict::kRefused}, {"unsupported", Verdict::kUnsupported},
            {"crashed", Verdict::kCrashed}};
        if (auto it = kResults.find(r); it != kResults.end()) {
          a.verdict = it->second;
        } else {
          a.detail = absl::StrCat("unknown result \"", Shorten(r, 40), "\"");
        }
        if (a.verdict == Verdict::kCrashed) a.detail = StringMember(j, "error");
      }
      a.json = std::move(j);
      break;
    }
    case LineProcess::kTimeout:
      t.p.Kill();
      t.up = false;
      a.verdict = Verdict::kHang;
      a.detail = absl::StrCat("no answer within ", options_.timeout_seconds, " s (killed)", tail());
      return a;
    case LineProcess::kTooLong:
      t.p.Kill();
      t.up = false;
      a.verdict = Verdict::kGarbage;
      a.detail = "an answer line longer than 256 MiB (killed)";
      return a;
    case LineProcess::kClosed:
      t.p.Finish(kExitGraceSeconds);
      t.up = false;
      a.verdict = Verdict::kDied;
      a.detail = absl::StrCat("it ended before answering (", t.p.exit_description(), ")", tail());
      t.p.Kill();
      return a;
  }
  if (options_.max_rss_mib > 0) {
    const auto now = Clock::now();
    if (now - t.rss_checked >= std::chrono::milliseconds(200) || now - began >= std::chrono::milliseconds(100)) {
      t.rss_checked = now;
      const uint64_t rss = GroupRssBytes(t.pgid);
      if (rss > uint64_t{options_.max_rss_mib} << 20) {
        t.p.Kill();
        t.up = false;
        a.verdict = Verdict::kMemory;
        a.detail = absl::StrCat("resident memory ", rss >> 20, " MiB, above the limit of ", options_.max_rss_mib,
                                " MiB (killed)");
      }
    }
  }
  return a;
}

std::vector<Answer> TesteeSet::Ask(const Mutant& m) {
  const ApiInfo* api = FindApi(m.api_key);
  const int16_t header_version = api == nullptr ? 0
                                 : m.response ? ResponseHeaderVersion(m.api_key, m.version)
                                              : RequestHeaderVersion(m.api_key, m.version);
  Json q = {{"type", "request"},
            {"seq", 0},
            {"op", ""},
            {"id", absl::StrCat("diff/", m.index)},
            {"api_key", m.api_key},
            {"api_name", api ? api->name : ""},
            {"version", m.version},
            {"direction", m.response ? "response" : "request"},
            {"header_version", header_version},
            {"frame", HexString(m.frame)}};
  std::vector<Answer> out;
  for (size_t i = 0; i < testees_.size(); ++i) {
    Testee& t = *testees_[i];
    if (!t.up && !t.given_up) {
      if (t.restarts >= options_.max_restarts) {
        t.given_up = true;
      } else {
        ++t.restarts;
        std::string error;
        StartOne(t, error);
      }
    }
    if (!t.up) {
      Answer a;
      a.op = ops_[i];
      a.detail = t.given_up ? "given up after too many restarts" : "it did not start again";
      out.push_back(std::move(a));
      continue;
    }
    q["seq"] = ++t.seq;
    q["op"] = ops_[i];
    Answer a = AskOne(t, q.dump(), t.seq);
    a.op = ops_[i];
    out.push_back(std::move(a));
  }
  return out;
}

void TesteeSet::Finish() {
  for (auto& t : testees_) {
    if (t->up) t->p.Finish(options_.timeout_seconds);
    t->p.Kill();
    t->up = false;
    Unregister(t->pgid);
    t->pgid = -1;
  }
}

}  // namespace kwire::diff
