#include "tools/pcap/pcap.h"

#include <pcap/pcap.h>
#include <tins/ethernetII.h>
#include <tins/exceptions.h>
#include <tins/ip.h>
#include <tins/ipv6.h>
#include <tins/packet.h>
#include <tins/rawpdu.h>
#include <tins/tcp.h>
#include <tins/tcp_ip/stream_follower.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "codec/wire/port.h"

namespace kwire::pcap {

Json CaptureStats::ToJson() const {
  Json j{{"packets", packets},
         {"tcp_packets", tcp_packets},
         {"undecodable_packets", undecodable_packets},
         {"truncated_packets", truncated_packets},
         {"streams", streams},
         {"kafka_streams", kafka_streams},
         {"guessed_streams", guessed_streams},
         {"partial_streams", partial_streams},
         {"other_streams", other_streams},
         {"not_checkable", not_checkable},
         {"gaps", gaps},
         {"memory_limited", memory_limited},
         {"stream_errors", stream_errors},
         {"skipped_streams", skipped_streams}};
  if (!capture_error.empty()) j["capture_error"] = capture_error;
  return j;
}

std::string CaptureStats::Line() const {
  std::string s = absl::StrFormat(
      "capture: %d packets (%d TCP), %d TCP streams: %d Kafka (%d guessed, %d begun before the "
      "capture), %d other",
      packets, tcp_packets, streams, kafka_streams, guessed_streams, partial_streams,
      other_streams);
  if (not_checkable > 0) s += absl::StrFormat("; %d not checkable", not_checkable);
  if (gaps > 0) s += absl::StrFormat("; %d ended by a gap in the capture", gaps);
  if (stream_errors > 0) s += absl::StrFormat("; %d not splittable into frames", stream_errors);
  if (memory_limited > 0) s += absl::StrFormat("; %d ended by the memory bound", memory_limited);
  if (skipped_streams > 0) {
    s += absl::StrFormat("; %d packets of streams beyond the stream bound skipped",
                         skipped_streams);
  }
  if (undecodable_packets > 0) {
    s += absl::StrFormat("; %d packets undecodable", undecodable_packets);
  }
  if (truncated_packets > 0) {
    s += absl::StrFormat("; %d segments cut by the snap length", truncated_packets);
  }
  s += "\n";
  if (!capture_error.empty()) s += "capture: read up to an error: " + capture_error + "\n";
  return s;
}

namespace {

using Tins::TCPIP::Flow;
using Tins::TCPIP::Stream;
using Tins::TCPIP::StreamFollower;
using Tins::TCPIP::StreamIdentifier;

// RFC 1982 order of TCP sequence numbers: a comes after b.
bool SeqAfter(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) > 0; }

int32_t Int32At(const uint8_t* p) { return kwire::LoadBigEndian<int32_t>(p); }
int16_t Int16At(const uint8_t* p) { return kwire::LoadBigEndian<int16_t>(p); }

enum class Plausible { kYes, kNo, kNeedMore };

// A request frame starting at b[0]: size prefix 8 (header v0) or 10 (v1+) to the largest
// frame, an API key and version kwire knows (codec/protocol/registry.h), and from header
// v1 on a client id length of -1 (null) or one that fits the frame.
Plausible PlausibleRequest(std::span<const uint8_t> b, int32_t max_frame_size) {
  if (b.size() < 4) return Plausible::kNeedMore;
  const int32_t size = Int32At(b.data());
  if (size < 8 || size > max_frame_size) return Plausible::kNo;
  if (b.size() < 8) return Plausible::kNeedMore;
  const int16_t key = Int16At(b.data() + 4), version = Int16At(b.data() + 6);
  const ApiInfo* api = FindApi(key);
  if (api == nullptr || !api->request_versions().Contains(version)) return Plausible::kNo;
  if (RequestHeaderVersion(key, version) < 1) return Plausible::kYes;
  if (size < 10) return Plausible::kNo;
  if (b.size() < 14) return Plausible::kNeedMore;
  const int16_t client_id = Int16At(b.data() + 12);
  return client_id >= -1 && client_id <= size - 10 ? Plausible::kYes : Plausible::kNo;
}

// Where a stream begun before the capture may start being read (its orientation too, when
// guessing): a plausible request header at the start of a segment, and, when the segment
// holds the whole frame, a frame that decodes (records not validated: only the framing).
bool RequestStartsHere(std::span<const uint8_t> b, int32_t max_frame_size, uint32_t quirks) {
  if (PlausibleRequest(b, max_frame_size) != Plausible::kYes) return false;
  const size_t size = size_t{4} + static_cast<uint32_t>(Int32At(b.data()));
  if (b.size() < size) return true;
  FrameOptions options;
  options.max_frame_size = max_frame_size;
  options.quirks = quirks;
  options.records_mode = RecordsMode::kOpaque;
  return DecodeRequestFrame(b.first(size), options).ok();
}

// A response frame starting at b[0] that answers one of `ids` (requests seen).
bool PlausibleResponse(std::span<const uint8_t> b, int32_t max_frame_size,
                       const std::deque<int32_t>& ids) {
  if (b.size() < 8) return false;
  const int32_t size = Int32At(b.data());
  if (size < 4 || size > max_frame_size) return false;
  return std::find(ids.begin(), ids.end(), Int32At(b.data() + 4)) != ids.end();
}

bool IsRawIp(int dlt) {
  return dlt == DLT_RAW || dlt == 101 /* LINKTYPE_RAW */ || dlt == DLT_IPV4 || dlt == DLT_IPV6;
}

// Bytes before the IP header for the link types read without libtins' link layer; -1 for
// Ethernet (libtins' EthernetII: VLAN tags and all) and for types not read.
int LinkHeaderSize(int dlt) {
  if (IsRawIp(dlt)) return 0;
  if (dlt == DLT_NULL || dlt == DLT_LOOP) return 4;  // address family, 4 bytes
  if (dlt == DLT_LINUX_SLL) return 16;
#ifdef DLT_LINUX_SLL2
  if (dlt == DLT_LINUX_SLL2) return 20;
#endif
  return -1;
}

bool LinkTypeRead(int dlt) { return dlt == DLT_EN10MB || LinkHeaderSize(dlt) >= 0; }

// The packet's PDUs (libtins); nullptr when it is not IP. Throws libtins' exceptions on
// headers it cannot read.
std::unique_ptr<Tins::PDU> DecodePacket(int dlt, const uint8_t* data, uint32_t size) {
  if (dlt == DLT_EN10MB) return std::make_unique<Tins::EthernetII>(data, size);
  const int skip = LinkHeaderSize(dlt);
  if (skip < 0 || size <= static_cast<uint32_t>(skip)) return nullptr;
  data += skip;
  size -= static_cast<uint32_t>(skip);
  switch (data[0] >> 4) {
    case 4: return std::make_unique<Tins::IP>(data, size);
    case 6: return std::make_unique<Tins::IPv6>(data, size);
    default: return nullptr;
  }
}

// Whether a segment cut by the snap length lacks payload bytes (from the IP lengths).
bool PayloadCut(const Tins::PDU& pdu, const Tins::TCP& tcp) {
  const Tins::RawPDU* raw = tcp.find_pdu<Tins::RawPDU>();
  const uint32_t have = raw != nullptr ? raw->payload_size() : 0;
  int64_t carried = -1;
  if (const Tins::IP* ip = pdu.find_pdu<Tins::IP>(); ip != nullptr && ip->tot_len() != 0) {
    carried = int64_t{ip->tot_len()} - ip->head_len() * 4 - tcp.header_size();
  } else if (const Tins::IPv6* ip6 = pdu.find_pdu<Tins::IPv6>(); ip6 != nullptr) {
    // Extension headers sit between the IPv6 header and TCP.
    carried = int64_t{ip6->payload_length()} - (int64_t{ip6->header_size()} - 40) -
              tcp.header_size();
  }
  return carried < 0 || carried > have;
}

std::string TimeString(int64_t sec, int64_t nsec) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E9SZ",
                          absl::FromUnixSeconds(sec) + absl::Nanoseconds(nsec),
                          absl::UTCTimeZone());
}

std::string EndpointOf(const Stream& s, bool tins_client) {
  const uint16_t port = tins_client ? s.client_port() : s.server_port();
  if (s.is_v6()) {
    return absl::StrFormat("[%s]:%d",
                           (tins_client ? s.client_addr_v6() : s.server_addr_v6()).to_string(),
                           port);
  }
  return absl::StrFormat("%s:%d", (tins_client ? s.client_addr_v4() : s.server_addr_v4()).to_string(),
                         port);
}

constexpr int kRequests = 0, kResponses = 1;
const char* DirectionName(int d) { return d == kRequests ? "request" : "response"; }

// One direction of a Kafka stream.
struct Dir {
  bool synced = true;               // at a frame boundary (false: the stream began earlier)
  bool first_frame_pending = false;  // just synced: its first frame must decode
  std::vector<uint8_t> buf;          // bytes of an incomplete frame
  size_t skipped = 0;                // bytes skipped looking for a frame boundary
};

// One TCP stream, as libtins follows it.
struct State {
  enum Role { kUndecided, kKafka, kOther, kEnded };
  StreamIdentifier id;
  Role role = kUndecided;
  Stream* tins = nullptr;  // while libtins follows it
  bool partial = false;    // no SYN: begun before the capture
  bool requests_from_tins_client = true;  // libtins' "client" sent the first SYN or data
  uint64_t connection = 0;
  std::string client, server;  // the Kafka client's and broker's "address:port"
  std::optional<traffic::ConnectionCheck> check;
  Dir dir[2];                         // kRequests, kResponses
  std::deque<int32_t> request_ids;    // partial: requests seen while responses are unsynced
  std::vector<uint8_t> first_bytes;   // guessing a stream from its start: its first bytes
  size_t probed = 0;                  // guessing a partial stream: bytes looked at
  size_t tins_buffered = 0;           // libtins' out-of-order bytes, as last counted
};

class Reader {
 public:
  Reader(const Options& options, Result& result) : o_(options), r_(result) {
    follower_.follow_partial_streams(true);
    // An idle stream ends after 15 minutes of capture time without a packet (Kafka's
    // connections.max.idle.ms: 10 minutes on brokers, 9 on clients).
    follower_.stream_keep_alive(std::chrono::minutes(15));
    follower_.new_stream_callback([this](Stream& s) { OnNewStream(s); });
    follower_.stream_termination_callback(
        [this](Stream& s, StreamFollower::TerminationReason why) { OnTerminated(s, why); });
  }

  bool stopped() const { return stopped_; }

  void Report(const Json& j) {
    if (o_.on_report) o_.on_report(j);
  }

  void OnPacket(const pcap_pkthdr& h, const uint8_t* data, int dlt);
  void Finish();

 private:
  void OnNewStream(Stream& s);
  void OnTerminated(Stream& s, StreamFollower::TerminationReason why);
  void OnClosed(State& st, const char* reason);
  void OnData(State& st, bool from_tins_client, const std::vector<uint8_t>& payload);
  void Guess(State& st, bool from_tins_client, const std::vector<uint8_t>& payload);
  void MakeKafka(State& st, bool requests_from_tins_client, const char* how);
  void MakeOther(State& st);
  void Feed(State& st, int d, std::span<const uint8_t> bytes);
  bool Sync(State& st, int d, std::span<const uint8_t> bytes);
  void Split(State& st, int d);
  void Check(State& st, int d, std::span<const uint8_t> frame);
  void AckCheck(State& st, const Tins::PDU& pdu, const Tins::TCP& tcp);
  void Gap(State& st, int d, const std::string& message);
  void NotCheckable(State& st, const std::string& message);
  void EndWith(State& st, const char* event, const std::string& reason);
  void Release(State& st);
  void Detach(State& st);
  void CountTinsBuffered(State& st);
  Json Event(const State& st, const char* name) const;
  std::string Now() const { return TimeString(sec_, nsec_); }
  bool PortListed(uint16_t port) const {
    return std::find(o_.ports.begin(), o_.ports.end(), port) != o_.ports.end();
  }

  const Options& o_;
  Result& r_;
  std::map<StreamIdentifier, std::unique_ptr<State>> states_;
  std::deque<StreamIdentifier> finished_;  // states libtins no longer follows, oldest first
  size_t followed_ = 0;
  size_t buffered_ = 0;  // incomplete frames and libtins' out-of-order bytes, all streams
  int64_t sec_ = 0, nsec_ = 0;  // the packet being read
  bool stopped_ = false;
  bool told_too_many_ = false;
  // Declared last, destroyed first: its streams' callbacks point into states_.
  StreamFollower follower_;
};

Json Reader::Event(const State& st, const char* name) const {
  Json j{{"event", name}};
  if (st.connection != 0) j["connection"] = st.connection;
  if (!st.client.empty()) {
    j["client"] = st.client;
    j["server"] = st.server;
  }
  j["time"] = Now();
  return j;
}

void Reader::OnPacket(const pcap_pkthdr& h, const uint8_t* data, int dlt) {
  ++r_.stats.packets;
  sec_ = h.ts.tv_sec;
  nsec_ = h.ts.tv_usec;  // opened with nanosecond precision
  std::unique_ptr<Tins::PDU> pdu;
  try {
    pdu = DecodePacket(dlt, data, h.caplen);
  } catch (const std::exception&) {  // libtins: malformed_packet and its kin
    ++r_.stats.undecodable_packets;
    return;
  }
  Tins::TCP* tcp = pdu != nullptr ? pdu->find_pdu<Tins::TCP>() : nullptr;
  if (tcp == nullptr) return;
  ++r_.stats.tcp_packets;
  if (!o_.ports.empty() && !PortListed(tcp->sport()) && !PortListed(tcp->dport())) return;
  // libtins 4.0 opens a stream on a SYN only when no other flag is set (fixed upstream in
  // 2019, "fix detection of a new TCP stream"): a SYN with ECN bits (ECE, CWR) is one too.
  const bool syn = (tcp->flags() & (Tins::TCP::SYN | Tins::TCP::ACK | Tins::TCP::RST |
                                    Tins::TCP::FIN)) == Tins::TCP::SYN;
  if (syn) tcp->flags(Tins::TCP::SYN);
  StreamIdentifier id;
  try {
    id = StreamIdentifier::make_identifier(*pdu);
  } catch (const std::exception&) {
    ++r_.stats.undecodable_packets;
    return;
  }
  auto it = states_.find(id);
  if (it != states_.end() && it->second->tins == nullptr) {
    // A stream that ended: a new connection on the same addresses and ports starts with a
    // SYN; anything else is a late packet of the old one.
    if (!syn) return;
    states_.erase(it);
    it = states_.end();
  }
  State* st = it != states_.end() ? it->second.get() : nullptr;
  if (h.caplen < h.len && PayloadCut(*pdu, *tcp)) {
    ++r_.stats.truncated_packets;
    if (st != nullptr && st->role == State::kKafka) {
      const bool from_client = tcp->sport() == st->tins->client_port() &&
                               tcp->dport() == st->tins->server_port();
      Gap(*st, from_client == st->requests_from_tins_client ? kRequests : kResponses,
          absl::StrFormat("a segment cut to %d of its %d bytes by the capture's snap length",
                          h.caplen, h.len));
    }
    return;  // never reassembled: its bytes are not all there
  }
  if (st == nullptr && followed_ >= o_.max_streams) {
    ++r_.stats.skipped_streams;
    if (!told_too_many_) {
      told_too_many_ = true;
      Report(Json{{"event", "too_many_streams"},
                  {"time", Now()},
                  {"message", absl::StrFormat("%d TCP streams followed at once: packets opening "
                                              "more are skipped",
                                              o_.max_streams)}});
    }
    return;
  }
  if (st != nullptr && st->role == State::kKafka) AckCheck(*st, *pdu, *tcp);
  if (stopped_) return;
  timeval tv{};
  tv.tv_sec = h.ts.tv_sec;
  tv.tv_usec = h.ts.tv_usec / 1000;
  Tins::Packet packet(pdu.release(), Tins::Timestamp(tv), Tins::Packet::own_pdu());
  try {
    follower_.process_packet(packet);
  } catch (const std::exception&) {
    ++r_.stats.undecodable_packets;
    return;
  }
  it = states_.find(id);
  if (it != states_.end() && it->second->tins != nullptr) CountTinsBuffered(*it->second);
}

// libtins holds segments that came after a hole; they count toward max_buffered.
void Reader::CountTinsBuffered(State& st) {
  const size_t now = size_t{st.tins->client_flow().total_buffered_bytes()} +
                     st.tins->server_flow().total_buffered_bytes();
  buffered_ = buffered_ - st.tins_buffered + now;
  st.tins_buffered = now;
  if (buffered_ <= o_.max_buffered) return;
  if (st.role == State::kKafka) {
    ++r_.stats.memory_limited;
    EndWith(st, "memory",
            absl::StrFormat("more than %d bytes held for incomplete frames and out-of-order "
                            "segments: checking of this connection ends",
                            o_.max_buffered));
  } else {
    MakeOther(st);
  }
}

void Reader::OnNewStream(Stream& s) {
  std::unique_ptr<State>& slot = states_[StreamIdentifier::make_identifier(s)];
  slot = std::make_unique<State>();
  State* st = slot.get();
  st->id = StreamIdentifier::make_identifier(s);
  st->tins = &s;
  st->partial = s.is_partial_stream();
  ++followed_;
  ++r_.stats.streams;
  s.client_data_callback([this, st](Stream& s) { OnData(*st, true, s.client_payload()); });
  s.server_data_callback([this, st](Stream& s) { OnData(*st, false, s.server_payload()); });
  s.stream_closed_callback([this, st](Stream& s) {
    const bool reset = s.client_flow().state() == Flow::RST_SENT ||
                       s.server_flow().state() == Flow::RST_SENT;
    OnClosed(*st, reset ? "reset (RST)" : "closed (FIN both ways)");
  });
  if (!o_.ports.empty()) {
    // The end with a listed port is the broker (a partial stream's libtins "client" is
    // whichever end sent the first data seen).
    if (PortListed(s.server_port())) {
      MakeKafka(*st, true, "port");
    } else {
      MakeKafka(*st, false, "port");
    }
  }
}

void Reader::OnTerminated(Stream& s, StreamFollower::TerminationReason why) {
  auto it = states_.find(StreamIdentifier::make_identifier(s));
  if (it == states_.end() || it->second->tins != &s) return;
  State& st = *it->second;
  if (st.role == State::kKafka) {
    if (why == StreamFollower::TIMEOUT) {
      EndWith(st, "end", "no packet for 15 minutes of capture time");
    } else {
      const bool client_held = !s.client_flow().buffered_payload().empty();
      Gap(st, client_held == st.requests_from_tins_client ? kRequests : kResponses,
          "segments after a hole the capture never filled (libtins holds at most 3 MiB or 512 "
          "segments per stream)");
    }
  }
  Detach(st);
}

void Reader::OnClosed(State& st, const char* reason) {
  if (st.role == State::kKafka) {
    const Flow& c = st.tins->client_flow();
    const Flow& s = st.tins->server_flow();
    if (!c.buffered_payload().empty() || !s.buffered_payload().empty()) {
      Gap(st, c.buffered_payload().empty() == st.requests_from_tins_client ? kResponses : kRequests,
          absl::StrFormat("%s with segments after a hole the capture never filled", reason));
    } else {
      EndWith(st, "close", reason);
    }
  }
  Detach(st);
}

void Reader::Finish() {
  for (auto& [id, st] : states_) {
    if (st->tins == nullptr || st->role != State::kKafka) continue;
    const Flow& c = st->tins->client_flow();
    const Flow& s = st->tins->server_flow();
    if (!c.buffered_payload().empty() || !s.buffered_payload().empty()) {
      Gap(*st, c.buffered_payload().empty() == st->requests_from_tins_client ? kResponses : kRequests,
          "the capture ends with segments after a hole it never filled");
    } else {
      EndWith(*st, "end", "the capture ends");
    }
  }
}

void Reader::OnData(State& st, bool from_tins_client, const std::vector<uint8_t>& payload) {
  if (stopped_ || payload.empty()) return;
  switch (st.role) {
    case State::kUndecided:
      return Guess(st, from_tins_client, payload);
    case State::kKafka:
      return Feed(st, from_tins_client == st.requests_from_tins_client ? kRequests : kResponses,
                  payload);
    case State::kOther:
    case State::kEnded:
      return;
  }
}

// No ports given: a stream is Kafka when its client's first bytes are a plausible request
// header; a stream begun before the capture, when the first bytes of one of its segments
// (from either end) are one, within max_resync_bytes.
void Reader::Guess(State& st, bool from_tins_client, const std::vector<uint8_t>& payload) {
  if (st.partial) {
    if (RequestStartsHere(payload, o_.check.max_frame_size, o_.check.quirks)) {
      MakeKafka(st, from_tins_client, "guessed");
      Feed(st, kRequests, payload);
      return;
    }
    st.probed += payload.size();
    if (st.probed > o_.max_resync_bytes) MakeOther(st);
    return;
  }
  if (!from_tins_client) return MakeOther(st);  // the server spoke first: not Kafka
  const size_t take = std::min<size_t>(payload.size(), 14 - std::min<size_t>(14, st.first_bytes.size()));
  st.first_bytes.insert(st.first_bytes.end(), payload.begin(), payload.begin() + take);
  switch (PlausibleRequest(st.first_bytes, o_.check.max_frame_size)) {
    case Plausible::kNo:
      return MakeOther(st);
    case Plausible::kNeedMore:
      if (take == payload.size()) return;  // wait for more (at most 14 bytes held)
      return MakeOther(st);
    case Plausible::kYes: {
      const std::vector<uint8_t> first = std::move(st.first_bytes);
      st.first_bytes.clear();
      MakeKafka(st, true, "guessed");
      // The bytes looked at so far: the first ones held, and this segment.
      std::vector<uint8_t> all(first.begin(), first.end() - static_cast<std::ptrdiff_t>(take));
      all.insert(all.end(), payload.begin(), payload.end());
      Feed(st, kRequests, all);
      return;
    }
  }
}

void Reader::MakeKafka(State& st, bool requests_from_tins_client, const char* how) {
  st.role = State::kKafka;
  st.requests_from_tins_client = requests_from_tins_client;
  st.connection = ++r_.stats.kafka_streams;
  if (std::string_view(how) == "guessed") ++r_.stats.guessed_streams;
  if (st.partial) ++r_.stats.partial_streams;
  st.client = EndpointOf(*st.tins, requests_from_tins_client);
  st.server = EndpointOf(*st.tins, !requests_from_tins_client);
  st.check.emplace(st.connection, o_.check);
  st.dir[kRequests].synced = st.dir[kResponses].synced = !st.partial;
  Json j = Event(st, "stream");
  j["found"] = how;
  j["partial"] = st.partial;
  Report(j);
}

void Reader::MakeOther(State& st) {
  if (st.role == State::kUndecided) ++r_.stats.other_streams;
  st.role = State::kOther;
  Release(st);
}

// Stops following a stream's data: its held bytes are dropped, libtins' too.
void Reader::Release(State& st) {
  for (Dir& d : st.dir) {
    buffered_ -= d.buf.size();
    std::vector<uint8_t>().swap(d.buf);
  }
  std::vector<uint8_t>().swap(st.first_bytes);
  st.request_ids.clear();
  if (st.tins != nullptr) {
    st.tins->ignore_client_data();
    st.tins->ignore_server_data();
    for (Flow* f : {&st.tins->client_flow(), &st.tins->server_flow()}) {
      // Every segment held lies within 2^31 after the next expected byte.
      if (!f->buffered_payload().empty()) f->advance_sequence(f->sequence_number() + 0x7fffffff);
    }
    buffered_ -= st.tins_buffered;
    st.tins_buffered = 0;
  }
}

void Reader::Detach(State& st) {
  if (st.role == State::kKafka) EndWith(st, "end", "no longer followed");
  Release(st);
  st.tins = nullptr;
  --followed_;
  finished_.push_back(st.id);
  // Ended streams are remembered (to drop their late packets) up to max_streams of them.
  while (finished_.size() > o_.max_streams) {
    auto it = states_.find(finished_.front());
    if (it != states_.end() && it->second->tins == nullptr) states_.erase(it);
    finished_.pop_front();
  }
}

void Reader::EndWith(State& st, const char* event, const std::string& reason) {
  if (st.role != State::kKafka) return;
  Json j = Event(st, event);
  j["reason"] = reason;
  for (int d : {kRequests, kResponses}) {
    if (!st.dir[d].buf.empty()) {
      j[d == kRequests ? "incomplete_request_bytes" : "incomplete_response_bytes"] =
          st.dir[d].buf.size();
    }
  }
  if (st.check && st.check->pending() > 0) j["unanswered_requests"] = st.check->pending();
  Report(j);
  st.role = State::kEnded;
  Release(st);
}

void Reader::Gap(State& st, int d, const std::string& message) {
  if (st.role != State::kKafka) return;
  ++r_.stats.gaps;
  Json j = Event(st, "gap");
  j["direction"] = DirectionName(d);
  j["message"] = message + ": checking of this connection ends";
  Report(j);
  st.role = State::kEnded;
  Release(st);
}

void Reader::NotCheckable(State& st, const std::string& message) {
  if (st.role != State::kKafka) return;
  ++r_.stats.not_checkable;
  Json j = Event(st, "not_checkable");
  j["message"] = message;
  Report(j);
  st.role = State::kEnded;
  Release(st);
}

// A packet acknowledging bytes its peer sent that the capture does not have: the capture
// lost them (the peer will not send them again), so the peer's direction has a hole.
void Reader::AckCheck(State& st, const Tins::PDU& pdu, const Tins::TCP& tcp) {
  if ((tcp.flags() & Tins::TCP::ACK) == 0 || (tcp.flags() & Tins::TCP::RST) != 0) return;
  const Stream& s = *st.tins;
  bool from_client = tcp.sport() == s.client_port() && tcp.dport() == s.server_port();
  if (s.client_port() == s.server_port()) {  // the addresses tell
    if (const Tins::IP* ip = pdu.find_pdu<Tins::IP>()) {
      from_client = !s.is_v6() && ip->src_addr() == s.client_addr_v4();
    } else if (const Tins::IPv6* ip6 = pdu.find_pdu<Tins::IPv6>()) {
      from_client = s.is_v6() && ip6->src_addr() == s.client_addr_v6();
    }
  }
  const Flow& peer = from_client ? s.server_flow() : s.client_flow();
  if (peer.state() == Flow::UNKNOWN) return;  // its first sequence number is not known yet
  const uint32_t expected = peer.sequence_number() + (peer.state() == Flow::FIN_SENT ? 1 : 0);
  if (!SeqAfter(tcp.ack_seq(), expected)) return;
  // The hole: up to the first segment held after it, or up to what was acknowledged.
  uint32_t missing = tcp.ack_seq() - expected;
  for (const auto& [seq, payload] : peer.buffered_payload()) {
    if (SeqAfter(seq, expected) && seq - expected < missing) missing = seq - expected;
  }
  const bool peer_is_broker = from_client == st.requests_from_tins_client;
  Gap(st, peer_is_broker ? kResponses : kRequests,
      absl::StrFormat("the capture lacks %d bytes the %s acknowledged (lost by the capture)",
                      missing, peer_is_broker ? "client" : "broker"));
}

void Reader::Feed(State& st, int d, std::span<const uint8_t> bytes) {
  Dir& dir = st.dir[d];
  if (!dir.synced && !Sync(st, d, bytes)) return;
  if (buffered_ + bytes.size() > o_.max_buffered) {
    ++r_.stats.memory_limited;
    EndWith(st, "memory",
            absl::StrFormat("more than %d bytes held for incomplete frames and out-of-order "
                            "segments: checking of this connection ends",
                            o_.max_buffered));
    return;
  }
  dir.buf.insert(dir.buf.end(), bytes.begin(), bytes.end());
  buffered_ += bytes.size();
  Split(st, d);
}

// A direction of a stream begun before the capture: synced at the first segment that
// starts with a plausible frame (a request header; a response answering a request seen).
bool Reader::Sync(State& st, int d, std::span<const uint8_t> bytes) {
  Dir& dir = st.dir[d];
  const bool found =
      d == kRequests
          ? RequestStartsHere(bytes, o_.check.max_frame_size, o_.check.quirks)
          : st.dir[kRequests].synced &&
                PlausibleResponse(bytes, o_.check.max_frame_size, st.request_ids);
  if (!found) {
    dir.skipped += bytes.size();
    if (dir.skipped > o_.max_resync_bytes) {
      NotCheckable(st, absl::StrFormat(
                           "the capture lacks the stream's start and no %s frame begins a "
                           "segment in the first %d bytes %s",
                           DirectionName(d), dir.skipped,
                           d == kRequests ? "from the client" : "from the broker"));
    }
    return false;
  }
  dir.synced = true;
  dir.first_frame_pending = true;
  Json j = Event(st, "mid_stream");
  j["direction"] = DirectionName(d);
  j["skipped"] = dir.skipped;
  j["message"] = absl::StrFormat("the capture lacks the stream's start: %ss checked from here",
                                 DirectionName(d));
  Report(j);
  return true;
}

void Reader::Split(State& st, int d) {
  Dir& dir = st.dir[d];
  FrameOptions split;
  split.max_frame_size = o_.check.max_frame_size;
  size_t start = 0;
  while (start < dir.buf.size()) {
    const SplitResult r =
        SplitFrame(std::span<const uint8_t>(dir.buf).subspan(start), split);
    if (r.status == SplitResult::kNeedMore) break;
    if (r.status == SplitResult::kError) {
      if (dir.first_frame_pending) {
        return NotCheckable(st, "the first bytes after the capture's start are not a frame: " +
                                    r.error.ToString());
      }
      ++r_.stats.stream_errors;
      Json j = Event(st, "stream_error");
      j["direction"] = DirectionName(d);
      j["message"] = r.error.ToString();
      Report(j);
      st.role = State::kEnded;
      Release(st);
      if (o_.fail_fast) stopped_ = true;
      return;
    }
    const size_t size = r.frame.size();
    Check(st, d, r.frame);
    if (st.role != State::kKafka || stopped_) return;
    start += size;
  }
  if (start > 0) {
    dir.buf.erase(dir.buf.begin(), dir.buf.begin() + static_cast<std::ptrdiff_t>(start));
    buffered_ -= start;
    if (dir.buf.empty() && dir.buf.capacity() > (size_t{1} << 20)) {
      std::vector<uint8_t>().swap(dir.buf);  // a large frame is done: give its memory back
    }
  }
}

void Reader::Check(State& st, int d, std::span<const uint8_t> frame) {
  Dir& dir = st.dir[d];
  traffic::FrameReport r = d == kRequests ? st.check->OnRequest(frame) : st.check->OnResponse(frame);
  if (dir.first_frame_pending) {
    dir.first_frame_pending = false;
    if (r.verdict == traffic::Verdict::kRejected || r.verdict == traffic::Verdict::kUncorrelated) {
      return NotCheckable(
          st, absl::StrFormat("the capture lacks the stream's start, and the first %s after it "
                              "does not decode (%s): not a frame boundary",
                              DirectionName(d), r.message));
    }
  }
  if (d == kRequests && !st.dir[kResponses].synced) {
    st.request_ids.push_back(r.correlation_id);
    if (st.request_ids.size() > o_.check.max_pending) st.request_ids.pop_front();
  }
  r_.summary.Add(r);
  if (o_.on_report) {
    Json j = traffic::ReportJson(r);
    j["client"] = st.client;
    j["server"] = st.server;
    j["time"] = Now();
    if (o_.include_frames) {
      j["frame"] = HexString(frame);
    }
    Report(j);
  }
  if (!traffic::Conforms(r.verdict) && o_.fail_fast) stopped_ = true;
}

}  // namespace

absl::StatusOr<Result> CheckCapture(const std::string& path, const Options& options) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* p = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO,
                                                       errbuf);
  if (p == nullptr) {
    std::error_code ec;
    const std::string message = absl::StrFormat("%s: %s", path, errbuf);
    if (!std::filesystem::exists(path, ec)) return absl::NotFoundError(message);
    return absl::InvalidArgumentError(message);
  }
  std::unique_ptr<pcap_t, void (*)(pcap_t*)> closer(p, pcap_close);
  const int dlt = pcap_datalink(p);
  if (!LinkTypeRead(dlt)) {
    const char* name = pcap_datalink_val_to_name(dlt);
    return absl::UnimplementedError(absl::StrFormat(
        "%s: link type %d (%s) is not read: kwire pcap reads Ethernet, raw IP, BSD loopback "
        "and Linux cooked (v1, v2) captures",
        path, dlt, name != nullptr ? name : "unknown"));
  }
  Result result;
  {
    Reader reader(options, result);
    pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    while (!reader.stopped()) {
      const int rc = pcap_next_ex(p, &h, &data);
      if (rc == 1) {
        reader.OnPacket(*h, data, dlt);
      } else if (rc == PCAP_ERROR_BREAK) {  // the end of the file
        break;
      } else if (rc != 0) {
        result.stats.capture_error =
            absl::StrFormat("packet %d: %s", result.stats.packets + 1, pcap_geterr(p));
        reader.Report(Json{{"event", "capture_error"}, {"message", result.stats.capture_error}});
        break;
      }
    }
    result.stopped = reader.stopped();
    if (!result.stopped) reader.Finish();
  }
  return result;
}

int Run(const std::string& path, Options options, std::ostream& log, std::ostream& err,
        const std::string& summary_json) {
  options.on_report = [&log](const Json& j) {
    // Text from a frame is never invalid UTF-8 in the log (replaced, not thrown).
    log << j.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
  };
  absl::StatusOr<Result> result = CheckCapture(path, options);
  log.flush();
  if (!result.ok()) {
    err << "kwire pcap: " << result.status().message() << "\n";
    return 2;
  }
  err << result->summary.Table() << result->stats.Line();
  if (result->stopped) err << "kwire pcap: stopped at the first frame that does not conform\n";
  if (!summary_json.empty()) {
    Json j = result->summary.ToJson();
    j["capture"] = result->stats.ToJson();
    std::ofstream out(summary_json);
    out << j.dump(2) << "\n";
    if (!out) err << "kwire pcap: cannot write --summary-json " << summary_json << "\n";
  }
  return result->ok() && !result->stopped ? 0 : 1;
}

}  // namespace kwire::pcap
