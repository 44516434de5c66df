// Helpers shared by frame_test.cc and codec/schema/hostile_test.cc: every
// (API, direction, version) as a test case, whole frames of a message, byte surgery on
// frames, and the Error behind a public absl::Status (ErrorFromStatus).
#ifndef KWIRE_CODEC_PROTOCOL_FRAME_TEST_UTIL_H_
#define KWIRE_CODEC_PROTOCOL_FRAME_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "codec/harness/fill.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/test_util.h"

namespace kwire {
namespace frame_testing {

/// One message type at one version.
struct Case {
  const ApiInfo* api;
  Direction dir;
  int16_t version;

  const MessageOps& ops() const { return api->ops(dir); }
  bool request() const { return dir == Direction::kRequest; }
  bool flexible() const { return ops().spec->flexible.Contains(version); }
  std::string Name() const {
    return absl::StrFormat("%s_v%d_%s", api->name, version, DirectionName(dir));
  }
};

/// Every API × direction × valid version (removed versions included): 736 cases.
inline const std::vector<Case>& AllCases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> out;
    for (const ApiInfo& api : AllApis()) {
      for (Direction d : {Direction::kRequest, Direction::kResponse}) {
        const VersionRange r = api.ops(d).spec->valid;
        for (int v = r.lo; v <= r.hi; ++v) out.push_back({&api, d, static_cast<int16_t>(v)});
      }
    }
    return out;
  }();
  return cases;
}

/// The case of one named API (e.g. "Fetch") at `version`.
inline Case CaseOf(const char* api, Direction d, int16_t version) {
  const ApiInfo* info = FindApiByName(api);
  EXPECT_NE(info, nullptr) << api;
  return {info, d, version};
}

/// Header values of every test frame. The correlation id has no 00/01/02 byte, so it is
/// never mistaken for a length, a count or a bool.
inline constexpr int32_t kCorrelationId = 0x5a5b5c5d;
inline constexpr char kClientId[] = "k";

/// The documented minimal instance (conformance/README.md) of the case's message.
inline AnyMessage Minimal(const Case& c) {
  AnyMessage m(c.ops());
  FillMinimal(c.version, m);
  return m;
}

/// A randomized rich instance, deterministic for (case, seed).
inline AnyMessage Rich(const Case& c, uint64_t seed) {
  std::mt19937_64 rng(seed ^ (uint64_t(c.api->api_key) << 20) ^ (uint64_t(c.version) << 8) ^
                      uint64_t(c.dir));
  AnyMessage m(c.ops());
  FillRandom(rng, c.version, m);
  return m;
}

/// The body alone (no size prefix, no header).
inline std::vector<uint8_t> EncodeBodyBytes(const Case& c, const AnyMessage& body) {
  Writer w;
  c.ops().encode(w, c.version, body.raw());
  EXPECT_TRUE(w.ok()) << c.Name() << ": " << w.error().ToString();
  return w.Release();
}

/// A whole frame (size prefix, header, body) with kCorrelationId and kClientId.
inline std::vector<uint8_t> EncodeFrame(const Case& c, const AnyMessage& body) {
  absl::StatusOr<std::vector<uint8_t>> f;
  if (c.request()) {
    RequestHeader h;
    h.request_api_key = c.api->api_key;
    h.request_api_version = c.version;
    h.correlation_id = kCorrelationId;
    h.client_id = kClientId;
    f = EncodeRequestFrame(h, body);
  } else {
    ResponseHeader h;
    h.correlation_id = kCorrelationId;
    f = EncodeResponseFrame(h, c.api->api_key, c.version, body);
  }
  EXPECT_TRUE(f.ok()) << c.Name() << ": " << f.status();
  return f.ok() ? *std::move(f) : std::vector<uint8_t>{};
}

/// Rewrites the int32 size prefix to match the frame's length (frames of ≥ 4 bytes).
inline void FixSizePrefix(std::vector<uint8_t>& frame) {
  const uint32_t n = static_cast<uint32_t>(frame.size() - 4);
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<uint8_t>(n >> (24 - 8 * i));
}

/// `frame` with bytes [at, at + width) replaced by `with` and the size prefix corrected.
inline std::vector<uint8_t> Splice(std::span<const uint8_t> frame, size_t at, size_t width,
                                   std::span<const uint8_t> with) {
  std::vector<uint8_t> out(frame.begin(), frame.begin() + at);
  out.insert(out.end(), with.begin(), with.end());
  out.insert(out.end(), frame.begin() + at + width, frame.end());
  FixSizePrefix(out);
  return out;
}

/// Big-endian bytes of an int16 / int32, and a canonical uvarint.
inline std::vector<uint8_t> Int16Bytes(int16_t v) {
  return {static_cast<uint8_t>(uint16_t(v) >> 8), static_cast<uint8_t>(v)};
}
inline std::vector<uint8_t> Int32Bytes(int32_t v) {
  const uint32_t u = static_cast<uint32_t>(v);
  return {static_cast<uint8_t>(u >> 24), static_cast<uint8_t>(u >> 16),
          static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)};
}
inline std::vector<uint8_t> Uvarint(uint32_t v) { return wire_testing::RefLeb128(v); }

/// The Error behind a Status from the public API: ErrorFromStatus (kOk for an ok
/// status). Also checks that a failing status carries one, that its code is the one
/// ErrorKindStatusCode documents for the kind, and that its message is the Error's text.
inline Error ErrorOf(const absl::Status& s) {
  if (s.ok()) return Error{};
  const std::optional<Error> e = ErrorFromStatus(s);
  if (!e.has_value()) {
    ADD_FAILURE() << "not a kwire error (no " << kErrorPayloadTypeUrl << " payload): " << s;
    return Error{ErrorKind::kInvalidValue, 0, "", ""};
  }
  EXPECT_EQ(s.code(), ErrorKindStatusCode(e->kind)) << s;
  EXPECT_EQ(s.message(), e->ToString()) << s;
  return *e;
}

/// Result of decoding one frame of a case.
struct Decoded {
  Error error;                     ///< kOk when the frame decoded.
  std::vector<uint8_t> reencoded;  ///< On success: the decoded frame encoded again.
  /// kTagDuplicate when the frame decoded under kQuirkUnorderedTags with a repeated
  /// unknown tag (kept twice, as Java keeps it), which does not encode; else kOk.
  Error reencode_error;
  bool ok() const { return error.ok(); }
};

/// Keeps the re-encoding in `out`; a failure is a test failure, except a repeated unknown
/// tag under kQuirkUnorderedTags, which is kept in out.reencode_error.
inline void KeepReencoding(absl::StatusOr<std::vector<uint8_t>> again, uint32_t quirks,
                           Decoded& out) {
  if (again.ok()) {
    out.reencoded = *std::move(again);
    return;
  }
  out.reencode_error = ErrorOf(again.status());
  EXPECT_TRUE((quirks & kQuirkUnorderedTags) != 0 &&
              out.reencode_error.kind == ErrorKind::kTagDuplicate)
      << again.status();
}

/// Decodes `frame` as the case's request or response frame; on success re-encodes it
/// (with the same quirks as EncodeOptions: only kQuirkInvalidUtf8 matters there).
inline Decoded DecodeFrame(const Case& c, std::span<const uint8_t> frame, uint32_t quirks = 0,
                           const FrameOptions& base = {}) {
  FrameOptions options = base;
  options.quirks = quirks;
  Decoded out;
  if (c.request()) {
    auto f = DecodeRequestFrame(frame, options);
    if (!f.ok()) {
      out.error = ErrorOf(f.status());
      return out;
    }
    KeepReencoding(EncodeRequestFrame(f->header, f->body, EncodeOptions{quirks}), quirks, out);
  } else {
    auto f = DecodeResponseFrame(frame, c.api->api_key, c.version, options);
    if (!f.ok()) {
      out.error = ErrorOf(f.status());
      return out;
    }
    // At the version the body was read at (KIP-511's ApiVersions v0 fallback: 0).
    KeepReencoding(EncodeResponseFrame(f->header, c.api->api_key, f->body_version, f->body,
                                       EncodeOptions{quirks}),
                   quirks, out);
  }
  return out;
}

}  // namespace frame_testing
}  // namespace kwire

#endif  // KWIRE_CODEC_PROTOCOL_FRAME_TEST_UTIL_H_
