// Shared by the benchmark binaries: registration (with the fixed-iteration mode of
// bench/compare callgrind) and the input data of the wire benchmarks: named value
// distributions, encoded once with a fixed seed so every run (and every commit)
// measures the same bytes.
#ifndef KWIRE_BENCH_BENCH_DATA_H_
#define KWIRE_BENCH_BENCH_DATA_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "codec/wire/varint.h"

namespace kwire::bench {

/// benchmark::RegisterBenchmark, plus KWIRE_BENCH_ITERATIONS=N: run exactly N
/// iterations (no estimation), so that instruction counts are reproducible.
template <class... Args>
benchmark::internal::Benchmark* Register(const std::string& name, Args&&... args) {
  static const long fixed = [] {
    const char* env = std::getenv("KWIRE_BENCH_ITERATIONS");
    return env != nullptr ? std::atol(env) : 0L;
  }();
  benchmark::internal::Benchmark* b =
      benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...);
  if (fixed > 0) b->Iterations(fixed);
  return b;
}

/// Empties a reused writer. Writer::Clear keeps the capacity; before it existed (when an
/// older commit is measured with this bench/), a fresh writer is constructed instead.
template <class W>
void ResetWriter(W& w, size_t capacity) {
  if constexpr (requires { w.Clear(); }) {
    w.Clear();
  } else {
    w.~W();
    new (&w) W(capacity);
  }
}

/// The main of every benchmark binary: registers (`register_all`), then runs what the
/// command line selects. Returns the process exit status.
inline int BenchMain(int argc, char** argv, void (*register_all)()) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

/// Values per varint buffer. Large enough that the branch predictor cannot memorise the
/// length pattern (with ~4K values branchy decoders look 2–2.5× too fast).
inline constexpr size_t kValues = 32768;
/// Zero bytes after every encoded buffer: protobuf's unchecked parser reads up to 16
/// bytes past a value ("slop"). kwire's Reader never sees them (its size excludes them).
inline constexpr size_t kSlop = 16;

/// A value distribution, by encoded length.
enum class Dist {
  k1Byte,     ///< every value 1 byte
  k2Byte,     ///< every value 2 bytes
  kMix1To5,   ///< length uniform in 1..5
  kKafka,     ///< 85% 1 byte, 15% 2 bytes (lengths, counts, tags, small deltas)
  kRandom64,  ///< uniform random 64-bit (9–10 bytes; varlong only)
};

struct DistInfo {
  Dist dist;
  const char* name;
  bool wide_only;  ///< only meaningful for 64-bit values
};

inline constexpr DistInfo kDists[] = {
    {Dist::k1Byte, "1byte", false},     {Dist::k2Byte, "2byte", false},
    {Dist::kMix1To5, "mix1to5", false}, {Dist::kKafka, "kafka", false},
    {Dist::kRandom64, "random64", true},
};

/// A value whose unsigned LEB128 encoding is exactly `len` bytes (1..10).
inline uint64_t ValueOfLength(std::mt19937_64& rng, int len) {
  if (len >= 10) return rng() | (uint64_t{1} << 63);
  const uint64_t lo = len == 1 ? 0 : uint64_t{1} << (7 * (len - 1));
  const uint64_t hi = (uint64_t{1} << (7 * len)) - 1;
  return lo + rng() % (hi - lo + 1);
}

/// `n` unsigned values (already zigzag-encoded for signed types) of distribution `d`.
/// 32-bit types cap at 5 bytes / 2^32−1.
inline std::vector<uint64_t> MakeValues(Dist d, bool wide, size_t n = kValues,
                                        uint64_t seed = 0x6b77697265) {
  std::mt19937_64 rng(seed + static_cast<uint64_t>(d));
  std::vector<uint64_t> out(n);
  for (auto& v : out) {
    switch (d) {
      case Dist::k1Byte:
        v = ValueOfLength(rng, 1);
        break;
      case Dist::k2Byte:
        v = ValueOfLength(rng, 2);
        break;
      case Dist::kMix1To5: {
        const int len = 1 + static_cast<int>(rng() % 5);
        v = len == 5 && !wide ? (uint64_t{1} << 28) + rng() % ((uint64_t{1} << 32) - (uint64_t{1} << 28))
                              : ValueOfLength(rng, len);
        break;
      }
      case Dist::kKafka:
        v = ValueOfLength(rng, rng() % 100 < 85 ? 1 : 2);
        break;
      case Dist::kRandom64:
        v = rng();
        break;
    }
  }
  return out;
}

/// Values and their encoding (plus kSlop zero bytes, not counted in `size`).
struct Encoded {
  std::vector<uint64_t> values;
  std::vector<uint8_t> bytes;  ///< size() == size + kSlop
  size_t size = 0;
};

inline Encoded EncodeAll(std::vector<uint64_t> values) {
  Encoded e;
  e.values = std::move(values);
  e.bytes.resize(e.values.size() * kMaxVarlongBytes + kSlop);
  size_t n = 0;
  for (uint64_t v : e.values) n += EncodeUvarint64(e.bytes.data() + n, v);
  e.size = n;
  e.bytes.resize(n + kSlop);
  return e;
}

/// String lengths for the compact string/bytes benchmarks: a fixed length, or (len < 0)
/// uniform in 0..64.
inline std::vector<uint32_t> MakeLengths(int len, size_t n, uint64_t seed = 0x737472) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> out(n);
  for (auto& l : out) l = len >= 0 ? static_cast<uint32_t>(len) : static_cast<uint32_t>(rng() % 65);
  return out;
}

}  // namespace kwire::bench

#endif  // KWIRE_BENCH_BENCH_DATA_H_
