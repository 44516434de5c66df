// The conformance runner for any implementation: `kwire conformance --testee CMD`.
//
// Runs the language-neutral vectors (conformance/vectors/*.jsonl, FORMAT.md) against a
// "testee" program that speaks the testee protocol, version 1 (conformance/README.md,
// "Testing another implementation"): the runner starts CMD once (`/bin/sh -c`), sends a
// hello, then one JSON request per line on the testee's stdin (decode / encode /
// roundtrip / validate of one vector) and reads one JSON answer per line from its stdout
// (ok / rejected / unsupported). Verdicts, per operation:
//   accept vectors: decode answers the vector's header and body (every member, nothing
//     else; an int64 may be a number; values compared by encoding the answer with kwire's
//     JSON mapping and comparing bytes, so float64 is compared by bits), encode and
//     roundtrip answer the frame byte for byte, validate answers ok;
//   reject vectors: decode, roundtrip and validate answer rejected (encode is not sent);
//   refuse vectors (a frame a broker reads and answers in part with an error code):
//     decode and validate answer refused, with the parts refused and their error codes
//     (decode: and the header and body, as for accept); encode and roundtrip as accept.
// A vector passes when every answered operation passed, is unsupported when every answer
// was `unsupported`, and fails otherwise. A testee that answers garbage fails that
// operation; one that hangs past the timeout, exits or closes its stdout fails it and
// is restarted (at most TesteeOptions::max_restarts times; then the rest is not run).
#ifndef KWIRE_CONFORMANCE_TESTEE_H_
#define KWIRE_CONFORMANCE_TESTEE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwire::conformance {

/// The testee protocol version this runner speaks.
inline constexpr int kTesteeProtocol = 1;

/// One vector record of a *.jsonl file (FORMAT.md).
struct JsonlVector {
  std::string file;      ///< File name without directory.
  int line = 0;          ///< 1-based line number.
  std::string id;        ///< "rich/Produce/v9/request".
  std::string set;       ///< "minimal", "minimal-removed", "seeds", "rich", "negative", "records",
                         ///< "kip511", "java".
  std::string category;  ///< CategoryOfSet(set).
  int16_t api_key = 0;
  int16_t version = 0;
  bool request = true;
  /// expect == "accept" or "refuse": the frame reads (and re-encodes to its bytes).
  bool accept = true;
  /// expect == "refuse": the frame reads, and a broker answers parts of it with an error
  /// code (FORMAT.md; codec/protocol/refusal.h). `accept` is true too.
  bool refuse = false;
  /// reject vectors: Java's decoder accepts it; refuse vectors: Apache Kafka's broker
  /// appends what is refused all the same.
  bool lenient = false;
  /// The whole record, members in file order (the JSON mapping's fields in wire order).
  nlohmann::ordered_json record;
};

/// The category of a vector set: "minimal" for minimal, minimal-removed and seeds; the
/// set's own name otherwise ("rich", "negative", "records", "kip511").
std::string CategoryOfSet(const std::string& set);

/// The categories in report order.
const std::vector<std::string>& Categories();

/// What to run. Filters are conjunctive; an empty filter admits everything.
struct TesteeOptions {
  std::string command;                 ///< Run with /bin/sh -c.
  std::string dir;                     ///< Directory of *.jsonl files.
  std::set<std::string> categories;    ///< Categories().
  std::set<int16_t> api_keys;
  std::set<int16_t> versions;
  std::optional<bool> request;         ///< Direction filter.
  std::vector<std::string> id_prefixes;
  bool lenient = false;                ///< Leave out reject and refuse vectors marked lenient.
  double timeout_seconds = 10;         ///< Per answer (and for the hello, and exit).
  int max_restarts = 10;
  std::string expected_failures;       ///< Vector ids known to fail (empty: none).
  std::string log_file;                ///< The testee's stderr, all of it (empty: none).
  /// A reject vector rejected with another kind, offset or path than the vector's fails
  /// (by default it passes and is counted apart: TesteeReport::other_errors).
  bool strict_errors = false;
  /// Keep each failed operation's answer (OpResult::answered) of the vectors that fail or
  /// pass unexpectedly, for reports that show it (`--html`).
  bool keep_answers = false;
};

enum class TesteeOutcome {
  kPass,
  kFail,
  kUnsupported,
  kExpectedFailure,
  kUnexpectedPass,
  kNotRun,  ///< The testee was restarted too often; the run stopped before this vector.
};
const char* TesteeOutcomeName(TesteeOutcome o);

/// One operation on one vector.
struct OpResult {
  std::string op;        ///< "decode", "encode", "roundtrip", "validate".
  std::string verdict;   ///< "pass", "fail", "unsupported", "not run".
  std::string detail;    ///< Why it failed (runner's words), or the unsupported reason.
  std::string answer;    ///< The testee's result ("ok", "rejected", ...) or fault.
  std::string error;     ///< The testee's error text, kind, offset and path, if given.
  /// A reject vector rejected with another kind, offset or path than the vector's
  /// (compared where the answer gives them).
  bool other_error = false;
  /// Reject vectors: the vector's error and the answer's ({"kind", "offset", "path"},
  /// and the answer's "error" text), for the JSON report.
  nlohmann::ordered_json expected_error, answered_error;
  /// A failed decode: where the answer's values differ from the vector's, for the JSON
  /// report: [{"path": "body.ApiKeys[0].MaxVersion", "text": "expected 4, answered 3",
  /// "offset": 23, "tree_path": "Body.ApiKeys[0].MaxVersion"}] (offset and tree_path:
  /// the bytes of the frame the value was decoded from, when the explanation has them).
  nlohmann::ordered_json differences;
  /// A failed operation's answer as the testee wrote it (its JSON object, "seq"
  /// included), with TesteeOptions::keep_answers; null otherwise.
  nlohmann::ordered_json answered;
};

struct TesteeResult {
  size_t vector = 0;  ///< Index into TesteeReport::vectors.
  TesteeOutcome outcome = TesteeOutcome::kPass;
  std::vector<OpResult> ops;
  std::string expected_reason;
};

/// A whole run.
struct TesteeReport {
  TesteeOptions options;
  std::string name, version;            ///< From the testee's hello.
  std::vector<std::string> operations;  ///< From the hello, in protocol order.
  std::vector<JsonlVector> vectors;     ///< Those selected, in file and line order.
  size_t left_out_lenient = 0;          ///< Reject vectors left out by --lenient.
  std::vector<TesteeResult> results;
  std::vector<std::string> faults;      ///< Timeouts, exits, restarts (with stderr tails).
  std::vector<std::string> errors;      ///< Run-level errors (they fail the run).
  std::vector<std::string> warnings;
  int restarts = 0;
  /// Results of `o` in `category` (all categories when empty).
  size_t Count(TesteeOutcome o, const std::string& category = "") const;
  /// Passed vectors in `category` (all when empty) that an operation rejected with another
  /// error than the vector's (OpResult::other_error; --strict-errors fails them instead).
  size_t CountOtherErrors(const std::string& category = "") const;
  /// No failure, unexpected pass, vector not run or run-level error.
  bool ok() const;
};

/// Loads and filters the vectors of `options.dir` (sorted by file name). Unreadable files
/// and malformed records go to `errors`.
std::vector<JsonlVector> LoadJsonlVectors(const TesteeOptions& options,
                                          std::vector<std::string>& errors,
                                          size_t* left_out_lenient = nullptr,
                                          std::set<std::string>* all_ids = nullptr);

/// The operations a vector gets, of those the testee implements (`ops`).
std::vector<std::string> OperationsFor(const JsonlVector& v,
                                       const std::vector<std::string>& ops);

/// One place where a decode answer's value differs from the vector's.
struct ValueDifference {
  std::string path;  ///< JSON mapping path: "body.Topics[1].Name", "header.ClientId".
  /// "expected 4, answered 3", "missing", "not in the vector (an unexpected member)",
  /// "3 elements expected, 2 answered", "expected an object, answered ...".
  std::string text;
  std::optional<size_t> offset;  ///< Byte of the frame it was decoded from, when known.
};

/// Where `got` differs from `want` (a decode answer's "header" or "body" against the
/// vector's), by the runner's rules: every member of an object present and nothing
/// else, arrays of the same length, leaves equal (an int64, a string in the vector, may
/// be answered as a number). In the vector's member order, i.e. wire order. Paths start
/// at `path` ("header", "body"); a missing or extra member has its own path, an array of
/// another length the array's. At most `limit` (the rest counted in `*more` when given).
/// `offset` is left empty (JudgeAnswer fills it from the frame's explanation). Values
/// equal here are still compared by bytes by JudgeAnswer (float64 bits, -0.0).
std::vector<ValueDifference> ValueDifferences(const nlohmann::ordered_json& want,
                                              const nlohmann::ordered_json& got,
                                              const std::string& path, size_t limit,
                                              size_t* more = nullptr);

/// Judges one answer of `op` on `v` (the answer already parsed and its seq checked).
/// Returns the verdict ("pass", "fail", "unsupported") and fills `r`.
void JudgeAnswer(const JsonlVector& v, const std::string& op, const nlohmann::ordered_json& answer,
                 OpResult& r);

/// Runs the testee over the selected vectors. Never throws; everything the testee does
/// wrong is recorded in the report.
TesteeReport RunTestee(const TesteeOptions& options);

/// `kwire conformance --list`: one "id op" line per request that would be sent if the
/// testee implemented every operation.
std::string RenderTesteeList(const std::vector<JsonlVector>& vectors);
/// One-screen summary: the testee, passed / failed / unsupported per category, faults and
/// the first `max_failures` failures with their details.
std::string RenderTesteeSummary(const TesteeReport& report, size_t max_failures = 20);
/// JUnit XML: one testsuite per category, one testcase per vector.
std::string RenderTesteeJUnit(const TesteeReport& report);
/// JSON: testee, totals per category, faults and every vector's operations.
std::string RenderTesteeJson(const TesteeReport& report);

}  // namespace kwire::conformance

#endif  // KWIRE_CONFORMANCE_TESTEE_H_
