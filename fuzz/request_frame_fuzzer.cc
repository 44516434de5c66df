// request_frame_fuzzer: one Kafka request frame (int32 size prefix, request header,
// body), any API key and version.
//
// Invariants: fuzz/frame_check.h (strict decode → byte-identical re-encode; Java-quirk
// decode → stable canonical re-encode; errors are Statuses), and the broker's reading
// (codec/protocol/refusal.h) against the strict decode: a frame that decodes is read with
// no refusal; a refused frame does not decode, fails there at its first refusal's fault,
// and re-encodes byte for byte; a frame the broker cannot read does not decode either;
// every refusal names its part, a known code, and comes in frame order.
// The explanation of the same inputs is request_explain_fuzzer's (a separate target:
// it costs about three round trips).
// Structure-aware mutation: fuzz/frame_mutator.h (off in *_bytes builds).
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>

#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "fuzz/frame_mutator.h"
#include "fuzz/frame_check.h"

namespace kwire::fuzz {
namespace {

void CheckBrokerRead(std::span<const uint8_t> in) {
  const absl::StatusOr<RequestFrame> strict = DecodeRequestFrame(in);
  const absl::StatusOr<BrokerRead> read = ReadRequestAsBroker(in);
  if (!read.ok()) {
    KWIRE_FUZZ_CHECK(!strict.ok(), "the broker cannot read a frame that decodes: %s\n%s",
                     read.status().ToString(), Hex(in));
    return;
  }
  if (strict.ok()) {
    KWIRE_FUZZ_CHECK(!read->refused(), "a frame that decodes is refused: %s",
                     read->refusals[0].ToString());
    return;
  }
  KWIRE_FUZZ_CHECK(read->refused(), "a frame that does not decode (%s) is read, not refused\n%s",
                   strict.status().ToString(), Hex(in));
  const std::optional<Error> first = ErrorFromStatus(strict.status());
  KWIRE_FUZZ_CHECK(first && *first == read->refusals[0].fault,
                   "the strict decode fails with %s, not with the first refusal's fault %s",
                   strict.status().ToString(), read->refusals[0].fault.ToString());
  size_t last = 0;
  for (const Refusal& r : read->refusals) {
    KWIRE_FUZZ_CHECK(r.fault.path.rfind(r.part, 0) == 0 && r.fault.offset >= last,
                     "refusal out of place or order: %s", r.ToString());
    KWIRE_FUZZ_CHECK(r.error_code == 87 || r.error_code == 76 || r.error_code == 2 ||
                         r.error_code == -1,
                     "refusal with an unknown code: %s", r.ToString());
    last = r.fault.offset;
  }
  auto encoded = EncodeRequestFrame(read->frame.header, read->frame.body);
  KWIRE_FUZZ_CHECK(encoded.ok() && std::equal(encoded->begin(), encoded->end(), in.begin(), in.end()),
                   "a refused frame does not re-encode to its bytes: %s",
                   encoded.status().ToString());
}

void Check(std::span<const uint8_t> in) {
  CheckBrokerRead(in);
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
