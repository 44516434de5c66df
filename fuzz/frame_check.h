// The invariants of the frame fuzz targets, written once over a decode, an encode and
// an explain function. Two checks, each the body of its own targets, so that every
// execution pays for one of them only (the explanation costs about three round trips):
//
// CheckFrameRoundTrip (request_frame_fuzzer, response_frame_fuzzer), for one frame `in`
// (a violation aborts through KWIRE_FUZZ_CHECK):
//   * strict decode succeeds  → encode succeeds and is byte-identical to `in` (so decoding
//                               that again gives an equal frame: not repeated), and
//                               decoding `in` with every widening Java quirk on gives an
//                               equal frame (those quirks only widen; that decode borrows
//                               records fields instead of copying them); with all of
//                               kQuirksJava, the frame decodes equal or fails kInvalidValue
//                               for a tag of another version's field, the one quirk that
//                               narrows (kQuirkTagOfOtherVersionRejected);
//   * only a Java-quirk decode succeeds → encode (EncodeOptions with kQuirkInvalidUtf8,
//     which keeps strings that are not UTF-8) succeeds, unless the frame repeats an
//     unknown tag (kept twice, as Java keeps it: the encoder refuses it, kTagDuplicate, as
//     Java's writer does; the frame then fails to decode without kQuirkUnorderedTags),
//     and the encoding decodes under the "verbatim"
//     options to an equal frame and re-encodes byte-identically (the encoding is stable
//     on the second pass). The verbatim options accept exactly the leniencies that
//     survive re-encoding: invalid UTF-8 in strings (kQuirkInvalidUtf8) and anything
//     inside records fields, which are kept as bytes (Java quirks there:
//     FrameOptions::records.quirks). If `in` decodes under them, the encoding is
//     `in` byte for byte, and the strict encoder refuses the frame (kInvalidUtf8) unless
//     the only flaw was inside records (then the frame decodes with records opaque);
//     otherwise the encoding differs from `in`;
//   * a failed decode is an error Status with a message (never a crash, leak or UB: the
//     sanitizers).
// Equality compares the header version, the header and every body field, float64 bit for
// bit (fuzz/mutate.h BitwiseEqual).
//
// CheckFrameExplanation (request_explain_fuzzer, response_explain_fuzzer), same inputs:
//   * the explanation (`kwire explain`: codec/harness/explain.h, with the record batch
//     printer for records fields) has the strict decoder's status, its own visitor fails
//     exactly like the decoder (tree_status == status), every node lies inside the
//     frame, and it renders.
#ifndef KWIRE_FUZZ_FRAME_CHECK_H_
#define KWIRE_FUZZ_FRAME_CHECK_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "codec/harness/explain.h"
#include "codec/harness/print_records.h"
#include "codec/protocol/frame.h"
#include "fuzz/frame_mutator.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/mutate.h"

namespace kwire::fuzz {

/// The input of response_frame_fuzzer and response_explain_fuzzer: api_key and
/// api_version (int16 BE each, kResponsePrefixSize bytes), then the response frame.
struct ResponseInput {
  int16_t key = 0;
  int16_t version = 0;
  std::span<const uint8_t> frame;
};

/// Splits a response target's input; false when it is shorter than the prefix.
inline bool SplitResponseInput(std::span<const uint8_t> in, ResponseInput& out) {
  if (in.size() < kResponsePrefixSize) return false;
  out.key = static_cast<int16_t>((in[0] << 8) | in[1]);
  out.version = static_cast<int16_t>((in[2] << 8) | in[3]);
  out.frame = in.subspan(kResponsePrefixSize);
  return true;
}

/// Same header version, header and body (bitwise) of two decoded frames (RequestFrame or
/// ResponseFrame).
template <class F>
bool SameFrame(const F& a, const F& b) {
  return a.header_version == b.header_version && a.header == b.header &&
         &a.body.ops() == &b.body.ops() &&
         FindMutateOps(a.body.ops().spec)->bitwise_equal(a.body.raw(), b.body.raw());
}

/// Checks the explanation of `in` against the strict decode's status.
inline void CheckExplanation(std::span<const uint8_t> in, const absl::Status& decoded,
                             const FrameExplanation& ex) {
  KWIRE_FUZZ_CHECK(ex.status == decoded, "explain status %s but decode status %s",
                   ex.status.ToString(), decoded.ToString());
  KWIRE_FUZZ_CHECK(ex.tree_status == ex.status,
                   "the explain visitor fails unlike the decoder: %s vs %s (%s)",
                   ex.tree_status.ToString(), ex.status.ToString(), ex.title);
  for (const PrintNode& n : ex.nodes) {
    KWIRE_FUZZ_CHECK(n.offset <= in.size() && n.size <= in.size() - n.offset,
                     "explain node %s [%d, +%d) outside the %d-byte frame", n.path, n.offset,
                     n.size, in.size());
  }
  KWIRE_FUZZ_CHECK(!RenderFrameExplanation(ex).empty(), "empty explanation of %s", ex.title);
}

/// Checks the explanation invariants above on `in`. `decode(span, const FrameOptions&)`
/// returns absl::StatusOr<F>; `explain(span, const PrintOptions&)` returns a
/// FrameExplanation.
template <class Decode, class Explain>
void CheckFrameExplanation(std::span<const uint8_t> in, Decode&& decode, Explain&& explain) {
  const absl::Status decoded = decode(in, FrameOptions{}).status();
  PrintOptions print;
  print.records = &PrintRecordBatches;
  CheckExplanation(in, decoded, explain(in, print));
}

/// Checks the round-trip invariants above on `in`. `decode(span, const FrameOptions&)`
/// returns absl::StatusOr<F>; `encode(const F&, const EncodeOptions&)` returns
/// absl::StatusOr<std::vector<uint8_t>>; `version` is the API version reported in
/// messages.
template <class Decode, class Encode>
void CheckFrameRoundTrip(std::span<const uint8_t> in, int version, Decode&& decode,
                         Encode&& encode) {
  const FrameOptions strict_options;
  FrameOptions java;
  java.quirks = kQuirksJava & ~kQuirkTagOfOtherVersionRejected;
  FrameOptions all_java;
  all_java.quirks = kQuirksJava;
  // The Java-quirk decode also borrows its records fields (FrameOptions::borrow_records):
  // compared with the strict (copying) decode and re-encoded below, it checks that views
  // and copies decode, compare and encode alike. `in` outlives every use.
  java.borrow_records = true;
  // The leniencies that keep the input's bytes: strings that are not UTF-8, anything
  // inside records fields (kept verbatim), and an ApiVersions v0 fallback whatever its
  // error code (the v0 body re-encodes as it was).
  FrameOptions verbatim;
  verbatim.quirks = kQuirkInvalidUtf8 | kQuirkApiVersionsAnyFallback;
  verbatim.records.quirks = kQuirksJava;
  const EncodeOptions keep_utf8{kQuirkInvalidUtf8};
  // Encodes `frame` under `eo`, decodes the result with `reread` and checks both;
  // returns the encoding.
  auto reencode = [&](const auto& frame, const EncodeOptions& eo, const FrameOptions& reread) {
    const char* name = frame.body.spec().name;
    auto encoded = encode(frame, eo);
    KWIRE_FUZZ_CHECK(encoded.ok(), "a decoded %s v%d does not encode: %s", name, version,
                     encoded.status().ToString());
    auto again = decode(std::span<const uint8_t>(*encoded), reread);
    KWIRE_FUZZ_CHECK(again.ok(), "the encoding of a decoded %s v%d does not decode: %s\n%s", name,
                     version, again.status().ToString(), Hex(*encoded));
    KWIRE_FUZZ_CHECK(SameFrame(frame, *again),
                     "decode(encode(decode(b))) != decode(b) for %s v%d", name, version);
    auto twice = encode(*again, eo);
    KWIRE_FUZZ_CHECK(twice.ok() && *twice == *encoded,
                     "encoding of %s v%d is not stable on the second pass", name, version);
    return *std::move(encoded);
  };
  auto strict = decode(in, strict_options);
  if (strict.ok()) {
    // The encoding is `in` byte for byte. That implies the rest of `reencode` (decoding
    // it again gives `*strict`, whose encoding is the same), which therefore runs only to
    // explain a failure: one decode, one encode and one comparison less per execution.
    const char* name = strict->body.spec().name;
    auto encoded = encode(*strict, EncodeOptions{});
    KWIRE_FUZZ_CHECK(encoded.ok(), "a decoded %s v%d does not encode: %s", name, version,
                     encoded.status().ToString());
    if (!std::equal(encoded->begin(), encoded->end(), in.begin(), in.end())) {
      reencode(*strict, EncodeOptions{}, strict_options);
      KWIRE_FUZZ_CHECK(false, "canonical %s v%d does not re-encode byte-identically: %s", name,
                       version, ShowDifference(in, *encoded));
    }
    auto lenient = decode(in, java);
    KWIRE_FUZZ_CHECK(lenient.ok() && SameFrame(*strict, *lenient),
                     "canonical %s v%d reads differently with the Java quirks: %s",
                     name, version, lenient.status().ToString());
    auto narrowed = decode(in, all_java);
    KWIRE_FUZZ_CHECK(narrowed.ok() ? SameFrame(*strict, *narrowed)
                                   : ErrorFromStatus(narrowed.status()).value_or(Error{}).kind ==
                                         ErrorKind::kInvalidValue,
                     "canonical %s v%d: kQuirkTagOfOtherVersionRejected: %s", name, version,
                     narrowed.status().ToString());
    return;
  }
  KWIRE_FUZZ_CHECK(!strict.status().message().empty(), "error without a message");
  auto lenient = decode(in, java);
  if (!lenient.ok()) return;
  {
    // A repeated unknown tag is kept twice and refused by the encoder, as by Java's.
    auto once = encode(*lenient, keep_utf8);
    if (!once.ok() &&
        ErrorFromStatus(once.status()).value_or(Error{}).kind == ErrorKind::kTagDuplicate) {
      FrameOptions ordered = java;
      ordered.quirks &= ~kQuirkUnorderedTags;
      KWIRE_FUZZ_CHECK(!decode(in, ordered).ok(),
                       "a decoded %s v%d does not encode (%s), but it repeats no tag",
                       lenient->body.spec().name, version, once.status().ToString());
      return;
    }
  }
  const std::vector<uint8_t> encoded = reencode(*lenient, keep_utf8, verbatim);
  auto kept = decode(in, verbatim);
  if (kept.ok()) {
    const char* name = kept->body.spec().name;
    KWIRE_FUZZ_CHECK(SameFrame(*kept, *lenient),
                     "%s v%d reads differently with the verbatim options and the Java quirks",
                     name, version);
    KWIRE_FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), in.begin(), in.end()),
                     "%s v%d decoded under the verbatim options does not re-encode "
                     "byte-identically: %s",
                     name, version, ShowDifference(in, encoded));
    auto refused = encode(*kept, EncodeOptions{});
    if (refused.ok()) {
      FrameOptions opaque;
      opaque.records_mode = RecordsMode::kOpaque;
      opaque.quirks = kQuirkApiVersionsAnyFallback;
      KWIRE_FUZZ_CHECK(decode(in, opaque).ok(),
                       "%s v%d rejected strictly (%s) encodes strictly, but not for its records "
                       "or an ApiVersions v0 fallback's error code",
                       name, version, strict.status().ToString());
    } else {
      KWIRE_FUZZ_CHECK(absl::StrContains(refused.status().message(), "invalid_utf8"),
                       "%s v%d rejected strictly (%s) fails to encode strictly: %s", name,
                       version, strict.status().ToString(), refused.status().ToString());
    }
    return;
  }
  KWIRE_FUZZ_CHECK(!std::equal(encoded.begin(), encoded.end(), in.begin(), in.end()),
                   "frame rejected strictly (%s) re-encodes to itself",
                   strict.status().ToString());
}

}  // namespace kwire::fuzz

#endif  // KWIRE_FUZZ_FRAME_CHECK_H_
