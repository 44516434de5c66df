#include "tools/proxy/proxy.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <utility>  // before Boost.Asio 1.74: its awaitable.hpp uses std::exchange
#include <boost/asio.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/protocol/frame.h"
#include "codec/wire/hex.h"
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
  Impl(asio::io_context& io, Options o, asio::thread_pool& pool)
      : io(io), options(std::move(o)), pool(pool) {}

  struct Listener {
    std::unique_ptr<tcp::acceptor> acceptor;
    Endpoint upstream;
    uint16_t port = 0;
  };

  asio::io_context& io;
  Options options;
  asio::thread_pool& pool;  // the checks (Proxy owns it: joined before Impl can die)
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
// frames from one side and writing them to the other. The checks of both directions run
// in frame order on the session's strand (a worker thread); everything else, including
// the reports, on the I/O thread.
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
        route_(Correlator::Options{.max_pending = impl_->options.check.max_pending,
                                   .in_order = true}),
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

  // Closes both sockets at once; the close event is reported after the reports of the
  // frames still being checked (the strand runs in order), with the requests left
  // unanswered.
  void Close(const std::string& reason) {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    client_.close(ignored);
    upstream_socket_.close(ignored);
    resolver_.cancel();
    auto self = shared_from_this();
    OnStrand([self] { return self->impl_->options.check_frames ? self->check_.pending() : 0; },
             [self, reason](size_t pending) {
               Json close{{"event", "close"}, {"connection", self->id_}, {"reason", reason}};
               if (pending > 0) close["unanswered"] = pending;  // requests left waiting
               self->impl_->Report(close);
               self->impl_->sessions.erase(self);
             });
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
    std::vector<uint8_t> out; // frames to write to `to`
    bool writing = false;     // an async_write of `out` is under way
    bool checking = false;    // responses: a batch is on the strand, to be written after
    bool held = false;        // requests: not read again until the backlog is checked
  };

  // A frame's check result, made on the strand and reported on the I/O thread.
  struct Checked {
    traffic::FrameReport report;
    std::vector<uint8_t> frame;            // the frame (a response: as received)
    std::optional<ResponseFrame> decoded;  // a response that advertises brokers
  };

  // Runs `work` on a worker thread after the session's earlier checks (one at a time per
  // session, in the order asked: the session's own strand, kept on the I/O thread so that
  // a Session holds nothing of the pool), then `done(result)` on the I/O thread. The work
  // guard keeps the io_context running until `done` has run.
  template <class Work, class Done>
  void OnStrand(Work work, Done done) {
    auto self = shared_from_this();
    queue_.push_back([self, work = std::move(work), done = std::move(done)]() mutable {
      asio::post(self->impl_->pool, [self, work = std::move(work), done = std::move(done),
                                     guard = asio::make_work_guard(self->impl_->io)]() mutable {
        auto result = work();
        asio::post(self->impl_->io,
                   [self, result = std::move(result), done = std::move(done)]() mutable {
                     self->busy_ = false;
                     done(std::move(result));
                     self->RunNext();
                   });
      });
    });
    RunNext();
  }
  void RunNext() {
    if (busy_ || queue_.empty()) return;
    busy_ = true;
    std::function<void()> next = std::move(queue_.front());
    queue_.pop_front();
    next();
  }

  void ReadMore(Pump& p) {
    if (closed_ || p.writing || p.checking || p.held) return;
    // Room for more of the frame at the front: the buffer at most doubles per read, so
    // what it holds follows the bytes that arrived, not the size a prefix declares (four
    // bytes saying 100 MiB get 64 KiB, then 128 KiB, ... as the bytes come).
    const size_t want = p.used + std::max(kReadChunk, std::min(p.need, p.used));
    if (p.in.size() < want) p.in.resize(want);
    auto self = shared_from_this();
    p.from->async_read_some(asio::buffer(p.in.data() + p.used, p.in.size() - p.used),
                            [self, &p](const boost::system::error_code& ec, size_t n) {
                              if (ec) return self->ReadFailed(p, ec);
                              p.used += n;
                              self->Process(p);
                            });
  }

  void ReadFailed(Pump& p, const boost::system::error_code& ec) {
    const char* side = p.requests ? "the client" : "the broker";
    if (p.used > 0 && !closed_) {
      // Bytes of a frame that never completed: lost, and said so.
      ++impl_->stream_errors;
      impl_->Report(Json{{"event", "stream_error"},
                         {"connection", id_},
                         {"direction", p.requests ? "request" : "response"},
                         {"message", absl::StrFormat("%s closed inside a frame: %d bytes of it "
                                                     "arrived, %d more were due",
                                                     side, p.used, p.need)}});
      impl_->Fail();
    }
    Close(ec == asio::error::eof ? absl::StrCat(side, " closed")
                                 : absl::StrCat(side, ": ", ec.message()));
  }

  void Process(Pump& p) {
    if (closed_) return;
    FrameOptions split;
    split.max_frame_size = impl_->options.check.max_frame_size;
    size_t start = 0;
    p.need = 0;
    std::vector<std::vector<uint8_t>> frames;  // whole frames, for the strand
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
      if (!impl_->options.check_frames) {
        Relay(p, r.frame);
      } else {
        if (p.requests) p.out.insert(p.out.end(), r.frame.begin(), r.frame.end());
        frames.emplace_back(r.frame.begin(), r.frame.end());
      }
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
    if (!frames.empty()) {
      if (p.requests) {
        CheckRequests(std::move(frames));
      } else {
        p.checking = true;  // written once checked (and rewritten)
        CheckResponses(std::move(frames));
      }
    }
    Flush(p);
  }

  // Writes what `out` holds, then reads on.
  void Flush(Pump& p) {
    if (closed_ || p.writing) return;
    if (p.out.empty()) return ReadMore(p);
    p.writing = true;
    auto self = shared_from_this();
    asio::async_write(*p.to, asio::buffer(p.out),
                      [self, &p](const boost::system::error_code& ec, size_t) {
                        p.writing = false;
                        if (ec) return self->Close(ec.message());
                        p.out.clear();
                        if (p.out.capacity() > 4 * kReadChunk) p.out.shrink_to_fit();
                        self->ReadMore(p);
                      });
  }

  // Requests: already forwarded; checked behind, their backlog bounded.
  void CheckRequests(std::vector<std::vector<uint8_t>> frames) {
    size_t bytes = 0;
    for (const auto& f : frames) bytes += f.size();
    backlog_ += bytes;
    if (backlog_ > static_cast<size_t>(impl_->options.check.max_frame_size)) requests_.held = true;
    auto self = shared_from_this();
    OnStrand(
        [self, frames = std::move(frames)]() mutable {
          if (self->impl_->options.before_check) self->impl_->options.before_check(self->id_);
          std::vector<Checked> out;
          out.reserve(frames.size());
          for (auto& f : frames) {
            Checked c;
            c.report = self->check_.OnRequest(f);
            c.frame = std::move(f);
            out.push_back(std::move(c));
          }
          return out;
        },
        [self, bytes](std::vector<Checked> checked) {
          for (Checked& c : checked) self->Emit(c, 0);
          self->backlog_ -= bytes;
          if (self->requests_.held &&
              self->backlog_ <= static_cast<size_t>(self->impl_->options.check.max_frame_size)) {
            self->requests_.held = false;
            self->ReadMore(self->requests_);
          }
        });
  }

  // Responses: checked, the ones that advertise brokers rewritten, then forwarded.
  void CheckResponses(std::vector<std::vector<uint8_t>> frames) {
    auto self = shared_from_this();
    OnStrand(
        [self, frames = std::move(frames)]() mutable {
          if (self->impl_->options.before_check) self->impl_->options.before_check(self->id_);
          std::vector<Checked> out;
          out.reserve(frames.size());
          for (auto& f : frames) {
            Checked c;
            c.report = self->check_.OnResponse(f, &c.decoded);
            if (!self->impl_->options.rewrite_addresses || !AdvertisesBrokers(c.report.api_key)) {
              c.decoded.reset();
            }
            c.frame = std::move(f);
            out.push_back(std::move(c));
          }
          return out;
        },
        [self](std::vector<Checked> checked) {
          Pump& p = self->responses_;
          p.checking = false;
          if (self->closed_) {
            for (Checked& c : checked) self->Emit(c, 0);
            return;
          }
          for (Checked& c : checked) {
            const int rewritten = self->Forward(p, c.frame, c.report.api_key, c.decoded);
            self->Emit(c, rewritten);
          }
          self->Flush(p);
        });
  }

  // Appends a response to `p.out`, its broker addresses rewritten when `decoded` holds
  // it; returns the number of addresses rewritten.
  int Forward(Pump& p, std::span<const uint8_t> frame, int16_t api_key,
              std::optional<ResponseFrame>& decoded) {
    int rewritten = 0;
    if (decoded) {
      rewritten = RewriteAddresses(api_key, decoded->body, [this](const HostPort& a) {
        return impl_->MapAddress(a);
      });
      if (rewritten > 0) {
        absl::StatusOr<std::vector<uint8_t>> again =
            EncodeResponseFrame(decoded->header, api_key, decoded->body_version, decoded->body,
                                EncodeOptions{impl_->options.check.quirks});
        if (again.ok()) {
          p.out.insert(p.out.end(), again->begin(), again->end());
          return rewritten;
        }
        impl_->Report(Json{{"event", "rewrite_failed"},
                           {"connection", id_},
                           {"message", std::string(again.status().message())}});
        rewritten = 0;
      }
    }
    p.out.insert(p.out.end(), frame.begin(), frame.end());
    return rewritten;
  }

  // --check off: correlated on the I/O thread and forwarded; only responses that
  // advertise brokers are decoded (records opaque), to be rewritten.
  void Relay(Pump& p, std::span<const uint8_t> frame) {
    traffic::FrameReport r;
    r.connection = id_;
    r.size = frame.size();
    r.verdict = traffic::Verdict::kUnchecked;
    if (p.requests) {
      if (const std::optional<RequestIds> ids = PeekRequestIds(frame)) {
        (void)route_.AddRequest(*ids);  // past max_pending: its response stays untyped
        r.api_key = ids->api_key;
        r.api_version = ids->api_version;
      }
      p.out.insert(p.out.end(), frame.begin(), frame.end());
      impl_->summary.Add(r);
      return;
    }
    r.way = traffic::Way::kResponse;
    std::optional<ResponseFrame> decoded;
    int16_t api_key = -1;
    if (absl::StatusOr<Correlator::Match> m = route_.TakeResponseFrame(frame); m.ok()) {
      api_key = m->request.api_key;
      r.api_key = api_key;
      r.api_version = m->request.api_version;
      if (impl_->options.rewrite_addresses && AdvertisesBrokers(api_key)) {
        FrameOptions o;
        o.quirks = impl_->options.check.quirks;
        o.records_mode = RecordsMode::kOpaque;
        absl::StatusOr<ResponseFrame> r =
            DecodeResponseFrame(frame, api_key, m->request.api_version, o);
        if (r.ok()) decoded.emplace(std::move(*r));
      }
    }
    const int rewritten = Forward(p, frame, api_key, decoded);
    if (rewritten > 0) {
      impl_->Report(Json{{"event", "rewritten"}, {"connection", id_}, {"api_key", api_key},
                         {"rewritten", rewritten}});
    }
    impl_->summary.Add(r);
  }

  // Reports one checked frame (on the I/O thread, in the connection's frame order).
  void Emit(const Checked& c, int rewritten) {
    impl_->summary.Add(c.report);
    if (impl_->options.on_report) {
      Json j = traffic::ReportJson(c.report);
      if (rewritten > 0) j["rewritten"] = rewritten;
      if (impl_->options.include_frames) {
        j["frame"] = HexString(c.frame);
      }
      impl_->Report(j);
    }
    if (!traffic::Conforms(c.report.verdict)) impl_->Fail();
  }

  std::shared_ptr<Proxy::Impl> impl_;
  tcp::socket client_;
  tcp::socket upstream_socket_;
  tcp::resolver resolver_;
  Endpoint upstream_;
  uint64_t id_;
  traffic::ConnectionCheck check_;  // on a worker, one check of the session at a time
  std::deque<std::function<void()>> queue_;  // checks waiting for the one under way
  bool busy_ = false;                        // a check of this session is under way
  Correlator route_;                // --check off: on the I/O thread only
  Pump requests_;
  Pump responses_;
  size_t backlog_ = 0;  // request bytes forwarded and not yet checked
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

namespace {
size_t CheckThreads(const Options& o) {
  if (o.check_threads > 0) return o.check_threads;
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}
}  // namespace

Proxy::Proxy(asio::io_context& io, Options options)
    : pool_(std::make_unique<asio::thread_pool>(CheckThreads(options))),
      impl_(std::make_shared<Impl>(io, std::move(options), *pool_)) {}

Proxy::~Proxy() {
  impl_->Stop();
  // Checks still queued finish on the workers; their results, posted to the io_context,
  // are dropped with it. The pool outlives every task that refers to it.
  pool_->join();
}

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
