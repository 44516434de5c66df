// Pairing responses with the requests they answer.
//
// A response header carries only a correlation id (protocol guide, "Response Header"): what
// API and version its body is, and which response header version it has, is known only
// from the request with the same id (protocol guide, "Requests and Responses": the client
// sets `correlation_id` in each request header, the broker echoes it; a broker answers the
// requests of one connection in the order they were sent). Anything that reads both
// directions of a connection (a proxy, a capture reader, `kwire decode response
// --requests`) keeps a Correlator per connection.
#ifndef KWIRE_CODEC_PROTOCOL_CORRELATOR_H_
#define KWIRE_CODEC_PROTOCOL_CORRELATOR_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "codec/protocol/frame.h"

namespace kwire {

/// The fields every request header version starts with (protocol guide, "Request Header":
/// request_api_key INT16, request_api_version INT16, correlation_id INT32).
struct RequestIds {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  friend bool operator==(const RequestIds&, const RequestIds&) = default;
};

/// Reads bytes 4–11 of a request frame (after its 4-byte size prefix) without checking
/// anything else; nullopt when the frame is shorter than 12 bytes.
std::optional<RequestIds> PeekRequestIds(std::span<const uint8_t> frame);

/// Reads bytes 4–7 of a response frame, its correlation id; nullopt when it is shorter
/// than 8 bytes.
std::optional<int32_t> PeekResponseCorrelationId(std::span<const uint8_t> frame);

/// Whether a broker answers this decoded request at all: false only for a Produce
/// request with acks = 0 (protocol guide, "Produce API": "the server will not send any
/// response"; Kafka's KafkaApis.handleProduceRequest, `produceRequest.acks == 0`).
bool ExpectsResponse(const RequestFrame& request);

/// The requests of one connection that await their response, and the matching of each
/// response to one of them. Bounded: at most Options::max_pending entries (16 bytes each).
/// Not thread-safe (one per connection and direction pair).
class Correlator {
 public:
  struct Options {
    /// Requests awaiting a response at most; AddRequest fails with kResourceExhausted past
    /// it (a proxy's bound per connection; Kafka clients keep 5 in flight by default,
    /// `max.in.flight.requests.per.connection`).
    size_t max_pending = 4096;
    /// A broker answers in request order: a response also settles the requests sent
    /// before the one it answers (never answered: Produce with acks = 0 that the caller
    /// did not skip, or requests the broker dropped with the connection), counted in
    /// Match::skipped. false: matched by correlation id alone, in any order (a file of
    /// requests given beside a file of responses).
    bool in_order = true;
  };

  Correlator() : Correlator(Options()) {}
  explicit Correlator(Options options) : options_(options) {}

  /// Records that `request` awaits a response. kResourceExhausted when max_pending are
  /// already waiting (nothing recorded).
  [[nodiscard]] absl::Status AddRequest(const RequestIds& request);
  /// The same from a request frame's header; kInvalidArgument when it is shorter than
  /// the 12 bytes every request header starts with.
  [[nodiscard]] absl::Status AddRequestFrame(std::span<const uint8_t> frame);

  /// A response matched to its request.
  struct Match {
    RequestIds request;
    /// In-order mode: requests sent before it that will never be answered (now dropped).
    size_t skipped = 0;
  };
  /// The pending request with this correlation id (the oldest, if the client reused an
  /// id), removed. kNotFound when none waits: the response answers nothing we saw.
  [[nodiscard]] absl::StatusOr<Match> TakeResponse(int32_t correlation_id);
  /// The same from a response frame's header; kInvalidArgument when it is shorter than 8
  /// bytes.
  [[nodiscard]] absl::StatusOr<Match> TakeResponseFrame(std::span<const uint8_t> frame);

  /// Requests awaiting a response.
  size_t pending() const { return pending_.size(); }

 private:
  Options options_;
  std::deque<RequestIds> pending_;
};

}  // namespace kwire

#endif  // KWIRE_CODEC_PROTOCOL_CORRELATOR_H_
