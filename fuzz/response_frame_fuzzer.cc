// response_frame_fuzzer: api_key int16 BE, api_version int16 BE (a response header
// does not name its API: the caller knows it from the request), then one response
// frame (int32 size prefix, response header, body).
//
// Invariants on the frame: fuzz/frame_check.h (strict decode → byte-identical
// re-encode; Java-quirk decode → stable canonical re-encode; errors are Statuses).
// The explanation of the same inputs is response_explain_fuzzer's (a separate target:
// it costs about three round trips).
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
  ResponseInput r;
  if (!SplitResponseInput(in, r)) return;
  CheckFrameRoundTrip(
      r.frame, r.version,
      [&](std::span<const uint8_t> b, const FrameOptions& o) {
        return DecodeResponseFrame(b, r.key, r.version, o);
      },
      [&](const ResponseFrame& f, const EncodeOptions& eo) {
        return EncodeResponseFrame(f.header, r.key, f.body_version, f.body, eo);
      });
}

}  // namespace
}  // namespace kwire::fuzz

KWIRE_FRAME_FUZZER_ENTRY_POINTS(kwire::fuzz::Check, kwire::fuzz::InputKind::kResponseInput)
