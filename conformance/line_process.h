// A child process spoken to in lines: the transport of the testee protocol
// (conformance/README.md, "Testing another implementation"), for any runner that drives
// another implementation over stdin/stdout (the conformance runner, testee.h; the
// differential runner to come).
//
// The child runs `/bin/sh -c COMMAND` in a process group of its own (a simple command,
// without shell operators or `$`, is exec'ed by the shell, so that its own exit and
// signals are seen). Its stdin, stdout and stderr are non-blocking pipes: a request line
// is written while stdout is read, so neither side can deadlock on a full pipe; stderr is
// read all along, its last kStderrTailBytes kept for reports (and all of it copied to a
// log file when one is given). Every wait is bounded by a timeout in seconds. POSIX only.
#ifndef KWIRE_CONFORMANCE_LINE_PROCESS_H_
#define KWIRE_CONFORMANCE_LINE_PROCESS_H_

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdio>
#include <string>

namespace kwire::conformance {

/// Longest stdout line accepted: a longer one is LineProcess::kTooLong (256 MiB).
inline constexpr size_t kMaxLineBytes = size_t{256} << 20;
/// Bytes at the end of the child's stderr kept for reports.
inline constexpr size_t kStderrTailBytes = 2048;

/// One child process at a time (Start again after Kill or Finish). Not thread-safe; the
/// signal guard below kills the one most recently started.
class LineProcess {
 public:
  enum Status {
    kLine,     ///< A whole line arrived (without its '\n').
    kTimeout,  ///< None within the timeout; the child is still running.
    kClosed,   ///< The child closed its stdout or exited (exit_description() says how).
    kTooLong,  ///< Its stdout holds more than kMaxLineBytes without a '\n'.
  };

  /// `log`: where the child's whole stderr is copied (not owned; may be null).
  explicit LineProcess(std::FILE* log = nullptr) : log_(log) {}
  ~LineProcess() { Kill(); }
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  /// Starts `/bin/sh -c command`. False, with errno's text in `error`, when a pipe or
  /// the fork fails (a command that does not exist starts, then exits 127).
  bool Start(const std::string& command, std::string& error);
  bool running() const { return pid_ > 0; }

  /// Sends `line` + '\n' and waits at most `timeout` seconds for one line of stdout.
  /// Lines that were already waiting, or that arrive before the whole request is written,
  /// answer no request: they are dropped and counted in `*extra`.
  Status Exchange(const std::string& line, double timeout, std::string& answer, size_t* extra);
  /// Waits at most `timeout` seconds for the next line of stdout, sending nothing.
  Status ReadLine(double timeout, std::string& answer);

  /// Closes stdin and waits at most `timeout` seconds for the child to exit; kills its
  /// process group after. Returns how it ended ("exit status 0", "killed by signal 9
  /// (Killed)", "did not exit within 1 s; killed").
  std::string Finish(double timeout);
  /// Kills the child's process group and reaps the child; closes the pipes.
  void Kill();

  /// The child's exit, when known ("exit status 3"), else "".
  const std::string& exit_description() const { return exit_; }
  /// The last kStderrTailBytes of its stderr, trailing newlines removed. When earlier
  /// bytes were dropped, it starts at the first whole line kept, or with "..." when the
  /// kept bytes are one cut line.
  std::string StderrTail() const;

 private:
  // Writes `pending` (may be empty) while reading stdout; then returns the first line.
  Status Transfer(const std::string& pending, double timeout, std::string& answer, size_t* extra);
  static bool Fail(std::string& error, const char* what);
  static void CloseBoth(int p[2]);
  static std::string Describe(int status);
  // Reads what is there; false at end of file or on an error.
  bool ReadInto(int fd, std::string* into, bool is_stderr);
  // Keeps the last `bytes` of tail_; notes whether that cut a line.
  void KeepTail(size_t bytes);
  void DrainAndClose();

  std::FILE* log_ = nullptr;
  pid_t pid_ = -1;
  pid_t pgid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_buf_, tail_, exit_;
  bool tail_cut_ = false;  // tail_ starts inside a line (bytes before it were dropped)
};

/// While it lives: SIGPIPE is ignored (a child that closes its stdin early must not kill
/// the runner), and SIGINT, SIGTERM and SIGHUP first kill the process group of the
/// running LineProcess (which a terminal's Ctrl-C does not reach: it has its own), then
/// end the runner by the same signal. The previous handlers come back at its end.
class KillChildOnSignal {
 public:
  KillChildOnSignal();
  ~KillChildOnSignal();
  KillChildOnSignal(const KillChildOnSignal&) = delete;
  KillChildOnSignal& operator=(const KillChildOnSignal&) = delete;

 private:
  struct sigaction old_pipe_ {}, old_int_ {}, old_term_ {}, old_hup_ {};
};

}  // namespace kwire::conformance

#endif  // KWIRE_CONFORMANCE_LINE_PROCESS_H_
