// Where two byte strings differ, for failure messages: the one rule behind every
// "re-encodes differently" and "different frame" report (conformance, the kwire tool's
// decode, traffic checks, fuzz targets).
#ifndef KWIRE_CODEC_WIRE_BYTE_DIFF_H_
#define KWIRE_CODEC_WIRE_BYTE_DIFF_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kwire {

/// Index of the first byte where `a` and `b` differ; when one is a prefix of the other,
/// the shorter one's size (so a.size() == b.size() == the result when they are equal).
size_t FirstDifference(std::span<const uint8_t> a, std::span<const uint8_t> b);

/// How the frame `got` differs from the frame `expected`; "" when they are equal. Frames
/// begin with their int32 size prefix (protocol guide, "Common Request and Response
/// Structure"), which differs whenever the lengths do: then the message names it and goes
/// on to the first difference after it, where the cause is. `got_name` says what `got` is
/// ("answered", "re-encoded"; default "actual"). Byte offsets count from the frame's first
/// byte:
///   first difference at byte 10 (expected 00, re-encoded 01)
///   62 bytes expected, 50 answered: the size prefix differs; after it, first difference
///     at byte 15 (expected 05, answered 03)
///   62 bytes expected, 50 answered: the size prefix differs; after it, the bytes agree
///     until byte 50, where the answered frame ends
std::string DescribeFrameDifference(std::span<const uint8_t> expected,
                                    std::span<const uint8_t> got,
                                    std::string_view got_name = "actual");

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_BYTE_DIFF_H_
