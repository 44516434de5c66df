// request_frame_fuzzer: one Kafka request frame (int32 size prefix, request header,
// body), any API key and version.
//
// Invariants: fuzz/frame_check.h (strict decode → byte-identical re-encode; Java-quirk
// decode → stable canonical re-encode; errors are Statuses).
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
  // The version from the header (bytes 6–7), for messages only.
  const int version = in.size() >= 8 ? static_cast<int16_t>((in[6] << 8) | in[7]) : -1;
  CheckFrameRoundTrip(
      in, version,
      [](std::span<const uint8_t> b, const FrameOptions& o) { return DecodeRequestFrame(b, o); },
      [](const RequestFrame& f) { return EncodeRequestFrame(f.header, f.body); },
      [](std::span<const uint8_t> b, const PrintOptions& o) { return ExplainRequestFrame(b, o); });
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
  return kwire::fuzz::MutateFrameInput(kwire::fuzz::InputKind::kRequestFrame, data, size,
                                       max_size, seed, &LLVMFuzzerMutate);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out, unsigned int seed) {
  return kwire::fuzz::CrossOverFrameInputs(kwire::fuzz::InputKind::kRequestFrame, data1, size1,
                                           data2, size2, out, max_out, seed);
}
#endif
