// Custom libFuzzer mutator and crossover for the request and response frame fuzzers.
//
// Inputs:
//   request_frame_fuzzer   one request frame (int32 size prefix, header, body)
//   response_frame_fuzzer  api_key int16 BE, api_version int16 BE, then one response
//                          frame (a response header does not name its API)
//
// Mutate: decode the input (strict, else with every Java quirk), apply a structure-
// aware mutation (fuzz/mutate.h: a body or header site, a version change projected
// onto the new version, or another API altogether), re-encode (every size, count,
// tag size, batch length and CRC is recomputed) and write it back; a few mutations are
// byte-level on top of the re-encoded frame, to reach error paths deep inside valid
// frames. Inputs that do not decode get a byte-level mutation (`byte_mutate`, which is
// LLVMFuzzerMutate in fuzz builds).
// Crossover: two frames of the same API are crossed field by field (mutate.h); other
// pairs are spliced byte-wise.
#ifndef KWIRE_FUZZ_FRAME_MUTATOR_H_
#define KWIRE_FUZZ_FRAME_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz/mutate.h"

namespace kwire::fuzz {

/// Frame direction of a fuzz input (see the file comment for the layouts).
enum class InputKind : uint8_t { kRequestFrame, kResponseInput };

/// Bytes before the frame in a response_frame_fuzzer input: api key and version.
inline constexpr size_t kResponsePrefixSize = 4;

/// LLVMFuzzerCustomMutator body: mutates `data[0, size)` in place (buffer of
/// `max_size`), returns the new size (≤ max_size).
size_t MutateFrameInput(InputKind kind, uint8_t* data, size_t size, size_t max_size,
                        unsigned seed, ByteMutateFn byte_mutate);

/// LLVMFuzzerCustomCrossOver body: writes a child of the two inputs to `out`
/// (≤ max_out bytes), returns its size.
size_t CrossOverFrameInputs(InputKind kind, const uint8_t* data1, size_t size1,
                            const uint8_t* data2, size_t size2, uint8_t* out, size_t max_out,
                            unsigned seed);

/// Counters of what the mutator did (printed by the replay main's --mutate mode).
struct MutatorStats {
  uint64_t calls = 0;
  uint64_t decoded = 0;        ///< Inputs that decoded (strict or with Java quirks).
  uint64_t structured = 0;     ///< Outputs produced by a structure-aware mutation.
  uint64_t byte_level = 0;     ///< Outputs produced by byte-level mutation only.
  uint64_t encode_failed = 0;  ///< Structure-aware attempts whose encoding failed.
  uint64_t too_large = 0;      ///< Structure-aware attempts larger than max_size.
};
MutatorStats& GetMutatorStats();

}  // namespace kwire::fuzz

/// Defines the libFuzzer entry points of a frame target: LLVMFuzzerTestOneInput calling
/// `check` (a function of std::span<const uint8_t>), and, unless the target is built
/// without the custom mutator (KWIRE_FUZZ_NO_CUSTOM_MUTATOR, the *_bytes variants),
/// LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver over inputs of InputKind `kind`.
#ifdef KWIRE_FUZZ_NO_CUSTOM_MUTATOR
#define KWIRE_FRAME_FUZZER_ENTRY_POINTS(check, kind)                     \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    check({data, size});                                                  \
    return 0;                                                             \
  }
#else
#define KWIRE_FRAME_FUZZER_ENTRY_POINTS(check, kind)                                          \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {                      \
    check({data, size});                                                                       \
    return 0;                                                                                  \
  }                                                                                            \
  extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);             \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,       \
                                            unsigned int seed) {                               \
    return ::kwire::fuzz::MutateFrameInput(kind, data, size, max_size, seed, &LLVMFuzzerMutate); \
  }                                                                                            \
  extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,              \
                                              const uint8_t* data2, size_t size2, uint8_t* out,  \
                                              size_t max_out, unsigned int seed) {             \
    return ::kwire::fuzz::CrossOverFrameInputs(kind, data1, size1, data2, size2, out, max_out, \
                                               seed);                                          \
  }
#endif

#endif  // KWIRE_FUZZ_FRAME_MUTATOR_H_
