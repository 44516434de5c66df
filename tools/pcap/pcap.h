// `kwire pcap`: the Kafka frames of a packet capture checked as `kwire proxy` checks them
// live (tools/traffic). A pcap or pcapng file is read by libpcap (pcap_open_offline), each
// packet's IPv4/IPv6 and TCP headers by libtins, and its TCP streams are reassembled in
// both directions by libtins' Tins::TCPIP::StreamFollower (retransmitted bytes trimmed,
// out-of-order segments held until the hole before them is filled). A stream is Kafka
// when its server port is one of Options::ports, or, with no ports given, when its first
// client bytes are a plausible request header (a known API key and version, a size within
// the largest frame, a sane client id length). Each Kafka stream gets its own
// traffic::ConnectionCheck: client-to-server frames are checked as requests,
// server-to-client frames as responses typed by the request with their correlation id.
//
// What a capture can lack, and what becomes of it (each reported as an event):
//  - the stream's start (the capture began mid-connection, no SYN): each direction is
//    checked from the first segment that starts with a plausible frame (a request header;
//    a response answering a request seen); bytes before are skipped. If that first frame
//    does not decode it was no frame boundary after all: the stream is "not_checkable".
//  - a segment (lost by the capture, or cut by its snap length): "gap", and checking that
//    stream ends, so the frames after the hole are not misread. A lost segment shows as
//    the peer acknowledging bytes the capture does not have, as data held after a hole at
//    the end of the stream, or as libtins giving up on a stream holding too much.
//  - the stream's end: "close" (FIN both ways, or RST) or "end" (the capture ended).
//
// Memory is bounded: a direction holds at most one incomplete frame (max_frame_size), all
// streams together at most Options::max_buffered bytes (incomplete frames and libtins'
// out-of-order segments; a stream that would exceed it ends), and at most max_streams
// streams are followed at once.
#ifndef KWIRE_TOOLS_PCAP_PCAP_H_
#define KWIRE_TOOLS_PCAP_PCAP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/json/json.h"
#include "tools/traffic/traffic.h"

namespace kwire::pcap {

/// How a capture is read and checked.
struct Options {
  /// How each frame is checked (quirks, records, max_frame_size, max_pending).
  traffic::CheckOptions check;
  /// Kafka server ports: a TCP stream is checked when either end has one of them (the end
  /// with the port is the broker). Empty: streams are guessed from their first bytes.
  std::vector<uint16_t> ports;
  /// Stop reading at the first frame that does not conform, or the first stream whose
  /// bytes cannot be split into frames (Result::stopped).
  bool fail_fast = false;
  /// TCP streams followed at once at most (any TCP stream, Kafka or not, until it closes);
  /// packets that would open more are skipped and counted (CaptureStats::skipped_streams).
  size_t max_streams = 65536;
  /// Bytes held at once, all streams together: incomplete frames and segments waiting for
  /// an earlier one. A stream that would hold more ends (event "memory").
  size_t max_buffered = size_t{1} << 30;
  /// A stream whose start the capture lacks: bytes skipped per direction, looking for a
  /// frame boundary, before it is declared not checkable (or, guessing, not Kafka).
  size_t max_resync_bytes = size_t{1} << 20;
  /// Each frame's report also carries its bytes ("frame": lowercase hex), as `kwire proxy
  /// --frames` does.
  bool include_frames = false;
  /// Called with each frame's report: traffic::ReportJson plus "client" and "server"
  /// ("address:port" of the Kafka client and broker; IPv6 as "[addr]:port") and "time"
  /// (the capture time of the packet that completed the frame, UTC, ISO 8601 with
  /// nanoseconds); and with events ({"event": "stream", "close", "end", "gap",
  /// "mid_stream", "not_checkable", "stream_error", "memory", "too_many_streams",
  /// "capture_error"}, with "connection", "client", "server", "time" where they apply).
  std::function<void(const Json&)> on_report;
};

/// What the capture held, besides the frames (Result::summary counts those).
struct CaptureStats {
  uint64_t packets = 0;              ///< packets read
  uint64_t tcp_packets = 0;          ///< of them IPv4/IPv6 TCP segments
  uint64_t undecodable_packets = 0;  ///< link, IP or TCP headers libtins could not read
  uint64_t truncated_packets = 0;    ///< TCP segments cut by the snap length (not used)
  uint64_t streams = 0;              ///< TCP streams seen
  uint64_t kafka_streams = 0;        ///< of them checked (connection ids 1..n)
  uint64_t guessed_streams = 0;      ///< of the checked ones, guessed from their first bytes
  uint64_t partial_streams = 0;      ///< of the checked ones, begun before the capture
  uint64_t other_streams = 0;        ///< not Kafka (other port, or not guessed)
  uint64_t not_checkable = 0;        ///< Kafka streams never found at a frame boundary
  uint64_t gaps = 0;                 ///< Kafka streams ended by bytes missing from the capture
  uint64_t memory_limited = 0;       ///< Kafka streams ended by Options::max_buffered
  uint64_t stream_errors = 0;        ///< Kafka streams with a size prefix SplitFrame refuses
  uint64_t skipped_streams = 0;      ///< streams not followed: max_streams reached
  /// libpcap's error when the file could not be read to its end (a corrupt or truncated
  /// capture), with the packet number; empty when it was read whole.
  std::string capture_error;
  /// {"packets", "tcp_packets", ..., "capture_error"}: the members above.
  Json ToJson() const;
  /// One line for people, e.g. "capture: 120 packets, 3 TCP streams: 2 Kafka (1 guessed)".
  std::string Line() const;
};

/// The outcome of reading a capture.
struct Result {
  traffic::Summary summary;
  CaptureStats stats;
  /// fail_fast stopped the reading early.
  bool stopped = false;
  /// Every frame conformed, every Kafka stream could be split into frames, and the file
  /// was read to its end.
  bool ok() const {
    return summary.failures() == 0 && stats.stream_errors == 0 && stats.capture_error.empty();
  }
};

/// Reads the capture at `path` (pcap or pcapng; link types Ethernet, raw IP, BSD/Linux
/// loopback, Linux cooked v1/v2) and checks its Kafka streams. Errors, when nothing could
/// be read: kNotFound / kInvalidArgument with libpcap's message (a missing file, not a
/// capture, a corrupt header), kUnimplemented for another link type. A capture corrupt or
/// cut short later is read up to there: CaptureStats::capture_error, event
/// "capture_error".
absl::StatusOr<Result> CheckCapture(const std::string& path, const Options& options);

/// What `kwire pcap` runs: CheckCapture with each report as one JSON line on `log`, then
/// the summary per API x version x direction and the capture line on `err` (with
/// `summary_json` not empty, also as JSON to that file: Summary::ToJson plus "capture":
/// CaptureStats::ToJson). Returns 0 when Result::ok(), 1 otherwise, 2 when the capture
/// cannot be opened (the reason on `err`).
int Run(const std::string& path, Options options, std::ostream& log, std::ostream& err,
        const std::string& summary_json);

}  // namespace kwire::pcap

#endif  // KWIRE_TOOLS_PCAP_PCAP_H_
