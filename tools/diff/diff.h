// `kwire diff`: a differential campaign over the testee protocol (conformance/README.md,
// "Testing another implementation"). Seed frames (vector files, fuzz corpus folders:
// seeds.h) are mutated (mutants.h: kwire's structure-aware mutator, lengths and counts,
// bytes), every mutant is sent to every testee (testees.h), and their answers compared
// (compare.h): the verdicts (ok / rejected / refused) and, where both read the frame, the
// decoded values (op decode) or the re-encodings (op roundtrip). Each disagreement is
// classified by the testees that disagree, their verdicts, and kwire's own strict reading
// of the mutant (the error kind and field path), deduplicated by signature, minimized
// (minimize.h), and written out as a vector record (conformance/FORMAT.md) with every
// testee's answer. A testee that crashes, dies, hangs or runs away with memory is a
// finding of its own. Bounded by time and count; mutant i depends only on the seeds,
// --seed and i (mutants.h), so a run is reproducible.
#ifndef KWIRE_TOOLS_DIFF_DIFF_H_
#define KWIRE_TOOLS_DIFF_DIFF_H_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tools/diff/compare.h"
#include "tools/diff/mutants.h"

namespace kwire::diff {

/// A campaign's settings (`kwire diff --help`).
struct DiffOptions {
  std::vector<std::string> testees;  ///< Commands, each run with /bin/sh -c (≥ 1).
  std::vector<std::string> seeds;    ///< *.jsonl files, vector folders, corpus folders.
  double time_seconds = 60;          ///< Stop after this long (0: no time limit).
  uint64_t count = 0;                ///< Stop after this many mutants (0: no limit).
  uint64_t seed = 1;                 ///< The campaign seed.
  std::string out_dir;               ///< Where findings go ("": nowhere).
  std::string op = "validate";       ///< validate, decode or roundtrip.
  std::set<int16_t> api_keys;        ///< Seeds of these APIs only (empty: all).
  std::optional<bool> request;       ///< Seeds of this direction only.
  double timeout_seconds = 10;       ///< Per answer.
  std::string expected_file;         ///< Known signatures, one per line ("": none).
  size_t minimize_budget = 200;      ///< Evaluations per finding (0: no minimization).
  size_t max_rss_mib = 4096;         ///< Testee memory limit (0: none).
  int max_restarts = 50;             ///< Per testee.
  /// Seconds between progress lines (mutants, mutants/s, findings) on RunDiff's
  /// `progress` stream (0: none).
  double progress_seconds = 5;
};

/// One signature's finding: the first mutant that showed it, minimized.
struct Finding {
  std::string id;          ///< "diff/<seed>/<n>", n counting findings from 1.
  std::string signature;   ///< Outcome::signature or one of Outcome::fault_signatures.
  bool fault = false;      ///< A testee's crash, death, hang, memory or garbage.
  bool expected = false;   ///< Matches a line of the expected file.
  Mutant mutant;           ///< The first mutant with this signature, as sent.
  std::string seed_id;     ///< Its seed's id.
  std::vector<uint8_t> minimized;  ///< The minimized frame (the mutant's when not minimized).
  size_t evaluations = 0;  ///< Minimization's evaluations.
  std::vector<Answer> answers;     ///< Every testee's answer to `minimized`.
  LocalView view;          ///< kwire's strict reading of `minimized`.
  std::vector<PairClass> classes;  ///< Of the first mutant.
  uint64_t count = 0;      ///< Mutants with this signature.
};

/// One row of the summary: a pair of testees (or one, for its faults) and a class.
struct ClassRow {
  std::string pair;        ///< "kwire[java] / apache-kafka", or one label.
  std::string cls;         ///< PairClass::cls.
  uint64_t mutants = 0;
  std::set<std::string> signatures;
  std::string example;     ///< The id of the finding of its first mutant.
};

/// A whole campaign.
struct DiffReport {
  DiffOptions options;
  std::vector<std::string> labels, versions, ops;  ///< Per testee (TesteeSet).
  size_t seeds = 0, seeds_skipped = 0;
  uint64_t mutants = 0;         ///< Mutants sent (minimization's candidates not counted).
  uint64_t evaluations = 0;     ///< Minimization's candidates sent.
  uint64_t disagreeing = 0;     ///< Mutants with a disagreement or a fault.
  double seconds = 0;
  /// Per testee: answers to mutants by verdict.
  std::vector<std::map<Verdict, uint64_t>> verdicts;
  std::vector<int> restarts;
  uint64_t extra_lines = 0;     ///< Answer lines that answered no request.
  std::vector<Finding> findings;
  std::map<std::pair<std::string, std::string>, ClassRow> classes;
  std::vector<std::string> errors;    ///< Why the run could not run (exit 1).
  std::vector<std::string> warnings;
  /// Findings that no expected signature matches.
  size_t Unexpected() const;
};

/// Runs a campaign; progress lines go to `progress`. Never throws.
DiffReport RunDiff(const DiffOptions& options, std::ostream& progress);

/// The end-of-run summary: figures, answers per testee, the table of pair × class
/// (mutants, signatures, example finding), and the findings outside the expected file.
std::string RenderDiffSummary(const DiffReport& r);

/// A finding as a vector record (FORMAT.md) of set "diff", its frame the minimized one:
/// "expect" and its members ("header"/"body", "error", "refusals") are kwire's strict
/// reading of it; beside them "signature", "expected", "count", "classes", "answers" (each
/// testee's answer by label), "original_frame", "mutation" (seed id and steps) and
/// "source" (how to make it again).
Json FindingRecord(const DiffReport& r, const Finding& f);

/// Writes findings.jsonl (every finding), signatures.txt (their signatures, usable as an
/// --expected file) and summary.txt into `dir` (created). False with `error`.
bool WriteDiffOutputs(const DiffReport& r, const std::string& dir, std::string& error);

/// Reads an expected file: one signature pattern a line (fnmatch(3) wildcards; '#' starts
/// a comment, blank lines are skipped). False with `error` when it cannot be read.
bool LoadExpected(const std::string& path, std::vector<std::string>& patterns, std::string& error);

/// `kwire diff`'s exit status for `r`: 0 when every finding is expected, 1 otherwise or
/// when the run had errors.
int DiffExitStatus(const DiffReport& r);

/// `kwire diff` after its options are parsed: runs the campaign (progress on `err`),
/// prints the summary on `out`, writes the files of `options.out_dir` when set. Returns
/// DiffExitStatus (1 too when the run could not run or the files cannot be written).
int DiffMain(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace kwire::diff

#endif  // KWIRE_TOOLS_DIFF_DIFF_H_
