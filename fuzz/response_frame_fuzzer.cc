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
      [&](const ResponseFrame& f, const EncodeOptions& eo) {
        return EncodeResponseFrame(f.header, key, version, f.body, eo);
      },
      [&](std::span<const uint8_t> b, const PrintOptions& o) {
        return ExplainResponseFrame(b, key, version, o);
      });
}

}  // namespace
}  // namespace kwire::fuzz

KWIRE_FRAME_FUZZER_ENTRY_POINTS(kwire::fuzz::Check, kwire::fuzz::InputKind::kResponseInput)
