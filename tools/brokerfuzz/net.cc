// Sockets of `kwire broker-fuzz` (net.h).
#include "tools/brokerfuzz/net.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "codec/wire/port.h"

namespace kwire::brokerfuzz {
namespace {

// Milliseconds left until `deadline`, for poll(2): 0 when it has passed.
int MillisLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Waits for `events` on fd until the deadline: true when ready (or an error/hang-up is
// pending, which the next call reports), false at the deadline.
bool Wait(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int ms = MillisLeft(deadline);
    const int n = poll(&p, 1, ms);
    if (n > 0) return true;
    if (n == 0) {
      if (Clock::now() >= deadline) return false;
      continue;  // poll's rounding: try again until the deadline really passed
    }
    if (errno != EINTR) return true;  // let the read/write report it
  }
}


}  // namespace

Clock::time_point Deadline(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<int64_t>(std::max(0.0, seconds) * 1e6));
}

Connection::~Connection() {
  if (fd_ >= 0) close(fd_);
}

Connection& Connection::operator=(Connection&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

absl::StatusOr<Connection> Connection::Open(const proxy::Endpoint& e, double timeout_seconds) {
  if (!proxy::IsLoopbackHost(e.host)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", e.host, "' is not a loopback address: kwire broker-fuzz connects to loopback only"));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(e.port);
  if (const int rc = getaddrinfo(e.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot resolve '", e.host, "': ", gai_strerror(rc)));
  }
  const Clock::time_point deadline = Deadline(timeout_seconds);
  absl::Status last = absl::InvalidArgumentError(absl::StrCat("'", e.host, "' resolves to no loopback address"));
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    // Every address must be loopback too (a name could resolve elsewhere).
    bool loopback = false;
    if (a->ai_family == AF_INET) {
      loopback = (ntohl(reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      loopback = IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    }
    if (!loopback) continue;
    const int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last = absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
      continue;
    }
    Connection c(fd);
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (!Wait(fd, POLLOUT, deadline)) {
        last = absl::DeadlineExceededError(absl::StrCat("connecting to ", e.host, ":", e.port, " took over ",
                                                        timeout_seconds, " s"));
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      errno = err;
      rc = err == 0 ? 0 : -1;
    }
    if (rc != 0) {
      const std::string what = absl::StrCat("connect to ", e.host, ":", e.port, ": ", std::strerror(errno));
      last = errno == ECONNREFUSED ? absl::UnavailableError(what) : absl::InternalError(what);
      continue;
    }
    freeaddrinfo(res);
    return c;
  }
  freeaddrinfo(res);
  return last;
}

Connection::Io Connection::Send(std::span<const uint8_t> bytes, Clock::time_point deadline) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!Wait(fd_, POLLOUT, deadline)) return Io::kTimeout;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return Io::kClosed;  // EPIPE, ECONNRESET, or anything else that ends the connection
  }
  return Io::kOk;
}

void Connection::ShutdownWrite() {
  if (fd_ >= 0) shutdown(fd_, SHUT_WR);
}

Connection::Io Connection::ReadExactly(uint8_t* out, size_t n, Clock::time_point deadline, size_t* got) {
  *got = 0;
  while (*got < n) {
    const ssize_t r = recv(fd_, out + *got, n - *got, 0);
    if (r > 0) {
      *got += static_cast<size_t>(r);
      continue;
    }
    if (r == 0) return Io::kClosed;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!Wait(fd_, POLLIN, deadline)) return Io::kTimeout;
      continue;
    }
    if (errno == EINTR) continue;
    return Io::kClosed;  // ECONNRESET and the like
  }
  return Io::kOk;
}

Connection::Read Connection::ReadFrame(Clock::time_point deadline, size_t max_size) {
  Read r;
  uint8_t prefix[4];
  size_t got = 0;
  Io io = ReadExactly(prefix, 4, deadline, &got);
  if (io != Io::kOk) {
    r.received = got;
    r.what = io == Io::kTimeout ? Read::kTimeout : got == 0 ? Read::kClosed : Read::kTruncated;
    return r;
  }
  const auto size = kwire::LoadBigEndian<int32_t>(prefix);
  r.size = size;
  if (size < 0) {
    r.what = Read::kBadSize;
    r.received = 4;
    return r;
  }
  if (static_cast<uint64_t>(size) > max_size) {
    r.what = Read::kOversized;
    r.received = 4;
    return r;
  }
  r.frame.resize(4 + static_cast<size_t>(size));
  std::copy(prefix, prefix + 4, r.frame.begin());
  io = ReadExactly(r.frame.data() + 4, static_cast<size_t>(size), deadline, &got);
  r.received = 4 + got;
  if (io == Io::kOk) {
    r.what = Read::kFrame;
    return r;
  }
  r.what = io == Io::kTimeout ? Read::kTimeout : Read::kTruncated;
  r.frame.resize(r.received);
  return r;
}

uint64_t ProcessRssBytes(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

bool ProcessAlive(int pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno != EPERM) return false;
  // A zombie has exited: its state in /proc/<pid>/stat (after "(comm)") is Z.
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z';
}

}  // namespace kwire::brokerfuzz
