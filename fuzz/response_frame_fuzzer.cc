// response_frame_fuzzer: api_key int16 BE, api_version int16 BE (a response header
// does not name its API: the caller knows it from the request), then one response
// frame (int32 size prefix, response header, body).
//
// Invariants (a violation aborts):
//   * strict decode succeeds  → encode succeeds and is byte-identical to the frame,
//                               decoding that again gives an equal frame, and so does
//                               decoding the frame with every Java quirk on;
//   * only a Java-quirk decode succeeds → encode succeeds, the encoding differs from
//     the frame, decodes strictly to an equal frame and re-encodes byte-identically;
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

bool SameFrame(const ResponseFrame& a, const ResponseFrame& b) {
  return a.header_version == b.header_version && a.header == b.header &&
         &a.body.ops() == &b.body.ops() &&
         FindMutateOps(a.body.ops().spec)->bitwise_equal(a.body.raw(), b.body.raw());
}

std::vector<uint8_t> ReencodeAndCheck(const ResponseFrame& frame, int16_t key, int16_t version) {
  const char* name = frame.body.spec().name;
  auto encoded = EncodeResponseFrame(frame.header, key, version, frame.body);
  KWIRE_FUZZ_CHECK(encoded.ok(), "a decoded %s v%d does not encode: %s", name, version,
                   encoded.status().ToString());
  auto again = DecodeResponseFrame(*encoded, key, version);
  KWIRE_FUZZ_CHECK(again.ok(), "the encoding of a decoded %s v%d does not decode: %s\n%s", name,
                   version, again.status().ToString(), Hex(*encoded));
  KWIRE_FUZZ_CHECK(SameFrame(frame, *again), "decode(encode(decode(b))) != decode(b) for %s v%d",
                   name, version);
  auto twice = EncodeResponseFrame(again->header, key, version, again->body);
  KWIRE_FUZZ_CHECK(twice.ok() && *twice == *encoded,
                   "encoding of %s v%d is not stable on the second pass", name, version);
  return *std::move(encoded);
}

void Check(std::span<const uint8_t> in) {
  if (in.size() < kResponsePrefixSize) return;
  const int16_t key = static_cast<int16_t>((in[0] << 8) | in[1]);
  const int16_t version = static_cast<int16_t>((in[2] << 8) | in[3]);
  const std::span<const uint8_t> frame = in.subspan(kResponsePrefixSize);
  FrameOptions java;
  java.decode.quirks = kQuirksJava;
  auto strict = DecodeResponseFrame(frame, key, version);
  if (strict.ok()) {
    const std::vector<uint8_t> encoded = ReencodeAndCheck(*strict, key, version);
    KWIRE_FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), frame.begin(), frame.end()),
                     "canonical %s v%d does not re-encode byte-identically: %s",
                     strict->body.spec().name, version, FirstDifference(frame, encoded));
    auto lenient = DecodeResponseFrame(frame, key, version, java);
    KWIRE_FUZZ_CHECK(lenient.ok() && SameFrame(*strict, *lenient),
                     "canonical %s v%d reads differently with the Java quirks: %s",
                     strict->body.spec().name, version, lenient.status().ToString());
    return;
  }
  KWIRE_FUZZ_CHECK(!strict.status().message().empty(), "error without a message");
  auto lenient = DecodeResponseFrame(frame, key, version, java);
  if (!lenient.ok()) return;
  const std::vector<uint8_t> encoded = ReencodeAndCheck(*lenient, key, version);
  KWIRE_FUZZ_CHECK(!std::equal(encoded.begin(), encoded.end(), frame.begin(), frame.end()),
                   "frame rejected strictly (%s) re-encodes to itself",
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
  return kwire::fuzz::MutateFrameInput(kwire::fuzz::InputKind::kResponseInput, data, size,
                                       max_size, seed, &LLVMFuzzerMutate);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out, unsigned int seed) {
  return kwire::fuzz::CrossOverFrameInputs(kwire::fuzz::InputKind::kResponseInput, data1, size1,
                                           data2, size2, out, max_out, seed);
}
#endif
