// Explaining whole frames: the object tree of a size-prefixed request or response (size
// prefix, header, body) with the byte offset, size, Kafka type and value of every field,
// in the style of the reference documentation pages (see codec/harness/print.h for the
// node model and the renderers, conformance/vectors/seeds.txt for the reference trees).
//
// There is one walk: the explanation is the decoder's own frame walk (frame.cc: size
// prefix, API key and version, header, body, trailing bytes) with the tree builder
// observing it (frame_internal::FrameObserver, print.h's DecodeObserver), so its status is
// the decoder's by construction, and an explanation of bad bytes shows the tree up to the
// failure and the precise error.
#ifndef KWIRE_CODEC_HARNESS_EXPLAIN_H_
#define KWIRE_CODEC_HARNESS_EXPLAIN_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "codec/harness/print.h"

namespace kwire {

/// The object tree of one frame.
struct FrameExplanation {
  std::vector<uint8_t> bytes;    ///< The frame, size prefix included.
  std::vector<PrintNode> nodes;  ///< Pre-order; nodes[0] is the whole frame.
  /// "DescribeDelegationTokenRequest v3, request header v2, 20 bytes on the wire".
  std::string title;
  absl::Status status;  ///< OK, or the decoder's error for these bytes.
  /// The same as `status` (the tree and the verdict come from one walk); kept so that
  /// callers written when the two were computed apart still compile.
  absl::Status tree_status;
};

/// Explains a request frame (the header names the API and version).
FrameExplanation ExplainRequestFrame(std::span<const uint8_t> frame,
                                     const PrintOptions& options = {});

/// Explains a response frame of (api_key, api_version).
FrameExplanation ExplainResponseFrame(std::span<const uint8_t> frame, int16_t api_key,
                                      int16_t api_version, const PrintOptions& options = {});

/// Title, object tree, byte layout and (if any) the error, as `kwire explain` prints them.
std::string RenderFrameExplanation(const FrameExplanation& ex);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_EXPLAIN_H_
