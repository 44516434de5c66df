// frame_split_fuzzer: SplitFrame (codec/protocol/frame.h) over a byte stream that
// arrives cut into arbitrary chunks.
//
// Input: byte 0 selects FrameOptions::max_frame_size (default / 16 / 256 / 65536);
// byte 1 = k (mod 33), bytes 2..k+1 are chunk sizes (cycled, 0 means 1); the rest is
// the stream.
//
// Invariants (a violation aborts):
//   * one-shot: splitting the whole stream frame by frame gives frames that start where
//     the previous one ended, are 4 + size-prefix bytes long, and a final NeedMore(n)
//     whose n is exactly what completes the next frame, or an error
//     (kInvalidFrameSize / kFrameTooLarge at byte 0, path Frame.size);
//   * chunked: feeding the chunks into a buffer and splitting after every append gives
//     the same frames (same bytes) in the same order, then the same final state; every
//     NeedMore(n) is exact;
//   * the frame decoders agree with SplitFrame on the size prefix: DecodeRequestFrame
//     on a split frame never fails on Frame.size.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/protocol/frame.h"
#include "fuzz/fuzz_check.h"

namespace kwire::fuzz {
namespace {

struct Outcome {
  std::vector<std::span<const uint8_t>> frames;
  SplitResult::Status last = SplitResult::kNeedMore;
  size_t need = 0;
  ErrorKind error = ErrorKind::kOk;
};

// Bytes the frame starting at `rest` needs in total (prefix included), or 4 when the
// prefix itself is incomplete.
size_t ExpectedTotal(std::span<const uint8_t> rest) {
  if (rest.size() < 4) return 4;
  const uint32_t size = (uint32_t{rest[0]} << 24) | (uint32_t{rest[1]} << 16) |
                        (uint32_t{rest[2]} << 8) | rest[3];
  return 4 + size;
}

Outcome OneShot(std::span<const uint8_t> stream, const FrameOptions& options) {
  Outcome out;
  size_t pos = 0;
  for (;;) {
    const std::span<const uint8_t> rest = stream.subspan(pos);
    const SplitResult r = SplitFrame(rest, options);
    if (r.status == SplitResult::kFrame) {
      KWIRE_FUZZ_CHECK(r.frame.data() == rest.data(), "frame does not start at the stream");
      KWIRE_FUZZ_CHECK(r.frame.size() == ExpectedTotal(rest) && r.frame.size() <= rest.size(),
                       "frame of %d bytes, prefix says %d, %d available", r.frame.size(),
                       ExpectedTotal(rest), rest.size());
      out.frames.push_back(r.frame);
      pos += r.frame.size();
      continue;
    }
    out.last = r.status;
    if (r.status == SplitResult::kNeedMore) {
      KWIRE_FUZZ_CHECK(r.need >= 1 && r.need == ExpectedTotal(rest) - rest.size(),
                       "NeedMore(%d) with %d bytes of a %d-byte frame", r.need, rest.size(),
                       ExpectedTotal(rest));
      out.need = r.need;
    } else {
      KWIRE_FUZZ_CHECK(r.error.kind == ErrorKind::kInvalidFrameSize ||
                           r.error.kind == ErrorKind::kFrameTooLarge,
                       "split error %s", r.error.ToString());
      KWIRE_FUZZ_CHECK(r.error.offset == 0 && r.error.path == "Frame.size", "error at %s",
                       r.error.ToString());
      const int32_t size = static_cast<int32_t>(ExpectedTotal(rest) - 4);
      KWIRE_FUZZ_CHECK(size < 0 || size > options.max_frame_size,
                       "error for a valid size prefix %d (max %d)", size, options.max_frame_size);
      out.error = r.error.kind;
    }
    return out;
  }
}

}  // namespace
}  // namespace kwire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kwire;
  using namespace kwire::fuzz;
  if (size < 2) return 0;
  static constexpr int32_t kMaxSizes[] = {kDefaultMaxFrameSize, 16, 256, 65536};
  FrameOptions options;
  options.max_frame_size = kMaxSizes[data[0] % 4];
  const size_t k = std::min<size_t>(data[1] % 33, size - 2);
  const std::span<const uint8_t> chunks(data + 2, k);
  const std::span<const uint8_t> stream(data + 2 + k, size - 2 - k);

  const Outcome one = OneShot(stream, options);
  for (const auto& frame : one.frames) {
    auto decoded = DecodeRequestFrame(frame, options);
    if (!decoded.ok()) {
      const std::string msg(decoded.status().message());
      KWIRE_FUZZ_CHECK(msg.find("in Frame.size") == std::string::npos,
                       "SplitFrame accepted a frame whose size prefix the decoder rejects: %s",
                       msg);
    }
  }

  // Chunked: append, then split as long as frames complete.
  std::vector<uint8_t> buffer;
  size_t fed = 0, chunk_index = 0, frame_index = 0;
  size_t last_need = 0;
  bool failed = false;
  while (fed < stream.size() && !failed) {
    size_t n = k == 0 ? stream.size() : std::max<size_t>(chunks[chunk_index++ % k], 1);
    n = std::min(n, stream.size() - fed);
    buffer.insert(buffer.end(), stream.begin() + fed, stream.begin() + fed + n);
    fed += n;
    if (last_need > 0 && n < last_need) {
      // Not enough yet: the previous NeedMore promised no frame before `last_need`.
      const SplitResult r = SplitFrame(buffer, options);
      KWIRE_FUZZ_CHECK(r.status == SplitResult::kNeedMore && r.need == last_need - n,
                       "after NeedMore(%d) and %d more bytes: status %d need %d", last_need, n,
                       r.status, r.need);
      last_need = r.need;
      continue;
    }
    for (;;) {
      const SplitResult r = SplitFrame(buffer, options);
      if (r.status == SplitResult::kFrame) {
        KWIRE_FUZZ_CHECK(frame_index < one.frames.size(), "chunked split found an extra frame");
        const auto& expect = one.frames[frame_index++];
        KWIRE_FUZZ_CHECK(std::equal(r.frame.begin(), r.frame.end(), expect.begin(), expect.end()),
                         "chunked frame %d differs from the one-shot frame", frame_index - 1);
        buffer.erase(buffer.begin(), buffer.begin() + static_cast<ptrdiff_t>(r.frame.size()));
        continue;
      }
      if (r.status == SplitResult::kError) {
        KWIRE_FUZZ_CHECK(one.last == SplitResult::kError && frame_index == one.frames.size() &&
                             r.error.kind == one.error,
                         "chunked split failed (%s) where one-shot did not",
                         r.error.ToString());
        failed = true;
      } else {
        KWIRE_FUZZ_CHECK(r.need == ExpectedTotal(buffer) - buffer.size(),
                         "chunked NeedMore(%d) with %d buffered bytes", r.need, buffer.size());
        last_need = r.need;
      }
      break;
    }
  }
  if (!failed && !stream.empty()) {
    KWIRE_FUZZ_CHECK(frame_index == one.frames.size(), "chunked split found %d of %d frames",
                     frame_index, one.frames.size());
    KWIRE_FUZZ_CHECK(one.last == SplitResult::kNeedMore && last_need == one.need,
                     "chunked split ends with NeedMore(%d), one-shot with status %d need %d",
                     last_need, one.last, one.need);
  }
  return 0;
}
