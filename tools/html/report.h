// The conformance report page (`kwire conformance ... --html FILE`, issue 34 item 3): one
// self-contained page (page.h) of a run, native (conformance/check.h: the *.txt vectors
// against kwire's own codec) or --testee (conformance/testee.h: the *.jsonl vectors
// against any implementation).
//
// The page: pass / fail / expected failure / unexpected pass (and, for testees,
// unsupported / not run) in total, per vector file and per API and version (rows with a
// failure first); then each failure and unexpected pass: its id, file and line, API,
// version, direction, the vector's `mutation`, every check that failed with its message,
// the vector's frame as `kwire explain --html` draws it (byte grid and object tree) with
// the failing byte or field marked, for testees the expected and the answered JSON side
// by side (differing members marked) and the testee's own error text, and the command
// line that explains the vector. At most ReportLimits::max_failures failures are drawn
// in full; the rest are listed by id (the page says how many).
//
// Everything a testee answers is data: JSON in the page (ScriptSafeJson), drawn with
// textContent only.
#ifndef KWIRE_TOOLS_HTML_REPORT_H_
#define KWIRE_TOOLS_HTML_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/harness/explain.h"
#include "codec/harness/tree_path.h"
#include "codec/wire/types.h"
#include "conformance/check.h"
#include "conformance/testee.h"
#include "tools/html/page.h"

namespace kwire::html {

/// Bounds of a report page.
struct ReportLimits {
  /// Failures (and unexpected passes) drawn in full; the rest are listed by id.
  size_t max_failures = 200;
  /// Tree nodes written per frame (PageLimits::max_nodes).
  size_t max_nodes_per_frame = 20000;
  /// Tree nodes written in all frames together; once spent, further failures are listed
  /// by id only. About 80 bytes of page per node.
  size_t max_nodes_total = 300000;
};

/// Where a failure shows in its frame: the byte (and the tree node) to mark.
struct FailureMark {
  /// Byte offset in the frame (size prefix included); may be the frame's size (the end:
  /// bytes missing). std::nullopt: no byte to mark.
  std::optional<size_t> offset;
  /// The object tree's path of the node to mark (FrameView paths, e.g.
  /// "Body.Owners[0].PrincipalType"), or "".
  std::string path;
  /// Why this byte: "the decoder stops here (truncated)", "first differing byte: ...".
  std::string why;
};

/// Paths of the members where `answered` differs from `expected`, by the testee
/// runner's rules (conformance/testee_judge.cc): every member of an object present and
/// nothing else, arrays of the same length, leaves equal (an int64 given as a string may
/// be answered as a number). Paths as the runner writes them: "header.CorrelationId",
/// "body.Topics[1].Name"; a member missing from `answered` or extra in it has its own
/// path, an array of another length the array's. Members of the top level that are
/// not in `expected` ("seq", "error", ...) are not differences. At most `limit` paths.
std::vector<std::string> JsonDiffPaths(const Json& expected, const Json& answered,
                                       size_t limit = 1000);

/// The first byte where `got` differs from `want` (the shorter's size when one is a
/// prefix of the other), or std::nullopt when they are equal.
std::optional<size_t> FirstDifferentByte(std::span<const uint8_t> want,
                                         std::span<const uint8_t> got);

/// The mark of a native vector: recomputed with the codec as conformance/check.cc checks
/// it — the decoder's error offset when the frame does not decode, else the first byte
/// where decode -> encode differs, else the first byte where the codec's minimal frame
/// differs, else the first seed node the codec's tree does not have as the seed says.
/// `ex` is the frame's explanation.
FailureMark NativeMark(const conformance::Vector& v, const FrameExplanation& ex);

/// The mark of a testee's failure on `v` (ops as RunTestee recorded them, with
/// OpResult::answered): a reject vector accepted -> the vector's error offset; a frame
/// rejected with an offset -> that offset; encode / roundtrip answering another frame ->
/// its first differing byte; decode answering other values -> the node of the first
/// differing member.
FailureMark TesteeMark(const conformance::JsonlVector& v,
                       const std::vector<conformance::OpResult>& ops,
                       const FrameExplanation& ex);

/// The page's data of a native run:
///   {"page": "conformance", "mode": "native", "title", "subtitle", "dir", "ok",
///    "outcomes": [names], "totals": [counts per outcome], "vectors",
///    "sets": [[file, vectors, counts...]...], "apis": [[key, name, version, vectors,
///    counts...]...] (rows with a failure or unexpected pass first),
///    "errors", "warnings", "faults", "failures_total", "failures": [failure...] (drawn in
///    full), "failures_more": [[id, outcome, file:line, first message]...],
///    "max_failures"}
/// with each failure {"id", "set", "file", "line", "api_key", "api_name", "version",
///    "direction", "expect", "outcome", "mutation", "expected_reason", "checks":
///    [{"check", "verdict", "answer", "message", "error", "compare": null or {"expected",
///    "answered", "diffs"}}...], "mark": {"offset", "path", "why"} or null, "command",
///    "frame": FrameData}.
Json NativeReportData(const conformance::Report& report, const ReportLimits& limits = {});
/// The same for a --testee run ("mode": "testee", "testee": {"command", "name",
/// "version", "operations"}); its command lines are `kwire explain --vector
/// <options.dir>/<file>:<line>`.
Json TesteeReportData(const conformance::TesteeReport& report, const ReportLimits& limits = {});

/// The pages: RenderPage of the data above.
std::string NativeReportPage(const conformance::Report& report, const ReportLimits& limits = {});
std::string TesteeReportPage(const conformance::TesteeReport& report,
                             const ReportLimits& limits = {});

}  // namespace kwire::html

#endif  // KWIRE_TOOLS_HTML_REPORT_H_
