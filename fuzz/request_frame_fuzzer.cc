// request_frame_fuzzer: one Kafka request frame (int32 size prefix, request header,
// body), any API key and version.
//
// Invariants (a violation aborts):
//   * strict decode succeeds  → encode succeeds and is byte-identical to the input,
//                               decoding that again gives an equal frame, and so does
//                               decoding the input with every Java quirk on;
//   * only a Java-quirk decode succeeds → encode succeeds, the encoding differs from
//     the input, decodes strictly to an equal frame and re-encodes byte-identically
//     (the encoding is stable on the second pass);
//   * a failed decode is an error Status (never a crash, leak or UB: the sanitizers).
// Equality compares every field, float64 bit for bit (fuzz/mutate.h BitwiseEqual).
// Structure-aware mutation: fuzz/frame_mutator.h (off in *_bytes builds).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/protocol/frame.h"
#include "fuzz/frame_mutator.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/mutate.h"

namespace kwire::fuzz {
namespace {

bool SameFrame(const RequestFrame& a, const RequestFrame& b) {
  return a.header_version == b.header_version && a.header == b.header &&
         &a.body.ops() == &b.body.ops() &&
         FindMutateOps(a.body.ops().spec)->bitwise_equal(a.body.raw(), b.body.raw());
}

// Encodes `frame`, decodes the result strictly and checks both; returns the encoding.
std::vector<uint8_t> ReencodeAndCheck(const RequestFrame& frame) {
  auto encoded = EncodeRequestFrame(frame.header, frame.body);
  KWIRE_FUZZ_CHECK(encoded.ok(), "a decoded %s v%d request does not encode: %s",
                   frame.body.spec().name, frame.api_version(), encoded.status().ToString());
  auto again = DecodeRequestFrame(*encoded);
  KWIRE_FUZZ_CHECK(again.ok(), "the encoding of a decoded %s v%d request does not decode: %s\n%s",
                   frame.body.spec().name, frame.api_version(), again.status().ToString(),
                   Hex(*encoded));
  KWIRE_FUZZ_CHECK(SameFrame(frame, *again),
                   "decode(encode(decode(b))) != decode(b) for %s v%d", frame.body.spec().name,
                   frame.api_version());
  auto twice = EncodeRequestFrame(again->header, again->body);
  KWIRE_FUZZ_CHECK(twice.ok() && *twice == *encoded,
                   "encoding of %s v%d is not stable on the second pass", frame.body.spec().name,
                   frame.api_version());
  return *std::move(encoded);
}

void Check(std::span<const uint8_t> in) {
  auto strict = DecodeRequestFrame(in);
  if (strict.ok()) {
    const std::vector<uint8_t> encoded = ReencodeAndCheck(*strict);
    KWIRE_FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), in.begin(), in.end()),
                     "canonical %s v%d request does not re-encode byte-identically: %s",
                     strict->body.spec().name, strict->api_version(),
                     FirstDifference(in, encoded));
    // Quirks only widen what is accepted: canonical input reads the same with them.
    FrameOptions java;
    java.decode.quirks = kQuirksJava;
    auto lenient = DecodeRequestFrame(in, java);
    KWIRE_FUZZ_CHECK(lenient.ok() && SameFrame(*strict, *lenient),
                     "canonical %s v%d request reads differently with the Java quirks: %s",
                     strict->body.spec().name, strict->api_version(),
                     lenient.status().ToString());
    return;
  }
  KWIRE_FUZZ_CHECK(!strict.status().message().empty(), "error without a message");
  FrameOptions java;
  java.decode.quirks = kQuirksJava;
  auto lenient = DecodeRequestFrame(in, java);
  if (!lenient.ok()) return;
  const std::vector<uint8_t> encoded = ReencodeAndCheck(*lenient);
  KWIRE_FUZZ_CHECK(!std::equal(encoded.begin(), encoded.end(), in.begin(), in.end()),
                   "input rejected strictly (%s) re-encodes to itself",
                   strict.status().ToString());
}

}  // namespace
}  // namespace kwire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kwire::fuzz::Check({data, size});
  return 0;
}

#ifndef KWIRE_FUZZ_NO_CUSTOM_MUTATOR
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return kwire::fuzz::MutateFrameInput(kwire::fuzz::InputKind::kRequestFrame, data, size,
                                       max_size, seed, &LLVMFuzzerMutate);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out, unsigned int seed) {
  return kwire::fuzz::CrossOverFrameInputs(kwire::fuzz::InputKind::kRequestFrame, data1, size1,
                                           data2, size2, out, max_out, seed);
}
#endif
