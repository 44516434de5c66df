// `kwire broker-fuzz`: a live broker under hostile frames (issue 33 item 3). Mutated
// requests — kwire diff's mutants (tools/diff/mutants.h: the structure-aware fuzz mutator,
// lengths and counts at boundary values, byte changes) of request seeds (vector files,
// the live captures, fuzz corpora) — are sent to a running broker over TCP on loopback,
// from several connections at once, each carrying a bounded number of requests before it
// is opened again. After each request the broker must answer with a frame that decodes
// strictly as the response to it, or close the connection, within the timeout
// (exchange.h has the rules and the exceptions: Produce acks = 0, parked requests). A
// fresh connection checks now and then that the broker still answers ApiVersions, and
// the broker's resident memory is watched (/proc/<pid>/status). Findings are
// deduplicated by signature, minimized by replaying smaller frames (tools/diff/
// minimize.h) and written with their frames and a command that replays them.
//
// Bounded by --time and --count; mutant i depends only on the seeds, --seed and i (the
// broker's state, which other mutants change, does not repeat).
#ifndef KWIRE_TOOLS_BROKERFUZZ_BROKERFUZZ_H_
#define KWIRE_TOOLS_BROKERFUZZ_BROKERFUZZ_H_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/brokerfuzz/exchange.h"
#include "tools/proxy/proxy.h"

namespace kwire::brokerfuzz {

/// A campaign's settings (`kwire broker-fuzz --help`, kUsage).
struct Options {
  proxy::Endpoint broker;              ///< Loopback only.
  std::vector<std::string> seeds;      ///< *.jsonl files, vector folders, corpus folders.
  std::set<int16_t> api_keys;          ///< Seeds of these APIs only (empty: all).
  /// Mutants whose request header names one of these APIs are not sent (counted as
  /// skipped): for APIs that would take the broker down on purpose.
  std::set<int16_t> exclude_api_keys;
  /// Keep seeds at versions the broker does not advertise (default: only advertised ones,
  /// from its ApiVersions answer; mutants may still change the version).
  bool all_versions = false;
  double time_seconds = 60;            ///< 0: no time limit.
  uint64_t count = 0;                  ///< Mutants at most (0: no limit).
  uint64_t seed = 1;
  size_t connections = 4;              ///< Connections at once (one thread each).
  size_t requests_per_connection = 100;  ///< Then the connection is opened again.
  double timeout_seconds = 10;         ///< Per request: an answer or a close within it.
  double check_seconds = 5;            ///< ApiVersions on a fresh connection this often.
  double progress_seconds = 5;         ///< Progress lines (0: none).
  int broker_pid = 0;                  ///< Watched for RSS and exit (0: not watched).
  size_t max_rss_mib = 0;              ///< RSS above this is a finding (0: no limit).
  size_t max_answer_bytes = size_t{64} << 20;  ///< Larger answers are not read.
  std::string out_dir;                 ///< Findings go here ("": nowhere).
  std::string expected_file;           ///< Known signatures (fnmatch patterns), one a line.
  size_t minimize_budget = 50;         ///< Replays per unexpected finding (0: no minimization).
  double minimize_seconds = 120;       ///< For all minimizations together.
  std::string replay_file;             ///< --replay: send these frames instead (Replay).
};

/// Per API key of the request header (-1: no header, or a frame not sent whole; -2: a key
/// Kafka does not have).
struct ApiCounts {
  uint64_t sent = 0, answered = 0, answered_bad = 0, closed = 0, timeouts = 0, held = 0, no_answer = 0;
  uint64_t strict_ok = 0;  ///< Mutants kwire reads strictly (accepted or refused).
  uint64_t unknown_server_errors = 0;  ///< Answers with an error code -1.
};

/// One signature's finding: its first occurrence, and how often it came.
struct Finding {
  std::string id;          ///< "broker-fuzz/<seed>/<n>".
  std::string signature;   ///< "<kind> <API> v<version> | <where>", "apiversions | <reason>", ...
  FindingKind kind = FindingKind::kStall;
  bool expected = false;   ///< Matches a line of the expected file.
  uint64_t count = 0;
  double at_seconds = 0;   ///< When it first came, from the start.
  std::string detail, happened;
  // Findings of a request (not apiversions, broker_down, rss):
  bool has_request = false;
  uint64_t mutant_index = 0;
  std::string seed_id;
  std::vector<std::string> steps;
  std::vector<uint8_t> request;    ///< As sent.
  Framing framing = Framing::kWhole;
  bool probe = false;
  std::string strict_view;         ///< kwire's strict reading of the request.
  std::vector<std::vector<uint8_t>> answers;
  std::vector<uint8_t> minimized;  ///< The smallest request that still shows it (= request when not minimized).
  size_t evaluations = 0;
  /// broker_down: the last request each connection sent before it (its API text and bytes,
  /// newest first): the one that took the broker down is among them.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> suspects;
};

/// What the broker did that is allowed but tells a difference from kwire's strict
/// reading: it closed on a request kwire reads (at a version it advertises), or answered
/// one kwire rejects.
struct Observation {
  std::string signature;   ///< "closes <API> v<version> | <kwire view>", "answers ... | <kind @ path>".
  uint64_t count = 0;
  uint64_t mutant_index = 0;
  std::vector<uint8_t> request;
  std::string happened;
};

/// A whole campaign.
struct Report {
  Options options;
  std::vector<std::string> errors;    ///< Why it could not run (exit 2) or failed to finish.
  std::vector<std::string> warnings;
  bool started = false;               ///< The first ApiVersions check passed.
  size_t seeds_loaded = 0, seeds_used = 0, seeds_skipped = 0;
  ApiRanges ranges;                   ///< What the broker advertised at the start.
  uint64_t requests = 0, probes = 0, connections = 0, connect_failures = 0;
  uint64_t answered = 0, answered_bad = 0, closes = 0, closes_after_answer = 0, timeouts = 0, held = 0,
           no_answer = 0, oversized = 0, skipped = 0;
  uint64_t unknown_server_errors = 0;  ///< Answers that decode with an error code -1.
  uint64_t trimmed = 0, short_frames = 0, bad_sizes = 0, no_prefix = 0;
  uint64_t checks_ok = 0, checks_failed = 0;
  uint64_t metadata_listed = 0, metadata_unlisted = 0, metadata_unanswered = 0;
  /// Timeouts that did not recur when the request was sent again on a fresh connection.
  uint64_t transient_timeouts = 0, stall_replays = 0;
  uint64_t rss_min = 0, rss_max = 0, rss_samples = 0;  ///< Bytes.
  bool broker_down = false;
  std::string stop_reason;            ///< Why it stopped before its bounds ("": it did not).
  uint64_t minimize_evaluations = 0;
  double seconds = 0;
  std::map<int16_t, ApiCounts> apis;
  std::vector<Finding> findings;
  std::vector<Observation> observations;
  /// Findings no expected signature matches.
  size_t Unexpected() const;
};

/// Runs a campaign (progress lines on `progress`). Never throws.
Report RunBrokerFuzz(const Options& options, std::ostream& progress);

/// The end-of-run summary: figures, per API, findings, observations.
std::string RenderSummary(const Report& r);

/// Writes into `dir` (created): findings.jsonl (one JSON object per finding: its request
/// and minimized request as hex, the answers, what happened, "replay" and "shell"
/// commands that send it again), finding-<n>.hex (the minimized request, for --replay),
/// signatures.txt (usable as --expected), observations.jsonl and summary.txt. False with
/// `error` when something cannot be written.
bool WriteOutputs(const Report& r, const std::string& dir, std::string& error);

/// 0 when the run ran and every finding is expected; 1 for findings (or a run that did
/// not finish its bounds because the broker went down); 2 when it could not start.
int ExitStatus(const Report& r);

/// `kwire broker-fuzz --replay FILE`: each frame of FILE (hex, one frame a line, '#'
/// comments; or, when the file is not hex, its bytes as one frame) sent on a fresh
/// connection and judged as in a campaign; one line each on `out`. With a broker pid, a
/// broker that exits after a frame is a finding (the frames after it are not sent). 0 no
/// finding, 1 findings, 2 the file cannot be read or the broker not reached.
int Replay(const Options& options, std::ostream& out, std::ostream& err);

/// `kwire broker-fuzz` after its options are parsed: a campaign (or --replay), with
/// SIGINT/SIGTERM ending it early (the second one kills), the summary on `out`, progress
/// on `err`, the files of --out. Returns ExitStatus (Replay's status with --replay).
int BrokerFuzzMain(const Options& options, std::ostream& out, std::ostream& err);

/// Reads a broker.env (tools/kafka-broker/broker.sh: KEY=VALUE lines) into `o`: the
/// broker from KWIRE_KAFKA_BOOTSTRAP (the PLAINTEXT listener), the pid from
/// KWIRE_KAFKA_PID. kNotFound when the file cannot be read, kInvalidArgument when it
/// lacks them.
absl::Status ReadBrokerEnv(const std::string& path, Options& o);

/// Turns `kwire broker-fuzz`'s options (name without "--" to value; repeatable options'
/// values joined by '\n'; `flags` the flags given) into `o`. `default_seeds` when no
/// --seeds. False with `error` (a usage error) otherwise.
bool ParseOptions(const std::map<std::string, std::string>& values, const std::set<std::string>& flags,
                  const std::vector<std::string>& default_seeds, Options& o, std::string& error);

/// Valued options, flags and repeatable options of `kwire broker-fuzz`.
const std::set<std::string>& ValuedOptions();
const std::set<std::string>& FlagOptions();
const std::set<std::string>& RepeatableOptions();

/// `kwire broker-fuzz --help`.
extern const char* const kUsage;

}  // namespace kwire::brokerfuzz

#endif  // KWIRE_TOOLS_BROKERFUZZ_BROKERFUZZ_H_
