// `kwire proxy`: a checking TCP proxy for the Kafka protocol, on loopback. Every byte a
// client sends is forwarded to the broker and every byte the broker answers is forwarded
// back, unchanged, while each frame is checked (tools/traffic: decoded, re-encoded,
// refusals, responses typed by their request's correlation id) and reported. The one
// change it makes: broker addresses advertised in responses (address_rewrite.h) are
// rewritten to listeners of the proxy, one per advertised broker, so that a client
// bootstrapped on the proxy stays on it; those responses are re-encoded by the codec.
//
// Threads: Boost.Asio. One I/O thread reads, splits frames and writes; the checks run on
// a pool of worker threads (Options::check_threads), each connection's in order on a
// strand of its own, so a connection whose frames take long to check (60 MB of gzip
// batches) delays no other connection. Requests are forwarded as soon as they are whole
// and checked behind; responses are checked first and then forwarded, since one that
// advertises brokers is rewritten. Reports and the summary are made on the I/O thread, in
// each connection's frame order.
//
// Memory per connection is bounded: a frame is held until it is whole (at most
// max_frame_size bytes plus one read), reading from a side stops until what was read from
// it is written to the other side (back-pressure), requests waiting for their check hold
// at most max_frame_size bytes more (then the client is not read until they are checked),
// and the requests awaiting a response are bounded (CheckOptions::max_pending). A frame
// whose size prefix is negative or too large ends that connection only.
#ifndef KWIRE_TOOLS_PROXY_PROXY_H_
#define KWIRE_TOOLS_PROXY_PROXY_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/json/json.h"
#include "tools/traffic/traffic.h"

namespace boost::asio {
class io_context;
class thread_pool;
}

namespace kwire::proxy {

/// A host and port; the host must be a loopback name or address (127.0.0.0/8, ::1,
/// "localhost"): the proxy neither listens nor connects anywhere else.
struct Endpoint {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
};

/// "host:port" ("[::1]:9092" for IPv6) into an Endpoint; kInvalidArgument otherwise.
absl::StatusOr<Endpoint> ParseEndpoint(const std::string& text);

struct Options {
  /// Where clients connect (port 0: any free port; Proxy::port() tells).
  Endpoint listen;
  /// The broker clients bootstrap from.
  Endpoint broker;
  traffic::CheckOptions check;
  /// false: frames are split, correlated and forwarded, and only the responses that
  /// advertise brokers are decoded (to rewrite them); no check, no per-frame report
  /// (`kwire proxy --check off`: the cost of the relay itself, issue 32 item 6).
  bool check_frames = true;
  /// Worker threads for the checks (0: one per hardware thread).
  size_t check_threads = 0;
  /// Advertised broker addresses rewritten to the proxy's listeners.
  bool rewrite_addresses = true;
  /// Stop at the first frame that does not conform (Proxy::failed()).
  bool fail_fast = false;
  /// Each frame's report also carries the frame's bytes as lowercase hex ("frame"), as the
  /// peer sent it (for the `live` vector set: tools/proxy/live_vectors.py).
  bool include_frames = false;
  /// Client connections at once; more are accepted and closed at once.
  size_t max_connections = 1024;
  /// Listeners for advertised brokers at most (beyond: addresses left as they are).
  size_t max_listeners = 64;
  /// Called with each frame's report (traffic::ReportJson, plus "rewritten" when the
  /// proxy re-encoded it) and with connection events ({"event": ...}).
  std::function<void(const Json&)> on_report;
  /// Called once when the proxy stops (Stop, or fail-fast).
  std::function<void()> on_stop;
  /// Called on a worker thread before each check of a connection's frames (tests use it
  /// to hold one connection's checks and show that the others go on).
  std::function<void(uint64_t connection)> before_check;
};

/// The proxy. Start() binds the first listener; the io_context runs it (one thread); the
/// checks run on the proxy's own worker threads, which keep the io_context busy until
/// their results are reported. Not thread-safe: use it from the io_context's thread.
class Proxy {
 public:
  Proxy(boost::asio::io_context& io, Options options);
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  /// Binds and starts accepting. kInvalidArgument for a host that is not loopback,
  /// kUnavailable when the address cannot be bound.
  absl::Status Start();
  /// The port of the first listener (after Start).
  uint16_t port() const;
  /// Closes every listener and connection; the io_context then runs out of work.
  void Stop();
  /// Counts per API x version x direction and verdict so far.
  const traffic::Summary& summary() const;
  /// Fail-fast stopped the proxy at a frame that does not conform.
  bool failed() const;
  /// Streams that could not be split into frames (a bad size prefix, or a side that
  /// closed inside a frame); each also fails the run (failed()).
  size_t stream_errors() const;
  /// Client connections accepted so far.
  uint64_t connections() const;

  struct Impl;  // proxy.cc

 private:
  std::unique_ptr<boost::asio::thread_pool> pool_;  // the checks; joined last
  std::shared_ptr<Impl> impl_;
};

/// True for a loopback host: "localhost", 127.0.0.0/8, ::1.
bool IsLoopbackHost(const std::string& host);

/// What `kwire proxy` runs: a Proxy on its own io_context until SIGINT, SIGTERM or
/// SIGHUP (or, with fail_fast, the first frame that does not conform). Each report is one
/// JSON line on `log`; `port_file`, when not empty, receives the first listener's port
/// once it listens (for scripts: no waiting on a timer). At the end the summary table
/// goes to `err` (and, with `summary_json`, as JSON to that file). Returns 0 when every
/// frame conformed, 1 otherwise, 2 when it cannot start (the reason on `err`).
int RunUntilSignal(Options options, std::ostream& log, std::ostream& err,
                   const std::string& port_file, const std::string& summary_json);

}  // namespace kwire::proxy

#endif  // KWIRE_TOOLS_PROXY_PROXY_H_
