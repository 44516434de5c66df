// request_explain_fuzzer: one Kafka request frame (int32 size prefix, request header,
// body), any API key and version: the inputs (and seeds) of request_frame_fuzzer.
//
// Invariants: the explanation's (fuzz/frame_check.h CheckFrameExplanation: `kwire
// explain` has the strict decoder's status, fails exactly like it, stays inside the frame,
// renders). The round trip of the same inputs is request_frame_fuzzer's: the two are
// separate targets because the explanation costs about three round trips.
// Structure-aware mutation: fuzz/frame_mutator.h (off in *_bytes builds).
#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/harness/explain.h"
#include "codec/protocol/frame.h"
#include "fuzz/frame_check.h"
#include "fuzz/frame_mutator.h"

namespace kwire::fuzz {
namespace {

void Check(std::span<const uint8_t> in) {
  CheckFrameExplanation(
      in, [](std::span<const uint8_t> b, const FrameOptions& o) { return DecodeRequestFrame(b, o); },
      [](std::span<const uint8_t> b, const PrintOptions& o) { return ExplainRequestFrame(b, o); });
}

}  // namespace
}  // namespace kwire::fuzz

KWIRE_FRAME_FUZZER_ENTRY_POINTS(kwire::fuzz::Check, kwire::fuzz::InputKind::kRequestFrame)
