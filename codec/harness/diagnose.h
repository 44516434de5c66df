// Hints for a frame that does not decode: a likelier cause than the place where decoding
// stopped, when one is visible.
//
// A decode error names where the decoder noticed a fault (a string that is not UTF-8, a
// count too large for the bytes left); the fault itself is often earlier — a length that
// runs past its value, a size prefix a few bytes off, a frame read at the wrong version.
// The functions here look for those after a failure, by decoding variants of the frame
// with the frame decoder itself (the frame is copied, never changed):
//
//   kVersion     another version of the API decodes the frame cleanly (a response:
//                every valid response version; a request: the header's
//                request_api_version at byte 6 replaced);
//   kSizePrefix  the size prefix at byte 0 replaced by the bytes there are, or by ±k
//                (k ≤ DiagnoseOptions::max_size_slack; +k takes bytes of
//                DiagnoseOptions::following, the stream after the frame);
//   kCutShort    a frame alone (no `following`) whose size prefix counts the bytes there
//                are decodes with k ≤ 64 zero bytes appended: it may have been cut short
//                after it was framed (only when no other hint is found: zeros also
//                complete a frame whose count or length was made larger, or that was
//                read at another version);
//   kLength      a string, bytes or records length, an array count or a tagged field's
//                size read before the failure (tried nearest first) replaced by another
//                value of the same width: the values with which the frame decodes;
//                reported earliest first (with one fault, the earliest such length is
//                its likeliest cause, a later one only makes up for it).
//
// "Decodes cleanly" is DecodeRequestFrame / DecodeResponseFrame returning OK under the
// same FrameOptions. A hint is a lead, not a verdict: the frame is still invalid. The core
// decoder is not involved (no cost on its paths); the prefixes come from the frame's
// explanation (codec/harness/explain.h), so this is part of kwire::explain.
#ifndef KWIRE_CODEC_HARNESS_DIAGNOSE_H_
#define KWIRE_CODEC_HARNESS_DIAGNOSE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/harness/explain.h"
#include "codec/protocol/frame.h"

namespace kwire {

/// One hint: a value of the frame with which, changed, the frame decodes cleanly.
struct DecodeHint {
  enum class Kind : uint8_t {
    kLength,      ///< A length, count or tag size read before the failure.
    kSizePrefix,  ///< The frame's int32 size prefix (byte 0).
    kVersion,     ///< The API version (a request's header field at byte 6, or the
                  ///< version a response was decoded at).
    kCutShort,    ///< The frame's end: a frame alone whose size prefix counts the bytes
                  ///< there are decodes with k zero bytes appended (offset: its size;
                  ///< decodes_with: the size prefix that would say so).
  };
  Kind kind = Kind::kLength;
  /// Absolute offset of the value in the frame (kSizePrefix 0; kVersion: 6 for a
  /// request, SIZE_MAX for a response, whose version is not in the frame).
  size_t offset = 0;
  /// What the value is: the path of its row in the explanation, e.g.
  /// "Body.Topics[0].Name.length", "Frame.size", "RequestHeader.request_api_version",
  /// or "version" for a response.
  std::string path;
  int64_t read = 0;  ///< The value on the wire (compact lengths and counts: n, not n+1).
  /// Values with which the frame decodes cleanly, ascending (at most kMaxValues).
  std::vector<int64_t> decodes_with;
  /// One sentence, e.g. "the string length at byte 43 (Body.Topics[0].Name) reads 127,
  /// running to byte 172; with 7 there the frame decodes cleanly".
  std::string text;

  static constexpr size_t kMaxValues = 8;
};

/// Bounds of the search.
struct DiagnoseOptions {
  /// The bytes that follow the frame in its stream (may be empty): a size prefix k too
  /// small cut the frame k bytes short, and its end is there.
  std::span<const uint8_t> following;
  /// Largest k tried for a size prefix off by ±k.
  int max_size_slack = 3;
  /// Length and count prefixes tried, the nearest before the failure first.
  size_t max_prefixes = 6;
  /// Values tried per prefix (ascending from 0, within what the frame can hold).
  size_t max_values = 1024;
  /// Frames larger than this get the version and size hints only (each try decodes the
  /// whole frame).
  size_t max_frame_bytes = 1 << 16;
};

/// Hints for a request frame (size prefix included) that fails DecodeRequestFrame under
/// `options`; empty when it decodes, or when nothing was found. Ordered kVersion,
/// kSizePrefix, kLength; kCutShort only when there is no other.
std::vector<DecodeHint> DiagnoseRequestFrame(std::span<const uint8_t> frame,
                                             const FrameOptions& options = {},
                                             const DiagnoseOptions& diagnose = {});

/// Hints for a response frame of (api_key, api_version) that fails DecodeResponseFrame.
std::vector<DecodeHint> DiagnoseResponseFrame(std::span<const uint8_t> frame, int16_t api_key,
                                              int16_t api_version,
                                              const FrameOptions& options = {},
                                              const DiagnoseOptions& diagnose = {});

/// The response versions of `api_key` at which `frame` decodes cleanly, ascending (empty
/// for an unknown api key). For a response whose version is not known (`kwire decode
/// response --version auto`).
std::vector<int16_t> ResponseVersionsThatDecode(std::span<const uint8_t> frame, int16_t api_key,
                                                const FrameOptions& options = {});

/// "hint: " and the text of each hint, one per line.
std::string RenderHints(const std::vector<DecodeHint>& hints);

// ---- The failure in an explanation (codec/harness/explain.h). ExplainRequestFrame and
// ExplainResponseFrame apply AddValueLengthRows(ex, false), and RenderFrameExplanation
// prints RenderMarkedByteLayout and ErrorInContext.

/// Adds a `length` row (PrintNode::Kind::kLength, type int16 / int32 / uvarint, its
/// offset and size, the value on the wire, e.g. "127", and where the value ends) under
/// the string or bytes value where decoding failed — failed at its length (the row is
/// then the failed one) or inside its bytes (the value then shows its bytes up to the
/// failure and covers the failing byte) — and, when `all`, under every string and bytes
/// value read whole (their detail, "(int16 len=8)", says the length too: `kwire explain
/// --lengths`). Records fields and arrays have their length row already. Once per
/// explanation: values that have a row are left alone.
void AddValueLengthRows(FrameExplanation& ex, bool all);

/// A decode that failed on a batch's CRC (kCrcMismatch) stopped at its `crc` field, but
/// the records rows read on past it (codec/harness/records_explain.h shows CRCs, it does
/// not enforce them): the batch's `crc` row (else its `crcCheck`) is marked failed, and an
/// `error` row found inside that batch past the mismatch is kept unmarked, with a note
/// saying the decoder never got there. Other failures: nothing changes. Applied by
/// ExplainRequestFrame and ExplainResponseFrame.
void MarkCrcFailure(FrameExplanation& ex);

/// RenderByteLayout(ex.bytes, ex.nodes) with the byte where decoding failed
/// (ErrorFromStatus(ex.status)->offset) marked: `>` before its hex, `!` in its region
/// column, and the legend naming it ("; >! byte 56 (0x0038), where decoding failed", or
/// "decoding failed at byte N, past the last byte").
std::string RenderMarkedByteLayout(const FrameExplanation& ex);

/// The decoder's error for the explained frame (ex.status), with the count of the array
/// whose element the failure is in added to its detail when the detail names no length
/// or count already: "in element 1 of Topics, an array of count 2 read at byte 29" (compact:
/// "(compact, uvarint 3)"). Kind, offset and path unchanged; kOk for a frame that decodes.
Error ErrorInContext(const FrameExplanation& ex);

/// ErrorInContext(ex).ToString() with the failing byte's offset in hex too, as the tree's
/// ranges and the byte map give offsets ("truncated at byte 56 (0x0038) in
/// MetadataResponse.Topics[0].Name (...)"); "" for a frame that decodes.
std::string RenderErrorInContext(const FrameExplanation& ex);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_DIAGNOSE_H_
