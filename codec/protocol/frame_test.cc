// Frames: the size prefix (negative, too large, disagreeing with the bytes), trailing
// bytes, unknown API keys and unsupported versions, the header-version rules checked
// against the encoded bytes of every API × version, SplitFrame over a chunked stream, and
// errors read as data (ErrorFromStatus) from real failures of every public call.
// Hostile bodies are in codec/schema/hostile_test.cc.
#include "codec/protocol/frame.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "codec/generated/api_versions_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/harness/explain.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/protocol/registry.h"
#include "codec/records/record_batch.h"

namespace kwire {
namespace {

using frame_testing::AllCases;
using frame_testing::Case;
using frame_testing::DecodeFrame;
using frame_testing::EncodeFrame;
using frame_testing::ErrorOf;
using frame_testing::FixSizePrefix;
using frame_testing::Int16Bytes;
using frame_testing::Int32Bytes;
using frame_testing::kCorrelationId;
using frame_testing::Minimal;
using frame_testing::Rich;
using wire_testing::Cat;
using wire_testing::Hex;
using Bytes = std::vector<uint8_t>;

constexpr int16_t kControlledShutdown = 7;
constexpr int16_t kApiVersions = 18;

void ExpectError(const Error& e, ErrorKind kind, size_t at, const std::string& path) {
  EXPECT_EQ(e.kind, kind) << e.ToString();
  EXPECT_EQ(e.offset, at) << e.ToString();
  EXPECT_EQ(e.path, path) << e.ToString();
}

/// `frame` with its size prefix replaced by `size`.
Bytes WithSize(Bytes frame, int32_t size) {
  const Bytes prefix = Int32Bytes(size);
  std::copy(prefix.begin(), prefix.end(), frame.begin());
  return frame;
}

/// Runs `body` for every case, stopping at the first case with a failure.
template <class F>
void ForEachCase(F body) {
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(c.Name());
    body(c);
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- The size prefix.

TEST(FrameSize, NegativeIsInvalidFrameSize) {
  ForEachCase([](const Case& c) {
    const Bytes frame = EncodeFrame(c, Minimal(c));
    for (int32_t size : {-1, -2, INT32_MIN}) {
      ExpectError(DecodeFrame(c, WithSize(frame, size)).error, ErrorKind::kInvalidFrameSize, 0,
                  "Frame.size");
    }
  });
  EXPECT_EQ(ErrorKindStatusCode(ErrorKind::kInvalidFrameSize),
            absl::StatusCode::kInvalidArgument);
}

TEST(FrameSize, AboveTheMaximumIsFrameTooLarge) {
  ForEachCase([](const Case& c) {
    const Bytes frame = EncodeFrame(c, Minimal(c));
    const int32_t size = static_cast<int32_t>(frame.size() - 4);
    FrameOptions exact;
    exact.max_frame_size = size;
    EXPECT_TRUE(DecodeFrame(c, frame, 0, exact).ok());
    FrameOptions below;
    below.max_frame_size = size - 1;
    const Error e = DecodeFrame(c, frame, 0, below).error;
    ExpectError(e, ErrorKind::kFrameTooLarge, 0, "Frame.size");
    EXPECT_EQ(e.detail, absl::StrFormat("size %d, the maximum is %d", size, size - 1));
    // The default maximum (100 MiB) is checked before the bytes are looked for.
    ExpectError(DecodeFrame(c, WithSize(frame, kDefaultMaxFrameSize + 1)).error,
                ErrorKind::kFrameTooLarge, 0, "Frame.size");
  });
  EXPECT_EQ(ErrorKindStatusCode(ErrorKind::kFrameTooLarge),
            absl::StatusCode::kResourceExhausted);
}

TEST(FrameSize, DisagreeingWithTheBytes) {
  ForEachCase([](const Case& c) {
    const Bytes frame = EncodeFrame(c, Minimal(c));
    const int32_t size = static_cast<int32_t>(frame.size() - 4);
    // More than follow: truncated; fewer: the rest trails. Both at the size prefix.
    for (int32_t more : {size + 1, size + 1000, kDefaultMaxFrameSize}) {
      const Error e = DecodeFrame(c, WithSize(frame, more)).error;
      ExpectError(e, ErrorKind::kTruncated, 0, "Frame.size");
      EXPECT_EQ(e.detail, absl::StrFormat("size prefix says %d bytes follow, have %d", more, size));
    }
    for (int32_t fewer : {size - 1, 0}) {
      ExpectError(DecodeFrame(c, WithSize(frame, fewer)).error, ErrorKind::kTrailingBytes, 0,
                  "Frame.size");
    }
  });
  // Fewer than 4 bytes: the size prefix itself is cut.
  ExpectError(ErrorOf(DecodeRequestFrame(Hex("00 00 00")).status()), ErrorKind::kTruncated, 0,
              "Frame.size");
}

// ---- After the size prefix.

TEST(FrameBody, TrailingBytesAfterTheBody) {
  ForEachCase([](const Case& c) {
    const Bytes frame = EncodeFrame(c, Minimal(c));
    for (const Bytes& extra : {Hex("00"), Hex("ff ff ff ff")}) {
      Bytes longer = Cat(frame, extra);
      FixSizePrefix(longer);
      const Error e = DecodeFrame(c, longer).error;
      ExpectError(e, ErrorKind::kTrailingBytes, frame.size(), "");
      EXPECT_EQ(e.detail, absl::StrFormat("%s after the %s body",
                                          extra.size() == 1 ? "1 byte" : "4 bytes",
                                          DirectionName(c.dir)));
    }
  });
}

TEST(FrameHeader, UnknownApiKey) {
  // Every int16 that is not an API key: at byte 4 of a request, kUnimplemented.
  const Bytes frame = EncodeFrame(frame_testing::CaseOf("ApiVersions", Direction::kRequest, 0),
                                  Minimal(frame_testing::CaseOf("ApiVersions",
                                                                Direction::kRequest, 0)));
  int unknown = 0;
  for (int key = INT16_MIN; key <= INT16_MAX; ++key) {
    if (FindApi(static_cast<int16_t>(key)) != nullptr) continue;
    ++unknown;
    Bytes f = frame;
    const Bytes k = Int16Bytes(static_cast<int16_t>(key));
    std::copy(k.begin(), k.end(), f.begin() + 4);
    const absl::Status s = DecodeRequestFrame(f).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
    const Error e = ErrorOf(s);
    ExpectError(e, ErrorKind::kUnknownApiKey, 4, "RequestHeader.RequestApiKey");
    const Error r = ErrorOf(DecodeResponseFrame(frame, static_cast<int16_t>(key), 0).status());
    EXPECT_EQ(r.kind, ErrorKind::kUnknownApiKey);
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(unknown, 65536 - static_cast<int>(AllApis().size()));
  EXPECT_EQ(ErrorOf(DecodeRequestFrame(frame).status()).kind, ErrorKind::kOk);
}

TEST(FrameHeader, UnsupportedVersion) {
  for (const ApiInfo& api : AllApis()) {
    SCOPED_TRACE(api.name);
    for (Direction d : {Direction::kRequest, Direction::kResponse}) {
      const VersionRange valid = api.ops(d).spec->valid;
      const Case c{&api, d, valid.lo};
      const Bytes frame = EncodeFrame(c, Minimal(c));
      for (int v : {valid.lo - 1, valid.hi + 1, -1, int{INT16_MIN}, int{INT16_MAX}}) {
        if (valid.Contains(static_cast<int16_t>(v))) continue;
        const auto version = static_cast<int16_t>(v);
        Error e;
        if (d == Direction::kRequest) {
          Bytes f = frame;
          const Bytes b = Int16Bytes(version);
          std::copy(b.begin(), b.end(), f.begin() + 6);
          e = ErrorOf(DecodeRequestFrame(f).status());
          ExpectError(e, ErrorKind::kUnsupportedVersion, 6, "RequestHeader.RequestApiVersion");
        } else {
          e = ErrorOf(DecodeResponseFrame(frame, api.api_key, version).status());
          EXPECT_EQ(e.kind, ErrorKind::kUnsupportedVersion) << e.ToString();
        }
        EXPECT_EQ(ErrorKindStatusCode(e.kind), absl::StatusCode::kUnimplemented);
        // Encoding refuses the version too.
        AnyMessage body(api.ops(d));
        absl::Status enc;
        if (d == Direction::kRequest) {
          RequestHeader h;
          h.request_api_key = api.api_key;
          h.request_api_version = version;
          enc = EncodeRequestFrame(h, body).status();
        } else {
          enc = EncodeResponseFrame(ResponseHeader{}, api.api_key, version, body).status();
        }
        EXPECT_EQ(ErrorOf(enc).kind, ErrorKind::kUnsupportedVersion) << enc;
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- Header versions (protocol guide "Headers"; KIP-482; KIP-511).

TEST(HeaderRules, RequestHeaderVersionAndBytes) {
  ForEachCase([](const Case& c) {
    if (!c.request()) return;
    const int16_t key = c.api->api_key;
    const int16_t want = key == kControlledShutdown && c.version == 0 ? 0
                         : c.api->IsFlexible(c.version)             ? 2
                                                                     : 1;
    EXPECT_EQ(RequestHeaderVersion(key, c.version), want);
    const AnyMessage body = Rich(c, 0x68647273);
    const Bytes body_bytes = frame_testing::EncodeBodyBytes(c, body);
    for (const std::optional<std::string>& client_id :
         {std::optional<std::string>("kw"), std::optional<std::string>()}) {
      RequestHeader h;
      h.request_api_key = key;
      h.request_api_version = c.version;
      h.correlation_id = kCorrelationId;
      h.client_id = client_id;
      auto frame = EncodeRequestFrame(h, body);
      ASSERT_TRUE(frame.ok()) << frame.status();
      // key, version, correlation id; ClientId an int16 string even in header v2 (its
      // definition has "flexibleVersions": "none"); then the v2 tag section.
      Bytes header = Cat(Cat(Int16Bytes(key), Int16Bytes(c.version)), Int32Bytes(kCorrelationId));
      if (want >= 1) {
        header = Cat(header, client_id ? Hex("00 02 6b 77") : Hex("ff ff"));
      }
      if (want == 2) header.push_back(0x00);
      Bytes expected = Cat(Cat(Int32Bytes(0), header), body_bytes);
      FixSizePrefix(expected);
      EXPECT_EQ(*frame, expected);
      auto back = DecodeRequestFrame(*frame);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->header_version, want);
      EXPECT_EQ(back->header.client_id, want == 0 ? std::optional<std::string>("") : client_id);
      EXPECT_TRUE(back->body == body);
    }
  });
}

TEST(HeaderRules, ResponseHeaderVersionAndBytes) {
  ForEachCase([](const Case& c) {
    if (c.request()) return;
    const int16_t key = c.api->api_key;
    // ApiVersions responses use header v0 at every version, flexible v3+ included
    // (KIP-511: a client reads it before it knows what the broker speaks).
    const int16_t want = key != kApiVersions && c.api->IsFlexible(c.version) ? 1 : 0;
    EXPECT_EQ(ResponseHeaderVersion(key, c.version), want);
    const AnyMessage body = Rich(c, 0x68647273);
    Bytes expected = Cat(Int32Bytes(0), Int32Bytes(kCorrelationId));
    if (want == 1) expected.push_back(0x00);
    expected = Cat(expected, frame_testing::EncodeBodyBytes(c, body));
    FixSizePrefix(expected);
    EXPECT_EQ(EncodeFrame(c, body), expected);
    auto back = DecodeResponseFrame(expected, key, c.version);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->header_version, want);
    EXPECT_EQ(back->header.correlation_id, kCorrelationId);
    EXPECT_TRUE(back->body == body);
  });
  EXPECT_TRUE(FindApi(kApiVersions)->IsFlexible(3));
  EXPECT_EQ(ResponseHeaderVersion(kApiVersions, 3), 0);
  EXPECT_EQ(ResponseHeaderVersion(kApiVersions, 4), 0);
}

TEST(HeaderRules, UnknownTagsInTheRequestHeaderRoundTrip) {
  const Case c = frame_testing::CaseOf("Fetch", Direction::kRequest, 12);
  Bytes frame = EncodeFrame(c, Minimal(c));
  frame[15] = 0x01;  // header tag count at byte 15: one unknown tag 5 = "ab"
  frame.insert(frame.begin() + 16, {0x05, 0x02, 0x61, 0x62});
  FixSizePrefix(frame);
  auto back = DecodeRequestFrame(frame);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->header.unknown_tagged_fields.size(), 1u);
  EXPECT_EQ(back->header.unknown_tagged_fields[0].tag, 5u);
  EXPECT_EQ(back->header.unknown_tagged_fields[0].data, "ab");
  EXPECT_EQ(*EncodeRequestFrame(back->header, back->body), frame);
}

// ---- SplitFrame.

/// A copy of `bytes` in an allocation of exactly that size, so that ASan catches any
/// read past the end (a vector's spare capacity would hide it).
struct ExactBuffer {
  explicit ExactBuffer(std::span<const uint8_t> bytes)
      : data(new uint8_t[bytes.size()]), size(bytes.size()) {
    std::copy(bytes.begin(), bytes.end(), data.get());
  }
  std::span<const uint8_t> span() const { return {data.get(), size}; }
  std::unique_ptr<uint8_t[]> data;
  size_t size;
};

TEST(SplitFrame, ChunkedStreamReassemblesExactlyAndNeedIsExact) {
  // A stream of rich frames of several APIs, fed in random chunks (fixed seed).
  std::vector<Bytes> frames;
  for (const Case& c : AllCases()) {
    if (c.version == c.ops().spec->valid.hi && c.api->api_key % 7 == 0) {
      frames.push_back(EncodeFrame(c, Rich(c, 0x73706c74)));
    }
  }
  frames.push_back(Hex("00 00 00 00"));  // an empty frame is a frame
  Bytes stream;
  for (const Bytes& f : frames) stream = Cat(stream, f);

  std::mt19937_64 rng(0x6368756e6b);
  for (size_t max_chunk : {size_t{1}, size_t{3}, size_t{64}, size_t{4096}}) {
    SCOPED_TRACE(max_chunk);
    Bytes buffer;
    size_t fed = 0, next = 0;
    std::vector<Bytes> got;
    while (next < frames.size()) {
      ASSERT_LT(fed, stream.size()) << "the stream ended inside frame " << next;
      const size_t n = std::min(stream.size() - fed, 1 + rng() % max_chunk);
      buffer.insert(buffer.end(), stream.begin() + fed, stream.begin() + fed + n);
      fed += n;
      for (;;) {
        const ExactBuffer view(buffer);
        const SplitResult r = SplitFrame(view.span());
        ASSERT_NE(r.status, SplitResult::kError) << r.error.ToString();
        const Bytes& want = frames[next];
        if (r.status == SplitResult::kNeedMore) {
          // 1-4 bytes for the prefix, then exactly the rest of the frame.
          EXPECT_EQ(r.need, buffer.size() < 4 ? 4 - buffer.size() : want.size() - buffer.size());
          break;
        }
        got.emplace_back(r.frame.begin(), r.frame.end());
        buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(r.frame.size()));
        ++next;
        if (next == frames.size()) break;
      }
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(got, frames);
    EXPECT_TRUE(buffer.empty());
  }
}

TEST(SplitFrame, NeedCountsDownByteByByte) {
  const Bytes frame = Hex("00 00 00 03 aa bb cc");
  for (size_t have = 0; have < frame.size(); ++have) {
    const ExactBuffer view(std::span<const uint8_t>(frame.data(), have));
    const SplitResult r = SplitFrame(view.span());
    EXPECT_EQ(r.status, SplitResult::kNeedMore);
    EXPECT_EQ(r.need, have < 4 ? 4 - have : frame.size() - have) << have;
  }
  const ExactBuffer whole(Cat(frame, Hex("00")));  // a byte of the next frame
  const SplitResult r = SplitFrame(whole.span());
  ASSERT_EQ(r.status, SplitResult::kFrame);
  EXPECT_EQ(Bytes(r.frame.begin(), r.frame.end()), frame);
}

TEST(SplitFrame, NegativeOrTooLargeSizeIsAnErrorAsSoonAsThePrefixIsComplete) {
  FrameOptions options;
  options.max_frame_size = 1000;
  struct Bad {
    int32_t size;
    ErrorKind kind;
  };
  for (const Bad& b : {Bad{-1, ErrorKind::kInvalidFrameSize}, Bad{INT32_MIN, ErrorKind::kInvalidFrameSize},
                       Bad{1001, ErrorKind::kFrameTooLarge}, Bad{INT32_MAX, ErrorKind::kFrameTooLarge}}) {
    SCOPED_TRACE(b.size);
    const ExactBuffer prefix(Int32Bytes(b.size));
    const SplitResult r = SplitFrame(prefix.span(), options);
    ASSERT_EQ(r.status, SplitResult::kError);
    ExpectError(r.error, b.kind, 0, "Frame.size");
    // Three bytes of the prefix are not enough to know.
    const ExactBuffer three(std::span<const uint8_t>(prefix.data.get(), 3));
    EXPECT_EQ(SplitFrame(three.span(), options).status, SplitResult::kNeedMore);
  }
  const ExactBuffer max(Int32Bytes(1000));
  const SplitResult ok = SplitFrame(max.span(), options);
  EXPECT_EQ(ok.status, SplitResult::kNeedMore);
  EXPECT_EQ(ok.need, 1000u);
}

// ---- Appending frames to a caller's Writer.

TEST(AppendFrame, EveryApiBackToBackInOneWriterEqualsEncodeFrame) {
  // One writer receives a frame of every API × version × direction after the other
  // (requests and responses alike, never cleared); the stream splits back into exactly
  // the frames EncodeRequestFrame / EncodeResponseFrame produce, in order.
  Writer w;
  std::vector<Bytes> expected;
  ForEachCase([&](const Case& c) {
    const AnyMessage body = Rich(c, 0x61707064);
    expected.push_back(EncodeFrame(c, body));
    absl::Status s;
    if (c.request()) {
      RequestHeader h;
      h.request_api_key = c.api->api_key;
      h.request_api_version = c.version;
      h.correlation_id = kCorrelationId;
      h.client_id = frame_testing::kClientId;
      s = AppendRequestFrame(h, body, &w);
    } else {
      ResponseHeader h;
      h.correlation_id = kCorrelationId;
      s = AppendResponseFrame(h, c.api->api_key, c.version, body, &w);
    }
    ASSERT_TRUE(s.ok()) << s;
  });
  std::span<const uint8_t> stream = w.bytes();
  for (size_t i = 0; i < expected.size(); ++i) {
    const SplitResult r = SplitFrame(stream);
    ASSERT_EQ(r.status, SplitResult::kFrame) << "frame " << i;
    ASSERT_EQ(Bytes(r.frame.begin(), r.frame.end()), expected[i]) << "frame " << i;
    stream = stream.subspan(r.frame.size());
  }
  EXPECT_TRUE(stream.empty());
  EXPECT_EQ(expected.size(), AllCases().size());  // every API × version × direction
}

TEST(AppendFrame, RefusalsLeaveTheWriterAsItWas) {
  Writer w;
  w.WriteInt32(0x01020304);  // bytes already there stay
  const ApiInfo* metadata = FindApi(3);
  ASSERT_NE(metadata, nullptr);
  AnyMessage request(*metadata->request);
  AnyMessage response(*metadata->response);
  RequestHeader h;
  h.request_api_key = 3;
  h.request_api_version = 12;
  // A response body under a request header, an unknown key: refused before writing.
  EXPECT_EQ(AppendRequestFrame(h, response, &w).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AppendResponseFrame(ResponseHeader{}, 3, 12, request, &w).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AppendResponseFrame(ResponseHeader{}, 9999, 0, response, &w).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(w.bytes().size(), 4u);
  ASSERT_TRUE(AppendRequestFrame(h, request, &w).ok());
  auto alone = EncodeRequestFrame(h, request);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_EQ(Bytes(w.bytes().begin(), w.bytes().end()), Cat(Hex("01 02 03 04"), *alone));
}

// ---- Errors as data: ErrorFromStatus on the statuses of real failures.

// DescribeDelegationToken v3 request (`kwire minimal 41 3 request`): size prefix 16,
// header v2 (api key, version, correlation id 0, client id "" as int16 0, no tags) ends
// at byte 15; the body is a compact array of one owner (count 02 at byte 15, two empty
// compact strings at 16 and 17, owner tags at 18) and the body's tags at 19.
constexpr char kMinimal41v3[] = "00000010 0029 0003 00000000 0000 00 02 01 01 00 00";

// Frames held as text (a std::string read from a socket or a file, a string_view into
// a larger buffer): the string_view overloads decode the same bytes as the span ones,
// and views they return point into the caller's buffer.
TEST(TextBuffers, StringViewOverloadsReadTheSameBytes) {
  ApiVersionsRequest req;
  req.client_software_name = "kwire";
  req.client_software_version = "1.0";
  const auto encoded = EncodeRequestFrame(3, 77, std::string("c"), req);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  const std::string text(encoded->begin(), encoded->end());

  const std::optional<RequestApi> api = PeekRequestApi(text);
  ASSERT_TRUE(api.has_value());
  EXPECT_EQ(api->api_key, kApiVersions);
  EXPECT_EQ(api->api_version, 3);

  const absl::StatusOr<RequestFrame> any = DecodeRequestFrame(text);
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(any->header.correlation_id, 77);
  ASSERT_NE(any->body.get<ApiVersionsRequest>(), nullptr);
  EXPECT_EQ(*any->body.get<ApiVersionsRequest>(), req);
  const auto typed = DecodeRequestFrameAs<ApiVersionsRequest>(std::string_view(text));
  ASSERT_TRUE(typed.ok()) << typed.status();
  EXPECT_EQ(typed->body, req);
  // The body alone (after the size prefix and the header v2: key, version, id, "c", tags).
  const auto body =
      DecodeMessage<ApiVersionsRequest>(std::string_view(text).substr(4 + 2 + 2 + 4 + 3 + 1), 3);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(*body, req);

  // SplitFrame over a stream with a second frame begun: the first frame is a view of
  // the text's own bytes.
  const std::string stream = text + std::string("\0\0", 2);
  const SplitResult split = SplitFrame(stream);
  ASSERT_EQ(split.status, SplitResult::kFrame);
  EXPECT_EQ(static_cast<const void*>(split.frame.data()), static_cast<const void*>(stream.data()));
  EXPECT_EQ(split.frame.size(), text.size());

  // A failure is the same Error either way.
  const std::string cut = text.substr(0, text.size() - 1);
  const std::optional<Error> from_text = ErrorFromStatus(DecodeRequestFrame(cut).status());
  const std::optional<Error> from_span = ErrorFromStatus(DecodeRequestFrame(AsBytes(cut)).status());
  ASSERT_TRUE(from_text.has_value());
  EXPECT_EQ(from_text, from_span);
  EXPECT_EQ(from_text->kind, ErrorKind::kTruncated);

  // A response, untyped and typed.
  ApiVersionsResponse resp;
  resp.api_keys.push_back({});
  resp.api_keys[0].api_key = 18;
  resp.api_keys[0].max_version = 4;
  Writer w;
  ASSERT_TRUE(AppendResponseFrame(ResponseHeader{}, 3, resp, &w).ok());
  const std::string resp_text(w.bytes().begin(), w.bytes().end());
  const auto r1 = DecodeResponseFrame(resp_text, kApiVersions, 3);
  ASSERT_TRUE(r1.ok()) << r1.status();
  ASSERT_NE(r1->body.get<ApiVersionsResponse>(), nullptr);
  EXPECT_EQ(*r1->body.get<ApiVersionsResponse>(), resp);
  const auto r2 = DecodeResponseFrameAs<ApiVersionsResponse>(std::string_view(resp_text), 3);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(r2->body, resp);
}

TEST(ErrorsAsData, TruncatedFrame) {
  // The last byte cut (size prefix 15): the body's tagged-field count is missing.
  const Bytes full = Hex(kMinimal41v3);
  Bytes cut(full.begin(), full.end() - 1);
  FixSizePrefix(cut);
  const absl::Status s = DecodeRequestFrame(cut).status();
  const std::optional<Error> e = ErrorFromStatus(s);
  ASSERT_TRUE(e.has_value()) << s;
  EXPECT_EQ(e->kind, ErrorKind::kTruncated);
  EXPECT_EQ(e->offset, cut.size());
  EXPECT_EQ(e->path, "DescribeDelegationTokenRequest.tagged_fields");
  EXPECT_EQ(s.message(), e->ToString());
}

TEST(ErrorsAsData, VarintTooLong) {
  // The owners count as six continuation bytes: a uvarint longer than 5, at its first byte.
  Bytes f = Cat(Hex("00000000 0029 0003 00000000 0000 00"), Hex("ff ff ff ff ff ff"));
  FixSizePrefix(f);
  const std::optional<Error> e = ErrorFromStatus(DecodeRequestFrame(f).status());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, ErrorKind::kVarintTooLong);
  EXPECT_EQ(e->offset, 15u);
  EXPECT_EQ(e->path, "DescribeDelegationTokenRequest.Owners");
}

TEST(ErrorsAsData, CrcMismatchInFetchResponseRecords) {
  // Fetch v4 response, one topic "t", one partition whose record batch (72 bytes) has a
  // CRC that does not match its bytes (the one of tools/kwire/CMakeLists.txt's CLI test).
  const Bytes f = Hex(
      "00000079 00000001 00000000 00000001 0001 74 00000001 00000000 0000 "
      "0000000000000001 0000000000000001 ffffffff 00000048 "
      "0000000000000000 0000003c 00000000 02 66ce83ea 0000 00000000 0000000000000000 "
      "0000000000000000 ffffffffffffffff ffff ffffffff 00000001 "
      "14 00 00 00 06 313433 02 76 00");
  // The batch starts after size, correlation id, throttle, topics count, name, partitions
  // count, index, error code, high watermark, last stable offset, aborted (null), records
  // length; its CRC after base offset, batch length, leader epoch and magic.
  const size_t batch_at = 4 + 4 + 4 + 4 + (2 + 1) + 4 + 4 + 2 + 8 + 8 + 4 + 4;
  const size_t crc_at = batch_at + 8 + 4 + 4 + 1;
  const absl::Status s = DecodeResponseFrame(f, 1, 4).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  const std::optional<Error> e = ErrorFromStatus(s);
  ASSERT_TRUE(e.has_value()) << s;
  EXPECT_EQ(e->kind, ErrorKind::kCrcMismatch);
  EXPECT_EQ(e->offset, crc_at);
  EXPECT_EQ(e->path, "FetchResponse.Responses[0].Partitions[0].Records.Batch[0]");
  // The bytes the CRC covers in the frame's coordinates, as the offset is: from the
  // attributes (batch + 21) to the batch's last byte (batch + 12 + batchLength 60 - 1).
  EXPECT_EQ(batch_at, 53u);
  EXPECT_THAT(e->detail, ::testing::HasSubstr("(CRC-32C of bytes 74..124: the batch that starts at "
                                              "byte 53, baseOffset 0, from its attributes to its "
                                              "last byte)"));
  // Opaque records: no error at all.
  FrameOptions opaque;
  opaque.records_mode = RecordsMode::kOpaque;
  EXPECT_TRUE(DecodeResponseFrame(f, 1, 4, opaque).ok());
}

TEST(ErrorsAsData, RecordBatchDecode) {
  // A gzip batch of 3 records decoded with max_records 2: kCountTooLarge at the batch's
  // records count (byte 57 of the batch), offsets counted from the field's given offset.
  BatchHeader h;
  h.attributes = static_cast<int16_t>(Compression::kGzip);
  h.last_offset_delta = 2;
  std::vector<Record> records(3);
  for (int i = 0; i < 3; ++i) records[i].offset_delta = i;
  const absl::StatusOr<std::string> batch = EncodeRecordBatch(h, records);
  ASSERT_TRUE(batch.ok()) << batch.status();
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(batch->data()),
                                       batch->size());
  constexpr size_t kFieldOffset = 1000;
  BatchIterator it(bytes, {}, kFieldOffset);
  BatchView view;
  ASSERT_TRUE(it.Next(&view));
  RecordsOptions two;
  two.max_records = 2;
  const absl::Status s = view.records(two).status();
  const std::optional<Error> e = ErrorFromStatus(s);
  ASSERT_TRUE(e.has_value()) << s;
  EXPECT_EQ(e->kind, ErrorKind::kCountTooLarge);
  EXPECT_EQ(e->offset, kFieldOffset + 57);
  EXPECT_EQ(e->path, "Batch[0]");
  EXPECT_TRUE(view.records().ok());
}

TEST(ErrorsAsData, SplitFrameAndEncodeRefusals) {
  // SplitFrame reports an Error directly; its status carries it like the others.
  const SplitResult split = SplitFrame(Int32Bytes(-5));
  ASSERT_EQ(split.status, SplitResult::kError);
  EXPECT_EQ(ErrorFromStatus(split.error.ToStatus()), split.error);
  EXPECT_EQ(split.error.kind, ErrorKind::kInvalidFrameSize);
  // Encode refusals before any byte is written: at the frame's start in the writer.
  Writer w;
  w.WriteInt32(0x01020304);
  RequestHeader h;
  h.request_api_key = 9999;
  const std::optional<Error> unknown =
      ErrorFromStatus(AppendRequestFrame(h, AnyMessage(*FindApi(3)->request), &w));
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->kind, ErrorKind::kUnknownApiKey);
  EXPECT_EQ(unknown->offset, 4u);
  EXPECT_EQ(unknown->path, "RequestHeader.RequestApiKey");
  EXPECT_EQ(unknown->detail, "api key 9999");
  h.request_api_key = 3;
  h.request_api_version = 12;
  const std::optional<Error> mismatch =
      ErrorFromStatus(AppendRequestFrame(h, AnyMessage(*FindApi(3)->response), &w));
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->kind, ErrorKind::kInvalidValue);
  EXPECT_EQ(mismatch->detail, "header names MetadataRequest but the body is MetadataResponse");
  // A version the API does not have (an encode error recorded by the Writer).
  const std::optional<Error> version =
      ErrorFromStatus(EncodeResponseFrame(ResponseHeader{}, 3, 999, AnyMessage(*FindApi(3)->response))
                          .status());
  ASSERT_TRUE(version.has_value());
  EXPECT_EQ(version->kind, ErrorKind::kUnsupportedVersion);
}

// ---- KIP-511: an ApiVersions request of a version the broker does not know is answered
// with a v0 body (error 35 UNSUPPORTED_VERSION and the broker's ApiVersions range) under
// response header v0. Issue 38's frames, captured from brokers 0.10.2.1, 2.3.0, 2.4.0 and
// 4.1.0 answering v3 and v4 requests.
struct Fallback {
  const char* hex;
  int16_t asked;
  int16_t max_version;   // of the one ApiKeys entry (-1: none)
};
constexpr Fallback kBrokerFallbacks[] = {
    {"000000100000007b002300000001001200000003", 3, 3},
    {"000000100000007b002300000001001200000004", 4, 4},
    {"0000000a0000007b002300000000", 3, -1},
};

TEST(ApiVersionsFallback, BrokersV0AnswersDecodeAsV0AndReEncodeByteForByte) {
  for (const Fallback& f : kBrokerFallbacks) {
    SCOPED_TRACE(f.hex);
    const Bytes frame = Hex(f.hex);
    for (uint32_t quirks : {0u, kQuirksJava}) {
      FrameOptions o;
      o.quirks = quirks;
      auto d = DecodeResponseFrame(frame, kApiVersions, f.asked, o);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_EQ(d->body_version, 0);
      EXPECT_TRUE(ApiVersionsFallback(kApiVersions, f.asked, d->body_version));
      EXPECT_EQ(d->header_version, 0);
      EXPECT_EQ(d->header.correlation_id, 123);
      const auto* body = d->body.get<ApiVersionsResponse>();
      ASSERT_NE(body, nullptr);
      EXPECT_EQ(body->error_code, 35);
      ASSERT_EQ(body->api_keys.size(), f.max_version < 0 ? 0u : 1u);
      if (f.max_version >= 0) {
        EXPECT_EQ(body->api_keys[0].api_key, 18);
        EXPECT_EQ(body->api_keys[0].min_version, 0);
        EXPECT_EQ(body->api_keys[0].max_version, f.max_version);
      }
      auto again = EncodeResponseFrame(d->header, kApiVersions, d->body_version, d->body);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(*again, frame);
      // Typed, and into a reused frame.
      auto typed = DecodeResponseFrameAs<ApiVersionsResponse>(frame, f.asked, o);
      ASSERT_TRUE(typed.ok()) << typed.status();
      EXPECT_EQ(typed->body_version, 0);
      EXPECT_TRUE(typed->body == *body);
    }
    // The explanation reads the same body at v0 and says why.
    const FrameExplanation ex = ExplainResponseFrame(frame, kApiVersions, f.asked);
    EXPECT_TRUE(ex.status.ok()) << ex.status;
    EXPECT_NE(ex.title.find("ApiVersionsResponse v0 (ApiVersions v0 fallback, KIP-511: the "
                            "request was v" + std::to_string(f.asked) + ")"),
              std::string::npos) << ex.title;
  }
}

TEST(ApiVersionsFallback, EveryVersionFallsBackFromAV0BodyWithError35) {
  // The same shape answering every ApiVersions request version above 0, flexible or not.
  const Bytes frame = Hex("000000100000007b002300000001001200000003");
  const VersionRange r = FindApi(kApiVersions)->response_versions();
  for (int16_t v = 1; v <= r.hi; ++v) {
    auto d = DecodeResponseFrame(frame, kApiVersions, v);
    ASSERT_TRUE(d.ok()) << "v" << v << ": " << d.status();
    EXPECT_EQ(d->body_version, 0) << v;
  }
  // Asked at v0 it is a v0 response like any other: no fallback.
  auto d0 = DecodeResponseFrame(frame, kApiVersions, 0);
  ASSERT_TRUE(d0.ok()) << d0.status();
  EXPECT_EQ(d0->body_version, 0);
  EXPECT_FALSE(ApiVersionsFallback(kApiVersions, 0, d0->body_version));
}

TEST(ApiVersionsFallback, AResponseThatReadsAtItsVersionIsNotAFallback) {
  for (int16_t v = 1; v <= FindApi(kApiVersions)->response_versions().hi; ++v) {
    const Case c = frame_testing::CaseOf("ApiVersions", Direction::kResponse, v);
    const Bytes frame = EncodeFrame(c, Rich(c, 7));
    auto d = DecodeResponseFrame(frame, kApiVersions, v);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->body_version, v);
  }
}

TEST(ApiVersionsFallback, StrictTakesOnlyError35JavaTakesAnyV0Body) {
  // A v0 body with error 0 (NONE) answering a v3 request: not what a broker sends
  // (KIP-511 falls back with UNSUPPORTED_VERSION). Strict rejects it at v3 and names the
  // v0 reading; kQuirkApiVersionsAnyFallback (in kQuirksJava) takes it, as
  // ApiVersionsResponse.parse does.
  const Bytes frame = Hex("000000100000007b000000000001001200000003");
  auto strict = DecodeResponseFrame(frame, kApiVersions, 3);
  ASSERT_FALSE(strict.ok());
  const Error e = ErrorOf(strict.status());
  EXPECT_EQ(e.kind, ErrorKind::kUnexpectedNull);
  EXPECT_EQ(e.offset, 10u);
  EXPECT_EQ(e.path, "ApiVersionsResponse.ApiKeys");
  EXPECT_NE(e.detail.find("the body reads as ApiVersions v0 with error code 0"),
            std::string::npos) << e.detail;
  // The explanation gives the same verdict.
  EXPECT_EQ(ExplainResponseFrame(frame, kApiVersions, 3).status, strict.status());
  for (uint32_t quirks : {uint32_t{kQuirkApiVersionsAnyFallback}, kQuirksJava}) {
    FrameOptions o;
    o.quirks = quirks;
    auto d = DecodeResponseFrame(frame, kApiVersions, 3, o);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->body_version, 0);
    EXPECT_EQ(d->body.get<ApiVersionsResponse>()->error_code, 0);
    auto again = EncodeResponseFrame(d->header, kApiVersions, 0, d->body);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, frame);  // the fallback keeps the bytes
  }
  // Bytes that read neither at v3 nor at v0 keep the error at v3, with no hint.
  const Bytes neither = Hex("0000000c0000007b0023000000010012");
  FrameOptions java;
  java.quirks = kQuirksJava;
  auto bad = DecodeResponseFrame(neither, kApiVersions, 3, java);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(ErrorOf(bad.status()).detail.find("v0"), std::string::npos) << bad.status();
  // Other APIs never fall back.
  EXPECT_FALSE(DecodeResponseFrame(frame, 3, 3).ok());
}

TEST(ApiVersionsFallback, AVersionAboveKwiresNewestTakesTheV0Fallback) {
  // A client newer than kwire's definitions asks ApiVersions v(newest + 1) or more; the
  // broker answers KIP-511's v0 fallback, which kwire reads (the proxy and the capture
  // reader see such pairs). Found by kwire broker-fuzz: Kafka 4.4.0 answers v129 so.
  const int16_t newest = FindApi(kApiVersions)->response_versions().hi;
  const Bytes frame = Hex("000000100000007b002300000001001200000004");
  for (int16_t asked : {static_cast<int16_t>(newest + 1), int16_t{129}, int16_t{32767}}) {
    SCOPED_TRACE(asked);
    for (uint32_t quirks : {0u, kQuirksJava}) {
      FrameOptions o;
      o.quirks = quirks;
      auto d = DecodeResponseFrame(frame, kApiVersions, asked, o);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_EQ(d->body_version, 0);
      EXPECT_EQ(d->header_version, 0);
      EXPECT_EQ(d->header.correlation_id, 123);
      EXPECT_TRUE(ApiVersionsFallback(kApiVersions, asked, d->body_version));
      const auto* body = d->body.get<ApiVersionsResponse>();
      ASSERT_NE(body, nullptr);
      EXPECT_EQ(body->error_code, 35);
      ASSERT_EQ(body->api_keys.size(), 1u);
      EXPECT_EQ(body->api_keys[0].max_version, 4);
      auto again = EncodeResponseFrame(d->header, kApiVersions, d->body_version, d->body);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(*again, frame);
    }
    const FrameExplanation ex = ExplainResponseFrame(frame, kApiVersions, asked);
    EXPECT_TRUE(ex.status.ok()) << ex.status;
    EXPECT_NE(ex.title.find("ApiVersions v0 fallback"), std::string::npos) << ex.title;
  }
  // Above the newest, nothing but the fallback reads: a v0 body with error 0 is
  // unsupported_version strictly (naming the v0 reading), and taken under Java's quirk.
  const Bytes none = Hex("000000100000007b000000000001001200000003");
  auto strict = DecodeResponseFrame(none, kApiVersions, 129);
  ASSERT_FALSE(strict.ok());
  const Error e = ErrorOf(strict.status());
  EXPECT_EQ(e.kind, ErrorKind::kUnsupportedVersion);
  EXPECT_EQ(e.offset, 0u);
  EXPECT_NE(e.detail.find("ApiVersions version 129, valid versions are 0-" +
                          std::to_string(newest)), std::string::npos) << e.detail;
  EXPECT_NE(e.detail.find("the body reads as ApiVersions v0 with error code 0"),
            std::string::npos) << e.detail;
  EXPECT_EQ(ExplainResponseFrame(none, kApiVersions, 129).status, strict.status());
  FrameOptions java;
  java.quirks = kQuirksJava;
  auto taken = DecodeResponseFrame(none, kApiVersions, 129, java);
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->body_version, 0);
  // Bytes that are no v0 body: unsupported_version, no hint, no other error.
  const Bytes neither = Hex("0000000c0000007b0023000000010012");
  auto bad = DecodeResponseFrame(neither, kApiVersions, 129, java);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(ErrorOf(bad.status()).kind, ErrorKind::kUnsupportedVersion);
  EXPECT_EQ(ErrorOf(bad.status()).detail.find("v0"), std::string::npos) << bad.status();
  // Negative versions and other APIs above their newest stay unsupported.
  EXPECT_EQ(ErrorOf(DecodeResponseFrame(frame, kApiVersions, -1).status()).kind,
            ErrorKind::kUnsupportedVersion);
  EXPECT_EQ(ErrorOf(DecodeResponseFrame(frame, 3, 999).status()).kind,
            ErrorKind::kUnsupportedVersion);
}

}  // namespace
}  // namespace kwire
