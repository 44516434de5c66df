// The sockets of `kwire broker-fuzz`: one TCP connection to a broker on loopback, frames
// written and read with poll(2) deadlines (a broker that neither answers nor closes never
// blocks the caller past the deadline). Frames are read whole, one at a time, by their
// int32 size prefix, up to a bound (memory per connection: one frame).
#ifndef KWIRE_TOOLS_BROKERFUZZ_NET_H_
#define KWIRE_TOOLS_BROKERFUZZ_NET_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/proxy/proxy.h"

namespace kwire::brokerfuzz {

using Clock = std::chrono::steady_clock;

/// `seconds` from now (a negative or zero duration is now).
Clock::time_point Deadline(double seconds);

/// One TCP connection; the descriptor is closed on destruction. Move-only.
class Connection {
 public:
  Connection() = default;
  ~Connection();
  Connection(Connection&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Connection& operator=(Connection&& o) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Connects to `e` within `timeout_seconds`. The host must be loopback
  /// (proxy::IsLoopbackHost, and every address it resolves to): kInvalidArgument
  /// otherwise, or when it does not resolve. kUnavailable when the broker refuses the
  /// connection (nothing listens: a broker that went down), kDeadlineExceeded when the
  /// connect does not complete in time.
  static absl::StatusOr<Connection> Open(const proxy::Endpoint& e, double timeout_seconds);

  /// What a write or a read came to.
  enum class Io : uint8_t {
    kOk,
    kClosed,     ///< The peer closed or reset the connection (EOF, EPIPE, ECONNRESET).
    kTimeout,    ///< The deadline passed first.
  };

  /// Writes every byte of `bytes` before `deadline` (never raises SIGPIPE).
  Io Send(std::span<const uint8_t> bytes, Clock::time_point deadline);
  /// Half-closes: the broker reads EOF after what was sent.
  void ShutdownWrite();

  /// One frame read, or why there is none.
  struct Read {
    enum What : uint8_t {
      kFrame,      ///< `frame` holds a whole frame, size prefix included.
      kClosed,     ///< EOF or reset before the first byte of a frame.
      kTimeout,    ///< The deadline passed (`received` bytes of a frame had come).
      kTruncated,  ///< EOF or reset inside a frame (`received` bytes of it came).
      kBadSize,    ///< A negative size prefix (`size`); the connection is unusable.
      kOversized,  ///< A size prefix above the bound (`size`); the rest is not read.
    } what = kClosed;
    std::vector<uint8_t> frame;
    int64_t size = 0;       ///< The size prefix, when four bytes of it came.
    size_t received = 0;    ///< Bytes of the frame received (kTimeout, kTruncated).
  };
  /// Reads one frame whose size prefix is at most `max_size`, before `deadline`. Reads
  /// only that frame's bytes: a frame after it stays in the socket.
  Read ReadFrame(Clock::time_point deadline, size_t max_size);

  bool open() const { return fd_ >= 0; }

 private:
  explicit Connection(int fd) : fd_(fd) {}
  // Reads exactly n bytes into out; kOk, kClosed (EOF/reset, *got bytes came) or kTimeout.
  Io ReadExactly(uint8_t* out, size_t n, Clock::time_point deadline, size_t* got);
  int fd_ = -1;
};

/// The resident memory of process `pid` in bytes (VmRSS of /proc/<pid>/status); 0 when
/// it cannot be read (no such process, not Linux).
uint64_t ProcessRssBytes(int pid);

/// Whether process `pid` exists (kill(pid, 0); a zombie counts as gone).
bool ProcessAlive(int pid);

}  // namespace kwire::brokerfuzz

#endif  // KWIRE_TOOLS_BROKERFUZZ_NET_H_
