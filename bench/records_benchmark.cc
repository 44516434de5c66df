// RecordBatch v2 (codec/records): decode, iterate and encode one batch holding about
// 1 MiB of record values, per compression codec and record value size (issue 7).
//
// Names: BM_<Op>RecordBatch/<codec>/<value bytes> is kwire, over the same pre-built
// buffer per case:
//   DecodeRecordBatch   BatchIterator (header + CRC-32C) + BatchView::DecodeRecords
//                       (decompress, decode every record) + the sum of the value sizes
//   IterateRecordBatch  BatchIterator only: headers and CRC, no record decoded (none)
//   EncodeRecordBatch   AppendRecordBatch of the same records into a reused Writer
// References on the same buffer (codec none), BM_Ref<Impl>_RecordBatch/none/<bytes>:
//   RefMemcpy  memcpy of the whole buffer into a preallocated destination (the limit)
//   RefCrc32c  kwire::Crc32c over the bytes the batch CRC covers (21..end)
// Every benchmark sets items = records and bytes = wire bytes of the buffer (so GB/s
// ratios between benchmarks of one case are time ratios), and first checks its own
// result (decoded records equal to the source records, value sizes, CRC, encoded bytes)
// and reports an error instead of a figure when it is wrong.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/bench_data.h"
#include "codec/records/compression.h"
#include "codec/records/crc32c.h"
#include "codec/records/record_batch.h"
#include "codec/wire/writer.h"

namespace kwire::bench {
namespace {

/// Uncompressed record value bytes per buffer: records = kValueBytes / value size.
constexpr size_t kValueBytes = size_t{1} << 20;
/// Byte offset of the CRC-32C field and of the first byte it covers (attributes).
constexpr size_t kCrcOffset = 17;
constexpr size_t kCrcStart = 21;

constexpr Compression kCodecs[] = {Compression::kNone, Compression::kGzip, Compression::kSnappy,
                                   Compression::kLz4, Compression::kZstd};
constexpr int kValueSizes[] = {100, 1024};

/// The source records of one value size, shared by every codec: 8-byte keys
/// ("k0000042"), values of exactly `value_size` bytes of text-like words (a fixed
/// vocabulary drawn with a fixed seed, plus numbers), which compress like log or JSON
/// payloads rather than like random bytes. No headers.
struct Source {
  std::vector<std::string> keys;
  std::vector<std::string> values;
  std::vector<Record> records;  ///< views into keys / values
  uint64_t value_bytes = 0;     ///< sum of the value sizes
};

const Source& SourceRecords(int value_size) {
  static std::map<int, std::unique_ptr<Source>> cache;
  auto& slot = cache[value_size];
  if (!slot) {
    static constexpr const char* kWords[] = {
        "user",    "event",   "click",    "view",   "order",  "payment", "session", "page",
        "product", "cart",    "checkout", "status", "ok",     "error",   "timeout", "retry",
        "region",  "eu-west", "us-east",  "mobile", "web",    "android", "ios",     "search",
        "query",   "result",  "latency",  "ms",     "id",     "the",     "a",       "of",
        "and",     "to",      "in",       "is",     "for",    "with",    "from",    "by",
        "GET",     "POST",    "/api/v1",  "/home",  "/items", "200",     "404",     "500",
        "true",    "false",   "null",     "{",      "}",      "\"ts\":",  "\"uid\":", ":",
        "price",   "count",   "total",    "item",   "topic",  "offset",  "key",     "value"};
    slot = std::make_unique<Source>();
    Source& s = *slot;
    const size_t n = kValueBytes / static_cast<size_t>(value_size);
    std::mt19937_64 rng(0x7265636f7264 + static_cast<uint64_t>(value_size));
    s.keys.resize(n);
    s.values.resize(n);
    s.records.resize(n);
    for (size_t i = 0; i < n; ++i) {
      std::string& k = s.keys[i];
      k = std::to_string(i % 10000000);
      k = "k" + std::string(7 - k.size(), '0') + k;
      std::string& v = s.values[i];
      while (v.size() < static_cast<size_t>(value_size)) {
        if (rng() % 8 == 0) {
          v += std::to_string(rng() % 100000);
        } else {
          v += kWords[rng() % std::size(kWords)];
        }
        v += ' ';
      }
      v.resize(static_cast<size_t>(value_size));
      Record& r = s.records[i];
      r.key = k;
      r.value = v;
      r.offset_delta = static_cast<int32_t>(i);
      r.timestamp_delta = static_cast<int64_t>(i);
      s.value_bytes += v.size();
    }
  }
  return *slot;
}

/// One case: the source records encoded as a single RecordBatch v2 with `codec`.
struct Case {
  const Source* source = nullptr;
  BatchHeader header;
  std::vector<uint8_t> wire;  ///< the batch (the whole records field)
  std::string error;          ///< non-empty: the buffer could not be built
};

/// The header every case uses: 1,000,000 as base offset, millisecond timestamps, not
/// idempotent (producer id −1), the codec in the attributes.
BatchHeader HeaderFor(Compression codec, size_t count) {
  BatchHeader h;
  h.base_offset = 1000000;
  h.attributes = static_cast<int16_t>(codec);
  h.last_offset_delta = static_cast<int32_t>(count) - 1;
  h.base_timestamp = 1700000000000;
  h.max_timestamp = h.base_timestamp + static_cast<int64_t>(count) - 1;
  return h;
}

const Case& CaseFor(Compression codec, int value_size) {
  static std::map<std::pair<int, int>, std::unique_ptr<Case>> cache;
  auto& slot = cache[{static_cast<int>(codec), value_size}];
  if (!slot) {
    slot = std::make_unique<Case>();
    Case& c = *slot;
    c.source = &SourceRecords(value_size);
    c.header = HeaderFor(codec, c.source->records.size());
    Writer w;
    if (Error e = AppendRecordBatch(c.header, c.source->records, &w); !e.ok()) {
      c.error = "AppendRecordBatch failed: " + e.detail;
    }
    c.wire.assign(w.data(), w.data() + w.size());
  }
  return *slot;
}

/// The case's buffer as a records field.
std::span<const uint8_t> Field(const Case& c) { return c.wire; }

/// Sets the throughput counters: items = records, bytes = wire bytes, per iteration.
void SetCounters(benchmark::State& st, const Case& c) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * c.source->records.size()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * c.wire.size()));
}

/// Decodes every batch of `field` into `*set` (reused, so its vectors keep their
/// capacity), touching each record's value; returns the sum of the value sizes plus
/// 2^40 per record, or ~0 on any failure (iteration error, CRC, decode).
uint64_t DecodeAll(std::span<const uint8_t> field, RecordSet* set) {
  BatchIterator it(field);
  BatchView batch;
  uint64_t sum = 0;
  while (it.Next(&batch)) {
    if (!batch.DecodeRecords({}, set).ok()) return ~uint64_t{0};
    for (const Record& r : *set) sum += (uint64_t{1} << 40) + (r.value ? r.value->size() : 0);
  }
  return it.state() == BatchIterator::kEnd ? sum : ~uint64_t{0};
}

/// Decodes `c` once and compares every record with its source (key, value, deltas,
/// absolute offset and timestamp). Empty on success, else what differs.
std::string CheckDecode(const Case& c) {
  BatchIterator it(Field(c));
  BatchView batch;
  if (!it.Next(&batch)) return "no batch: " + it.error().detail;
  if (!batch.crc_ok()) return "batch CRC mismatch";
  absl::StatusOr<RecordSet> set = batch.records();
  if (!set.ok()) return std::string(set.status().message());
  const std::vector<Record>& src = c.source->records;
  if (set->size() != src.size()) return "wrong record count";
  for (size_t i = 0; i < src.size(); ++i) {
    const Record& r = (*set)[i];
    if (!(r == src[i]) || r.offset != c.header.base_offset + src[i].offset_delta ||
        r.timestamp != c.header.base_timestamp + src[i].timestamp_delta) {
      return "record " + std::to_string(i) + " differs from its source";
    }
  }
  if (it.Next(&batch) || it.state() != BatchIterator::kEnd) return "trailing bytes";
  return {};
}

// ---- kwire: full decode (iterate + CRC + decompress + every record + value sizes).
void BM_DecodeRecordBatch(benchmark::State& st, Compression codec, int value_size) {
  const Case& c = CaseFor(codec, value_size);
  const uint64_t expected =
      (uint64_t{c.source->records.size()} << 40) + c.source->value_bytes;
  RecordSet set;
  std::string err = c.error.empty() ? CheckDecode(c) : c.error;
  if (err.empty() && DecodeAll(Field(c), &set) != expected) err = "value sizes differ";
  if (!err.empty()) {
    st.SkipWithError(err.c_str());
    return;
  }
  for (auto _ : st) {
    uint64_t sum = DecodeAll(Field(c), &set);
    benchmark::DoNotOptimize(sum);
  }
  SetCounters(st, c);
}

// ---- kwire: iterate only (fixed header + CRC-32C per batch, records not decoded).
/// Returns the sum of the batches' records counts, or ~0 if iteration did not end
/// cleanly (a CRC mismatch ends it with kError).
uint64_t IterateAll(std::span<const uint8_t> field) {
  BatchIterator it(field);
  BatchView batch;
  uint64_t count = 0;
  while (it.Next(&batch)) count += static_cast<uint64_t>(batch.header().records_count);
  return it.state() == BatchIterator::kEnd ? count : ~uint64_t{0};
}

void BM_IterateRecordBatch(benchmark::State& st, Compression codec, int value_size) {
  const Case& c = CaseFor(codec, value_size);
  if (!c.error.empty() || IterateAll(Field(c)) != c.source->records.size()) {
    st.SkipWithError(c.error.empty() ? "iteration failed or wrong records count"
                                     : c.error.c_str());
    return;
  }
  for (auto _ : st) {
    uint64_t count = IterateAll(Field(c));
    benchmark::DoNotOptimize(count);
  }
  SetCounters(st, c);
}

// ---- Reference: memcpy of the whole buffer (the physical limit).
void BM_RefMemcpy_RecordBatch(benchmark::State& st, Compression codec, int value_size) {
  const Case& c = CaseFor(codec, value_size);
  std::vector<uint8_t> dst(c.wire.size() + 64);
  std::memcpy(dst.data(), c.wire.data(), c.wire.size());
  if (!c.error.empty() || std::memcmp(dst.data(), c.wire.data(), c.wire.size()) != 0) {
    st.SkipWithError(c.error.empty() ? "memcpy copy differs" : c.error.c_str());
    return;
  }
  for (auto _ : st) {
    std::memcpy(dst.data(), c.wire.data(), c.wire.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  SetCounters(st, c);
}

// ---- Reference: kwire::Crc32c over the bytes the batch CRC covers (attributes..end).
void BM_RefCrc32c_RecordBatch(benchmark::State& st, Compression codec, int value_size) {
  const Case& c = CaseFor(codec, value_size);
  auto crc = [&] { return Crc32c(c.wire.data() + kCrcStart, c.wire.size() - kCrcStart); };
  if (!c.error.empty() || c.wire.size() < kRecordBatchHeaderSize ||
      crc() != (uint32_t{c.wire[kCrcOffset]} << 24 | uint32_t{c.wire[kCrcOffset + 1]} << 16 |
                uint32_t{c.wire[kCrcOffset + 2]} << 8 | uint32_t{c.wire[kCrcOffset + 3]})) {
    st.SkipWithError(c.error.empty() ? "CRC-32C differs from the batch's" : c.error.c_str());
    return;
  }
  for (auto _ : st) {
    uint32_t v = crc();
    benchmark::DoNotOptimize(v);
  }
  SetCounters(st, c);
}

// ---- kwire: encode the source records (compress, CRC) into a reused Writer.
void BM_EncodeRecordBatch(benchmark::State& st, Compression codec, int value_size) {
  const Case& c = CaseFor(codec, value_size);
  const size_t capacity = c.wire.size() + 4096;
  Writer w(capacity);
  auto encode = [&] {
    ResetWriter(w, capacity);
    return AppendRecordBatch(c.header, c.source->records, &w).ok();
  };
  // The libraries are deterministic at a fixed level, so the bytes equal the buffer's.
  if (!c.error.empty() || !encode() || w.size() != c.wire.size() ||
      std::memcmp(w.data(), c.wire.data(), c.wire.size()) != 0) {
    st.SkipWithError(c.error.empty() ? "encoded bytes differ from the batch" : c.error.c_str());
    return;
  }
  for (auto _ : st) {
    bool ok = encode();
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  SetCounters(st, c);
}

// ---- Registration.
void RegisterAll() {
  for (int size : kValueSizes) {
    for (Compression codec : kCodecs) {
      const std::string c = std::string("/") + CompressionName(codec) + "/" + std::to_string(size);
      Register("BM_DecodeRecordBatch" + c, BM_DecodeRecordBatch, codec, size);
      if (codec == Compression::kNone) {
        Register("BM_IterateRecordBatch" + c, BM_IterateRecordBatch, codec, size);
        Register("BM_RefMemcpy_RecordBatch" + c, BM_RefMemcpy_RecordBatch, codec, size);
        Register("BM_RefCrc32c_RecordBatch" + c, BM_RefCrc32c_RecordBatch, codec, size);
      }
      Register("BM_EncodeRecordBatch" + c, BM_EncodeRecordBatch, codec, size);
    }
  }
}

}  // namespace
}  // namespace kwire::bench

int main(int argc, char** argv) {
  return kwire::bench::BenchMain(argc, argv, &kwire::bench::RegisterAll);
}
