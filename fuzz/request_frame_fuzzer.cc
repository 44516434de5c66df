// request_frame_fuzzer: one Kafka request frame (int32 size prefix, request header,
// body), any API key and version.
//
// Invariants: fuzz/frame_check.h (strict decode → byte-identical re-encode; Java-quirk
// decode → stable canonical re-encode; errors are Statuses).
// The explanation of the same inputs is request_explain_fuzzer's (a separate target:
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
  // The version from the header (bytes 6–7), for messages only.
  const int version = in.size() >= 8 ? static_cast<int16_t>((in[6] << 8) | in[7]) : -1;
  CheckFrameRoundTrip(
      in, version,
      [](std::span<const uint8_t> b, const FrameOptions& o) { return DecodeRequestFrame(b, o); },
      [](const RequestFrame& f, const EncodeOptions& eo) {
        return EncodeRequestFrame(f.header, f.body, eo);
      });
}

}  // namespace
}  // namespace kwire::fuzz

KWIRE_FRAME_FUZZER_ENTRY_POINTS(kwire::fuzz::Check, kwire::fuzz::InputKind::kRequestFrame)
