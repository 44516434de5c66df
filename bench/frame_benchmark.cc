// Whole frames: decode and encode of every conformance vector (registered at start-up
// from conformance/vectors/, so every API and version gets a number) and of a few rich
// frames (Metadata v12 and v5 responses with 1,000 partitions, a Produce request carrying
// 1 MiB of records, a Fetch v12 response with several partitions of records, a Fetch v4
// response with 512 small record batches, an OffsetCommit v4 request with 1,000
// partitions). The two Metadata frames, the Fetch v4 and the OffsetCommit frame are
// issue 16's peer frames; issue 31 adds a Produce v13 request with a 1 MiB batch, a Fetch
// v18 response of 8 x 64 KiB and the small frames a proxy sees by the million (ApiVersions
// v4 request and response, Heartbeat v4 request and response, Metadata v12 request and
// response for one topic, a Produce v13 request of one small batch). `frame_benchmark
// --dump_frames=DIR` writes the peer frames to files (and runs no benchmark) for the peers
// of bench/peers/ (run.sh: sarama, franz-go, kafka-protocol, Apache Kafka).
//
// Names: BM_DecodeFrame/<Api>/v<N>/<request|response>[/<what>] and the same with
// BM_EncodeFrame. Decode is DecodeRequestFrame / DecodeResponseFrame on the frame bytes
// (size prefix included); encode is EncodeRequestFrame / EncodeResponseFrame of the
// decoded frame (a new buffer per frame); for the rich frames, BM_AppendFrame is
// AppendRequestFrame / AppendResponseFrame into a reused Writer. BM_DecodeFrame validates
// the record batches of records fields (FrameOptions' default: CRC-32C, every record);
// for the rich frames BM_DecodeFrameOpaque keeps them unexamined (RecordsMode::kOpaque),
// so the two side by side give the cost of validation; BM_DecodeFrameBorrowed and
// BM_DecodeFrameOpaqueBorrowed do the same with records borrowed as views into the frame
// buffer (FrameOptions::borrow_records) instead of copied: copy vs view in one run.
// A reference memcpy of each rich frame gives the physical limit:
// BM_RefMemcpy_DecodeFrame/.... BM_DecodeFrameInto decodes into one typed frame reused
// across iterations (records validated and copied); for frames with records fields
// BM_DecodeFrameIntoOpaqueBorrowed does the same with records unexamined and borrowed
// (what the peers that keep records as bytes of the input do).
//
// Every decode and encode benchmark reports `allocs`: calls of operator new per
// iteration (this binary's global operator new counts them in a thread-local counter and
// calls malloc, as the library's does).
//
// Every benchmark first checks that the frame decodes and re-encodes to the same bytes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "bench/bench_data.h"
#include "codec/generated/api_versions_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/fetch_response.h"
#include "codec/generated/heartbeat_request.h"
#include "codec/generated/heartbeat_response.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/offset_commit_request.h"
#include "codec/generated/produce_request.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/records/record_batch.h"
#include "codec/wire/hex.h"

#ifndef KWIRE_CONFORMANCE_DIR
#error "KWIRE_CONFORMANCE_DIR must name conformance/vectors"
#endif

// Calls of the global operator new on this thread (the `allocs` counter): this binary
// replaces the global operator new and delete (every form but the aligned ones) with
// malloc and free plus a thread-local count of the news. Both sides are replaced, so that
// a sanitizer's allocator (which tells malloc from new) sees malloc and free paired.
namespace {
thread_local uint64_t t_allocations = 0;

void* CountedNew(std::size_t n) {
  ++t_allocations;
  if (n == 0) n = 1;
  for (;;) {
    if (void* p = std::malloc(n)) return p;
    std::new_handler h = std::get_new_handler();
    if (h == nullptr) throw std::bad_alloc();
    h();
  }
}

void* CountedNewNothrow(std::size_t n) noexcept {
  try {
    return CountedNew(n);
  } catch (...) {
    return nullptr;
  }
}
}  // namespace

void* operator new(std::size_t n) { return CountedNew(n); }
void* operator new[](std::size_t n) { return CountedNew(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return CountedNewNothrow(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return CountedNewNothrow(n);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace kwire::bench {
namespace {

struct Frame {
  std::string name;  // <Api>/v<N>/<request|response>[/<what>]
  int16_t api_key = 0;
  int16_t version = 0;
  Direction dir = Direction::kRequest;
  std::vector<uint8_t> bytes;
};

// Every frame of a conformance vector file (format: conformance/README.md).
std::vector<Frame> LoadVectors(const std::string& file) {
  std::vector<Frame> out;
  std::ifstream in(std::string(KWIRE_CONFORMANCE_DIR) + "/" + file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    int key = 0, version = 0;
    size_t size = 0;
    std::string api, dir, hex;
    ss >> key >> api >> version >> dir >> size >> hex;
    Frame f;
    f.api_key = static_cast<int16_t>(key);
    f.version = static_cast<int16_t>(version);
    f.dir = dir == "request" ? Direction::kRequest : Direction::kResponse;
    f.name = api + "/v" + std::to_string(version) + "/" + dir;
    ParseHex(hex, f.bytes);  // bench/frames.txt: checked hex
    out.push_back(std::move(f));
  }
  return out;
}

// Decodes and re-encodes `f` once; returns an error text or "".
std::string Check(const Frame& f) {
  absl::StatusOr<std::vector<uint8_t>> again;
  if (f.dir == Direction::kRequest) {
    auto d = DecodeRequestFrame(f.bytes);
    if (!d.ok()) return "decode: " + std::string(d.status().message());
    again = EncodeRequestFrame(d->header, d->body);
  } else {
    auto d = DecodeResponseFrame(f.bytes, f.api_key, f.version);
    if (!d.ok()) return "decode: " + std::string(d.status().message());
    again = EncodeResponseFrame(d->header, f.api_key, f.version, d->body);
  }
  if (!again.ok()) return "encode: " + std::string(again.status().message());
  if (*again != f.bytes) return "re-encoded bytes differ";
  return "";
}

void SetCounters(benchmark::State& st, const Frame& f) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * f.bytes.size()));
}

// SetCounters plus `allocs`, the calls of operator new per iteration since
// `allocations_before` (t_allocations read just before the timed loop).
void SetCounters(benchmark::State& st, const Frame& f, uint64_t allocations_before) {
  SetCounters(st, f);
  if (st.iterations() > 0) {
    st.counters["allocs"] = benchmark::Counter(
        static_cast<double>(t_allocations - allocations_before) /
        static_cast<double>(st.iterations()));
  }
}

// Decode with the given records handling: `mode` (validate / opaque) and whether records
// fields are copied (the default) or borrowed as views into the frame buffer
// (FrameOptions::borrow_records).
template <RecordsMode kMode, bool kBorrow>
void BM_DecodeFrameWith(benchmark::State& st, const Frame* f) {
  if (const std::string e = Check(*f); !e.empty()) {
    st.SkipWithError(e.c_str());
    return;
  }
  FrameOptions o;
  o.records_mode = kMode;
  o.borrow_records = kBorrow;
  const uint64_t allocations = t_allocations;
  if (f->dir == Direction::kRequest) {
    for (auto _ : st) {
      auto d = DecodeRequestFrame(f->bytes, o);
      benchmark::DoNotOptimize(d);
    }
  } else {
    for (auto _ : st) {
      auto d = DecodeResponseFrame(f->bytes, f->api_key, f->version, o);
      benchmark::DoNotOptimize(d);
    }
  }
  SetCounters(st, *f, allocations);
}

// Decode into one typed frame reused across iterations (DecodeRequestFrameInto /
// DecodeResponseFrameInto): a connection decoding frame after frame, whose strings and
// vectors keep their capacity, so the allocator leaves the loop. BM_DecodeFrameInto:
// records validated and copied, as in BM_DecodeFrame; BM_DecodeFrameIntoOpaqueBorrowed:
// records unexamined and borrowed (views into the frame), as BM_DecodeFrameOpaqueBorrowed.
template <class M, RecordsMode kMode = RecordsMode::kValidate, bool kBorrow = false>
void BM_DecodeFrameInto(benchmark::State& st, const Frame* f) {
  if (const std::string e = Check(*f); !e.empty()) {
    st.SkipWithError(e.c_str());
    return;
  }
  FrameOptions o;
  o.records_mode = kMode;
  o.borrow_records = kBorrow;
  if constexpr (M::kMessage.kind == MessageKind::kRequest) {
    TypedRequestFrame<M> out;
    const uint64_t allocations = t_allocations;
    for (auto _ : st) {
      absl::Status s = DecodeRequestFrameInto(f->bytes, &out, o);
      benchmark::DoNotOptimize(s);
      benchmark::ClobberMemory();
    }
    SetCounters(st, *f, allocations);
  } else {
    TypedResponseFrame<M> out;
    const uint64_t allocations = t_allocations;
    for (auto _ : st) {
      absl::Status s = DecodeResponseFrameInto(f->bytes, f->version, &out, o);
      benchmark::DoNotOptimize(s);
      benchmark::ClobberMemory();
    }
    SetCounters(st, *f, allocations);
  }
}

// Registers BM_DecodeFrameInto<M> for `f` when f is an M (the typed frames kwire's own
// frames and the peer frames use), and BM_DecodeFrameIntoOpaqueBorrowed<M> when M has
// records (Produce, Fetch).
template <class M>
void RegisterDecodeInto(const Frame* f) {
  const bool request = M::kMessage.kind == MessageKind::kRequest;
  if (f->api_key == M::kMessage.api_key && (f->dir == Direction::kRequest) == request) {
    Register("BM_DecodeFrameInto/" + f->name, BM_DecodeFrameInto<M>, f);
    if (f->api_key == 0 || f->api_key == 1) {
      Register("BM_DecodeFrameIntoOpaqueBorrowed/" + f->name,
               BM_DecodeFrameInto<M, RecordsMode::kOpaque, true>, f);
    }
  }
}

void BM_EncodeFrame(benchmark::State& st, const Frame* f) {
  if (const std::string e = Check(*f); !e.empty()) {
    st.SkipWithError(e.c_str());
    return;
  }
  if (f->dir == Direction::kRequest) {
    const RequestFrame d = *DecodeRequestFrame(f->bytes);
    const uint64_t allocations = t_allocations;
    for (auto _ : st) {
      auto bytes = EncodeRequestFrame(d.header, d.body);
      benchmark::DoNotOptimize(bytes);
    }
    SetCounters(st, *f, allocations);
  } else {
    const ResponseFrame d = *DecodeResponseFrame(f->bytes, f->api_key, f->version);
    const uint64_t allocations = t_allocations;
    for (auto _ : st) {
      auto bytes = EncodeResponseFrame(d.header, f->api_key, f->version, d.body);
      benchmark::DoNotOptimize(bytes);
    }
    SetCounters(st, *f, allocations);
  }
}

// AppendRequestFrame / AppendResponseFrame into one Writer reused across iterations:
// what a client or broker encoding frame after frame pays once its buffer has grown
// (BM_EncodeFrame allocates a new buffer per frame, page faults included for large ones).
// `append` clears `w` and appends the frame; checked once against the frame's bytes.
template <class F>
void TimeAppend(benchmark::State& st, const Frame& f, const Writer& w, F&& append) {
  if (!append().ok() || w.size() != f.bytes.size() ||
      std::memcmp(w.data(), f.bytes.data(), w.size()) != 0) {
    st.SkipWithError("appended frame differs from the frame");
    return;
  }
  const uint64_t allocations = t_allocations;
  for (auto _ : st) {
    absl::Status s = append();
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  SetCounters(st, f, allocations);
}

void BM_AppendFrame(benchmark::State& st, const Frame* f) {
  if (const std::string e = Check(*f); !e.empty()) {
    st.SkipWithError(e.c_str());
    return;
  }
  Writer w;
  if (f->dir == Direction::kRequest) {
    const RequestFrame d = *DecodeRequestFrame(f->bytes);
    TimeAppend(st, *f, w, [&] {
      w.Clear();
      return AppendRequestFrame(d.header, d.body, &w);
    });
  } else {
    const ResponseFrame d = *DecodeResponseFrame(f->bytes, f->api_key, f->version);
    TimeAppend(st, *f, w, [&] {
      w.Clear();
      return AppendResponseFrame(d.header, f->api_key, f->version, d.body, &w);
    });
  }
}

void BM_RefMemcpy_Frame(benchmark::State& st, const Frame* f) {
  std::vector<uint8_t> dst(f->bytes.size());
  for (auto _ : st) {
    std::memcpy(dst.data(), f->bytes.data(), f->bytes.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  SetCounters(st, *f);
}

// ---- Rich frames.

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Uncompressed RecordBatch v2s of `batches` × about `batch_bytes` bytes: records of
// 100 random bytes with a 16-byte key, offsets continuing from `base_offset`.
std::string RecordBatches(size_t batches, size_t batch_bytes, uint64_t seed) {
  std::string out;
  int64_t base_offset = 0;
  for (size_t b = 0; b < batches; ++b) {
    const size_t n = std::max<size_t>(1, batch_bytes / 124);
    std::vector<std::string> keys, values;
    std::vector<Record> records(n);
    for (size_t i = 0; i < n; ++i) {
      keys.push_back(RandomBytes(16, seed * 1000003 + b * 7919 + i));
      values.push_back(RandomBytes(100, seed * 1000033 + b * 7907 + i));
    }
    for (size_t i = 0; i < n; ++i) {
      records[i].offset_delta = static_cast<int32_t>(i);
      records[i].timestamp_delta = static_cast<int64_t>(i);
      records[i].key = keys[i];
      records[i].value = values[i];
    }
    BatchHeader h;
    h.base_offset = base_offset;
    h.base_timestamp = 1700000000000;
    h.max_timestamp = h.base_timestamp + static_cast<int64_t>(n) - 1;
    h.last_offset_delta = static_cast<int32_t>(n - 1);
    out += EncodeRecordBatch(h, records).value();
    base_offset += static_cast<int64_t>(n);
  }
  return out;
}

template <class M>
Frame ResponseFrameOf(const std::string& name, int16_t version, const M& body) {
  const ApiInfo* api = FindApi(M::kMessage.api_key);
  AnyMessage any(*api->response);
  *any.template get<M>() = body;
  ResponseHeader h;
  h.correlation_id = 7;
  Frame f;
  f.name = name;
  f.api_key = M::kMessage.api_key;
  f.version = version;
  f.dir = Direction::kResponse;
  f.bytes = EncodeResponseFrame(h, f.api_key, version, any).value();
  return f;
}

template <class M>
Frame RequestFrameOf(const std::string& name, int16_t version, const M& body) {
  Frame f;
  f.name = name;
  f.api_key = M::kMessage.api_key;
  f.version = version;
  f.dir = Direction::kRequest;
  f.bytes = EncodeRequestFrame(version, 7, std::string("bench-client"), body).value();
  return f;
}

// Metadata response: 3 brokers, `topics` topics x `partitions` partitions (replicas and
// ISR of 3). `version` 12 (flexible, topic ids, leader epochs) or 5 (issue 16's peer
// frame: what sarama 1.22.1 decodes; fields of later versions stay at their defaults).
Frame MetadataFrame(const std::string& name, int16_t version, int topics, int partitions) {
  MetadataResponse m;
  for (int b = 1; b <= 3; ++b) {
    MetadataResponse::MetadataResponseBroker broker;
    broker.node_id = b;
    broker.host = "broker-" + std::to_string(b) + ".kafka.example.com";
    broker.port = 9092;
    broker.rack = "rack-" + std::to_string(b);
    m.brokers.push_back(broker);
  }
  m.cluster_id = "kwire-bench-cluster-0000";
  m.controller_id = 1;
  for (int t = 0; t < topics; ++t) {
    MetadataResponse::MetadataResponseTopic topic;
    topic.name = "bench.topic." + std::to_string(t);
    if (version >= 10) topic.topic_id.bytes[15] = static_cast<uint8_t>(t + 1);
    for (int p = 0; p < partitions; ++p) {
      MetadataResponse::MetadataResponsePartition part;
      part.partition_index = p;
      part.leader_id = 1 + p % 3;
      if (version >= 7) part.leader_epoch = 5;
      part.replica_nodes = {1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3};
      part.isr_nodes = part.replica_nodes;
      topic.partitions.push_back(part);
    }
    m.topics.push_back(topic);
  }
  return ResponseFrameOf(name, version, m);
}

// 10 topics x 100 partitions.
Frame Metadata1000Partitions(int16_t version) {
  return MetadataFrame("Metadata/v" + std::to_string(version) + "/response/1000partitions",
                       version, 10, 100);
}

// Metadata v12 for one topic of 6 partitions: what a client asks for (and gets back) when
// it first produces to a topic, and again every metadata.max.age.ms.
Frame MetadataRequestOneTopic() {
  MetadataRequest m;
  MetadataRequest::MetadataRequestTopic topic;  // topic id zero: asked by name
  topic.name = "bench.topic.0";
  m.topics->push_back(topic);
  m.allow_auto_topic_creation = false;
  return RequestFrameOf("Metadata/v12/request/1topic", 12, m);
}
Frame MetadataResponseOneTopic() {
  return MetadataFrame("Metadata/v12/response/1topic", 12, 1, 6);
}

// ApiVersions v4, the first request of every connection, and a Kafka 4.4 broker's answer:
// every API with its current versions (kwire's registry: Kafka 4.4's), the supported and
// finalized features (tagged fields) of a KRaft cluster.
Frame ApiVersionsRequestFrame() {
  ApiVersionsRequest m;
  m.client_software_name = "apache-kafka-java";
  m.client_software_version = "4.4.0";
  return RequestFrameOf("ApiVersions/v4/request/client", 4, m);
}
Frame ApiVersionsResponseFrame() {
  ApiVersionsResponse m;
  for (const ApiInfo& api : AllApis()) {
    const VersionRange v = api.current_versions();
    if (v.empty()) continue;
    ApiVersionsResponse::ApiVersion a;
    a.api_key = api.api_key;
    a.min_version = v.lo;
    a.max_version = v.hi;
    m.api_keys.push_back(a);
  }
  auto& supported = m.supported_features.emplace();
  for (const auto& [feature, lo, hi] :
       std::vector<std::tuple<std::string, int16_t, int16_t>>{
           {"eligible.leader.replicas.version", 0, 1}, {"group.version", 0, 1},
           {"kraft.version", 0, 1}, {"metadata.version", 7, 29}, {"share.version", 0, 1},
           {"streams.version", 0, 1}, {"transaction.version", 0, 2}}) {
    ApiVersionsResponse::SupportedFeatureKey k;
    k.name = feature;
    k.min_version = lo;
    k.max_version = hi;
    supported.push_back(k);
  }
  m.finalized_features_epoch = 4321;
  auto& finalized = m.finalized_features.emplace();
  for (const auto& [feature, level] : std::vector<std::pair<std::string, int16_t>>{
           {"group.version", 1}, {"kraft.version", 1}, {"metadata.version", 29},
           {"transaction.version", 2}}) {
    ApiVersionsResponse::FinalizedFeatureKey k;
    k.name = feature;
    k.max_version_level = level;
    k.min_version_level = level;
    finalized.push_back(k);
  }
  return ResponseFrameOf("ApiVersions/v4/response/broker", 4, m);
}

// Heartbeat v4 (classic consumer group), every heartbeat.interval.ms per member.
Frame HeartbeatRequestFrame() {
  HeartbeatRequest m;
  m.group_id = "bench-group";
  m.generation_id = 7;
  m.member_id = "bench-client-6f1c2a9e-3b5d-4c8e-9a07-1d2e3f405162";
  return RequestFrameOf("Heartbeat/v4/request/member", 4, m);
}
Frame HeartbeatResponseFrame() {
  return ResponseFrameOf("Heartbeat/v4/response/ok", 4, HeartbeatResponse{});
}

// A topic id for the versions that name topics by id (Produce v13+, Fetch v13+).
Uuid BenchTopicId(int t) {
  Uuid id;
  const std::string b = RandomBytes(16, 4242 + static_cast<uint64_t>(t));
  std::memcpy(id.bytes.data(), b.data(), 16);
  return id;
}

// Produce request: one partition carrying one record batch of about `batch_bytes`
// (RecordBatches); the topic by name, by id from v13 (KIP-516).
Frame ProduceFrame(const std::string& name, int16_t version, size_t batch_bytes, uint64_t seed) {
  ProduceRequest m;
  m.acks = -1;
  m.timeout_ms = 30000;
  ProduceRequest::TopicProduceData topic;
  if (version >= 13) {
    topic.topic_id = BenchTopicId(0);
  } else {
    topic.name = "bench.topic";
  }
  ProduceRequest::PartitionProduceData part;
  part.index = 0;
  part.records = Records{RecordBatches(1, batch_bytes, seed)};
  topic.partition_data.push_back(part);
  m.topic_data.push_back(topic);
  return RequestFrameOf(name, version, m);
}

// Produce v9 request: one partition carrying one 1 MiB record batch (~8,450 records).
Frame Produce1MiB() { return ProduceFrame("Produce/v9/request/1MiB", 9, 1 << 20, 1); }

// Produce v13 request: the same 1 MiB batch (the topic by id); and one small batch of 2
// records (16-byte key, 100-byte value), what a low-latency producer sends per request.
Frame Produce1MiBV13() { return ProduceFrame("Produce/v13/request/1MiB", 13, 1 << 20, 1); }
Frame ProduceSmallBatchV13() {
  return ProduceFrame("Produce/v13/request/1batch", 13, 2 * 124, 3);
}

// Fetch response: 2 topics x 4 partitions, each with `batches` record batches of about
// `batch_bytes` (RecordBatches; seeds from `seed`). Fields of later versions than
// `version` stay at their defaults.
Frame FetchFrame(const std::string& name, int16_t version, size_t batches, size_t batch_bytes,
                 uint64_t seed) {
  FetchResponse m;
  if (version >= 7) m.session_id = 42;
  for (int t = 0; t < 2; ++t) {
    FetchResponse::FetchableTopicResponse topic;
    if (version >= 13) {
      topic.topic_id = BenchTopicId(t);
    } else {
      topic.topic = "bench.topic." + std::to_string(t);
    }
    for (int p = 0; p < 4; ++p) {
      FetchResponse::PartitionData part;
      part.partition_index = p;
      part.high_watermark = 1000000 + p;
      part.last_stable_offset = 1000000 + p;
      if (version >= 5) part.log_start_offset = 0;
      part.records =
          Records{RecordBatches(batches, batch_bytes, seed + static_cast<uint64_t>(t * 4 + p))};
      topic.partitions.push_back(part);
    }
    m.responses.push_back(topic);
  }
  return ResponseFrameOf(name, version, m);
}

// Fetch v12 response: each partition with 64 KiB of records (4 batches).
Frame FetchSeveralBatches() {
  return FetchFrame("Fetch/v12/response/8x64KiB", 12, 4, 16 << 10, 2);
}

// Fetch v18 response (issue 31's peer frame): the same shape as the v12 one, topics by id.
Frame FetchSeveralBatchesV18() {
  return FetchFrame("Fetch/v18/response/8x64KiB", 18, 4, 16 << 10, 2);
}

// Fetch v4 response (issue 16's peer frame; the newest Fetch sarama 1.22.1 decodes): each
// partition with 64 small record batches of 2 records (16-byte key, 100-byte value; about
// 300 bytes per batch): 512 batches, what a consumer of a low-latency producer (one or
// two records per batch) fetches.
Frame FetchManySmallBatches() {
  return FetchFrame("Fetch/v4/response/512batches", 4, 64, 2 * 124, 100);
}

// OffsetCommit v4 request (issue 16's peer frame; the newest sarama 1.22.1 encodes): a
// consumer group member committing 10 topics x 100 partitions, empty metadata.
Frame OffsetCommit1000Partitions() {
  OffsetCommitRequest m;
  m.group_id = "bench-group";
  m.generation_id_or_member_epoch = 7;
  m.member_id = "bench-client-6f1c2a9e-3b5d-4c8e-9a07-1d2e3f405162";
  m.retention_time_ms = -1;
  for (int t = 0; t < 10; ++t) {
    OffsetCommitRequest::OffsetCommitRequestTopic topic;
    topic.name = "bench.topic." + std::to_string(t);
    for (int p = 0; p < 100; ++p) {
      OffsetCommitRequest::OffsetCommitRequestPartition part;
      part.partition_index = p;
      part.committed_offset = 1000000 + t * 100003 + p * 997;
      part.committed_metadata = "";
      topic.partitions.push_back(part);
    }
    m.topics.push_back(topic);
  }
  return RequestFrameOf("OffsetCommit/v4/request/1000partitions", 4, m);
}

// The frames of the peer comparison (issue 16's four, then issue 31's), in table order:
// what --dump_frames writes and bench/peers/run.sh times against the peers.
std::vector<Frame> PeerFrames() {
  std::vector<Frame> out;
  out.push_back(Metadata1000Partitions(5));
  out.push_back(Metadata1000Partitions(12));
  out.push_back(FetchManySmallBatches());
  out.push_back(OffsetCommit1000Partitions());
  out.push_back(Produce1MiBV13());
  out.push_back(FetchSeveralBatchesV18());
  out.push_back(ApiVersionsRequestFrame());
  out.push_back(ApiVersionsResponseFrame());
  out.push_back(HeartbeatRequestFrame());
  out.push_back(HeartbeatResponseFrame());
  out.push_back(MetadataRequestOneTopic());
  out.push_back(MetadataResponseOneTopic());
  out.push_back(ProduceSmallBatchV13());
  return out;
}

std::vector<std::unique_ptr<Frame>>& Frames() {
  static std::vector<std::unique_ptr<Frame>> frames;
  return frames;
}

void RegisterAll() {
  for (const char* file : {"minimal.txt", "minimal-removed.txt"}) {
    for (Frame& f : LoadVectors(file)) Frames().push_back(std::make_unique<Frame>(std::move(f)));
  }
  const size_t vectors = Frames().size();
  Frames().push_back(std::make_unique<Frame>(Produce1MiB()));
  Frames().push_back(std::make_unique<Frame>(FetchSeveralBatches()));
  for (Frame& f : PeerFrames()) Frames().push_back(std::make_unique<Frame>(std::move(f)));
  for (size_t i = 0; i < Frames().size(); ++i) {
    const Frame* f = Frames()[i].get();
    Register("BM_DecodeFrame/" + f->name,
             BM_DecodeFrameWith<RecordsMode::kValidate, false>, f);
    Register("BM_EncodeFrame/" + f->name, BM_EncodeFrame, f);
    if (i >= vectors) {
      Register("BM_DecodeFrameOpaque/" + f->name,
               BM_DecodeFrameWith<RecordsMode::kOpaque, false>, f);
      Register("BM_DecodeFrameBorrowed/" + f->name,
               BM_DecodeFrameWith<RecordsMode::kValidate, true>, f);
      Register("BM_DecodeFrameOpaqueBorrowed/" + f->name,
               BM_DecodeFrameWith<RecordsMode::kOpaque, true>, f);
      Register("BM_AppendFrame/" + f->name, BM_AppendFrame, f);
      RegisterDecodeInto<MetadataResponse>(f);
      RegisterDecodeInto<FetchResponse>(f);
      RegisterDecodeInto<ProduceRequest>(f);
      RegisterDecodeInto<OffsetCommitRequest>(f);
      RegisterDecodeInto<MetadataRequest>(f);
      RegisterDecodeInto<ApiVersionsRequest>(f);
      RegisterDecodeInto<ApiVersionsResponse>(f);
      RegisterDecodeInto<HeartbeatRequest>(f);
      RegisterDecodeInto<HeartbeatResponse>(f);
      Register("BM_RefMemcpy_DecodeFrame/" + f->name, BM_RefMemcpy_Frame, f);
    }
  }
}

// --dump_frames=DIR: writes PeerFrames() to DIR/<name with '/' as '_'>.bin (the whole
// frame, size prefix included) and DIR/frames.tsv (name, api key, version, request or
// response, bytes, file; one line per frame, in table order), so that a peer
// (bench/peers/) reads the very bytes kwire is timed on. Returns 0 or 1.
int DumpFrames(const std::string& dir) {
  std::ofstream index(dir + "/frames.tsv");
  if (!index) {
    std::fprintf(stderr, "frame_benchmark: cannot write %s/frames.tsv\n", dir.c_str());
    return 1;
  }
  const std::vector<Frame> frames = PeerFrames();
  for (const Frame& f : frames) {
    if (const std::string e = Check(f); !e.empty()) {
      std::fprintf(stderr, "frame_benchmark: %s: %s\n", f.name.c_str(), e.c_str());
      return 1;
    }
    std::string file = f.name;
    std::replace(file.begin(), file.end(), '/', '_');
    file += ".bin";
    std::ofstream out(dir + "/" + file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(f.bytes.data()),
              static_cast<std::streamsize>(f.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "frame_benchmark: cannot write %s/%s\n", dir.c_str(), file.c_str());
      return 1;
    }
    index << f.name << '\t' << f.api_key << '\t' << f.version << '\t'
          << (f.dir == Direction::kRequest ? "request" : "response") << '\t' << f.bytes.size()
          << '\t' << file << '\n';
    std::printf("%s\t%zu bytes\t%s/%s\n", f.name.c_str(), f.bytes.size(), dir.c_str(),
                file.c_str());
  }
  index.close();
  if (!index) {
    std::fprintf(stderr, "frame_benchmark: cannot write %s/frames.tsv\n", dir.c_str());
    return 1;
  }
  std::printf("frame_benchmark: %zu peer frames in %s\n", frames.size(), dir.c_str());
  return 0;
}

}  // namespace
}  // namespace kwire::bench

int main(int argc, char** argv) {
  // --dump_frames=DIR is ours: handled (and the program ends) before Google Benchmark
  // sees the arguments.
  constexpr std::string_view kDump = "--dump_frames=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kDump.size()) == kDump) {
      return kwire::bench::DumpFrames(std::string(arg.substr(kDump.size())));
    }
  }
  return kwire::bench::BenchMain(argc, argv, &kwire::bench::RegisterAll);
}
