// The conformance checks, in one place for the GoogleTest runner
// (conformance/conformance_test.cc) and `kwire conformance` (tools/kwire/).
//
// A vector file is either the minimal format (minimal.txt, minimal-removed.txt: one
// frame per line) or the seeds format (seeds.txt: `vector`/`hex`/`node`/`end` blocks),
// see conformance/README.md. Every vector gets the same checks:
//   * the API key is known and its name matches;
//   * the hex has the stated size;
//   * the frame decodes (requests: the header names the stated API and version);
//   * decode -> encode is byte-identical;
//   * the codec's documented minimal frame (EncodeMinimalFrame) equals the vector;
//   * in a file whose header says "Removed relative to", the version is a KIP-896
//     removal; in other minimal files it is a current version;
//   * seeds: the codec's object tree (ExplainRequestFrame / ExplainResponseFrame) has
//     every seed node, at the same path, offset and size, with the same type and value.
// expected_failures.txt lists vectors known to fail; a listed vector that fails is an
// expected failure, a listed vector that passes is an error (the list only shrinks).
#ifndef KWIRE_CONFORMANCE_CHECK_H_
#define KWIRE_CONFORMANCE_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codec/wire/types.h"

namespace kwire::conformance {

/// One `node` line of seeds.txt.
struct SeedNode {
  int line = 0;
  size_t offset = 0;
  size_t size = 0;
  std::string path;
  std::string type_value;  ///< The rest of the line: type and optional value.
};

/// One frame of a vector file.
struct Vector {
  std::string file;  ///< File name without directory.
  int line = 0;
  int16_t api_key = 0;
  std::string name;  ///< API name, e.g. "Fetch".
  int16_t version = 0;
  Direction dir = Direction::kRequest;
  size_t declared_size = 0;
  std::vector<uint8_t> bytes;
  std::vector<SeedNode> nodes;  ///< seeds.txt only.
  std::vector<std::string> parse_errors;
  /// "41 DescribeDelegationToken v3 request".
  std::string Id() const;
};

/// A parsed vector file.
struct VectorFile {
  std::string path;
  std::string name;                       ///< File name without directory.
  bool seeds = false;                     ///< seeds format.
  bool removed_versions = false;          ///< Header says "Removed relative to".
  std::optional<size_t> declared_frames;  ///< From a "# Frames: N" header line.
  std::vector<Vector> vectors;
  std::vector<std::string> errors;  ///< Unreadable file, bad lines, frame count mismatch.
};

/// Reads and parses one vector file (errors are recorded, never thrown).
VectorFile LoadVectorFile(const std::string& path);

/// One line of expected_failures.txt: `<api_key> <version> <request|response>  # reason`.
struct ExpectedFailure {
  std::string file;  ///< The list's path as given to LoadExpectedFailures (for messages).
  int line = 0;
  int16_t api_key = 0;
  int16_t version = 0;
  Direction dir = Direction::kRequest;
  std::string reason;
};

/// Reads expected_failures.txt; bad lines go to `errors`. A missing file is an error.
std::vector<ExpectedFailure> LoadExpectedFailures(const std::string& path,
                                                  std::vector<std::string>& errors);

/// Every check of one vector (see the file comment). Returns the failures; empty: pass.
/// `seed_matched` (optional) receives the number of seed nodes matched.
std::vector<std::string> CheckVector(const Vector& v, const VectorFile& file,
                                     size_t* seed_matched = nullptr);

/// The seed tree check alone: every seed node of `v` must appear in the codec's tree.
/// `matched` (optional) receives the number of seed nodes matched.
std::vector<std::string> CheckSeedTree(const Vector& v, size_t* matched = nullptr);

enum class Outcome { kPass, kFail, kExpectedFailure, kUnexpectedPass };
const char* OutcomeName(Outcome o);

/// The result of one vector.
struct Result {
  size_t file = 0;    ///< Index into Report::files.
  size_t vector = 0;  ///< Index into that file's vectors.
  Outcome outcome = Outcome::kPass;
  std::vector<std::string> failures;
  std::string expected_reason;  ///< For listed vectors.
  size_t seed_nodes = 0;        ///< seeds: nodes in the seed tree,
  size_t seed_matched = 0;      ///< and how many the codec's tree matched.
};

/// A whole run.
struct Report {
  std::string dir;
  std::string expected_failures_path;  ///< Empty when none was used.
  std::vector<VectorFile> files;
  std::vector<Result> results;
  std::vector<ExpectedFailure> expected;
  std::vector<std::string> errors;    ///< File-level errors (they fail the run).
  std::vector<std::string> warnings;  ///< E.g. expected failures matching no vector.
  size_t Count(Outcome o) const;
  /// No failure, no unexpected pass, no file-level error.
  bool ok() const;
};

/// Classifies failures against the expected-failure list.
Result Classify(std::vector<std::string> failures, const ExpectedFailure* expected);
/// The expected failure listed for `v`, or nullptr.
const ExpectedFailure* FindExpected(const std::vector<ExpectedFailure>& list, const Vector& v);

/// Runs every `*.txt` vector file of `dir` (sorted by name), honouring
/// `expected_failures` (empty: none).
Report RunConformance(const std::string& dir, const std::string& expected_failures);

/// One-screen text summary; failures listed (at most `max_failures`).
std::string RenderSummary(const Report& report, size_t max_failures = 20);
/// JUnit XML (one testsuite per file, one testcase per vector).
std::string RenderJUnit(const Report& report);
/// JSON: totals, files and every vector's outcome.
std::string RenderJson(const Report& report);

}  // namespace kwire::conformance

#endif  // KWIRE_CONFORMANCE_CHECK_H_
