// The testees of `kwire diff`: one LineProcess each (conformance/line_process.h), spoken to
// in the testee protocol (conformance/README.md), restarted when one dies, hangs or runs
// away with memory.
#ifndef KWIRE_TOOLS_DIFF_TESTEES_H_
#define KWIRE_TOOLS_DIFF_TESTEES_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conformance/line_process.h"
#include "tools/diff/compare.h"
#include "tools/diff/mutants.h"

namespace kwire::diff {

/// How the testees are run.
struct TesteeSetOptions {
  std::vector<std::string> commands;  ///< Each run with /bin/sh -c.
  /// The operation asked of every testee that offers it; the others get "validate".
  std::string op = "validate";
  double timeout_seconds = 10;  ///< Per answer (the hello: at least 60 s).
  /// A testee restarted more often than this is given up (its answers "not run").
  int max_restarts = 50;
  /// Resident memory of a testee's process group above which it is killed and the
  /// answer is Verdict::kMemory, in MiB (0: no limit). Looked at after an answer, at most
  /// every 200 ms per testee, and after every answer that took over 100 ms.
  size_t max_rss_mib = 0;
};

/// The testees, started together, asked together.
class TesteeSet {
 public:
  explicit TesteeSet(TesteeSetOptions options);
  ~TesteeSet();
  TesteeSet(const TesteeSet&) = delete;
  TesteeSet& operator=(const TesteeSet&) = delete;

  /// Starts every testee and exchanges the hello (protocol 1). False with `error` when one
  /// does not start, does not answer the hello as the protocol says, or offers none of
  /// validate, decode and roundtrip.
  bool Start(std::string& error);

  /// Every testee's answer to `m`, in the order of the commands. A testee that is down is
  /// restarted first (the restart is counted; past max_restarts it is given up).
  std::vector<Answer> Ask(const Mutant& m);

  /// Closes every testee's stdin and waits for its exit (at most the timeout).
  void Finish();

  /// Labels from the hellos: the testee's name, its "quirks" in brackets when it names
  /// some (`kwire testee --quirks java` is "kwire[java]"), "#2", "#3" for repeats.
  const std::vector<std::string>& labels() const { return labels_; }
  /// "name version" from each hello.
  const std::vector<std::string>& versions() const { return versions_; }
  /// The operation each testee is asked.
  const std::vector<std::string>& ops() const { return ops_; }
  /// Restarts per testee.
  std::vector<int> restarts() const;
  /// Answer lines that answered no request, over all testees.
  uint64_t extra_lines() const { return extra_lines_; }

 private:
  struct Testee;
  bool StartOne(Testee& t, std::string& error);
  Answer AskOne(Testee& t, const std::string& request, uint64_t seq);

  TesteeSetOptions options_;
  std::vector<std::unique_ptr<Testee>> testees_;
  std::vector<std::string> labels_, versions_, ops_;
  uint64_t seq_ = 0;
  uint64_t extra_lines_ = 0;
};

/// While a TesteeSet lives, SIGINT, SIGTERM and SIGHUP kill every testee's process group
/// and end the program by the same signal. With soft stops on, the first such signal only
/// sets StopRequested() (a campaign then ends as if its time were up); the second kills.
void SetSoftStop(bool on);
bool StopRequested();

/// The resident memory, in bytes, of every process of process group `pgid` (Linux /proc;
/// 0 elsewhere or when there is none).
uint64_t GroupRssBytes(pid_t pgid);

}  // namespace kwire::diff

#endif  // KWIRE_TOOLS_DIFF_TESTEES_H_
