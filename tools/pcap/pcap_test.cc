// kwire pcap on captures written by the test itself: TCP segments built by libtins
// (Ethernet / IPv4 or IPv6 / TCP) around frames made by the codec, written with libpcap's
// pcap_dump (and a pcapng file written block by block), then read back by CheckCapture.
#include "tools/pcap/pcap.h"

#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <tins/ethernetII.h>
#include <tins/ip.h>
#include <tins/ipv6.h>
#include <tins/rawpdu.h>
#include <tins/tcp.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "codec/generated/api_versions_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "tools/kwire/cli.h"
#include "tools/traffic/traffic_test_util.h"

namespace kwire::pcap {
namespace {

using traffic_testing::Request;
using traffic_testing::Response;
using Bytes = std::vector<uint8_t>;

constexpr uint16_t kBrokerPort = 9092;

// A packet and its capture time (microseconds since the epoch); `cut` bytes left out of
// the capture (caplen = len - cut), as a snap length does.
struct Pkt {
  Bytes bytes;
  int64_t usec = 0;
  uint32_t cut = 0;
};

// One TCP connection's segments, with each side's next sequence number.
class Conn {
 public:
  Conn(std::string client_ip, uint16_t client_port, std::string server_ip = "127.0.0.1",
       uint16_t server_port = kBrokerPort, bool v6 = false)
      : cip_(std::move(client_ip)), sip_(std::move(server_ip)), cport_(client_port),
        sport_(server_port), v6_(v6) {}

  Bytes Segment(bool from_client, uint32_t seq, uint32_t ack, uint16_t flags,
                const Bytes& payload = {}) const {
    Tins::TCP tcp(from_client ? sport_ : cport_, from_client ? cport_ : sport_);
    tcp.seq(seq);
    tcp.ack_seq(ack);
    tcp.flags(flags);
    tcp.window(65535);
    if (!payload.empty()) tcp /= Tins::RawPDU(payload.data(), static_cast<uint32_t>(payload.size()));
    const std::string& src = from_client ? cip_ : sip_;
    const std::string& dst = from_client ? sip_ : cip_;
    if (v6_) {
      Tins::EthernetII eth = Tins::EthernetII() / Tins::IPv6(dst, src) / tcp;
      return eth.serialize();
    }
    Tins::EthernetII eth = Tins::EthernetII() / Tins::IP(dst, src) / tcp;
    return eth.serialize();
  }
  Bytes Syn(uint16_t extra_flags = 0) {
    return Segment(true, cseq_++, 0, Tins::TCP::SYN | extra_flags);
  }
  Bytes SynAck() { return Segment(false, sseq_++, cseq_, Tins::TCP::SYN | Tins::TCP::ACK); }
  Bytes Ack(bool from_client) const {
    return Segment(from_client, from_client ? cseq_ : sseq_, from_client ? sseq_ : cseq_,
                   Tins::TCP::ACK);
  }
  // Three packets: the handshake.
  std::vector<Bytes> Handshake() {
    std::vector<Bytes> p;
    p.push_back(Syn());
    p.push_back(SynAck());
    p.push_back(Ack(true));
    return p;
  }
  // `data` from one side in segments of the given sizes (the rest in the last one), each
  // at its sequence number; the side's sequence number advances past all of it.
  std::vector<Bytes> Data(bool from_client, const Bytes& data, std::vector<size_t> sizes = {}) {
    std::vector<Bytes> out;
    size_t at = 0;
    sizes.push_back(data.size());
    for (size_t n : sizes) {
      n = std::min(n, data.size() - at);
      if (n == 0) continue;
      uint32_t& seq = from_client ? cseq_ : sseq_;
      out.push_back(Segment(from_client, seq, from_client ? sseq_ : cseq_,
                            Tins::TCP::ACK | Tins::TCP::PSH,
                            Bytes(data.begin() + at, data.begin() + at + n)));
      seq += static_cast<uint32_t>(n);
      at += n;
    }
    return out;
  }
  Bytes Fin(bool from_client) {
    uint32_t& seq = from_client ? cseq_ : sseq_;
    Bytes p = Segment(from_client, seq, from_client ? sseq_ : cseq_, Tins::TCP::FIN | Tins::TCP::ACK);
    ++seq;
    return p;
  }
  Bytes Rst(bool from_client) const {
    return Segment(from_client, from_client ? cseq_ : sseq_, 0, Tins::TCP::RST);
  }
  // Skips `n` bytes of a side's sequence (data the capture lost).
  void Skip(bool from_client, uint32_t n) { (from_client ? cseq_ : sseq_) += n; }

 private:
  std::string cip_, sip_;
  uint16_t cport_, sport_;
  bool v6_;
  uint32_t cseq_ = 1000, sseq_ = 70000;
};

constexpr int64_t kT0 = int64_t{1700000000} * 1000000;  // 2023-11-14T22:13:20Z

// Packets one millisecond apart, from kT0.
std::vector<Pkt> Timed(const std::vector<Bytes>& packets) {
  std::vector<Pkt> out;
  for (const Bytes& b : packets) out.push_back(Pkt{b, kT0 + 1000 * static_cast<int64_t>(out.size())});
  return out;
}

void Append(std::vector<Bytes>& to, const std::vector<Bytes>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) /
          (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" + name))
      .string();
}

// A pcap file by libpcap (pcap_dump).
std::string WritePcap(const std::vector<Pkt>& packets, int dlt = DLT_EN10MB,
                      const std::string& name = "capture.pcap") {
  const std::string path = TempPath(name);
  pcap_t* dead = pcap_open_dead(dlt, 262144);
  pcap_dumper_t* d = pcap_dump_open(dead, path.c_str());
  EXPECT_NE(d, nullptr) << pcap_geterr(dead);
  for (const Pkt& p : packets) {
    pcap_pkthdr h{};
    h.ts.tv_sec = p.usec / 1000000;
    h.ts.tv_usec = p.usec % 1000000;
    h.len = static_cast<uint32_t>(p.bytes.size());
    h.caplen = h.len - p.cut;
    pcap_dump(reinterpret_cast<u_char*>(d), &h, p.bytes.data());
  }
  pcap_dump_close(d);
  pcap_close(dead);
  return path;
}

// A pcapng file (section header, one Ethernet interface, an enhanced packet block per
// packet; microsecond timestamps), little-endian.
std::string WritePcapng(const std::vector<Pkt>& packets) {
  std::string out;
  auto u16 = [&out](uint16_t v) { out.append(reinterpret_cast<const char*>(&v), 2); };
  auto u32 = [&out](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(0x0A0D0D0A);  // section header block
  u32(28);
  u32(0x1A2B3C4D);
  u16(1);
  u16(0);
  u32(0xffffffff);  // section length: unknown
  u32(0xffffffff);
  u32(28);
  u32(1);  // interface description block
  u32(20);
  u16(DLT_EN10MB);
  u16(0);
  u32(262144);
  u32(20);
  for (const Pkt& p : packets) {
    const uint32_t padded = (static_cast<uint32_t>(p.bytes.size()) + 3) & ~3u;
    u32(6);  // enhanced packet block
    u32(32 + padded);
    u32(0);
    u32(static_cast<uint32_t>(static_cast<uint64_t>(p.usec) >> 32));
    u32(static_cast<uint32_t>(static_cast<uint64_t>(p.usec)));
    u32(static_cast<uint32_t>(p.bytes.size()));
    u32(static_cast<uint32_t>(p.bytes.size()));
    out.append(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
    out.append(padded - p.bytes.size(), '\0');
    u32(32 + padded);
  }
  const std::string path = TempPath("capture.pcapng");
  std::ofstream(path, std::ios::binary) << out;
  return path;
}

// What a run reported: frames (lines without "event") and events.
struct Seen {
  std::vector<Json> frames, events;
  std::vector<Json> Events(const std::string& name) const {
    std::vector<Json> out;
    for (const Json& e : events) {
      if (e["event"] == name) out.push_back(e);
    }
    return out;
  }
  std::string Dump() const {
    std::string s;
    for (const Json& j : events) s += j.dump() + "\n";
    for (const Json& j : frames) s += j.dump() + "\n";
    return s;
  }
};

// Kafka on port 9092.
Options ByPort() {
  Options o;
  o.ports = {kBrokerPort};
  return o;
}

// No port given: streams guessed.
Options Guessing() { return Options(); }

Result Read(const std::string& path, Seen& seen, Options o = ByPort()) {
  o.on_report = [&seen](const Json& j) { (j.contains("event") ? seen.events : seen.frames).push_back(j); };
  absl::StatusOr<Result> r = CheckCapture(path, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : Result{};
}

Bytes ApiVersionsV3(int32_t id) {
  return Request(3, id, ApiVersionsRequest{.client_software_name = "kwire-test",
                                           .client_software_version = "1.0"});
}
Bytes MetadataV12(int32_t id) {
  MetadataRequest body;
  body.topics.emplace();
  body.topics->emplace_back();
  body.topics->back().name = "orders";
  return Request(12, id, body);
}

void ExpectFrame(const Json& f, const std::string& direction, int api_key, int version,
                 int correlation_id, const std::string& verdict = "ok") {
  EXPECT_EQ(f["direction"], direction) << f.dump();
  EXPECT_EQ(f["api_key"], api_key) << f.dump();
  EXPECT_EQ(f["version"], version) << f.dump();
  EXPECT_EQ(f["correlation_id"], correlation_id) << f.dump();
  EXPECT_EQ(f["verdict"], verdict) << f.dump();
}

TEST(Pcap, ExchangeSplitAcrossSegmentsIsTypedByItsRequest) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  const Bytes q1 = ApiVersionsV3(1);
  const Bytes a1 = Response(3, 1, ApiVersionsResponse{});
  Append(p, c.Data(true, q1, {5, 7}));  // size prefix and part of the header; more; the rest
  Append(p, c.Data(false, a1, {9}));
  // Two requests in one segment, answered in one segment.
  Bytes both = MetadataV12(2);
  const Bytes q3 = ApiVersionsV3(3);
  both.insert(both.end(), q3.begin(), q3.end());
  Append(p, c.Data(true, both));
  MetadataResponse md;
  md.brokers.push_back({.node_id = 1, .host = "127.0.0.1", .port = 9092});
  Bytes answers = Response(12, 2, md);
  const Bytes a3 = Response(3, 3, ApiVersionsResponse{});
  answers.insert(answers.end(), a3.begin(), a3.end());
  Append(p, c.Data(false, answers));
  p.push_back(c.Fin(true));
  p.push_back(c.Fin(false));
  p.push_back(c.Ack(true));
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 6u) << seen.Dump();
  ExpectFrame(seen.frames[0], "request", 18, 3, 1);
  ExpectFrame(seen.frames[1], "response", 18, 3, 1);
  ExpectFrame(seen.frames[2], "request", 3, 12, 2);
  ExpectFrame(seen.frames[3], "request", 18, 3, 3);
  ExpectFrame(seen.frames[4], "response", 3, 12, 2);
  ExpectFrame(seen.frames[5], "response", 18, 3, 3);
  EXPECT_EQ(seen.frames[0]["size"], q1.size());
  EXPECT_EQ(seen.frames[1]["size"], a1.size());
  for (const Json& f : seen.frames) {
    EXPECT_EQ(f["connection"], 1);
    EXPECT_EQ(f["client"], "127.0.0.1:40000");
    EXPECT_EQ(f["server"], "127.0.0.1:9092");
  }
  // Each frame's time is that of the packet completing it: the request's third segment
  // is packet 6 (index 5), the response's second packet 8.
  EXPECT_EQ(seen.frames[0]["time"], "2023-11-14T22:13:20.005000000Z");
  EXPECT_EQ(seen.frames[1]["time"], "2023-11-14T22:13:20.007000000Z");
  ASSERT_EQ(seen.Events("stream").size(), 1u);
  EXPECT_EQ(seen.Events("stream")[0]["found"], "port");
  EXPECT_EQ(seen.Events("stream")[0]["partial"], false);
  ASSERT_EQ(seen.Events("close").size(), 1u) << seen.Dump();
  EXPECT_EQ(seen.Events("close")[0]["reason"], "closed (FIN both ways)");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.summary.frames(), 6u);
  EXPECT_EQ(r.stats.kafka_streams, 1u);
  EXPECT_EQ(r.stats.packets, p.size());
  EXPECT_EQ(r.stats.gaps, 0u);
}

TEST(Pcap, OutOfOrderAndRetransmittedSegments) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  const Bytes q = MetadataV12(9);
  const std::vector<Bytes> req = c.Data(true, q, {6, 10});  // three segments
  ASSERT_EQ(req.size(), 3u);
  MetadataResponse md;
  md.brokers.push_back({.node_id = 1, .host = "127.0.0.1", .port = 9092});
  const Bytes a = Response(12, 9, md);
  const std::vector<Bytes> resp = c.Data(false, a, {20});
  ASSERT_EQ(resp.size(), 2u);
  // Requests: 2, 1, 1 again, 3, 2 again; responses: 2, 1, 1 again.
  for (const Bytes& b : {req[1], req[0], req[0], req[2], req[1]}) p.push_back(b);
  for (const Bytes& b : {resp[1], resp[0], resp[0]}) p.push_back(b);
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 2u) << seen.Dump();
  ExpectFrame(seen.frames[0], "request", 3, 12, 9);
  ExpectFrame(seen.frames[1], "response", 3, 12, 9);
  EXPECT_EQ(seen.frames[0]["size"], q.size());
  EXPECT_EQ(seen.frames[1]["size"], a.size());
  EXPECT_TRUE(seen.Events("gap").empty()) << seen.Dump();
  EXPECT_TRUE(r.ok());
}

TEST(Pcap, TwoConnectionsInterleavedEachTypedByItsOwnRequests) {
  Conn a("127.0.0.1", 40001);
  Conn b("127.0.0.1", 40002);
  std::vector<Bytes> p = a.Handshake();
  Append(p, b.Handshake());
  // The same correlation id on both: each response is typed by its own connection's request.
  const std::vector<Bytes> qa = a.Data(true, MetadataV12(7), {10});
  const std::vector<Bytes> qb = b.Data(true, ApiVersionsV3(7), {10});
  MetadataResponse md;
  const std::vector<Bytes> ra = a.Data(false, Response(12, 7, md), {10});
  const std::vector<Bytes> rb = b.Data(false, Response(3, 7, ApiVersionsResponse{}), {10});
  for (size_t i = 0; i < 2; ++i) {
    p.push_back(qa[i]);
    p.push_back(qb[i]);
  }
  for (size_t i = 0; i < 2; ++i) {
    p.push_back(rb[i]);
    p.push_back(ra[i]);
  }
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 4u) << seen.Dump();
  ExpectFrame(seen.frames[0], "request", 3, 12, 7);
  EXPECT_EQ(seen.frames[0]["connection"], 1);
  ExpectFrame(seen.frames[1], "request", 18, 3, 7);
  EXPECT_EQ(seen.frames[1]["connection"], 2);
  ExpectFrame(seen.frames[2], "response", 18, 3, 7);
  EXPECT_EQ(seen.frames[2]["connection"], 2);
  EXPECT_EQ(seen.frames[2]["client"], "127.0.0.1:40002");
  ExpectFrame(seen.frames[3], "response", 3, 12, 7);
  EXPECT_EQ(seen.frames[3]["connection"], 1);
  EXPECT_EQ(seen.frames[3]["client"], "127.0.0.1:40001");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.stats.kafka_streams, 2u);
}

TEST(Pcap, RejectedFrameSaysWhereAndFails) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Bytes bad = ApiVersionsV3(4);
  bad.push_back(0);  // a byte past the body
  bad[3] += 1;       // the size prefix counts it
  Append(p, c.Data(true, bad, {8}));
  Append(p, c.Data(false, Response(3, 4, ApiVersionsResponse{})));
  const std::string path = WritePcap(Timed(p));
  Seen seen;
  const Result r = Read(path, seen);
  ASSERT_EQ(seen.frames.size(), 2u) << seen.Dump();
  ExpectFrame(seen.frames[0], "request", 18, 3, 4, "rejected");
  EXPECT_EQ(seen.frames[0]["error"]["kind"], "trailing_bytes");
  EXPECT_EQ(seen.frames[0]["error"]["offset"], bad.size() - 1);
  // The response is still typed by the request's header.
  ExpectFrame(seen.frames[1], "response", 18, 3, 4);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.summary.failures(), 1u);
  // Run: the lines, the summary, exit 1.
  std::ostringstream log, err;
  Options o;
  o.ports = {kBrokerPort};
  EXPECT_EQ(pcap::Run(path, o, log, err, TempPath("summary.json")), 1);
  EXPECT_NE(log.str().find("\"verdict\":\"rejected\""), std::string::npos) << log.str();
  EXPECT_NE(err.str().find("rejected 1"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("capture: 6 packets (6 TCP), 1 TCP streams: 1 Kafka"), std::string::npos)
      << err.str();
  std::ifstream in(TempPath("summary.json"));
  const Json summary = Json::parse(in);
  EXPECT_EQ(summary["frames"], 2);
  EXPECT_EQ(summary["failures"], 1);
  EXPECT_EQ(summary["capture"]["kafka_streams"], 1);
}

TEST(Pcap, CaptureStartingMidStreamIsReadFromTheFirstFrameBoundary) {
  Conn c("127.0.0.1", 40000);
  // No handshake: the capture begins with the tail of a request and the tail of a response
  // to a request it never saw, then whole frames.
  const Bytes old_request = MetadataV12(1);
  const Bytes old_response = Response(12, 1, MetadataResponse{});
  std::vector<Bytes> p;
  p.push_back(c.Segment(true, 1000, 70000, Tins::TCP::ACK | Tins::TCP::PSH,
                        Bytes(old_request.end() - 20, old_request.end())));
  c.Skip(true, 20);
  p.push_back(c.Segment(false, 70000, 1020, Tins::TCP::ACK | Tins::TCP::PSH,
                        Bytes(old_response.begin() + 3, old_response.end())));
  c.Skip(false, static_cast<uint32_t>(old_response.size() - 3));
  Append(p, c.Data(true, ApiVersionsV3(2)));
  Append(p, c.Data(true, MetadataV12(3)));
  Append(p, c.Data(false, Response(3, 2, ApiVersionsResponse{})));
  Append(p, c.Data(false, Response(12, 3, MetadataResponse{})));
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 4u) << seen.Dump();
  ExpectFrame(seen.frames[0], "request", 18, 3, 2);
  ExpectFrame(seen.frames[1], "request", 3, 12, 3);
  ExpectFrame(seen.frames[2], "response", 18, 3, 2);
  ExpectFrame(seen.frames[3], "response", 3, 12, 3);
  const std::vector<Json> mid = seen.Events("mid_stream");
  ASSERT_EQ(mid.size(), 2u) << seen.Dump();
  EXPECT_EQ(mid[0]["direction"], "request");
  EXPECT_EQ(mid[0]["skipped"], 20);
  EXPECT_EQ(mid[1]["direction"], "response");
  EXPECT_EQ(mid[1]["skipped"], old_response.size() - 3);
  EXPECT_EQ(seen.Events("stream")[0]["partial"], true);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.stats.partial_streams, 1u);
  // Guessing finds it too, and which end is the client.
  Seen guessed;
  const Result g = Read(WritePcap(Timed(p), DLT_EN10MB, "guess.pcap"), guessed, Guessing());
  ASSERT_EQ(guessed.frames.size(), 4u) << guessed.Dump();
  EXPECT_EQ(guessed.frames[0]["client"], "127.0.0.1:40000");
  EXPECT_EQ(g.stats.guessed_streams, 1u);
  // The broker's bytes first: the first packet's sender is still not taken for the client.
  std::swap(p[0], p[1]);
  for (const Options& o : {ByPort(), Guessing()}) {
    Seen swapped;
    Read(WritePcap(Timed(p), DLT_EN10MB, "swapped.pcap"), swapped, o);
    ASSERT_EQ(swapped.frames.size(), 4u) << swapped.Dump();
    ExpectFrame(swapped.frames[0], "request", 18, 3, 2);
    ExpectFrame(swapped.frames[3], "response", 3, 12, 3);
    EXPECT_EQ(swapped.frames[0]["client"], "127.0.0.1:40000");
    EXPECT_EQ(swapped.frames[0]["server"], "127.0.0.1:9092");
  }
}

TEST(Pcap, MidStreamWithoutAFrameBoundaryIsNotCheckedNorMisread) {
  Conn c("127.0.0.1", 40000);
  // Only the middle of a long frame: bytes that are no frame start.
  std::vector<Bytes> p;
  for (int i = 0; i < 8; ++i) {
    p.push_back(c.Segment(true, 1000 + 100 * i, 70000, Tins::TCP::ACK, Bytes(100, 0xee)));
  }
  const std::string path = WritePcap(Timed(p));
  Options o;
  o.ports = {kBrokerPort};
  o.max_resync_bytes = 500;
  Seen seen;
  const Result r = Read(path, seen, o);
  EXPECT_TRUE(seen.frames.empty()) << seen.Dump();
  ASSERT_EQ(seen.Events("not_checkable").size(), 1u) << seen.Dump();
  EXPECT_EQ(r.stats.not_checkable, 1u);
  EXPECT_TRUE(r.ok());
  // Guessing: not Kafka at all.
  Seen guessed;
  Options g = Guessing();
  g.max_resync_bytes = 500;
  const Result rg = Read(path, guessed, g);
  EXPECT_TRUE(guessed.frames.empty());
  EXPECT_TRUE(guessed.events.empty()) << guessed.Dump();
  EXPECT_EQ(rg.stats.other_streams, 1u);
  EXPECT_EQ(rg.stats.kafka_streams, 0u);
}

TEST(Pcap, PcapngIsReadToo) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Append(p, c.Data(true, ApiVersionsV3(1), {3}));
  Append(p, c.Data(false, Response(3, 1, ApiVersionsResponse{})));
  Seen seen;
  const Result r = Read(WritePcapng(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 2u) << seen.Dump();
  ExpectFrame(seen.frames[0], "request", 18, 3, 1);
  ExpectFrame(seen.frames[1], "response", 18, 3, 1);
  EXPECT_EQ(seen.frames[1]["time"], "2023-11-14T22:13:20.005000000Z");
  EXPECT_TRUE(r.ok());
}

TEST(Pcap, IPv6OnRawIpAndAnEcnSyn) {
  Conn c("::1", 40000, "::1", kBrokerPort, /*v6=*/true);
  std::vector<Bytes> p;
  p.push_back(c.Syn(Tins::TCP::ECE | Tins::TCP::CWR));
  p.push_back(c.SynAck());
  p.push_back(c.Ack(true));
  Append(p, c.Data(true, ApiVersionsV3(1)));
  Append(p, c.Data(false, Response(3, 1, ApiVersionsResponse{})));
  // Raw IP: the packets without their 14-byte Ethernet header.
  std::vector<Pkt> raw = Timed(p);
  for (Pkt& k : raw) k.bytes.erase(k.bytes.begin(), k.bytes.begin() + 14);
  Seen seen;
  const Result r = Read(WritePcap(raw, DLT_RAW), seen);
  ASSERT_EQ(seen.frames.size(), 2u) << seen.Dump();
  EXPECT_EQ(seen.frames[0]["client"], "[::1]:40000");
  EXPECT_EQ(seen.frames[0]["server"], "[::1]:9092");
  ExpectFrame(seen.frames[1], "response", 18, 3, 1);
  EXPECT_EQ(seen.Events("stream").at(0)["partial"], false) << "an ECN SYN opens the stream";
  EXPECT_TRUE(r.ok());
}

TEST(Pcap, ALostSegmentEndsTheStreamWithAGapNotAFloodOfErrors) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Append(p, c.Data(true, ApiVersionsV3(1)));
  Append(p, c.Data(false, Response(3, 1, ApiVersionsResponse{})));
  // The next request's first segment is lost by the capture; the broker acknowledges it
  // all and answers.
  const std::vector<Bytes> q2 = c.Data(true, MetadataV12(2), {10});
  p.push_back(q2[1]);
  Append(p, c.Data(false, Response(12, 2, MetadataResponse{})));
  Append(p, c.Data(true, ApiVersionsV3(3)));
  Append(p, c.Data(false, Response(3, 3, ApiVersionsResponse{})));
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 2u) << seen.Dump();
  const std::vector<Json> gaps = seen.Events("gap");
  ASSERT_EQ(gaps.size(), 1u) << seen.Dump();
  EXPECT_EQ(gaps[0]["direction"], "request");
  EXPECT_NE(gaps[0]["message"].get<std::string>().find("the capture lacks 10 bytes the broker acknowledged"),
            std::string::npos)
      << gaps[0].dump();
  EXPECT_EQ(r.stats.gaps, 1u);
  EXPECT_TRUE(r.ok()) << "a gap in the capture is no frame that fails";
}

TEST(Pcap, AHoleNeverFilledIsAGapAtTheEnd) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  const std::vector<Bytes> q = c.Data(true, MetadataV12(2), {10});
  p.push_back(q[1]);  // and no acknowledgement
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  EXPECT_TRUE(seen.frames.empty());
  ASSERT_EQ(seen.Events("gap").size(), 1u) << seen.Dump();
  EXPECT_NE(seen.Events("gap")[0]["message"].get<std::string>().find("the capture ends"),
            std::string::npos);
  EXPECT_EQ(r.stats.gaps, 1u);
}

TEST(Pcap, ASegmentCutBySnapLengthIsAGap) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Append(p, c.Data(true, ApiVersionsV3(1)));
  std::vector<Pkt> k = Timed(p);
  k.back().cut = 5;
  Seen seen;
  const Result r = Read(WritePcap(k), seen);
  EXPECT_TRUE(seen.frames.empty());
  ASSERT_EQ(seen.Events("gap").size(), 1u) << seen.Dump();
  EXPECT_EQ(r.stats.truncated_packets, 1u);
}

TEST(Pcap, ResetEndsTheStream) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Append(p, c.Data(true, MetadataV12(5)));
  p.push_back(c.Rst(false));
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  ASSERT_EQ(seen.frames.size(), 1u);
  ASSERT_EQ(seen.Events("close").size(), 1u) << seen.Dump();
  EXPECT_EQ(seen.Events("close")[0]["reason"], "reset (RST)");
  EXPECT_EQ(seen.Events("close")[0]["unanswered_requests"], 1);
  EXPECT_TRUE(r.ok());
}

TEST(Pcap, GuessesKafkaStreamsAndLeavesOthers) {
  Conn kafka("127.0.0.1", 40000, "127.0.0.1", 19999);
  Conn http("127.0.0.1", 40001, "127.0.0.1", 8080);
  std::vector<Bytes> p = kafka.Handshake();
  Append(p, http.Handshake());
  const std::string get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  Append(p, http.Data(true, Bytes(get.begin(), get.end())));
  Append(p, kafka.Data(true, ApiVersionsV3(1), {2}));  // the header in two segments
  Append(p, kafka.Data(false, Response(3, 1, ApiVersionsResponse{})));
  const std::string path = WritePcap(Timed(p));
  Seen seen;
  const Result r = Read(path, seen, Guessing());
  ASSERT_EQ(seen.frames.size(), 2u) << seen.Dump();
  EXPECT_EQ(seen.frames[0]["server"], "127.0.0.1:19999");
  EXPECT_EQ(seen.Events("stream").at(0)["found"], "guessed");
  EXPECT_EQ(r.stats.streams, 2u);
  EXPECT_EQ(r.stats.kafka_streams, 1u);
  EXPECT_EQ(r.stats.other_streams, 1u);
  // With --port 9092 neither stream is Kafka.
  Seen by_port;
  const Result rp = Read(path, by_port);
  EXPECT_TRUE(by_port.frames.empty());
  EXPECT_EQ(rp.stats.kafka_streams, 0u);
}

TEST(Pcap, AnOversizedFrameIsAStreamError) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Bytes huge = {0x7f, 0xff, 0xff, 0xff, 0, 18, 0, 3, 0, 0, 0, 1};
  Append(p, c.Data(true, ApiVersionsV3(1)));
  Append(p, c.Data(true, huge));
  Seen seen;
  Options o;
  o.ports = {kBrokerPort};
  o.check.max_frame_size = 1000;
  const Result r = Read(WritePcap(Timed(p)), seen, o);
  ASSERT_EQ(seen.frames.size(), 1u) << seen.Dump();
  const std::vector<Json> errors = seen.Events("stream_error");
  ASSERT_EQ(errors.size(), 1u) << seen.Dump();
  EXPECT_EQ(errors[0]["direction"], "request");
  EXPECT_NE(errors[0]["message"].get<std::string>().find("2147483647"), std::string::npos)
      << errors[0].dump();
  EXPECT_EQ(r.stats.stream_errors, 1u);
  EXPECT_FALSE(r.ok());
}

TEST(Pcap, MemoryIsBounded) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  MetadataRequest big;
  big.topics.emplace();
  for (int i = 0; i < 40; ++i) {
    big.topics->emplace_back();
    big.topics->back().name = "topic-with-a-long-name-" + std::to_string(i);
  }
  const Bytes q = Request(12, 1, big);
  ASSERT_GT(q.size(), 1000u);
  Append(p, c.Data(true, q, {100, 100, 100, 100, 100, 100, 100}));
  Options o;
  o.ports = {kBrokerPort};
  o.max_buffered = 400;
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen, o);
  EXPECT_TRUE(seen.frames.empty());
  ASSERT_EQ(seen.Events("memory").size(), 1u) << seen.Dump();
  EXPECT_EQ(r.stats.memory_limited, 1u);
}

TEST(Pcap, FailFastStopsAtTheFirstBadFrame) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Bytes bad = ApiVersionsV3(1);
  bad.push_back(0);
  bad[3] += 1;
  Append(p, c.Data(true, bad));
  Append(p, c.Data(true, bad));
  Options o;
  o.ports = {kBrokerPort};
  o.fail_fast = true;
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen, o);
  EXPECT_EQ(seen.frames.size(), 1u);
  EXPECT_TRUE(r.stopped);
}

TEST(Pcap, UnreadableCapturesSayWhy) {
  absl::StatusOr<Result> missing = CheckCapture(TempPath("none.pcap"), Options{});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  const std::string junk = TempPath("junk.pcap");
  std::ofstream(junk) << "this is not a capture file at all";
  absl::StatusOr<Result> bad = CheckCapture(junk, Options{});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(junk), std::string::npos) << bad.status();
  // Another link type (802.11).
  absl::StatusOr<Result> wifi = CheckCapture(WritePcap({}, DLT_IEEE802_11, "wifi.pcap"), Options{});
  ASSERT_FALSE(wifi.ok());
  EXPECT_EQ(wifi.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(wifi.status().message().find("IEEE802_11"), std::string::npos) << wifi.status();
  std::ostringstream log, err;
  EXPECT_EQ(pcap::Run(junk, Options{}, log, err, ""), 2);
  EXPECT_NE(err.str().find("kwire pcap: " + junk), std::string::npos) << err.str();
}

TEST(Pcap, ACaptureCutShortIsReadUpToTheCutAndFails) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Append(p, c.Data(true, ApiVersionsV3(1)));
  Append(p, c.Data(false, Response(3, 1, ApiVersionsResponse{})));
  const std::string path = WritePcap(Timed(p));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  Seen seen;
  const Result r = Read(path, seen);
  EXPECT_EQ(seen.frames.size(), 1u) << seen.Dump();
  ASSERT_EQ(seen.Events("capture_error").size(), 1u) << seen.Dump();
  EXPECT_NE(r.stats.capture_error.find("packet 5: truncated"), std::string::npos)
      << r.stats.capture_error;
  EXPECT_FALSE(r.ok());
}

TEST(Pcap, HostilePacketsAreCountedNotFatal) {
  Conn c("127.0.0.1", 40000);
  std::vector<Bytes> p = c.Handshake();
  Bytes broken = p[0];
  broken.resize(14 + 12);  // an IPv4 header cut after 12 bytes
  p.insert(p.begin(), broken);
  Bytes options = p[1];
  options[14] = 0x4f;  // IHL 15: 40 bytes of IP options the packet does not have
  p.insert(p.begin(), options);
  Append(p, c.Data(true, ApiVersionsV3(1)));
  Append(p, c.Data(false, Response(3, 1, ApiVersionsResponse{})));
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen);
  EXPECT_EQ(seen.frames.size(), 2u) << seen.Dump();
  EXPECT_GE(r.stats.undecodable_packets, 1u);
  EXPECT_TRUE(r.ok());
}

TEST(Pcap, StreamsFollowedAreBounded) {
  std::vector<Bytes> p;
  for (uint16_t port = 40000; port < 40010; ++port) {
    Conn c("127.0.0.1", port);
    p.push_back(c.Syn());
  }
  Options o = ByPort();
  o.max_streams = 4;
  Seen seen;
  const Result r = Read(WritePcap(Timed(p)), seen, o);
  EXPECT_EQ(r.stats.streams, 4u);
  EXPECT_EQ(r.stats.skipped_streams, 6u);
  EXPECT_EQ(seen.Events("too_many_streams").size(), 1u) << seen.Dump();
}

// Random damage to a capture (headers, lengths, payloads; cut short anywhere): an error or
// a report, never a crash (the sanitizers watch) nor a hang.
TEST(Pcap, DamagedCapturesAreReadOrRefusedNeverCrash) {
  Conn a("127.0.0.1", 40000), b("127.0.0.1", 40001);
  std::vector<Bytes> p = a.Handshake();
  Append(p, b.Handshake());
  Append(p, a.Data(true, MetadataV12(1), {7}));
  Append(p, b.Data(true, ApiVersionsV3(1)));
  Append(p, a.Data(false, Response(12, 1, MetadataResponse{}), {5}));
  Append(p, b.Data(false, Response(3, 1, ApiVersionsResponse{})));
  std::string files[2];
  for (int f = 0; f < 2; ++f) {
    std::ifstream in(f == 0 ? WritePcap(Timed(p)) : WritePcapng(Timed(p)), std::ios::binary);
    files[f].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::mt19937 rng(7);
  const std::string path = TempPath("damaged.pcap");
  int read = 0;
  for (int i = 0; i < 400; ++i) {
    std::string damaged = files[i % 2];
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; ++k) damaged[rng() % damaged.size()] = static_cast<char>(rng());
    if (i % 4 == 0) damaged.resize(rng() % damaged.size());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
    for (const bool guess : {false, true}) {
      Options o = guess ? Guessing() : ByPort();
      o.on_report = [](const Json& j) { (void)j.dump(-1, ' ', false, Json::error_handler_t::replace); };
      absl::StatusOr<Result> r = CheckCapture(path, o);
      read += r.ok();
    }
  }
  EXPECT_GT(read, 300) << "most damaged captures still open";
}

// The command line: `kwire pcap` parses its options into Options.
TEST(Pcap, CommandLine) {
  Conn c("127.0.0.1", 40000, "127.0.0.1", 9093);
  std::vector<Bytes> p = c.Handshake();
  Append(p, c.Data(true, ApiVersionsV3(1)));
  Append(p, c.Data(false, Response(3, 1, ApiVersionsResponse{})));
  const std::string path = WritePcap(Timed(p));
  const std::string log = TempPath("frames.jsonl"), summary = TempPath("summary.json");
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(cli::Run({"pcap", path, "--port", "9092", "--port", "9093", "--log", log,
                      "--summary-json", summary, "--quirks", "java", "--records", "opaque"},
                     in, out, err),
            0)
      << err.str();
  std::ifstream lines(log);
  std::string line;
  int frames = 0;
  while (std::getline(lines, line)) frames += Json::parse(line).contains("verdict");
  EXPECT_EQ(frames, 2);
  std::ifstream s(summary);
  EXPECT_EQ(Json::parse(s)["capture"]["kafka_streams"], 1);
  std::ostringstream out2, err2;
  EXPECT_EQ(cli::Run({"pcap", path, "--port=9092,9093", "--frames"}, in, out2, err2), 0)
      << err2.str();
  const Bytes q = ApiVersionsV3(1);
  EXPECT_NE(out2.str().find("\"frame\":\"" +
                            absl::BytesToHexString(absl::string_view(
                                reinterpret_cast<const char*>(q.data()), q.size())) +
                            "\""),
            std::string::npos)
      << out2.str();
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"pcap"}, {"pcap", path, "--port", "0"},
        {"pcap", path, "--port", "x"}, {"pcap", path, path},
        {"pcap", path, "--quirks", "java", "--quirks", "java"},
        {"pcap", path, "--max-frame-size", "3"}}) {
    std::ostringstream o, e;
    EXPECT_EQ(cli::Run(bad, in, o, e), 2) << bad.back();
    EXPECT_NE(e.str().find("Run 'kwire pcap --help'"), std::string::npos) << e.str();
  }
  std::ostringstream help, e;
  EXPECT_EQ(cli::Run({"pcap", "--help"}, in, help, e), 0);
  EXPECT_NE(help.str().find("usage: kwire pcap FILE"), std::string::npos);
}

}  // namespace
}  // namespace kwire::pcap
