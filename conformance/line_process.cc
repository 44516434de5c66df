// The line-oriented child process of line_process.h.
#include "conformance/line_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kwire::conformance {
namespace {

using Clock = std::chrono::steady_clock;

// The process group of the running LineProcess, for the signal handlers (0: none).
std::atomic<pid_t> g_child_group{0};

// SIGINT / SIGTERM / SIGHUP while a child runs: kill its process group, then die of the
// signal.
extern "C" void KillChildAndDie(int sig) {
  const pid_t g = g_child_group.load();
  if (g > 0) kill(-g, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

KillChildOnSignal::KillChildOnSignal() {
  struct sigaction ignore {}, die {};
  ignore.sa_handler = SIG_IGN;
  die.sa_handler = KillChildAndDie;
  sigaction(SIGPIPE, &ignore, &old_pipe_);
  sigaction(SIGINT, &die, &old_int_);
  sigaction(SIGTERM, &die, &old_term_);
  sigaction(SIGHUP, &die, &old_hup_);
}

KillChildOnSignal::~KillChildOnSignal() {
  sigaction(SIGPIPE, &old_pipe_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

bool LineProcess::Start(const std::string& command, std::string& error) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Fail(error, "pipe");
  if (pipe2(out, O_CLOEXEC) != 0) {
    CloseBoth(in);
    return Fail(error, "pipe");
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    CloseBoth(in);
    CloseBoth(out);
    return Fail(error, "pipe");
  }
  pid_t pid = fork();
  if (pid < 0) {
    CloseBoth(in);
    CloseBoth(out);
    CloseBoth(err);
    return Fail(error, "fork");
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    signal(SIGPIPE, SIG_DFL);
    // A simple command is exec'ed by the shell, so that the testee itself holds the
    // pipes (its exit or closed stdout is seen at once) and its signal is reported.
    const std::string run = command.find_first_of(";&|<>()`$=\n") == std::string::npos
                                ? "exec " + command
                                : command;
    execl("/bin/sh", "sh", "-c", run.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  pgid_ = pid;
  g_child_group.store(pid);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  for (int fd : {in_, out_, err_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  pid_ = pid;
  out_buf_.clear();
  tail_.clear();
  tail_cut_ = false;
  exit_.clear();
  return true;
}

// Sends `line` + '\n' and waits at most `timeout` seconds for one line of stdout.
// Lines that were already waiting, or that arrive before the whole request is
// written, answer no request: they are dropped and counted in `*extra`.
LineProcess::Status LineProcess::Exchange(const std::string& line, double timeout,
                                          std::string& answer, size_t* extra) {
  *extra = 0;
  for (size_t nl; (nl = out_buf_.find('\n')) != std::string::npos;) {
    out_buf_.erase(0, nl + 1);
    ++*extra;
  }
  return Transfer(line + "\n", timeout, answer, extra);
}

// Waits at most `timeout` seconds for the next line of stdout, sending nothing: the
// answer after a line that turned out to answer an earlier request.
LineProcess::Status LineProcess::ReadLine(double timeout, std::string& answer) {
  size_t extra = 0;
  return Transfer("", timeout, answer, &extra);
}

// Writes `pending` (may be empty) while reading stdout; then returns the first line.
LineProcess::Status LineProcess::Transfer(const std::string& pending, double timeout,
                                          std::string& answer, size_t* extra) {
  size_t written = 0, searched = 0;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout));
  for (;;) {
    const bool sent = written == pending.size() || in_ < 0;
    if (sent) {
      if (size_t nl = out_buf_.find('\n', searched); nl != std::string::npos) {
        answer = out_buf_.substr(0, nl);
        out_buf_.erase(0, nl + 1);
        return kLine;
      }
      searched = out_buf_.size();
    } else {
      for (size_t nl; (nl = out_buf_.find('\n')) != std::string::npos;) {
        out_buf_.erase(0, nl + 1);
        ++*extra;
      }
      searched = 0;
    }
    if (out_buf_.size() > kMaxLineBytes) return kTooLong;
    if (out_ < 0) return kClosed;
    pollfd fds[3];
    int n = 0;
    fds[n++] = {out_, POLLIN, 0};
    if (err_ >= 0) fds[n++] = {err_, POLLIN, 0};
    if (!sent) fds[n++] = {in_, POLLOUT, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return kTimeout;
    // In slices, to notice a testee that exited while something it started (a child
    // in its own session) still holds the pipes open.
    int r = poll(fds, n, static_cast<int>(std::min<int64_t>(left.count() + 1, 200)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return kClosed;
    if (r == 0) {
      int status = 0;
      if (pid_ > 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_ = Describe(status);
        return kClosed;
      }
      continue;
    }
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_) {
        ssize_t w = write(in_, pending.data() + written, pending.size() - written);
        if (w > 0) {
          written += static_cast<size_t>(w);
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
          close(in_);  // EPIPE: the testee closed its stdin; it may still answer
          in_ = -1;
        }
      } else if (fds[i].fd == out_) {
        if (!ReadInto(out_, &out_buf_, false)) {
          close(out_);
          out_ = -1;
        }
      } else if (fds[i].fd == err_) {
        if (!ReadInto(err_, &tail_, true)) {
          close(err_);
          err_ = -1;
        }
      }
    }
  }
}

// Closes stdin and waits at most `timeout` seconds for the testee to exit; kills it
// after. Returns how it ended ("exit status 0", "killed by signal 9", ...).
std::string LineProcess::Finish(double timeout) {
  if (pid_ <= 0) {
    Kill();
    return exit_;
  }
  if (in_ >= 0) close(in_);
  in_ = -1;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout));
  while (Clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      exit_ = Describe(status);
      Kill();  // its group, and the pipes
      return exit_;
    }
    // Wait for output or the pipes' end; bounded, so a testee that keeps running
    // after closing stdout is still waited for at most `timeout`.
    pollfd fds[2];
    int n = 0;
    if (out_ >= 0) fds[n++] = {out_, POLLIN, 0};
    if (err_ >= 0) fds[n++] = {err_, POLLIN, 0};
    poll(fds, n, 20);
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      std::string* into = fds[i].fd == out_ ? &out_buf_ : &tail_;
      if (!ReadInto(fds[i].fd, into, fds[i].fd == err_)) {
        close(fds[i].fd);
        (fds[i].fd == out_ ? out_ : err_) = -1;
      }
    }
  }
  Kill();
  exit_ = absl::StrCat("did not exit within ", timeout, " s; killed");
  return exit_;
}

// Kills the testee's process group and reaps it. Sets exit_ when it had exited.
void LineProcess::Kill() {
  if (pid_ > 0) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_ = Describe(status);
    } else {
      kill(-pgid_, SIGKILL);
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      exit_ = "killed";
    }
    pid_ = -1;
  }
  if (pgid_ > 0) {
    kill(-pgid_, SIGKILL);  // whatever it left behind in its group
    pgid_ = -1;
    g_child_group.store(0);
  }
  DrainAndClose();
}

std::string LineProcess::StderrTail() const {
  std::string t = tail_;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  if (tail_cut_) {
    // The kept bytes began inside a line: start at the first whole one, or say the
    // one line there is was cut.
    const size_t nl = t.find('\n');
    if (nl != std::string::npos) {
      t.erase(0, nl + 1);
    } else {
      t.insert(0, "...");
    }
  }
  return t;
}

void LineProcess::KeepTail(size_t bytes) {
  if (tail_.size() <= bytes) return;
  // Cut only when the byte before the kept ones does not end a line.
  const size_t cut = tail_.size() - bytes;
  tail_cut_ = tail_[cut - 1] != '\n';
  tail_.erase(0, cut);
}

bool LineProcess::Fail(std::string& error, const char* what) {
  error = absl::StrCat(what, ": ", std::strerror(errno));
  return false;
}
void LineProcess::CloseBoth(int p[2]) {
  close(p[0]);
  close(p[1]);
}
std::string LineProcess::Describe(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
  }
  return "ended";
}

// Reads what is there; false at end of file or on an error.
bool LineProcess::ReadInto(int fd, std::string* into, bool is_stderr) {
  char buf[65536];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r > 0) {
      if (is_stderr) {
        if (log_ != nullptr) std::fwrite(buf, 1, static_cast<size_t>(r), log_);
        into->append(buf, static_cast<size_t>(r));
        if (into->size() > 2 * kStderrTailBytes) KeepTail(kStderrTailBytes);
      } else {
        into->append(buf, static_cast<size_t>(r));
      }
      if (static_cast<size_t>(r) < sizeof buf) return true;
      continue;
    }
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    return false;
  }
}

void LineProcess::DrainAndClose() {
  if (err_ >= 0) {
    ReadInto(err_, &tail_, true);
    close(err_);
  }
  if (out_ >= 0) close(out_);
  if (in_ >= 0) close(in_);
  in_ = out_ = err_ = -1;
  KeepTail(kStderrTailBytes);
}

}  // namespace kwire::conformance
