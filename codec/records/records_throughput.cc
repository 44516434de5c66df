// Throughput measurements for the records note (not a test, not a benchmark suite):
// CRC-32C per backend, and decoding a RecordBatch of 100-byte records (uncompressed and
// per codec). Build in a release tree:
//   cmake --preset release -B build/records-release
//   cmake --build build/records-release --target records_throughput
//   build/records-release/codec/records_throughput
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/records/crc32c.h"
#include "codec/records/record_batch.h"

namespace {

using Clock = std::chrono::steady_clock;

// Runs `f` repeatedly for at least `seconds`; returns seconds per call.
template <class F>
double Time(F&& f, double seconds = 0.5) {
  f();  // warm up
  size_t n = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    f();
    ++n;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return elapsed / static_cast<double>(n);
}

volatile uint32_t g_sink;

}  // namespace

int main() {
  using namespace kwire;
  std::printf("CRC-32C (backend compiled in: %s)\n", Crc32cBackendName());
  for (size_t size : {size_t{64} << 10, size_t{1} << 20}) {
    std::vector<uint8_t> buf(size);
    for (size_t i = 0; i < size; ++i) buf[i] = static_cast<uint8_t>(i * 131 + 7);
    const double fast = Time([&] { g_sink = Crc32c(buf.data(), buf.size()); });
    const double boost =
        Time([&] { g_sink = crc32c_internal::Crc32cBoost(buf.data(), buf.size()); });
    std::printf("  %7zu KiB buffer: %-5s %8.2f GB/s   boost %8.2f GB/s\n", size >> 10,
                Crc32cBackendName(), size / fast / 1e9, size / boost / 1e9);
  }

  // One batch of 1000 records: 8-byte key, 100-byte value, no headers.
  std::vector<std::string> values(1000);
  std::vector<Record> recs(1000);
  for (int i = 0; i < 1000; ++i) {
    values[i] = std::string(100, static_cast<char>('a' + i % 26));
    for (int k = 0; k < 100; k += 7) values[i][k] = static_cast<char>('0' + (i + k) % 10);
    recs[i].key = std::string_view("key-0000");
    recs[i].value = values[i];
    recs[i].offset_delta = i;
    recs[i].timestamp_delta = i;
  }
  const double plain = static_cast<double>(EncodeRecordBatch(BatchHeader{}, recs)->size() - 61);
  std::printf("RecordBatch v2, 1000 records of 100-byte values (8-byte keys), %.0f bytes of "
              "records; MB/s below are of uncompressed record bytes\n",
              plain);
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kSnappy,
                        Compression::kLz4, Compression::kZstd}) {
    BatchHeader h;
    h.attributes = static_cast<int16_t>(c);
    h.last_offset_delta = 999;
    const std::string batch = *EncodeRecordBatch(h, recs);
    const std::span<const uint8_t> field(reinterpret_cast<const uint8_t*>(batch.data()),
                                         batch.size());
    const double iterate = Time([&] {
      BatchIterator it(field);
      BatchView v;
      while (it.Next(&v)) g_sink = v.computed_crc();
    });
    RecordSet set;
    const double decode = Time([&] {
      BatchIterator it(field);
      BatchView v;
      while (it.Next(&v)) {
        if (!v.DecodeRecords({}, &set).ok()) std::abort();
        g_sink = static_cast<uint32_t>(set.size());
      }
    });
    const double encode = Time([&] { g_sink = static_cast<uint32_t>(EncodeRecordBatch(h, recs)->size()); });
    std::printf(
        "  %-6s batch %7zu B: iterate+CRC %8.2f GB/s | decode %7.0f MB/s of records, "
        "%6.2f M records/s | encode %7.0f MB/s\n",
        CompressionName(c), batch.size(), batch.size() / iterate / 1e9, plain / decode / 1e6,
        1000 / decode / 1e6, plain / encode / 1e6);
  }
  return 0;
}
