// The documented minimal frame (conformance/README.md, "The rule"): the smallest legal
// instance of a message (FillMinimal, codec/harness/fill.h; library kwire::fill) in a frame with correlation_id 0 and
// client_id "". Shared by the conformance runner, the `kwire minimal` command and tests.
#ifndef KWIRE_CODEC_HARNESS_MINIMAL_H_
#define KWIRE_CODEC_HARNESS_MINIMAL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "codec/protocol/registry.h"

namespace kwire {

/// Encodes the documented minimal frame of `api` at `version` in direction `dir` (size
/// prefix, header at the registry's header version, minimal body). Errors: those of
/// EncodeRequestFrame / EncodeResponseFrame (e.g. kUnsupportedVersion).
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> EncodeMinimalFrame(const ApiInfo& api, int16_t version,
                                                        Direction dir);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_MINIMAL_H_
