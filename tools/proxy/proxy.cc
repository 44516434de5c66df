#include "tools/proxy/proxy.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <utility>  // before Boost.Asio 1.74: its awaitable.hpp uses std::exchange
#include <boost/asio.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/protocol/frame.h"
#include "tools/proxy/address_rewrite.h"

namespace kwire::proxy {

namespace asio = boost::asio;
using asio::ip::tcp;

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const asio::ip::address a = asio::ip::make_address(host, ec);
  return !ec && a.is_loopback();
}

absl::StatusOr<Endpoint> ParseEndpoint(const std::string& text) {
  Endpoint e;
  std::string port;
  if (!text.empty() && text[0] == '[') {  // [::1]:9092
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return absl::InvalidArgumentError("'" + text + "' is not [host]:port");
    }
    e.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError("'" + text + "' is not host:port");
    }
    e.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (e.host.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return absl::InvalidArgumentError("'" + text + "' is not host:port (port 0-65535)");
  }
  e.port = static_cast<uint16_t>(value);
  return e;
}

namespace {

constexpr size_t kReadChunk = 64 * 1024;

std::string Address(const std::string& host, int32_t port) {
  return host.find(':') != std::string::npos ? absl::StrFormat("[%s]:%d", host, port)
                                             : absl::StrFormat("%s:%d", host, port);
}

}  // namespace

class Session;

struct Proxy::Impl : std::enable_shared_from_this<Proxy::Impl> {
  Impl(asio::io_context& io, Options o) : io(io), options(std::move(o)) {}

  struct Listener {
    std::unique_ptr<tcp::acceptor> acceptor;
    Endpoint upstream;
    uint16_t port = 0;
  };

  asio::io_context& io;
  Options options;
  traffic::Summary summary;
  bool failed = false;
  bool stopped = false;
  uint64_t next_connection = 1;
  uint64_t accepted = 0;
  size_t stream_errors = 0;
  std::map<std::string, Listener> listeners;  // by upstream "host:port"
  uint16_t first_port = 0;
  std::set<std::shared_ptr<Session>> sessions;

  void Report(const Json& j) {
    if (options.on_report) options.on_report(j);
  }
  absl::StatusOr<uint16_t> Listen(const Endpoint& upstream);
  void Accept(Listener& l);
  std::optional<HostPort> MapAddress(const HostPort& advertised);
  void Fail() {
    failed = true;
    if (options.fail_fast) Stop();
  }
  void Stop();
};

// One client connection and its connection to the broker: two pumps, each reading
// frames from one side, checking them and writing them to the other.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<Proxy::Impl> impl, tcp::socket client, Endpoint upstream, uint64_t id)
      : impl_(std::move(impl)),
        client_(std::move(client)),
        upstream_socket_(impl_->io),
        resolver_(impl_->io),
        upstream_(std::move(upstream)),
        id_(id),
        check_(id, impl_->options.check),
        requests_{&client_, &upstream_socket_, true},
        responses_{&upstream_socket_, &client_, false} {}

  void Start() {
    auto self = shared_from_this();
    resolver_.async_resolve(
        upstream_.host, std::to_string(upstream_.port),
        [self](const boost::system::error_code& ec, tcp::resolver::results_type results) {
          if (ec) return self->Close("cannot resolve the broker: " + ec.message());
          std::vector<tcp::endpoint> loopback;
          for (const auto& r : results) {
            if (r.endpoint().address().is_loopback()) loopback.push_back(r.endpoint());
          }
          if (loopback.empty()) return self->Close("the broker's address is not loopback");
          asio::async_connect(self->upstream_socket_, loopback,
                              [self](const boost::system::error_code& ec, const tcp::endpoint&) {
                                if (ec) return self->Close("cannot connect to the broker: " + ec.message());
                                self->impl_->Report(Json{{"event", "connect"},
                                                         {"connection", self->id_},
                                                         {"broker", Address(self->upstream_.host, self->upstream_.port)}});
                                self->ReadMore(self->requests_);
                                self->ReadMore(self->responses_);
                              });
        });
  }

  void Close(const std::string& reason) {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    client_.close(ignored);
    upstream_socket_.close(ignored);
    resolver_.cancel();
    Json close{{"event", "close"}, {"connection", id_}, {"reason", reason}};
    if (check_.pending() > 0) close["unanswered"] = check_.pending();  // requests left waiting
    impl_->Report(close);
    impl_->sessions.erase(shared_from_this());
  }

 private:
  struct Pump {
    Pump(tcp::socket* f, tcp::socket* t, bool r) : from(f), to(t), requests(r) {}
    tcp::socket* from;
    tcp::socket* to;
    bool requests;
    std::vector<uint8_t> in;  // bytes read, [0, used)
    size_t used = 0;
    size_t need = 0;          // bytes still missing for the frame at the front
    std::vector<uint8_t> out; // checked frames to write to `to`
  };

  void ReadMore(Pump& p) {
    if (closed_) return;
    // Room for more of the frame at the front: the buffer at most doubles per read, so
    // what it holds follows the bytes that arrived, not the size a prefix declares (four
    // bytes saying 100 MiB get 64 KiB, then 128 KiB, ... as the bytes come).
    const size_t want = p.used + std::max(kReadChunk, std::min(p.need, p.used));
    if (p.in.size() < want) p.in.resize(want);
    auto self = shared_from_this();
    p.from->async_read_some(asio::buffer(p.in.data() + p.used, p.in.size() - p.used),
                            [self, &p](const boost::system::error_code& ec, size_t n) {
                              if (ec) {
                                const char* side = p.requests ? "the client" : "the broker";
                                if (p.used > 0) {
                                  // Bytes of a frame that never completed: lost, and said so.
                                  ++self->impl_->stream_errors;
                                  self->impl_->Report(Json{
                                      {"event", "stream_error"},
                                      {"connection", self->id_},
                                      {"direction", p.requests ? "request" : "response"},
                                      {"message", absl::StrFormat(
                                                      "%s closed inside a frame: %d bytes of it "
                                                      "arrived, %d more were due",
                                                      side, p.used, p.need)}});
                                  self->impl_->Fail();
                                }
                                return self->Close(ec == asio::error::eof
                                                       ? absl::StrCat(side, " closed")
                                                       : absl::StrCat(side, ": ", ec.message()));
                              }
                              p.used += n;
                              self->Process(p);
                            });
  }

  void Process(Pump& p) {
    if (closed_) return;
    FrameOptions split;
    split.max_frame_size = impl_->options.check.max_frame_size;
    size_t start = 0;
    p.need = 0;
    while (start < p.used) {
      const SplitResult r = SplitFrame(std::span<const uint8_t>(p.in.data() + start, p.used - start), split);
      if (r.status == SplitResult::kNeedMore) {
        p.need = r.need;
        break;
      }
      if (r.status == SplitResult::kError) {
        ++impl_->stream_errors;
        impl_->Report(Json{{"event", "stream_error"},
                           {"connection", id_},
                           {"direction", p.requests ? "request" : "response"},
                           {"message", r.error.ToString()}});
        Close("a frame that cannot be split: " + r.error.ToString());
        impl_->Fail();
        return;
      }
      Handle(p, r.frame);
      if (closed_) return;
      start += r.frame.size();
    }
    if (start > 0) {
      std::memmove(p.in.data(), p.in.data() + start, p.used - start);
      p.used -= start;
    }
    // Shrink a buffer that grew for one large frame once it is done with it.
    if (p.used == 0 && p.in.size() > 4 * kReadChunk) {
      p.in.resize(kReadChunk);
      p.in.shrink_to_fit();
    }
    if (p.out.empty()) return ReadMore(p);
    auto self = shared_from_this();
    asio::async_write(*p.to, asio::buffer(p.out),
                      [self, &p](const boost::system::error_code& ec, size_t) {
                        if (ec) return self->Close(ec.message());
                        p.out.clear();
                        if (p.out.capacity() > 4 * kReadChunk) p.out.shrink_to_fit();
                        self->ReadMore(p);
                      });
  }

  void Handle(Pump& p, std::span<const uint8_t> frame) {
    traffic::FrameReport report;
    int rewritten = 0;
    std::vector<uint8_t> replaced;
    if (p.requests) {
      report = check_.OnRequest(frame);
    } else {
      std::optional<ResponseFrame> decoded;
      report = check_.OnResponse(frame, &decoded);
      if (decoded && impl_->options.rewrite_addresses && AdvertisesBrokers(report.api_key)) {
        rewritten = RewriteAddresses(report.api_key, decoded->body, [this](const HostPort& a) {
          return impl_->MapAddress(a);
        });
        if (rewritten > 0) {
          absl::StatusOr<std::vector<uint8_t>> again =
              EncodeResponseFrame(decoded->header, report.api_key, decoded->body_version,
                                  decoded->body, EncodeOptions{impl_->options.check.quirks});
          if (again.ok()) {
            replaced = std::move(*again);
          } else {
            rewritten = 0;
            impl_->Report(Json{{"event", "rewrite_failed"},
                               {"connection", id_},
                               {"message", std::string(again.status().message())}});
          }
        }
      }
    }
    if (replaced.empty()) {
      p.out.insert(p.out.end(), frame.begin(), frame.end());
    } else {
      p.out.insert(p.out.end(), replaced.begin(), replaced.end());
    }
    impl_->summary.Add(report);
    if (impl_->options.on_report) {
      Json j = traffic::ReportJson(report);
      if (rewritten > 0) j["rewritten"] = rewritten;
      if (impl_->options.include_frames) {
        j["frame"] = absl::BytesToHexString(
            absl::string_view(reinterpret_cast<const char*>(frame.data()), frame.size()));
      }
      impl_->Report(j);
    }
    if (!traffic::Conforms(report.verdict)) impl_->Fail();
  }

  std::shared_ptr<Proxy::Impl> impl_;
  tcp::socket client_;
  tcp::socket upstream_socket_;
  tcp::resolver resolver_;
  Endpoint upstream_;
  uint64_t id_;
  traffic::ConnectionCheck check_;
  Pump requests_;
  Pump responses_;
  bool closed_ = false;
};

absl::StatusOr<uint16_t> Proxy::Impl::Listen(const Endpoint& upstream) {
  boost::system::error_code ec;
  asio::ip::address address;
  if (options.listen.host == "localhost") {
    address = asio::ip::address_v4::loopback();
  } else {
    address = asio::ip::make_address(options.listen.host, ec);
    if (ec || !address.is_loopback()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "listen address '%s' is not loopback: kwire proxy listens on loopback only",
          options.listen.host));
    }
  }
  Listener l;
  l.upstream = upstream;
  l.acceptor = std::make_unique<tcp::acceptor>(io);
  // The first listener takes the port asked for; the others any free one.
  const uint16_t port = listeners.empty() ? options.listen.port : 0;
  tcp::endpoint at(address, port);
  l.acceptor->open(at.protocol(), ec);
  if (!ec) l.acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) l.acceptor->bind(at, ec);
  if (!ec) l.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrFormat("cannot listen on %s: %s",
                                                  Address(options.listen.host, port), ec.message()));
  }
  l.port = l.acceptor->local_endpoint().port();
  const std::string key = Address(upstream.host, upstream.port);
  Listener& stored = listeners[key] = std::move(l);
  Report(Json{{"event", "listen"},
              {"address", Address(options.listen.host, stored.port)},
              {"broker", key}});
  Accept(stored);
  return stored.port;
}

void Proxy::Impl::Accept(Listener& l) {
  auto self = shared_from_this();
  l.acceptor->async_accept([self, &l](const boost::system::error_code& ec, tcp::socket socket) {
    if (self->stopped) return;
    if (!ec) {
      ++self->accepted;
      if (self->sessions.size() >= self->options.max_connections) {
        boost::system::error_code ignored;
        socket.close(ignored);
        self->Report(Json{{"event", "refused"},
                          {"reason", absl::StrFormat("%d connections already",
                                                     self->sessions.size())}});
      } else {
        auto session = std::make_shared<Session>(self, std::move(socket), l.upstream,
                                                 self->next_connection++);
        self->sessions.insert(session);
        session->Start();
      }
    } else if (ec == asio::error::operation_aborted) {
      return;
    }
    self->Accept(l);
  });
}

std::optional<HostPort> Proxy::Impl::MapAddress(const HostPort& advertised) {
  if (advertised.port < 0 || advertised.port > 65535) return std::nullopt;
  const std::string key = Address(advertised.host, advertised.port);
  const std::string here = options.listen.host == "localhost" ? "127.0.0.1" : options.listen.host;
  if (auto it = listeners.find(key); it != listeners.end()) return HostPort{here, it->second.port};
  if (!IsLoopbackHost(advertised.host)) {
    Report(Json{{"event", "not_rewritten"}, {"broker", key}, {"reason", "not a loopback address"}});
    return std::nullopt;
  }
  if (listeners.size() >= options.max_listeners) {
    Report(Json{{"event", "not_rewritten"}, {"broker", key},
                {"reason", absl::StrFormat("%d listeners already", listeners.size())}});
    return std::nullopt;
  }
  absl::StatusOr<uint16_t> port =
      Listen(Endpoint{advertised.host, static_cast<uint16_t>(advertised.port)});
  if (!port.ok()) {
    Report(Json{{"event", "not_rewritten"}, {"broker", key},
                {"reason", std::string(port.status().message())}});
    return std::nullopt;
  }
  return HostPort{here, *port};
}

void Proxy::Impl::Stop() {
  if (stopped) return;
  stopped = true;
  for (auto& [key, l] : listeners) {
    boost::system::error_code ignored;
    l.acceptor->close(ignored);
  }
  const std::set<std::shared_ptr<Session>> open = sessions;
  for (const auto& s : open) s->Close("the proxy stopped");
  sessions.clear();
  if (options.on_stop) options.on_stop();
}

Proxy::Proxy(asio::io_context& io, Options options)
    : impl_(std::make_shared<Impl>(io, std::move(options))) {}

Proxy::~Proxy() { impl_->Stop(); }

absl::Status Proxy::Start() {
  if (!IsLoopbackHost(impl_->options.broker.host)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "broker address '%s' is not loopback: kwire proxy connects to loopback only",
        impl_->options.broker.host));
  }
  absl::StatusOr<uint16_t> port = impl_->Listen(impl_->options.broker);
  if (!port.ok()) return port.status();
  impl_->first_port = *port;
  return absl::OkStatus();
}

uint16_t Proxy::port() const { return impl_->first_port; }
void Proxy::Stop() { impl_->Stop(); }
const traffic::Summary& Proxy::summary() const { return impl_->summary; }
bool Proxy::failed() const { return impl_->failed; }
size_t Proxy::stream_errors() const { return impl_->stream_errors; }
uint64_t Proxy::connections() const { return impl_->accepted; }

}  // namespace kwire::proxy
