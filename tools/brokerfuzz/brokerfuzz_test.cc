// `kwire broker-fuzz` (tools/brokerfuzz) against a fake broker in this process: a loopback
// listener, a thread per connection, a handler per test that answers each request
// correctly, with garbage, with another correlation id, by closing, or not at all. Each
// finding kind must be detected (exchange by exchange, then whole campaigns), and nothing
// on a broker that behaves. Timeouts are the tool's own option, set small; no test waits
// on a timer of its own.
#include "tools/brokerfuzz/brokerfuzz.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/generated/add_partitions_to_txn_request.h"
#include "codec/generated/alter_configs_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/fetch_request.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_request.h"
#include "codec/generated/write_txn_markers_request.h"
#include "codec/harness/minimal.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "codec/wire/writer.h"
#include "tools/diff/mutants.h"

#ifndef KWIRE_TEST_VECTORS_DIR
#error "KWIRE_TEST_VECTORS_DIR must name conformance/vectors"
#endif

namespace kwire::brokerfuzz {
namespace {

namespace fs = std::filesystem;

const std::string kLive = std::string(KWIRE_TEST_VECTORS_DIR) + "/live.jsonl";

// What the fake broker does with one request frame.
struct Reply {
  enum Kind { kAnswer, kClose, kStall, kNothing } kind = kClose;
  std::vector<uint8_t> bytes;  // kAnswer: sent as they are
  bool close_after = false;    // kAnswer: then the connection is closed
};
using Handler = std::function<Reply(const std::vector<uint8_t>& frame)>;

// A broker on 127.0.0.1: reads size-prefixed frames, asks the handler, and closes on EOF
// (or, with hold_on_eof, keeps the connection open without a word), on a negative or
// huge size prefix, and when the handler says so. With stop_after > 0 it stops listening
// once it has accepted that many connections (later ones are refused: a broker gone).
class FakeBroker {
 public:
  explicit FakeBroker(Handler h, bool hold_on_eof = false, int stop_after = 0)
      : handler_(std::move(h)), hold_on_eof_(hold_on_eof), stop_after_(stop_after) {
    EXPECT_EQ(pipe(wake_), 0);
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(listener_, 64), 0);
    socklen_t len = sizeof a;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }
  ~FakeBroker() {
    (void)!write(wake_[1], "x", 1);  // never read: every poll sees it
    accept_thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    for (std::thread& t : threads_) t.join();
    if (listener_ >= 0) close(listener_);
    close(wake_[0]);
    close(wake_[1]);
  }
  uint16_t port() const { return port_; }
  proxy::Endpoint endpoint() const { return proxy::Endpoint{"127.0.0.1", port_}; }

 private:
  bool Stopped(int fd) {
    pollfd p[2] = {{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    poll(p, 2, -1);
    return (p[1].revents & POLLIN) != 0;
  }
  void AcceptLoop() {
    for (int accepted = 0;;) {
      if (Stopped(listener_)) return;
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      {
        std::lock_guard<std::mutex> lock(mu_);
        threads_.emplace_back([this, fd] { Serve(fd); });
      }
      if (++accepted == stop_after_) {
        close(listener_);
        listener_ = -1;
        return;
      }
    }
  }
  // Reads n bytes; false on EOF, error or stop.
  bool ReadN(int fd, uint8_t* out, size_t n) {
    size_t got = 0;
    while (got < n) {
      if (Stopped(fd)) return false;
      const ssize_t r = recv(fd, out + got, n - got, 0);
      if (r <= 0) return false;
      got += static_cast<size_t>(r);
    }
    return true;
  }
  void Serve(int fd) {
    for (;;) {
      std::vector<uint8_t> frame(4);
      if (!ReadN(fd, frame.data(), 4)) break;
      const int32_t size = static_cast<int32_t>(frame[0] << 24 | frame[1] << 16 | frame[2] << 8 | frame[3]);
      if (size < 0 || size > (1 << 24)) break;
      frame.resize(4 + static_cast<size_t>(size));
      if (!ReadN(fd, frame.data() + 4, static_cast<size_t>(size))) {
        if (hold_on_eof_) Stopped(wake_[0]);
        break;
      }
      const Reply r = handler_(frame);
      if (r.kind == Reply::kClose) break;
      if (r.kind == Reply::kStall) {
        Stopped(wake_[0]);
        break;
      }
      if (r.kind == Reply::kAnswer && send(fd, r.bytes.data(), r.bytes.size(), MSG_NOSIGNAL) < 0) break;
      if (r.close_after) break;
    }
    close(fd);
  }

  Handler handler_;
  bool hold_on_eof_;
  int stop_after_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::thread accept_thread_;
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

int32_t CorrelationId(const std::vector<uint8_t>& frame) {
  return static_cast<int32_t>(frame[8] << 24 | frame[9] << 16 | frame[10] << 8 | frame[11]);
}

void SetCorrelationId(std::vector<uint8_t>& frame, int32_t id) {
  for (int i = 0; i < 4; ++i) frame[4 + i] = static_cast<uint8_t>(static_cast<uint32_t>(id) >> (24 - 8 * i));
}

// ApiVersions at `version` listing every API kwire knows, with their request versions.
std::vector<uint8_t> ApiVersionsAnswer(int16_t version, int32_t id, int16_t error_code = 0) {
  ApiVersionsResponse body;
  body.error_code = error_code;
  for (const ApiInfo& api : AllApis()) {
    ApiVersionsResponse::ApiVersion v;
    v.api_key = api.api_key;
    v.min_version = api.request_versions().lo;
    v.max_version = api.request_versions().hi;
    body.api_keys.push_back(v);
  }
  Writer w;
  ResponseHeader h;
  h.correlation_id = id;
  EXPECT_TRUE(AppendResponseFrame(h, version, body, &w).ok());
  const auto b = w.bytes();
  return std::vector<uint8_t>(b.begin(), b.end());
}

// A broker that behaves: a request that decodes strictly gets the minimal response of its
// API and version (ApiVersions: the real list); Produce with acks = 0 gets nothing; any
// other request closes the connection.
Reply Correct(const std::vector<uint8_t>& frame) {
  absl::StatusOr<RequestFrame> r = DecodeRequestFrame(frame);
  if (!r.ok()) return {Reply::kClose, {}};
  const int16_t key = r->api_key(), version = r->api_version();
  if (key == 18) return {Reply::kAnswer, ApiVersionsAnswer(version, r->header.correlation_id)};
  if (!ExpectsResponse(*r)) return {Reply::kNothing, {}};
  absl::StatusOr<std::vector<uint8_t>> m = EncodeMinimalFrame(*FindApi(key), version, Direction::kResponse);
  if (!m.ok()) return {Reply::kClose, {}};
  SetCorrelationId(*m, r->header.correlation_id);
  return {Reply::kAnswer, *m};
}

// Correct, except for API `key`, whose request gets `other`.
Handler Except(int16_t key, std::function<Reply(const std::vector<uint8_t>&)> other) {
  return [key, other](const std::vector<uint8_t>& frame) {
    if (frame.size() >= 8 && (frame[4] << 8 | frame[5]) == key) return other(frame);
    return Correct(frame);
  };
}

// The correct answer with its last byte dropped (the size prefix counting what is left).
Reply Garbage(const std::vector<uint8_t>& frame) {
  Reply r = Correct(frame);
  if (r.kind != Reply::kAnswer) return r;
  r.bytes.pop_back();
  diff::FixSizePrefix(r.bytes);
  return r;
}

Reply WrongId(const std::vector<uint8_t>& frame) {
  Reply r = Correct(frame);
  if (r.kind == Reply::kAnswer) SetCorrelationId(r.bytes, CorrelationId(frame) + 1);
  return r;
}

Reply Stall(const std::vector<uint8_t>&) { return {Reply::kStall, {}}; }
Reply Nothing(const std::vector<uint8_t>&) { return {Reply::kNothing, {}}; }
Reply CloseIt(const std::vector<uint8_t>&) { return {Reply::kClose, {}}; }

template <class M>
std::vector<uint8_t> Request(int16_t version, int32_t id, const M& body) {
  absl::StatusOr<std::vector<uint8_t>> f = EncodeRequestFrame<M>(version, id, std::string("test"), body);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : std::vector<uint8_t>();
}

std::vector<uint8_t> Metadata(int32_t id = 7) { return Request(12, id, MetadataRequest{}); }

std::vector<uint8_t> Produce(int16_t acks, int32_t id = 9) {
  ProduceRequest p;
  p.acks = acks;
  p.timeout_ms = 1000;
  return Request(9, id, p);
}

Plan PlanOf(std::vector<uint8_t> frame) {
  diff::Mutant m;
  m.frame = std::move(frame);
  diff::TakeRequestIds(m);
  return MakePlan(std::move(m));
}

Outcome Send(const FakeBroker& b, const std::vector<uint8_t>& frame, double timeout = 5) {
  absl::StatusOr<Connection> c = Connection::Open(b.endpoint(), 5);
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return Outcome();
  ExchangeOptions o;
  o.timeout_seconds = timeout;
  return Exchange(*c, PlanOf(frame), o);
}

std::vector<std::string> Kinds(const Outcome& o) {
  std::vector<std::string> k;
  for (const Hit& h : o.hits) k.push_back(FindingKindName(h.kind));
  return k;
}

using Strings = std::vector<std::string>;

// ---- One exchange at a time.

TEST(Exchange, CorrectAnswerDecodes) {
  FakeBroker b(Correct);
  const Outcome o = Send(b, Metadata());
  EXPECT_TRUE(o.answered);
  EXPECT_FALSE(o.closed);
  EXPECT_TRUE(o.hits.empty()) << o.hits[0].detail;
  EXPECT_TRUE(o.reusable);
  ASSERT_EQ(o.answers.size(), 1u);
  EXPECT_EQ(o.happened, "answered (MetadataResponse v12, " + std::to_string(o.answers[0].size()) + " bytes)");
}

TEST(Exchange, GarbageAnswerIsUndecodable) {
  FakeBroker b(Garbage);
  const Outcome o = Send(b, Metadata());
  EXPECT_TRUE(o.answered_bad);
  EXPECT_FALSE(o.answered);
  ASSERT_EQ(Kinds(o), Strings{"undecodable"});
  EXPECT_TRUE(absl::StartsWith(o.hits[0].where, "truncated")) << o.hits[0].where;
  EXPECT_TRUE(absl::StrContains(o.hits[0].detail, "does not decode as MetadataResponse v12")) << o.hits[0].detail;
  EXPECT_FALSE(o.reusable);
}

TEST(Exchange, OtherCorrelationIdIsAFinding) {
  FakeBroker b(WrongId);
  const Outcome o = Send(b, Metadata(41));
  ASSERT_EQ(Kinds(o), Strings{"correlation"});
  EXPECT_TRUE(absl::StrContains(o.hits[0].detail, "correlation id 42")) << o.hits[0].detail;
  EXPECT_TRUE(absl::StrContains(o.hits[0].detail, "the request's is 41")) << o.hits[0].detail;
}

TEST(Exchange, NoAnswerNoCloseIsAStall) {
  FakeBroker b(Stall);
  const Outcome o = Send(b, Metadata(), 0.2);
  EXPECT_TRUE(o.timed_out);
  EXPECT_FALSE(o.held);
  ASSERT_EQ(Kinds(o), Strings{"stall"});
  EXPECT_EQ(o.hits[0].where, "accepted");  // kwire reads the request strictly
  EXPECT_GE(o.seconds, 0.2);
}

TEST(Exchange, ACloseIsNoFinding) {
  FakeBroker b(CloseIt);
  const Outcome o = Send(b, Metadata());
  EXPECT_TRUE(o.closed);
  EXPECT_TRUE(o.hits.empty());
  EXPECT_FALSE(o.reusable);
  EXPECT_EQ(o.happened, "closed");
}

TEST(Exchange, ParkedFetchIsHeldNotAStall) {
  FakeBroker b(Stall);
  FetchRequest f;
  f.max_wait_ms = 5000;
  const Plan p = PlanOf(Request(12, 3, f));
  EXPECT_EQ(p.hold_ms, 5000);
  const Outcome o = Send(b, Request(12, 3, f), 0.2);
  EXPECT_TRUE(o.timed_out);
  EXPECT_TRUE(o.held);
  EXPECT_TRUE(o.hits.empty());
}

TEST(Exchange, FetchHeldPastItsMaxWaitIsAStall) {
  FakeBroker b(Stall);
  FetchRequest f;
  f.max_wait_ms = 0;
  const Outcome o = Send(b, Request(12, 3, f), 1.5);  // 0 ms asked, 1.5 s waited (1 s grace)
  EXPECT_FALSE(o.held);
  EXPECT_EQ(Kinds(o), Strings{"stall"});
}

TEST(Exchange, ProduceAcksZeroUnansweredIsByDesign) {
  FakeBroker b(Except(0, Nothing));
  const Plan p = PlanOf(Produce(0));
  EXPECT_TRUE(p.probe);
  EXPECT_FALSE(p.expects_answer);
  const Outcome o = Send(b, Produce(0));
  EXPECT_TRUE(o.no_answer);
  EXPECT_TRUE(o.hits.empty()) << o.hits[0].detail;
  EXPECT_TRUE(o.reusable);  // the probe's answer came: the connection is in step
}

TEST(Exchange, ProduceAcksOneUnansweredIsAFinding) {
  FakeBroker b(Except(0, Nothing));
  const Outcome o = Send(b, Produce(1));
  EXPECT_FALSE(o.no_answer);
  EXPECT_EQ(Kinds(o), Strings{"unanswered"});
}

TEST(Exchange, AnswerToAcksZeroIsAFinding) {
  FakeBroker b(Except(0, [](const std::vector<uint8_t>& f) {
    absl::StatusOr<std::vector<uint8_t>> m = EncodeMinimalFrame(*FindApi(0), 9, Direction::kResponse);
    std::vector<uint8_t> a = *m;
    SetCorrelationId(a, CorrelationId(f));
    return Reply{Reply::kAnswer, a};
  }));
  const Outcome o = Send(b, Produce(0));
  ASSERT_EQ(Kinds(o), Strings{"unexpected_answer"});
  EXPECT_EQ(o.hits[0].where, "acks=0");
  EXPECT_TRUE(o.answered);  // it decodes; answering at all is the fault
}

TEST(Exchange, ProduceAnsweredThenProbeAnswered) {
  FakeBroker b(Correct);
  const Outcome o = Send(b, Produce(-1));
  EXPECT_TRUE(o.answered);
  EXPECT_TRUE(o.hits.empty()) << o.hits[0].detail;
  EXPECT_EQ(o.answers.size(), 2u);  // the Produce answer, then the probe's
  EXPECT_TRUE(o.reusable);
}

TEST(Exchange, ShortFrameThenEofMustBeClosed) {
  std::vector<uint8_t> f = Metadata();
  f.resize(f.size() - 3);  // the size prefix now counts 3 bytes more than sent
  const Plan p = PlanOf(f);
  EXPECT_EQ(p.framing, Framing::kShort);
  {
    FakeBroker b(Correct);
    const Outcome o = Send(b, f, 2);
    EXPECT_TRUE(o.closed);
    EXPECT_TRUE(o.hits.empty());
  }
  FakeBroker holds(Correct, /*hold_on_eof=*/true);
  const Outcome o = Send(holds, f, 0.2);
  ASSERT_EQ(Kinds(o), Strings{"stall"});
  EXPECT_EQ(o.hits[0].where, "short");
  EXPECT_TRUE(absl::StrContains(o.hits[0].detail, "after EOF")) << o.hits[0].detail;
}

TEST(Exchange, NegativeSizePrefixIsClosed) {
  FakeBroker b(Correct);
  std::vector<uint8_t> f = Metadata();
  f[0] = 0xff;
  const Plan p = PlanOf(f);
  EXPECT_EQ(p.framing, Framing::kBadSize);
  const Outcome o = Send(b, f, 2);
  EXPECT_TRUE(o.closed);
  EXPECT_TRUE(o.hits.empty());
}

TEST(Exchange, LongerThanItsPrefixIsCutToIt) {
  FakeBroker b(Correct);
  std::vector<uint8_t> f = Metadata();
  const size_t size = f.size();
  f.insert(f.end(), {1, 2, 3, 4, 5});
  const Plan p = PlanOf(f);
  EXPECT_TRUE(p.trimmed);
  EXPECT_EQ(p.bytes.size(), size);
  EXPECT_EQ(p.framing, Framing::kWhole);
  const Outcome o = Send(b, f);
  EXPECT_TRUE(o.answered);
  EXPECT_TRUE(o.hits.empty());
}

TEST(Exchange, AnswerCutShortByACloseIsAFinding) {
  FakeBroker b([](const std::vector<uint8_t>& f) {
    Reply r = Correct(f);
    r.bytes.resize(r.bytes.size() / 2);
    r.close_after = true;
    return r;
  });
  const Outcome o = Send(b, Metadata());
  ASSERT_EQ(Kinds(o), Strings{"truncated_answer"});
  EXPECT_TRUE(o.closed);
  EXPECT_TRUE(absl::StrContains(o.hits[0].detail, "closed inside an answer")) << o.hits[0].detail;
}

TEST(Exchange, UnknownServerErrorInAnAnswerIsNoted) {
  FakeBroker b([](const std::vector<uint8_t>& f) {
    return Reply{Reply::kAnswer, ApiVersionsAnswer(3, CorrelationId(f), -1)};
  });
  const Outcome o = Send(b, ApiVersionsRequestFrame(5));
  EXPECT_TRUE(o.answered);
  EXPECT_TRUE(o.hits.empty());
  EXPECT_EQ(o.unknown_server_error, "ErrorCode");
  FakeBroker fine(Correct);
  EXPECT_EQ(Send(fine, ApiVersionsRequestFrame(5)).unknown_server_error, "");
}

TEST(Exchange, ApiVersionsAboveEveryKnownVersionTakesTheV0Fallback) {
  // KIP-511: the broker answers a version it does not know with a v0 body, error 35.
  FakeBroker b([](const std::vector<uint8_t>& f) {
    return Reply{Reply::kAnswer, ApiVersionsAnswer(0, CorrelationId(f), 35)};
  });
  std::vector<uint8_t> f = ApiVersionsRequestFrame(5);
  f[7] = 129;  // version 129
  const Outcome o = Send(b, f);
  EXPECT_TRUE(o.answered);
  EXPECT_TRUE(o.hits.empty()) << o.hits[0].detail;
  EXPECT_TRUE(absl::StrContains(o.happened, "ApiVersionsResponse v0 fallback")) << o.happened;
  f[6] = 0x81;  // version -32639
  EXPECT_TRUE(Send(b, f).hits.empty());
  // The same v0 body with error 0 is no fallback: it does not decode as the answer.
  FakeBroker wrong([](const std::vector<uint8_t>& f) {
    return Reply{Reply::kAnswer, ApiVersionsAnswer(0, CorrelationId(f), 0)};
  });
  EXPECT_EQ(Kinds(Send(wrong, f)), Strings{"undecodable"});
}

TEST(Exchange, KnownShapesOfKafkaFaults) {
  auto shape = [](const std::vector<uint8_t>& f) {
    absl::StatusOr<RequestFrame> r = DecodeRequestFrame(f);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? KnownShape(*r) : std::string("?");
  };
  ProduceRequest p;
  p.acks = -1;
  p.topic_data.resize(1);
  p.topic_data[0].name = "t";
  p.topic_data[0].partition_data.resize(1);  // records null
  EXPECT_EQ(shape(Request(9, 1, p)), "null records");
  EXPECT_EQ(shape(Produce(-1)), "");
  AddPartitionsToTxnRequest a;
  EXPECT_EQ(shape(Request(4, 1, a)), "no transactions");
  EXPECT_EQ(shape(Request(5, 1, a)), "no transactions");
  a.transactions.resize(1);
  EXPECT_EQ(shape(Request(4, 1, a)), "");
  EXPECT_EQ(shape(Request(3, 1, AddPartitionsToTxnRequest{})), "");  // v3 has no Transactions
  AlterConfigsRequest c;
  c.resources.resize(2);
  c.resources[0].resource_type = 0;   // UNKNOWN
  c.resources[1].resource_type = 99;  // UNKNOWN too, for Kafka
  EXPECT_EQ(shape(Request(1, 1, c)), "duplicate resource");
  c.resources[1].resource_type = 2;
  EXPECT_EQ(shape(Request(1, 1, c)), "");
  WriteTxnMarkersRequest w;
  w.markers.resize(1);
  w.markers[0].topics.resize(2);
  w.markers[0].topics[0].name = w.markers[0].topics[1].name = "t";
  w.markers[0].topics[0].partition_indexes = {0};
  w.markers[0].topics[1].partition_indexes = {0};
  EXPECT_EQ(shape(Request(1, 1, w)), "duplicate partition");
  w.markers[0].topics[1].partition_indexes = {1};
  EXPECT_EQ(shape(Request(1, 1, w)), "");
  EXPECT_EQ(shape(Metadata()), "");
  // Bytes after the body: a broker ignores them, and so does the plan.
  std::vector<uint8_t> trailing = Request(4, 1, AddPartitionsToTxnRequest{});
  trailing.push_back(0x0d);
  diff::FixSizePrefix(trailing);
  EXPECT_EQ(PlanOf(trailing).shape, "no transactions");
  EXPECT_TRUE(PlanOf(trailing).java_reads);
  // The shape joins a stall's signature.
  FakeBroker b(Stall);
  const Outcome o = Send(b, Request(9, 1, p), 0.2);
  ASSERT_EQ(Kinds(o), Strings{"stall"});
  EXPECT_EQ(o.hits[0].where, "accepted; null records");
}

TEST(Exchange, ApiVersionsCheck) {
  FakeBroker good(Correct);
  const ApiVersionsCheck ok = CheckApiVersions(good.endpoint(), 5, ExchangeOptions());
  EXPECT_TRUE(ok.ok) << ok.detail;
  EXPECT_EQ(ok.ranges.size(), AllApis().size());
  EXPECT_EQ(ok.ranges.at(18), std::make_pair(int16_t{0}, FindApi(18)->request_versions().hi));
  FakeBroker closes(CloseIt);
  const ApiVersionsCheck bad = CheckApiVersions(closes.endpoint(), 5, ExchangeOptions());
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.reason, "closed");
  EXPECT_FALSE(bad.refused);
}

TEST(Connection, LoopbackOnly) {
  absl::StatusOr<Connection> c = Connection::Open(proxy::Endpoint{"10.1.2.3", 9092}, 1);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(c.status())) << c.status();
  EXPECT_TRUE(absl::StrContains(c.status().message(), "loopback only"));
}

TEST(Connection, RefusedWhenNothingListens) {
  uint16_t port = 0;
  {
    FakeBroker b(Correct);
    port = b.port();
  }
  absl::StatusOr<Connection> c = Connection::Open(proxy::Endpoint{"127.0.0.1", port}, 1);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::IsUnavailable(c.status())) << c.status();
}

TEST(Process, RssAndAlive) {
  EXPECT_GT(ProcessRssBytes(getpid()), 1u << 20);
  EXPECT_TRUE(ProcessAlive(getpid()));
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(ProcessAlive(child));
  EXPECT_EQ(ProcessRssBytes(child), 0u);
}

// ---- Whole campaigns.

Options CampaignOptions(const FakeBroker& b) {
  Options o;
  o.broker = b.endpoint();
  o.seeds = {kLive};
  o.time_seconds = 0;
  o.count = 300;
  o.connections = 3;
  o.requests_per_connection = 20;
  o.timeout_seconds = 2;
  o.check_seconds = 0;  // at the start and the end
  o.progress_seconds = 0;
  o.minimize_budget = 10;
  return o;
}

std::vector<std::string> Signatures(const Report& r) {
  std::vector<std::string> s;
  for (const Finding& f : r.findings) s.push_back(f.signature);
  return s;
}

TEST(Campaign, WellBehavedBrokerHasNoFindings) {
  FakeBroker b(Correct);
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(CampaignOptions(b), progress);
  ASSERT_TRUE(r.started) << RenderSummary(r);
  EXPECT_TRUE(r.findings.empty()) << RenderSummary(r);
  EXPECT_EQ(r.requests + r.skipped, 300u);
  EXPECT_GT(r.answered, 0u);
  EXPECT_GT(r.closes, 0u);  // mutants that do not decode: the fake closes
  EXPECT_EQ(r.answered_bad, 0u);
  EXPECT_EQ(r.timeouts, 0u);
  EXPECT_EQ(r.checks_ok, 2u);  // the start and the end
  EXPECT_GE(r.connections, 300u / 20);
  EXPECT_GT(r.seeds_used, 40u);  // live.jsonl's requests (duplicates once)
  EXPECT_EQ(r.seeds_used, r.seeds_loaded);  // the fake advertises every version
  EXPECT_EQ(ExitStatus(r), 0);
  // Reproducible: the same mutants, so the same requests per API.
  const Report again = RunBrokerFuzz(CampaignOptions(b), progress);
  ASSERT_EQ(again.apis.size(), r.apis.size());
  for (const auto& [key, a] : r.apis) EXPECT_EQ(again.apis.at(key).sent, a.sent) << "api " << key;
}

TEST(Campaign, GarbageAnswersAreFoundMinimizedAndReplayed) {
  FakeBroker b(Except(3, Garbage));  // Metadata answers lose their last byte
  Options o = CampaignOptions(b);
  o.api_keys = {3};
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  ASSERT_TRUE(r.started) << RenderSummary(r);
  ASSERT_FALSE(r.findings.empty()) << RenderSummary(r);
  EXPECT_GT(r.answered_bad, 0u);
  for (const Finding& f : r.findings) {
    EXPECT_TRUE(absl::StartsWith(f.signature, "undecodable Metadata v")) << f.signature;
    EXPECT_TRUE(f.has_request);
    EXPECT_LE(f.minimized.size(), f.request.size());
    EXPECT_GT(f.evaluations, 0u);
  }
  EXPECT_EQ(ExitStatus(r), 1);
  // The files, and the replay of the first finding's minimized frame.
  const fs::path dir = fs::path(testing::TempDir()) / "brokerfuzz-garbage";
  fs::remove_all(dir);
  std::string error;
  ASSERT_TRUE(WriteOutputs(r, dir.string(), error)) << error;
  std::ifstream findings(dir / "findings.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(findings, line));
  const Json j = Json::parse(line);
  EXPECT_EQ(j["kind"], "undecodable");
  EXPECT_EQ(j["minimized"], HexString(r.findings[0].minimized));
  EXPECT_TRUE(absl::StrContains(j["replay"].get<std::string>(), "--replay " + (dir / "finding-1.hex").string()));
  EXPECT_TRUE(absl::StrContains(j["shell"].get<std::string>(), "/dev/tcp/127.0.0.1/" + std::to_string(b.port())));
  Options replay = o;
  replay.replay_file = (dir / "finding-1.hex").string();
  std::ostringstream out, err;
  EXPECT_EQ(Replay(replay, out, err), 1) << out.str() << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "finding " + r.findings[0].signature)) << out.str();
  // With its signatures expected, the same run passes.
  Options expected = o;
  expected.expected_file = (dir / "signatures.txt").string();
  const Report r2 = RunBrokerFuzz(expected, progress);
  EXPECT_EQ(r2.Unexpected(), 0u) << RenderSummary(r2);
  EXPECT_EQ(ExitStatus(r2), 0);
}

TEST(Campaign, WrongCorrelationIdsAndStallsAreFound) {
  FakeBroker b([](const std::vector<uint8_t>& f) {
    if (f.size() >= 8 && (f[4] << 8 | f[5]) == 3) return WrongId(f);
    if (f.size() >= 8 && (f[4] << 8 | f[5]) == 60) return Stall(f);  // DescribeCluster
    return Correct(f);
  });
  Options o = CampaignOptions(b);
  o.api_keys = {3, 60};
  o.count = 100;
  o.timeout_seconds = 0.3;
  o.minimize_budget = 0;
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  bool correlation = false, stall = false;
  for (const Finding& f : r.findings) {
    correlation |= f.kind == FindingKind::kCorrelation && absl::StartsWith(f.signature, "correlation Metadata v");
    stall |= f.kind == FindingKind::kStall && absl::StartsWith(f.signature, "stall DescribeCluster v");
  }
  EXPECT_TRUE(correlation) << RenderSummary(r);
  EXPECT_TRUE(stall) << RenderSummary(r);
  EXPECT_GT(r.timeouts, 0u);
  EXPECT_EQ(r.apis.at(60).timeouts + r.apis.at(60).closed, r.apis.at(60).sent) << RenderSummary(r);
}

TEST(Campaign, ATimeoutThatDoesNotRecurIsTransient) {
  std::atomic<int> seen{0};
  FakeBroker b([&](const std::vector<uint8_t>& f) {
    // The first DescribeCluster request is not answered; the same bytes again are.
    if (f.size() >= 8 && (f[4] << 8 | f[5]) == 60 && seen++ == 0) return Stall(f);
    return Correct(f);
  });
  Options o = CampaignOptions(b);
  o.api_keys = {60};
  o.count = 30;
  o.timeout_seconds = 0.3;
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  EXPECT_TRUE(r.findings.empty()) << RenderSummary(r);
  EXPECT_EQ(r.transient_timeouts, 1u);
  EXPECT_EQ(r.stall_replays, 1u);
  EXPECT_EQ(r.timeouts, 0u);
  ASSERT_FALSE(r.observations.empty());
  EXPECT_TRUE(absl::StartsWith(r.observations[0].signature, "transient_timeout DescribeCluster v"))
      << r.observations[0].signature;
}

TEST(Campaign, ABrokerThatListsNoBrokerIsFound) {
  FakeBroker b([](const std::vector<uint8_t>& f) {
    absl::StatusOr<RequestFrame> r = DecodeRequestFrame(f);
    if (r.ok() && r->api_key() == 3 && r->api_version() == 12) {  // the check's Metadata: no broker
      Writer w;
      ResponseHeader h;
      h.correlation_id = r->header.correlation_id;
      EXPECT_TRUE(AppendResponseFrame(h, 12, MetadataResponse{}, &w).ok());
      return Reply{Reply::kAnswer, std::vector<uint8_t>(w.bytes().begin(), w.bytes().end())};
    }
    return Correct(f);
  });
  Options o = CampaignOptions(b);
  o.api_keys = {18};
  o.count = 20;
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  EXPECT_EQ(Signatures(r), Strings{"unregistered | no broker in Metadata"}) << RenderSummary(r);
  EXPECT_EQ(r.metadata_unlisted, 1u);  // the end's check (the start's is ApiVersions alone)
  EXPECT_EQ(ExitStatus(r), 1);
  FakeBroker good(Correct);
  const Report fine = RunBrokerFuzz(CampaignOptions(good), progress);
  EXPECT_EQ(fine.metadata_listed, 1u);
  EXPECT_EQ(fine.metadata_unlisted, 0u);
}

TEST(Campaign, ABrokerThatStopsAnsweringApiVersionsIsFound) {
  std::atomic<int> apiversions{0};
  FakeBroker b([&](const std::vector<uint8_t>& f) {
    // The start's check is answered; every later ApiVersions request is closed on.
    if (f.size() >= 8 && (f[4] << 8 | f[5]) == 18 && apiversions++ > 0) return CloseIt(f);
    return Correct(f);
  });
  Options o = CampaignOptions(b);
  o.api_keys = {3};
  o.count = 50;
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(Signatures(r), Strings{"apiversions | closed"}) << RenderSummary(r);
  EXPECT_EQ(r.checks_failed, 1u);  // the end's
  EXPECT_EQ(ExitStatus(r), 1);
}

TEST(Campaign, ABrokerThatGoesDownEndsTheRun) {
  // Every request but ApiVersions closes (a new connection each time); gone after 20
  // connections: the start's check, then 19 of the workers'.
  FakeBroker b([](const std::vector<uint8_t>& f) { return f.size() >= 8 && f[5] == 18 && f[4] == 0 ? Correct(f) : CloseIt(f); },
               false, 20);
  Options o = CampaignOptions(b);
  o.count = 100000;
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  ASSERT_TRUE(r.started);
  EXPECT_TRUE(r.broker_down) << RenderSummary(r);
  // 19 accepted; a connect can complete in the listen backlog just before the close.
  EXPECT_GE(r.connections, 19u);
  EXPECT_LE(r.connections, 19u + 3);
  EXPECT_LT(r.requests, 100000u);
  EXPECT_FALSE(r.stop_reason.empty());
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].signature, "broker_down | refuses connections");
  EXPECT_EQ(ExitStatus(r), 1);
  // The last request of each connection is kept: the one that took the broker down is there.
  ASSERT_FALSE(r.findings[0].suspects.empty());
  EXPECT_LE(r.findings[0].suspects.size(), o.connections);
  for (const auto& [api, bytes] : r.findings[0].suspects) EXPECT_FALSE(bytes.empty()) << api;
}

TEST(Campaign, ReplaySaysWhenTheBrokerProcessIsGone) {
  FakeBroker b(Correct);
  const fs::path file = fs::path(testing::TempDir()) / "brokerfuzz-replay.hex";
  std::ofstream(file) << "# two frames\n" << HexString(Metadata(1)) << "\n" << HexString(Metadata(2)) << "\n";
  Options o;
  o.broker = b.endpoint();
  o.replay_file = file.string();
  o.timeout_seconds = 2;
  std::ostringstream out, err;
  EXPECT_EQ(Replay(o, out, err), 0) << out.str() << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "frame 2: Metadata v12")) << out.str();
  const pid_t child = fork();  // a process that is gone stands for a broker that exited
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  o.broker_pid = child;
  std::ostringstream out2;
  EXPECT_EQ(Replay(o, out2, err), 1);
  EXPECT_TRUE(absl::StrContains(out2.str(), "broker_down | exited")) << out2.str();
  EXPECT_FALSE(absl::StrContains(out2.str(), "frame 2:")) << out2.str();  // nothing sent after it
}

TEST(Campaign, RssAboveTheLimitIsAFinding) {
  FakeBroker b(Correct);
  Options o = CampaignOptions(b);
  o.count = 20;
  o.broker_pid = getpid();  // this process stands for the broker
  o.max_rss_mib = 1;
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  EXPECT_EQ(Signatures(r), Strings{"rss | over 1 MiB"}) << RenderSummary(r);
  EXPECT_GT(r.rss_min, 1u << 20);
  EXPECT_GE(r.rss_max, r.rss_min);
  EXPECT_TRUE(absl::StrContains(RenderSummary(r), "broker RSS (pid"));
}

TEST(Campaign, ExcludedApisAreNotSent) {
  FakeBroker b(Correct);
  Options o = CampaignOptions(b);
  o.exclude_api_keys = {3};
  std::ostringstream progress;
  const Report r = RunBrokerFuzz(o, progress);
  EXPECT_EQ(r.apis.count(3), 0u) << RenderSummary(r);
  EXPECT_GT(r.skipped, 0u);
}

TEST(Campaign, NotLoopbackOrNoBrokerDoesNotStart) {
  Options o;
  o.broker = proxy::Endpoint{"192.0.2.1", 9092};
  o.seeds = {kLive};
  std::ostringstream progress;
  Report r = RunBrokerFuzz(o, progress);
  EXPECT_FALSE(r.started);
  EXPECT_EQ(ExitStatus(r), 2);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "loopback only"));
  uint16_t port = 0;
  {
    FakeBroker gone(Correct);
    port = gone.port();
  }
  o.broker = proxy::Endpoint{"127.0.0.1", port};
  r = RunBrokerFuzz(o, progress);
  EXPECT_FALSE(r.started);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.errors[0], "no broker answers ApiVersions")) << r.errors[0];
}

// ---- Options.

TEST(Options, ParsedAndChecked) {
  Options o;
  std::string error;
  ASSERT_TRUE(ParseOptions({{"broker", "127.0.0.1:9092"},
                            {"seeds", "a\nb"},
                            {"time", "1.5"},
                            {"count", "7"},
                            {"connections", "2"},
                            {"api", "Metadata,1"},
                            {"exclude-api", "UnregisterBroker"},
                            {"max-answer", "8"}},
                           {"all-versions"}, {"default"}, o, error))
      << error;
  EXPECT_EQ(o.broker.port, 9092);
  EXPECT_EQ(o.seeds, (Strings{"a", "b"}));
  EXPECT_EQ(o.time_seconds, 1.5);
  EXPECT_EQ(o.count, 7u);
  EXPECT_EQ(o.connections, 2u);
  EXPECT_EQ(o.api_keys, (std::set<int16_t>{1, 3}));
  EXPECT_EQ(o.exclude_api_keys, (std::set<int16_t>{64}));
  EXPECT_EQ(o.max_answer_bytes, size_t{8} << 20);
  EXPECT_TRUE(o.all_versions);
  Options d;
  ASSERT_TRUE(ParseOptions({{"broker", "localhost:1"}}, {}, {"default"}, d, error)) << error;
  EXPECT_EQ(d.seeds, Strings{"default"});
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"broker", "10.0.0.1:9092"},
                                                                             {"broker", "nothing"},
                                                                             {"timeout", "0"},
                                                                             {"connections", "0"},
                                                                             {"api", "NoSuchApi"}}) {
    Options bad;
    std::map<std::string, std::string> values = {{"broker", "127.0.0.1:9092"}};
    values[k] = v;
    EXPECT_FALSE(ParseOptions(values, {}, {}, bad, error)) << k << "=" << v;
  }
  Options none;
  EXPECT_FALSE(ParseOptions({}, {}, {}, none, error));
  EXPECT_TRUE(absl::StrContains(error, "--broker")) << error;
}

TEST(Options, BrokerEnv) {
  const fs::path env = fs::path(testing::TempDir()) / "brokerfuzz-broker.env";
  std::ofstream(env) << "KWIRE_KAFKA_VERSION=4.4.0\nKWIRE_KAFKA_BOOTSTRAP=127.0.0.1:34793\n"
                        "KWIRE_KAFKA_PID=8864\nKWIRE_KAFKA_DIR=/tmp/x\n";
  Options o;
  ASSERT_TRUE(ReadBrokerEnv(env.string(), o).ok());
  EXPECT_EQ(o.broker.host, "127.0.0.1");
  EXPECT_EQ(o.broker.port, 34793);
  EXPECT_EQ(o.broker_pid, 8864);
  std::ofstream(env) << "KWIRE_KAFKA_PID=1\n";
  EXPECT_TRUE(absl::IsInvalidArgument(ReadBrokerEnv(env.string(), o)));
  EXPECT_TRUE(absl::IsNotFound(ReadBrokerEnv((fs::path(testing::TempDir()) / "none.env").string(), o)));
}

}  // namespace
}  // namespace kwire::brokerfuzz
