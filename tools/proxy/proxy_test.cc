// kwire proxy end to end on loopback: a fake broker (blocking sockets, a thread per
// connection) answering with frames made by the codec, the proxy on its own io_context
// thread, and a client. No timers: every wait is a blocking read of an expected frame.
#include "tools/proxy/proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <utility>  // before Boost.Asio 1.74: its awaitable.hpp uses std::exchange
#include <boost/asio.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "codec/generated/api_versions_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/protocol/correlator.h"
#include "tools/traffic/traffic_test_util.h"

namespace kwire::proxy {
namespace {

using traffic_testing::Request;
using traffic_testing::Response;

int Listen(uint16_t& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

int Connect(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

bool ReadAll(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t got = read(fd, p, n);
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

void WriteAll(int fd, const std::vector<uint8_t>& b) {
  size_t at = 0;
  while (at < b.size()) {
    const ssize_t n = write(fd, b.data() + at, b.size() - at);
    ASSERT_GT(n, 0);
    at += static_cast<size_t>(n);
  }
}

// One frame, size prefix included; nullopt at end of stream.
std::optional<std::vector<uint8_t>> ReadFrame(int fd) {
  std::vector<uint8_t> f(4);
  if (!ReadAll(fd, f.data(), 4)) return std::nullopt;
  const uint32_t n = (uint32_t{f[0]} << 24) | (uint32_t{f[1]} << 16) | (uint32_t{f[2]} << 8) | f[3];
  f.resize(4 + n);
  if (!ReadAll(fd, f.data() + 4, n)) return std::nullopt;
  return f;
}

// Answers ApiVersions and Metadata (advertising itself and a second broker at
// localhost:`other_port`); other requests get no answer.
class FakeBroker {
 public:
  explicit FakeBroker(uint16_t other_port) : other_port_(other_port) {
    fd_ = Listen(port_);
    accept_ = std::thread([this] {
      for (;;) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) {
          close(c);
          return;
        }
        conns_.emplace_back([this, c] { Serve(c); });
      }
    });
  }
  ~FakeBroker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    accept_.join();
    for (std::thread& t : conns_) t.join();
  }
  uint16_t port() const { return port_; }
  // The bytes of the last Metadata response sent (what the proxy must rewrite).
  std::vector<uint8_t> last_metadata() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_metadata_;
  }

 private:
  void Serve(int c) {
    while (std::optional<std::vector<uint8_t>> f = ReadFrame(c)) {
      const std::optional<RequestIds> ids = PeekRequestIds(*f);
      if (!ids) break;
      if (ids->api_key == 18) {
        ApiVersionsResponse r;
        r.api_keys.push_back({.api_key = 3, .min_version = 0, .max_version = 13});
        WriteAll(c, Response(ids->api_version, ids->correlation_id, r));
      } else if (ids->api_key == 3) {
        MetadataResponse r;
        r.brokers.push_back({.node_id = 1, .host = "127.0.0.1", .port = port_});
        r.brokers.push_back({.node_id = 2, .host = "localhost", .port = other_port_});
        r.cluster_id = "kwire-test";
        const std::vector<uint8_t> bytes = Response(ids->api_version, ids->correlation_id, r);
        {
          std::lock_guard<std::mutex> lock(mu_);
          last_metadata_ = bytes;
        }
        WriteAll(c, bytes);
      }
    }
    close(c);
  }

  uint16_t other_port_;
  uint16_t port_ = 0;
  int fd_ = -1;
  std::mutex mu_;
  bool stopping_ = false;
  std::thread accept_;
  std::vector<std::thread> conns_;
  std::vector<uint8_t> last_metadata_;
};

// The proxy on its own thread; reports collected.
class RunningProxy {
 public:
  RunningProxy(uint16_t broker_port, bool fail_fast,
               const std::function<void(Options&)>& tweak = {}) {
    Options o;
    o.broker = Endpoint{"127.0.0.1", broker_port};
    o.fail_fast = fail_fast;
    if (tweak) tweak(o);
    o.on_report = [this](const Json& j) {
      std::lock_guard<std::mutex> lock(mu_);
      reports_.push_back(j);
    };
    proxy_.emplace(io_, std::move(o));
    const absl::Status s = proxy_->Start();
    EXPECT_TRUE(s.ok()) << s;
    port_ = proxy_->port();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningProxy() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    boost::asio::post(io_, [this] { proxy_->Stop(); });
    thread_.join();
  }
  // After Stop (or after the io_context ran out of work by itself).
  void Join() { thread_.join(); }
  uint16_t port() const { return port_; }
  Proxy& proxy() { return *proxy_; }
  std::vector<Json> reports() {
    std::lock_guard<std::mutex> lock(mu_);
    return reports_;
  }

 private:
  boost::asio::io_context io_;
  std::optional<Proxy> proxy_;
  uint16_t port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Json> reports_;
};

TEST(Proxy, ForwardsChecksAndRewritesAddresses) {
  uint16_t other_port = 0;
  const int other = Listen(other_port);  // a second "broker": only its address is used
  FakeBroker broker(other_port);
  RunningProxy proxy(broker.port(), /*fail_fast=*/false);
  const int c = Connect(proxy.port());

  // ApiVersions v3: forwarded unchanged both ways.
  WriteAll(c, Request(3, 1, ApiVersionsRequest{.client_software_name = "kwire",
                                                .client_software_version = "1"}));
  std::optional<std::vector<uint8_t>> a = ReadFrame(c);
  ASSERT_TRUE(a.has_value());
  ApiVersionsResponse expected;
  expected.api_keys.push_back({.api_key = 3, .min_version = 0, .max_version = 13});
  EXPECT_EQ(*a, Response(3, 1, expected));

  // Metadata v12: both brokers now point at the proxy's listeners.
  WriteAll(c, Request(12, 2, MetadataRequest{}));
  std::optional<std::vector<uint8_t>> m = ReadFrame(c);
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(*m, broker.last_metadata());
  absl::StatusOr<ResponseFrame> decoded = DecodeResponseFrame(*m, 3, 12);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const MetadataResponse& md = *decoded->body.get<MetadataResponse>();
  ASSERT_EQ(md.brokers.size(), 2u);
  EXPECT_EQ(md.brokers[0].host, "127.0.0.1");
  EXPECT_EQ(md.brokers[0].port, proxy.port());  // the bootstrap broker: the first listener
  EXPECT_EQ(md.brokers[1].host, "127.0.0.1");
  EXPECT_NE(md.brokers[1].port, proxy.port());  // a listener of its own
  EXPECT_NE(md.brokers[1].port, other_port);
  EXPECT_EQ(md.cluster_id, "kwire-test");      // the rest as the broker sent it

  // The second listener reaches the second broker (it accepts; nothing is sent).
  const int c2 = Connect(static_cast<uint16_t>(md.brokers[1].port));
  const int accepted = accept(other, nullptr, nullptr);
  EXPECT_GE(accepted, 0);

  // A frame with a negative size prefix ends that connection only.
  const int bad = Connect(proxy.port());
  WriteAll(bad, {0xff, 0xff, 0xff, 0xfe, 0, 0});
  uint8_t byte;
  EXPECT_EQ(read(bad, &byte, 1), 0);  // closed by the proxy
  WriteAll(c, Request(12, 3, MetadataRequest{}));
  EXPECT_TRUE(ReadFrame(c).has_value());

  close(c);
  close(c2);
  close(bad);
  if (accepted >= 0) close(accepted);
  close(other);
  proxy.Stop();
  const traffic::Summary& s = proxy.proxy().summary();
  EXPECT_EQ(s.frames(), 6u);   // 3 requests, 3 responses
  EXPECT_EQ(s.failures(), 0u);
  EXPECT_TRUE(proxy.proxy().failed());  // the stream error
  size_t rewritten = 0, stream_errors = 0, frames = 0;
  for (const Json& j : proxy.reports()) {
    if (j.contains("rewritten")) rewritten += j["rewritten"].get<size_t>();
    if (j.value("event", "") == "stream_error") ++stream_errors;
    if (j.contains("verdict")) {
      ++frames;
      EXPECT_EQ(j["verdict"], "ok") << j.dump();
    }
  }
  EXPECT_EQ(rewritten, 4u);  // two brokers in each of two Metadata responses
  EXPECT_EQ(stream_errors, 1u);
  EXPECT_EQ(frames, 6u);
}

TEST(Proxy, FailFastStopsAtTheFirstFrameThatDoesNotConform) {
  FakeBroker broker(1);
  RunningProxy proxy(broker.port(), /*fail_fast=*/true);
  const int c = Connect(proxy.port());
  WriteAll(c, Request(12, 1, MetadataRequest{}));
  ASSERT_TRUE(ReadFrame(c).has_value());
  std::vector<uint8_t> trailing = Request(12, 2, MetadataRequest{});
  trailing.push_back(7);
  trailing[3] += 1;
  WriteAll(c, trailing);
  uint8_t byte;
  EXPECT_EQ(read(c, &byte, 1), 0);  // the proxy stopped and closed the connection
  proxy.Join();                      // its io_context ran out of work by itself
  EXPECT_TRUE(proxy.proxy().failed());
  EXPECT_EQ(proxy.proxy().summary().failures(), 1u);
  const std::vector<Json> reports = proxy.reports();
  bool seen = false;
  for (const Json& j : reports) {
    if (j.value("verdict", "") == "rejected") {
      seen = true;
      EXPECT_EQ(j["error"]["kind"], "trailing_bytes");
      EXPECT_EQ(j["correlation_id"], 2);
    }
  }
  EXPECT_TRUE(seen);
  close(c);
}

// Bytes lost inside a frame when a side closes are a stream error (exit 1), not a quiet
// close; and a size prefix promising 100 MiB gets a buffer that follows the bytes that
// arrive (the connection still works for what it holds).
TEST(Proxy, ClosingInsideAFrameIsAStreamError) {
  FakeBroker broker(1);
  RunningProxy proxy(broker.port(), /*fail_fast=*/false);
  const int c = Connect(proxy.port());
  std::vector<uint8_t> frame = Request(12, 1, MetadataRequest{});
  frame.resize(9);  // 9 bytes of it
  WriteAll(c, frame);
  close(c);
  const int huge = Connect(proxy.port());
  WriteAll(huge, {0x06, 0x40, 0x00, 0x00, 0, 3, 0, 12});  // 104857600 bytes declared, 4 sent
  close(huge);
  // A third connection, which works as usual.
  const int ok = Connect(proxy.port());
  WriteAll(ok, Request(12, 2, MetadataRequest{}));
  ASSERT_TRUE(ReadFrame(ok).has_value());
  close(ok);
  for (;;) {  // each close is reported once the proxy reads it; no timer, just the reports
    size_t closes = 0;
    for (const Json& j : proxy.reports()) closes += j.value("event", "") == "close";
    if (closes >= 3) break;
    std::this_thread::yield();
  }
  proxy.Stop();
  EXPECT_TRUE(proxy.proxy().failed());
  EXPECT_EQ(proxy.proxy().stream_errors(), 2u);
  size_t inside = 0;
  for (const Json& j : proxy.reports()) {
    if (j.value("event", "") == "stream_error") {
      EXPECT_NE(j["message"].get<std::string>().find("the client closed inside a frame"), std::string::npos)
          << j.dump();
      ++inside;
    }
  }
  EXPECT_EQ(inside, 2u);
}

// A read that fails instead of hanging when a regression stalls the proxy (the test
// then fails at the read; no test waits on a timer to pass).
void FailReadsAfter(int fd, int seconds) {
  timeval tv{.tv_sec = seconds, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

// The checks run on worker threads, a connection's in order on one worker: while one
// connection's check is held, another connection's frames are checked and forwarded, and
// the held connection's response is forwarded only once its checks have run.
TEST(Proxy, AHeldCheckDelaysNoOtherConnection) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  int held = 0;
  FakeBroker broker(1);
  RunningProxy proxy(broker.port(), /*fail_fast=*/false, [&](Options& o) {
    o.check_threads = 2;
    o.before_check = [&](uint64_t connection) {
      if (connection != 1) return;
      std::unique_lock<std::mutex> lock(mu);
      ++held;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    };
  });
  const int c1 = Connect(proxy.port());
  FailReadsAfter(c1, 30);
  WriteAll(c1, Request(3, 7, ApiVersionsRequest{.client_software_name = "kwire",
                                                .client_software_version = "1"}));
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return held > 0; });  // connection 1's request check is held
  }
  const int c2 = Connect(proxy.port());
  FailReadsAfter(c2, 30);
  WriteAll(c2, Request(12, 8, MetadataRequest{}));
  const std::optional<std::vector<uint8_t>> m = ReadFrame(c2);
  ASSERT_TRUE(m.has_value()) << "connection 2 stalled behind connection 1's check";
  EXPECT_EQ(PeekResponseCorrelationId(*m), 8);
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(held, 1);  // connection 1's response is still waiting behind its request
    release = true;
  }
  cv.notify_all();
  const std::optional<std::vector<uint8_t>> a = ReadFrame(c1);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(PeekResponseCorrelationId(*a), 7);
  close(c1);
  close(c2);
  proxy.Stop();
  EXPECT_EQ(proxy.proxy().summary().frames(), 4u);
  EXPECT_EQ(proxy.proxy().summary().failures(), 0u);
  // Reports in each connection's frame order: request, response, close.
  std::vector<std::string> one;
  for (const Json& j : proxy.reports()) {
    if (j.value("connection", uint64_t{0}) != 1) continue;
    one.push_back(j.contains("verdict") ? j["direction"].get<std::string>()
                                        : j["event"].get<std::string>());
  }
  EXPECT_EQ(one, (std::vector<std::string>{"connect", "request", "response", "close"}));
}

// --check off: frames are forwarded and only correlated; addresses are still rewritten.
TEST(Proxy, CheckOffForwardsAndStillRewrites) {
  uint16_t other_port = 0;
  const int other = Listen(other_port);
  FakeBroker broker(other_port);
  RunningProxy proxy(broker.port(), /*fail_fast=*/false,
                     [](Options& o) { o.check_frames = false; });
  const int c = Connect(proxy.port());
  WriteAll(c, Request(3, 1, ApiVersionsRequest{.client_software_name = "kwire",
                                                .client_software_version = "1"}));
  ASSERT_TRUE(ReadFrame(c).has_value());
  WriteAll(c, Request(12, 2, MetadataRequest{}));
  const std::optional<std::vector<uint8_t>> m = ReadFrame(c);
  ASSERT_TRUE(m.has_value());
  absl::StatusOr<ResponseFrame> decoded = DecodeResponseFrame(*m, 3, 12);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const MetadataResponse& md = *decoded->body.get<MetadataResponse>();
  ASSERT_EQ(md.brokers.size(), 2u);
  EXPECT_EQ(md.brokers[0].port, proxy.port());
  EXPECT_NE(md.brokers[1].port, other_port);
  close(c);
  close(other);
  proxy.Stop();
  const traffic::Summary& s = proxy.proxy().summary();
  EXPECT_EQ(s.frames(), 4u);
  EXPECT_EQ(s.failures(), 0u);
  EXPECT_NE(s.Table().find("unchecked 1"), std::string::npos) << s.Table();
  size_t verdicts = 0, rewritten = 0;
  for (const Json& j : proxy.reports()) {
    verdicts += j.contains("verdict");
    if (j.value("event", "") == "rewritten") rewritten += j["rewritten"].get<size_t>();
  }
  EXPECT_EQ(verdicts, 0u);  // no frame lines
  EXPECT_EQ(rewritten, 2u);
}

TEST(Proxy, LoopbackOnly) {
  boost::asio::io_context io;
  Options o;
  o.broker = Endpoint{"10.1.2.3", 9092};
  Proxy p(io, o);
  EXPECT_EQ(p.Start().code(), absl::StatusCode::kInvalidArgument);
  Options l;
  l.broker = Endpoint{"127.0.0.1", 9092};
  l.listen = Endpoint{"0.0.0.0", 0};
  Proxy q(io, l);
  EXPECT_EQ(q.Start().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("127.9.9.9"));
  EXPECT_FALSE(IsLoopbackHost("example.com"));
  EXPECT_EQ(ParseEndpoint("[::1]:9092")->host, "::1");
  EXPECT_EQ(ParseEndpoint("localhost:19092")->port, 19092);
  EXPECT_FALSE(ParseEndpoint("localhost").ok());
  EXPECT_FALSE(ParseEndpoint("localhost:99999").ok());
}

}  // namespace
}  // namespace kwire::proxy
