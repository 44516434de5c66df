// Invariant checks shared by the fuzz targets.
//
// A violated invariant is a bug in the codec (or in the target): KWIRE_FUZZ_CHECK prints
// what was expected and where, then abort()s, which libFuzzer reports as a crash and
// the replay main as a failed test. Never compiled out (no NDEBUG dependence).
#ifndef KWIRE_FUZZ_FUZZ_CHECK_H_
#define KWIRE_FUZZ_FUZZ_CHECK_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "absl/strings/str_format.h"
#include "codec/wire/byte_diff.h"
#include "codec/wire/hex.h"

namespace kwire::fuzz {

/// Prints "kwire fuzz invariant violated: <what>" (and `detail`) to stderr and aborts.
[[noreturn]] inline void Die(const char* file, int line, const char* what,
                             const std::string& detail) {
  std::fprintf(stderr, "\n==kwire== fuzz invariant violated at %s:%d: %s\n", file, line, what);
  if (!detail.empty()) std::fprintf(stderr, "==kwire== %s\n", detail.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Lowercase hex of at most `max` bytes (then "...").
inline std::string Hex(std::span<const uint8_t> b, size_t max = 96) {
  std::string out = HexString(b.first(std::min(b.size(), max)));
  if (b.size() > max) out += "...";
  return out;
}

/// Describes where two byte strings first differ (for "not byte-identical" reports), with
/// the bytes around it.
inline std::string ShowDifference(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  const size_t i = kwire::FirstDifference(a, b);
  const size_t from = i > 16 ? i - 16 : 0;
  return absl::StrFormat("sizes %d vs %d, first difference at byte %d\n  input:   ...%s\n"
                         "  encoded: ...%s",
                         a.size(), b.size(), i,
                         Hex(a.subspan(from, std::min(a.size() - from, size_t{48}))),
                         Hex(b.subspan(from, std::min(b.size() - from, size_t{48}))));
}

}  // namespace kwire::fuzz

/// Aborts with a message when `cond` is false. `...` is an absl::StrFormat detail.
#define KWIRE_FUZZ_CHECK(cond, ...)                                                    \
  do {                                                                                 \
    if (!(cond)) ::kwire::fuzz::Die(__FILE__, __LINE__, #cond, absl::StrFormat(__VA_ARGS__)); \
  } while (0)

#endif  // KWIRE_FUZZ_FUZZ_CHECK_H_
