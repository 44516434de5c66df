// Conformance: every documented minimal frame (conformance/vectors/*.txt, produced by the
// independent reference encoder tools/conformance_ref.py) decodes, re-encodes to the
// same bytes, and equals what the codec's own minimal-instance builder encodes; the four
// hand-transcribed seed frames also match the codec's object tree node for node.
// The checks themselves live in conformance/check.h, shared with `kwire conformance`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/protocol/registry.h"
#include "conformance/check.h"

#ifndef KWIRE_CONFORMANCE_DIR
#error "KWIRE_CONFORMANCE_DIR must name conformance/vectors"
#endif

namespace kwire::conformance {
namespace {

const std::string kDir = KWIRE_CONFORMANCE_DIR;

const std::vector<ExpectedFailure>& Expected() {
  static const std::vector<ExpectedFailure> list = [] {
    std::vector<std::string> errors;
    auto l = LoadExpectedFailures(kDir + "/../expected_failures.txt", errors);
    for (const std::string& e : errors) ADD_FAILURE() << e;
    return l;
  }();
  return list;
}

// Loads `name`, checks its shape, and runs every vector; returns the file.
VectorFile RunFile(const std::string& name, size_t want) {
  VectorFile f = LoadVectorFile(kDir + "/" + name);
  for (const std::string& e : f.errors) ADD_FAILURE() << e;
  EXPECT_EQ(f.vectors.size(), want) << name;
  for (const Vector& v : f.vectors) {
    SCOPED_TRACE(v.file + ":" + std::to_string(v.line) + " " + v.Id());
    const Result r = Classify(CheckVector(v, f), FindExpected(Expected(), v));
    std::string details;
    for (const std::string& s : r.failures) details += "\n  " + s;
    EXPECT_TRUE(r.outcome == Outcome::kPass || r.outcome == Outcome::kExpectedFailure)
        << OutcomeName(r.outcome) << details;
  }
  return f;
}

TEST(Conformance, CurrentVersions) { RunFile("minimal.txt", 618); }

TEST(Conformance, RemovedVersions) {
  const VectorFile f = RunFile("minimal-removed.txt", 118);
  EXPECT_TRUE(f.removed_versions);  // so CheckVector requires IsRemoved for each
  for (const Vector& v : f.vectors) {
    EXPECT_TRUE(FindApi(v.api_key)->IsRemoved(v.version)) << v.Id();
  }
}

// The seed pages' object trees: every node of seeds.txt (path, offset, size, type and
// value) is in the codec's tree, and the codec's tree has no other node.
TEST(Conformance, SeedFramesAndTrees) {
  const VectorFile f = RunFile("seeds.txt", 4);
  ASSERT_TRUE(f.seeds);
  size_t nodes = 0, matched = 0;
  for (const Vector& v : f.vectors) {
    size_t m = 0;
    const auto failures = CheckSeedTree(v, &m);
    for (const std::string& s : failures) ADD_FAILURE() << v.Id() << ": " << s;
    EXPECT_EQ(m, v.nodes.size()) << v.Id();
    EXPECT_GT(v.nodes.size(), 10u) << v.Id();
    nodes += v.nodes.size();
    matched += m;
  }
  EXPECT_EQ(matched, nodes);
}

// The whole directory as `kwire conformance` runs it.
TEST(Conformance, RunConformanceDirectory) {
  const Report report = RunConformance(kDir, kDir + "/../expected_failures.txt");
  EXPECT_TRUE(report.ok()) << RenderSummary(report);
  EXPECT_EQ(report.results.size(), 618u + 118u + 4u);
  EXPECT_TRUE(report.warnings.empty()) << RenderSummary(report);
}

}  // namespace
}  // namespace kwire::conformance
