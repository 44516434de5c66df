// response_frame_fuzzer: api_key int16 BE, api_version int16 BE (a response header
// does not name its API: the caller knows it from the request), then one response
// frame (int32 size prefix, response header, body).
//
// Invariants on the frame: fuzz/frame_check.h (strict decode → byte-identical
// re-encode; Java-quirk decode → stable canonical re-encode; errors are Statuses).
// Structure-aware mutation: fuzz/frame_mutator.h (off in *_bytes builds).
#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/protocol/frame.h"
#include "fuzz/frame_mutator.h"
#include "fuzz/frame_check.h"

namespace kwire::fuzz {
namespace {

void Check(std::span<const uint8_t> in) {
  if (in.size() < kResponsePrefixSize) return;
  const int16_t key = static_cast<int16_t>((in[0] << 8) | in[1]);
  const int16_t version = static_cast<int16_t>((in[2] << 8) | in[3]);
  CheckFrameRoundTrip(
      in.subspan(kResponsePrefixSize), version,
      [&](std::span<const uint8_t> b, const FrameOptions& o) {
        return DecodeResponseFrame(b, key, version, o);
      },
      [&](const ResponseFrame& f) { return EncodeResponseFrame(f.header, key, version, f.body); },
      [&](std::span<const uint8_t> b, const PrintOptions& o) {
        return ExplainResponseFrame(b, key, version, o);
      });
}

}  // namespace
}  // namespace kwire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kwire::fuzz::Check({data, size});
  return 0;
}

#ifndef KWIRE_FUZZ_NO_CUSTOM_MUTATOR
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return kwire::fuzz::MutateFrameInput(kwire::fuzz::InputKind::kResponseInput, data, size,
                                       max_size, seed, &LLVMFuzzerMutate);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out, unsigned int seed) {
  return kwire::fuzz::CrossOverFrameInputs(kwire::fuzz::InputKind::kResponseInput, data1, size1,
                                           data2, size2, out, max_out, seed);
}
#endif
