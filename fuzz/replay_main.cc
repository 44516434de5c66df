// Replay main for builds without libFuzzer (g++, coverage): runs
// LLVMFuzzerTestOneInput over every file named on the command line, and over every
// file below every directory named (recursively, in sorted order). ctest runs each
// target this way over corpus/ so the targets build and pass on every build.
//
//   <target> [--mutate=N] [--seed=S] FILE_OR_DIR...
//
// --mutate=N additionally runs the target's LLVMFuzzerCustomMutator (when it has one)
// N times in a chain from every input and replays each result, then prints the
// mutator's statistics: a smoke test of the structure-aware mutator without libFuzzer
// (LLVMFuzzerMutate is a small byte flipper here).
//
// libFuzzer's own flags (one dash, `-name=value`, e.g. -runs=0) are accepted and
// ignored, so a command line written for the libFuzzer build also replays here; any
// other option (`--typo`, a bad number) is a usage error. `--help` prints the usage.
//
// Exit status 0 when every input ran (a violated invariant abort()s), 2 on bad usage
// or an unreadable path.
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" __attribute__((weak)) size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                                                size_t max_size,
                                                                unsigned int seed);
// Prints the custom mutator's counters (defined next to it, when it has any).
extern "C" __attribute__((weak)) void KwireFuzzPrintMutatorStats();

namespace {

std::mt19937 g_rng(1);

}  // namespace

// libFuzzer's byte-level mutator, for custom mutators that fall back to it. Here: a few
// random byte flips, inserts and erases.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  const int steps = 1 + static_cast<int>(g_rng() % 3);
  for (int i = 0; i < steps; ++i) {
    switch (g_rng() % 3) {
      case 0:
        if (size > 0) data[g_rng() % size] ^= static_cast<uint8_t>(1u << (g_rng() % 8));
        break;
      case 1:
        if (size < max_size) {
          const size_t at = g_rng() % (size + 1);
          std::memmove(data + at + 1, data + at, size - at);
          data[at] = static_cast<uint8_t>(g_rng());
          ++size;
        }
        break;
      default:
        if (size > 0) {
          const size_t at = g_rng() % size;
          std::memmove(data + at, data + at + 1, size - at - 1);
          --size;
        }
        break;
    }
  }
  return size;
}

namespace {

void Usage(std::FILE* out, const char* argv0) {
  std::fprintf(out,
               "Usage: %s [--mutate=N] [--seed=S] FILE_OR_DIR...\n"
               "Replays every file (directories: recursively, sorted) through this fuzz\n"
               "target, built without libFuzzer. --mutate=N also chains N runs of the\n"
               "target's structure-aware mutator from every input and replays each\n"
               "output; --seed=S seeds it (default 1). libFuzzer flags (-name=value) are\n"
               "ignored. Exit status: 0 all inputs passed, 2 usage error or missing path;\n"
               "a violated invariant aborts.\n",
               argv0);
}

// Parses the decimal value of `--name=value`; false unless all of it is a number in range.
bool ParseCount(const std::string& arg, size_t prefix, unsigned long max, unsigned long* out) {
  const char* begin = arg.c_str() + prefix;
  if (*begin < '0' || *begin > '9') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long v = std::strtoul(begin, &end, 10);
  if (errno != 0 || *end != '\0' || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  long mutate = 0;
  unsigned seed = 1;
  std::vector<fs::path> files;
  int paths = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    unsigned long value = 0;
    if (arg == "--help" || arg == "-h" || arg == "-help=1") {
      Usage(stdout, argv[0]);
      return 0;
    }
    if (arg.rfind("--mutate=", 0) == 0) {
      if (!ParseCount(arg, 9, 1000000, &value)) {
        std::fprintf(stderr, "replay: --mutate needs a count (0..1000000): %s\n", arg.c_str());
        return 2;
      }
      mutate = static_cast<long>(value);
      continue;
    }
    if (arg.rfind("--seed=", 0) == 0) {
      if (!ParseCount(arg, 7, 0xffffffffUL, &value)) {
        std::fprintf(stderr, "replay: --seed needs a 32-bit number: %s\n", arg.c_str());
        return 2;
      }
      seed = static_cast<unsigned>(value);
      continue;
    }
    if (arg.rfind("--", 0) == 0 || (arg.rfind("-", 0) == 0 && arg.find('=') == std::string::npos)) {
      std::fprintf(stderr, "replay: unknown option %s\n", arg.c_str());
      Usage(stderr, argv[0]);
      return 2;
    }
    if (arg.rfind("-", 0) == 0) continue;  // libFuzzer flags (-name=value) are ignored
    ++paths;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(arg)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", arg.c_str());
      return 2;
    }
  }
  if (paths == 0) {
    Usage(stderr, argv[0]);
    return 2;
  }
  std::sort(files.begin(), files.end());
  g_rng.seed(seed);
  constexpr size_t kMaxSize = 1 << 16;
  size_t runs = 0;
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    // An exact-size heap copy, so that ASan sees any read past the input.
    {
      std::vector<uint8_t> exact(bytes);
      exact.shrink_to_fit();
      LLVMFuzzerTestOneInput(exact.data(), exact.size());
      ++runs;
    }
    if (mutate > 0 && LLVMFuzzerCustomMutator != nullptr && bytes.size() <= kMaxSize) {
      std::vector<uint8_t> buf(bytes);
      size_t size = buf.size();
      buf.resize(kMaxSize);
      for (long m = 0; m < mutate; ++m) {
        size = LLVMFuzzerCustomMutator(buf.data(), size, kMaxSize, static_cast<unsigned>(g_rng()));
        std::vector<uint8_t> exact(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(size));
        LLVMFuzzerTestOneInput(exact.data(), exact.size());
        ++runs;
      }
    }
  }
  std::printf("replay: %zu inputs from %zu files, all passed\n", runs, files.size());
  if (mutate > 0 && KwireFuzzPrintMutatorStats != nullptr) KwireFuzzPrintMutatorStats();
  return 0;
}
