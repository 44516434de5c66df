// response_explain_fuzzer: api_key int16 BE, api_version int16 BE, then one response
// frame (int32 size prefix, response header, body): the inputs (and seeds) of
// response_frame_fuzzer.
//
// Invariants: the explanation's (fuzz/frame_check.h CheckFrameExplanation: `kwire
// explain` has the strict decoder's status, fails exactly like it, stays inside the frame,
// renders). The round trip of the same inputs is response_frame_fuzzer's: the two are
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
  ResponseInput r;
  if (!SplitResponseInput(in, r)) return;
  CheckFrameExplanation(
      r.frame,
      [&](std::span<const uint8_t> b, const FrameOptions& o) {
        return DecodeResponseFrame(b, r.key, r.version, o);
      },
      [&](std::span<const uint8_t> b, const PrintOptions& o) {
        return ExplainResponseFrame(b, r.key, r.version, o);
      });
}

}  // namespace
}  // namespace kwire::fuzz

KWIRE_FRAME_FUZZER_ENTRY_POINTS(kwire::fuzz::Check, kwire::fuzz::InputKind::kResponseInput)
