// What `kwire diff` makes of the testees' answers to one mutant: each answer's verdict,
// whether two answers agree, kwire's own reading of the mutant, and the signature that
// deduplicates findings.
#ifndef KWIRE_TOOLS_DIFF_COMPARE_H_
#define KWIRE_TOOLS_DIFF_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/diff/mutants.h"
#include "tools/json/json.h"

namespace kwire::diff {

/// The verdict of one answer (testee protocol, conformance/README.md), or what happened
/// to the testee instead of an answer.
enum class Verdict : uint8_t {
  kOk,           ///< "ok": it reads (validate), decodes or re-encodes the frame.
  kRejected,     ///< "rejected".
  kRefused,      ///< "refused": a request a broker reads but answers in part with an error.
  kUnsupported,  ///< "unsupported": left out of every comparison.
  kCrashed,      ///< "crashed": the testee says its implementation crashed.
  kDied,         ///< The testee exited or closed its stdout instead of answering.
  kHang,         ///< No answer within the timeout (the testee is killed).
  kMemory,       ///< Its process group's resident memory passed the limit (killed).
  kGarbage,      ///< An answer that is not one (not JSON, wrong seq, unknown result).
  kNotRun,       ///< The testee was given up (too many restarts).
};

/// "ok", "rejected", "refused", "unsupported", "crashed", "died", "hang", "memory",
/// "garbage", "not run".
const char* VerdictName(Verdict v);

/// ok, rejected and refused: verdicts that are compared.
inline bool Comparable(Verdict v) {
  return v == Verdict::kOk || v == Verdict::kRejected || v == Verdict::kRefused;
}
/// crashed, died, hang, memory, garbage: a finding of the testee's own.
inline bool IsFault(Verdict v) {
  return v == Verdict::kCrashed || v == Verdict::kDied || v == Verdict::kHang ||
         v == Verdict::kMemory || v == Verdict::kGarbage;
}

/// One testee's answer to one mutant.
struct Answer {
  Verdict verdict = Verdict::kNotRun;
  std::string op;      ///< The operation sent ("validate", "decode", "roundtrip").
  Json json;           ///< The answer line without "seq" (null when there was none).
  std::string detail;  ///< For faults: how it ended, the tail of its stderr.
};

/// Why two comparable answers differ, or nullopt when they agree: other verdicts; both
/// refused other parts or codes; both decode (op decode) to other JSON (header, body,
/// body_version; an int64 may be a number or a string); both re-encode (op roundtrip) to
/// other bytes. `what` is "verdict", "refusals", "value" or "reencoding"; `where` the first
/// differing JSON path ("body.Topics[0].Name") or byte offset ("byte 17").
struct Difference {
  std::string what;
  std::string where;
};
std::optional<Difference> Differ(const Answer& a, const Answer& b);

/// kwire's own strict reading of a mutant (requests as a broker reads them, records
/// validated): "accepted", "refused" (with the first refusal's kind and path) or the
/// decode error's FORMAT.md kind, its byte offset and field path.
struct LocalView {
  std::string kind;
  size_t offset = 0;
  std::string path;
};
LocalView KwireView(const Mutant& m);

/// A field path with array indices dropped: "P.TopicData[0].Records.Batch[1]" becomes
/// "P.TopicData[].Records.Batch[]".
std::string NormalizePath(const std::string& path);

/// One disagreement of a pair of testees (indices into the testee list, a < b), or one
/// testee's fault (b == a).
struct PairClass {
  size_t a = 0, b = 0;
  /// "ok vs rejected: trailing_bytes", "ok vs ok: value @ Name", "died: truncated @ Name":
  /// the verdicts, then the error kind (the rejecting side's own, when its answer gives a
  /// kind and a path, else kwire's strict reading), or the difference, and the last field
  /// of its path.
  std::string cls;
};

/// Everything decided about one mutant's answers.
struct Outcome {
  /// The dedup key of the disagreement among the comparable answers, or "" when they all
  /// agree: "<API> <direction> | <label>=<verdict>... | <what> @ <normalized path>", where a
  /// verdict of a group of testees that agree among themselves but not with another group
  /// of the same verdict gets a letter ("ok:a", "ok:b"), and <what> is kwire's own kind
  /// (LocalView) for verdict differences, else the difference ("value", "reencoding",
  /// "refusals") at its normalized path.
  std::string signature;
  /// One signature per testee fault: "<API> <direction> | <label>=<fault> | <kind> @ <path>".
  std::vector<std::string> fault_signatures;
  std::vector<size_t> fault_testees;  ///< Parallel to fault_signatures.
  std::vector<PairClass> classes;     ///< Every disagreeing pair and every fault.
};

/// Classifies `answers` (one per testee, in the order of `labels`) to mutant `m`, with
/// kwire's reading `view` of it. With `only`, the disagreement (signature and pairs) is
/// among the testees it marks (minimization holds a finding to the testees it named).
Outcome Classify(const Mutant& m, const std::vector<Answer>& answers,
                 const std::vector<std::string>& labels, const LocalView& view,
                 const std::vector<bool>* only = nullptr);

/// The string member `key` of `j`, or "" when `j` is no object or the member is missing or
/// not a string (answers come from other programs: never trusted to have a shape).
std::string StringMember(const Json& j, const char* key);

/// "Produce request": the API's name (or "api <key>") and the direction.
std::string ApiText(const Mutant& m);

}  // namespace kwire::diff

#endif  // KWIRE_TOOLS_DIFF_COMPARE_H_
