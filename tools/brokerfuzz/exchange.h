// One mutated request sent to a live broker, and the verdict on what came back
// (`kwire broker-fuzz`, brokerfuzz.h). A broker may answer a request with a frame that
// decodes strictly as the response to it (its API and version, the request's correlation
// id), or close the connection (Kafka closes on a request it cannot parse:
// RequestContext.parseRequest, SocketServer's InvalidRequestException); anything else is
// a finding: an answer that does not decode, another correlation id, an answer to a frame
// the broker cannot have read whole, no answer nor close within the timeout, an answer
// cut short.
//
// Some requests are answered by nothing, or later than the timeout, by design: a Produce
// request with acks = 0 (protocol guide), and requests a broker parks in purgatory (Fetch
// and ShareFetch up to MaxWaitMs, ElectLeaders up to TimeoutMs, JoinGroup and SyncGroup
// until the group's rebalance is done). After a Produce request an ApiVersions request
// (the probe) follows on the same connection: a broker answers a connection's requests
// in order, one at a time (it mutes the channel until the response is sent), so the
// probe's answer without the Produce answer shows that the broker chose not to answer.
// Parked requests that outlast the timeout are "held", not stalls.
#ifndef KWIRE_TOOLS_BROKERFUZZ_EXCHANGE_H_
#define KWIRE_TOOLS_BROKERFUZZ_EXCHANGE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codec/protocol/correlator.h"
#include "tools/brokerfuzz/net.h"
#include "tools/diff/compare.h"
#include "tools/diff/mutants.h"

namespace kwire::brokerfuzz {

/// The broker's advertised versions: API key to (min, max), from its ApiVersions answer.
using ApiRanges = std::map<int16_t, std::pair<int16_t, int16_t>>;

/// Kafka's socket.request.max.bytes default: a larger size prefix is refused (the
/// connection closed) before the frame is read (NetworkReceive's InvalidReceiveException).
inline constexpr int64_t kBrokerMaxRequestSize = 104857600;

/// How the bytes of a mutant are framed, as the broker sees them.
enum class Framing : uint8_t {
  kWhole,    ///< A size prefix that counts the bytes sent (trimmed to it when it counted fewer).
  kShort,    ///< The size prefix counts more bytes than sent: the write side is closed after them.
  kBadSize,  ///< A negative size prefix or one above kBrokerMaxRequestSize: refused unread.
  kNoPrefix, ///< Fewer than 4 bytes: the write side is closed after them.
};
/// "whole", "short", "bad size", "no prefix".
const char* FramingName(Framing f);

/// What is sent for one mutant and what may come back.
struct Plan {
  diff::Mutant mutant;         ///< As made (its steps); `bytes` may be shorter.
  std::vector<uint8_t> bytes;  ///< What is sent.
  Framing framing = Framing::kWhole;
  bool trimmed = false;        ///< The mutant's size prefix counted fewer bytes: cut to it.
  /// The request header's first fields (bytes 4–11 of `bytes`), when a kWhole frame has them.
  std::optional<RequestIds> ids;
  /// kwire's strict reading of `bytes` as a broker reads it (diff::KwireView: "accepted",
  /// "refused <kind>", or the decode error's kind, offset and path).
  diff::LocalView strict;
  /// Whether kwire reads it as the broker does: with every Java quirk (ReadRequestAsBroker,
  /// records opaque), bytes after the body ignored.
  bool java_reads = false;
  /// Whether an answer is due: false for Produce with acks = 0 as Java reads it.
  bool expects_answer = true;
  /// A Produce request whose acks kwire cannot read: an answer may come or not.
  bool answer_uncertain = false;
  /// An ApiVersions request follows the mutant (Produce requests; kWhole only).
  bool probe = false;
  int32_t probe_id = 0;
  /// How long the broker may hold the request by design, in ms (nullopt: not at all;
  /// INT64_MAX: unbounded, JoinGroup/SyncGroup, or a parking API kwire cannot read).
  std::optional<int64_t> hold_ms;
  /// The trigger of a known Apache Kafka 4.4.0 fault that the request has, as Java reads
  /// it (KnownShape), or "": added to a stall's signature so that an expected-findings
  /// file can name that fault alone.
  std::string shape;
};

/// The trigger of a known Apache Kafka 4.4.0 fault in a request (tools/kafka-broker/
/// FAILURES.md): "null records" (Produce: a partition whose records are null; B1),
/// "no transactions" (AddPartitionsToTxn v4+ with an empty Transactions array),
/// "duplicate resource" (AlterConfigs naming one resource twice, unknown resource types
/// all being one), "duplicate partition" (WriteTxnMarkers: a marker naming one partition
/// twice); "" when none.
std::string KnownShape(const RequestFrame& request);

/// Makes the plan for mutant `m` (a request).
Plan MakePlan(diff::Mutant m);

/// The kinds of findings.
enum class FindingKind : uint8_t {
  kUndecodable,      ///< An answer that does not decode strictly as the response.
  kNotCanonical,     ///< An answer that decodes but does not re-encode to its bytes.
  kCorrelation,      ///< An answer whose correlation id is not the request's.
  kStall,            ///< Neither an answer nor a close within the timeout.
  kUnexpectedAnswer, ///< An answer to a frame the broker cannot have read whole, or to acks = 0.
  kUnanswered,       ///< No answer to a request that asks for one, the next request answered.
  kTruncatedAnswer,  ///< The connection closed inside an answer.
  kApiVersions,      ///< ApiVersions on a fresh connection failed.
  kBrokerDown,       ///< The broker process exited or refuses connections.
  kRss,              ///< The broker's resident memory passed --max-rss.
  kUnregistered,     ///< The broker no longer lists itself (or any broker) in Metadata.
};
/// "undecodable", "not_canonical", "correlation", "stall", "unexpected_answer",
/// "unanswered", "truncated_answer", "apiversions", "broker_down", "rss", "unregistered".
const char* FindingKindName(FindingKind k);

/// One finding of one exchange.
struct Hit {
  FindingKind kind;
  std::string where;   ///< The signature's tail: "truncated @ Topics[].Name", "accepted", ...
  std::string detail;  ///< A sentence for people (offsets, ids, sizes, times).
};

/// What became of one mutant.
struct Outcome {
  bool answered = false;     ///< The mutant's answer came and decodes strictly.
  bool answered_bad = false; ///< The mutant's answer came and does not decode (a finding).
  bool closed = false;       ///< The broker closed the connection (before or after answering).
  bool timed_out = false;    ///< The timeout passed (a stall, or held).
  bool held = false;         ///< ... on a request the broker may hold that long.
  bool no_answer = false;    ///< The probe was answered, the mutant not (acks = 0).
  bool oversized = false;    ///< An answer above the --max-answer bound (not read).
  /// A timeout that did not recur on a fresh connection (set by the campaign).
  bool transient = false;
  bool reusable = false;     ///< The connection can carry the next request.
  /// The answer decodes and one of its error codes is -1, UNKNOWN_SERVER_ERROR (the
  /// broker hit an exception it did not expect): that field's path ("" when none).
  std::string unknown_server_error;
  std::vector<Hit> hits;
  std::vector<std::vector<uint8_t>> answers;  ///< Frames read (each cut to 64 KiB).
  std::string happened;      ///< One line: "answered (MetadataResponse v12, 93 bytes)", "closed", ...
  double seconds = 0;        ///< From the first byte sent to the end.
};

/// How exchanges run.
struct ExchangeOptions {
  double timeout_seconds = 10;
  size_t max_answer_bytes = size_t{64} << 20;
};

/// Sends `p` on `c` and judges what comes back within the timeout.
Outcome Exchange(Connection& c, const Plan& p, const ExchangeOptions& o);

/// The outcome of an ApiVersions request (v3, correlation id `correlation_id`) on a fresh
/// connection to `broker`: ok when it is answered within the timeout by a response that
/// decodes strictly with error code 0; `detail` says why not; `ranges` holds the versions
/// the broker advertises; `refused` when nothing listens.
struct ApiVersionsCheck {
  bool ok = false;
  bool refused = false;
  std::string reason;  ///< "connect", "closed", "timeout", "undecodable", "error N", "correlation".
  std::string detail;
  ApiRanges ranges;
  double seconds = 0;
};
ApiVersionsCheck CheckApiVersions(const proxy::Endpoint& broker, int32_t correlation_id,
                                  const ExchangeOptions& o);

/// Whether the broker still lists a broker in its metadata: a Metadata v12 request for no
/// topic on a fresh connection, answered within the timeout by a response that decodes
/// strictly. `brokers` is the number of brokers it lists (a broker whose registration the
/// controller dropped, or that is fenced, lists none: it cannot lead a partition).
struct MetadataCheck {
  bool answered = false;
  size_t brokers = 0;
  std::string detail;
};
MetadataCheck CheckMetadata(const proxy::Endpoint& broker, int32_t correlation_id, const ExchangeOptions& o);

/// The ApiVersions request the checks and probes send: v3, ClientSoftwareName
/// "kwire-broker-fuzz", ClientSoftwareVersion "1".
std::vector<uint8_t> ApiVersionsRequestFrame(int32_t correlation_id);

}  // namespace kwire::brokerfuzz

#endif  // KWIRE_TOOLS_BROKERFUZZ_EXCHANGE_H_
