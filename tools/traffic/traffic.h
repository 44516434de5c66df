// Checking the frames of live connections: each request and response of a connection,
// as a proxy forwards them or a capture holds them, decoded, re-encoded and judged, with
// responses typed by the request they answer (codec/protocol/correlator.h). Shared by
// `kwire proxy` (tools/proxy) and capture reading; the codec does the work, this room
// keeps the per-connection state, the verdicts and the report (JSON lines and a summary
// per API x version).
#ifndef KWIRE_TOOLS_TRAFFIC_TRAFFIC_H_
#define KWIRE_TOOLS_TRAFFIC_TRAFFIC_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/wire/error.h"
#include "tools/json/json.h"

namespace kwire::traffic {

/// How frames are checked.
struct CheckOptions {
  /// DecodeOptions::quirks (0: strict; kQuirksJava: what Apache Kafka's Java reads).
  uint32_t quirks = 0;
  /// Records fields validated (default) or kept opaque.
  RecordsMode records = RecordsMode::kValidate;
  /// Largest size prefix accepted (Kafka's socket.request.max.bytes default, 100 MiB).
  int32_t max_frame_size = kDefaultMaxFrameSize;
  /// Requests of one connection awaiting their response at most (Correlator::Options).
  size_t max_pending = 4096;
};

/// Which way a frame went.
enum class Way : uint8_t { kRequest, kResponse };

/// The verdict on one frame.
enum class Verdict : uint8_t {
  kOk,            ///< decodes and re-encodes to the same bytes
  kRefused,       ///< a request a broker reads but refuses in part (ReadRequestAsBroker)
  kRejected,      ///< does not decode (error: kind, offset, path)
  kNotCanonical,  ///< decodes, but re-encodes to other bytes (first_difference)
  kUncorrelated,  ///< a response no request we saw awaits: its type is unknown
  kOpaque,        ///< not a Kafka message: a raw SASL token (SaslHandshake v0)
  kUnchecked,     ///< forwarded without a check (`kwire proxy --check off`)
};
/// "ok", "refused", "rejected", "not_canonical", "uncorrelated", "opaque", "unchecked".
const char* VerdictName(Verdict v);
/// Whether a frame with this verdict conforms (kOk, kRefused and kOpaque do) or at least
/// fails nothing (kUnchecked).
bool Conforms(Verdict v);

/// What became of one frame.
struct FrameReport {
  uint64_t connection = 0;
  Way way = Way::kRequest;
  int16_t api_key = -1;       ///< -1 when unknown (a response nobody asked for, a token)
  int16_t api_version = -1;
  int16_t body_version = -1;  ///< ApiVersions read as the KIP-511 v0 fallback: 0
  int32_t correlation_id = 0;
  bool correlation_id_read = false;  ///< false: too short to hold one (0 above means nothing)
  size_t size = 0;            ///< bytes, size prefix included
  Verdict verdict = Verdict::kOk;
  std::optional<Error> error;          ///< kRejected: the codec's error
  std::string message;                 ///< kRejected / kUncorrelated / kNotCanonical: text
  size_t first_difference = 0;         ///< kNotCanonical: first byte that differs
  std::vector<Refusal> refusals;       ///< kRefused
  size_t skipped = 0;                  ///< responses: requests before it never answered
};

/// The report of one frame as one JSON object: {"connection", "direction", "api_key",
/// "api" (only for an API key kwire knows), "version", "correlation_id" (only when one
/// was read), "size", "verdict", and as they apply "error"
/// ({"kind", "offset", "path", "message"}), "first_difference", "refusals",
/// "body_version", "unanswered"}.
Json ReportJson(const FrameReport& r);

/// The state of one connection: the requests awaiting a response, and whether it is in
/// a SaslHandshake v0 exchange (raw SASL tokens follow the handshake response: KIP-43;
/// Kafka's SaslServerAuthenticator).
class ConnectionCheck {
 public:
  ConnectionCheck(uint64_t connection, const CheckOptions& options);

  /// Checks one request frame (size prefix included). When `decoded` is given and the
  /// frame decodes, the decoded frame is moved into it.
  FrameReport OnRequest(std::span<const uint8_t> frame, std::optional<RequestFrame>* decoded = nullptr);
  /// Checks one response frame. When `decoded` is given and it decodes, the decoded frame
  /// is moved into it (with the api key and version it was read at in the report).
  FrameReport OnResponse(std::span<const uint8_t> frame,
                         std::optional<ResponseFrame>* decoded = nullptr);

  /// Requests awaiting a response.
  size_t pending() const { return correlator_.pending(); }

 private:
  uint64_t connection_;
  CheckOptions options_;
  FrameOptions frame_options_;
  Correlator correlator_;
  // SaslHandshake v0: set by its request, armed by its response (error 0); then raw
  // tokens pass until a client frame decodes as a request again.
  std::optional<int32_t> sasl_v0_handshake_;
  bool raw_sasl_ = false;
  size_t raw_tokens_unanswered_ = 0;
};

/// Counts per API x version x direction and verdict, for the end of a run.
class Summary {
 public:
  void Add(const FrameReport& r);
  /// Frames that do not conform (Conforms false).
  size_t failures() const { return failures_; }
  size_t frames() const { return frames_; }
  /// One line per API x version x direction: frames, conforming, each failing verdict.
  std::string Table() const;
  /// {"frames", "failures", "apis": [{"api_key", "api", "version", "direction", "frames",
  /// "verdicts": {...}}]}
  Json ToJson() const;

 private:
  struct Key {
    int16_t api_key, version;
    Way way;
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, std::map<Verdict, size_t>> counts_;
  size_t frames_ = 0, failures_ = 0;
};

}  // namespace kwire::traffic

#endif  // KWIRE_TOOLS_TRAFFIC_TRAFFIC_H_
