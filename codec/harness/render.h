// Renderer choices beyond codec/harness/print.h's defaults (kept out of print.h, which
// every generated explain table includes).
#ifndef KWIRE_CODEC_HARNESS_RENDER_H_
#define KWIRE_CODEC_HARNESS_RENDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/harness/print.h"

namespace kwire {

/// How the object tree's range column gives a node's offset: kHex "[0x0017, 12B]" (the
/// documented object tree's form, and the byte layout's row offsets), kDecimal
/// "[23, 12B]" (as decode errors, hints and conformance verdicts give bytes). Sizes are
/// decimal in both.
enum class OffsetBase : uint8_t { kHex, kDecimal };

/// RenderObjectTree (print.h) with the range column's offsets in `offsets`.
std::string RenderObjectTree(const std::vector<PrintNode>& nodes, size_t width,
                             OffsetBase offsets);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_RENDER_H_
