// Size-prefixed frames: splitting a byte stream, and decoding/encoding whole request and
// response frames (protocol guide "Common Request and Response Structure": an int32
// size, then the header, then the body).
//
// A request frame names its API key and version in the header; a response frame does
// not, so the caller supplies them (from the request it answered). Header versions come
// from the registry (registry.h), ApiVersions responses always use header v0 (KIP-511).
// Byte offsets in errors count from the first byte of the size prefix.
//
// Threads: every function here may run on many threads at once, also over the same input
// bytes and the same const FrameOptions: none of them writes to its inputs, and kwire
// keeps no mutable global state (the one process-wide switch, SetRecordFastPathForTesting
// in codec/records/record_batch.h, is for tests). A Writer, a decoded frame, an
// AnyMessage or a caller-owned scratch (RecordsOptions::scratch) is one object like any
// other: one thread may change it while no other uses it. Tested by conformance/
// concurrency_test.cc, under ThreadSanitizer in the tsan preset.
//
// Per-thread state: two scratch buffers are kept per thread by default, so that a thread
// decoding or encoding frame after frame allocates nothing for them once grown: records
// validation's (a RecordSet: the batch's Record objects and decompressed payload, trimmed
// to 1 MiB after each records field) and Encode*Frame's (a Writer, kept up to 1 MiB).
// Callers that want no hidden per-thread memory (a proxy on a thread pool) pass their own:
// FrameOptions::records.scratch for validation, and Append*Frame into their own Writer for
// encoding; then neither thread_local is touched.
#ifndef KWIRE_CODEC_PROTOCOL_FRAME_H_
#define KWIRE_CODEC_PROTOCOL_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "codec/generated/request_header.h"
#include "codec/generated/response_header.h"
#include "codec/protocol/registry.h"
#include "codec/records/validate.h"
#include "codec/schema/message.h"
#include "codec/wire/types.h"
#include "codec/wire/writer.h"

namespace kwire {

/// Default largest frame accepted: 100 MiB, Kafka's socket.request.max.bytes default.
inline constexpr int32_t kDefaultMaxFrameSize = 100 * 1024 * 1024;

/// Options for frame splitting and decoding. Flat: the wire reader's options (quirks,
/// allocation budget), the records fields' (mode, borrowing, caps) and the frame's own.
struct FrameOptions {
  /// Largest size prefix accepted (bytes after the prefix); larger is kFrameTooLarge.
  int32_t max_frame_size = kDefaultMaxFrameSize;
  /// Quirks (quirks.h; strict by default): apply to the whole frame, records included.
  uint32_t quirks = 0;
  /// Allocation budget of one frame decode (DecodeOptions::max_alloc_bytes, reader.h);
  /// records validation runs within what is left of it.
  size_t max_alloc_bytes = kDefaultMaxAllocBytes;
  /// Records fields: validated by default — every batch of every records field is
  /// checked under the field's records policy (codec/records/validate.h: framing, CRC,
  /// record lengths and counts, decompression within `records`' caps, and the
  /// protocol's partial-batch and Produce rules), with the frame's quirks. kOpaque keeps
  /// them unexamined (a proxy that forwards batches; decoding then costs what copying
  /// the bytes costs). Either way the bytes are kept verbatim in the message.
  RecordsMode records_mode = RecordsMode::kValidate;
  /// Zero-copy records (RecordsDecode::borrow, codec/schema/decode.h): every records
  /// field is a view into the frame buffer instead of a copy; the decoded frame is then
  /// valid only while that buffer lives unchanged. Validation works the same.
  bool borrow_records = false;
  /// Caps, CRC enforcement and scratch of records validation. `quirks` are applied in
  /// addition to the frame's, inside records only (records are kept verbatim, so a
  /// re-encoded frame keeps them); `scratch` is the caller's (see "Per-thread state").
  RecordsOptions records;

  /// The wire reader's part of these options.
  DecodeOptions reader() const { return DecodeOptions{quirks, max_alloc_bytes}; }
};

/// Result of SplitFrame: one complete frame, a request for more bytes, or an error.
/// "Need more bytes" is not an error (Wuffs' suspension status).
struct SplitResult {
  enum Status : uint8_t { kFrame, kNeedMore, kError };
  Status status = kNeedMore;
  /// kFrame: the whole frame, size prefix included (a view into the input).
  std::span<const uint8_t> frame;
  /// kNeedMore: bytes that must be appended before a frame can complete (≥ 1).
  size_t need = 0;
  /// kError: kInvalidFrameSize (negative size) or kFrameTooLarge.
  Error error;
};

/// The API key and version that every request header version starts with.
struct RequestApi {
  int16_t api_key = 0;
  int16_t api_version = 0;
};
/// Reads bytes 4–7 of a request frame (after the 4-byte size prefix; protocol guide
/// "Request Header") without checking anything else; nullopt when the frame is shorter
/// than 8 bytes.
std::optional<RequestApi> PeekRequestApi(std::span<const uint8_t> frame);
/// PeekRequestApi of a frame held as text (std::string, std::string_view).
inline std::optional<RequestApi> PeekRequestApi(std::string_view frame) {
  return PeekRequestApi(AsBytes(frame));
}

/// Looks at the start of `stream` and returns the first frame if it is complete.
/// Consume `result.frame.size()` bytes after a kFrame. Never reads past `stream`.
SplitResult SplitFrame(std::span<const uint8_t> stream, const FrameOptions& options = {});
/// SplitFrame of a stream held as text; result.frame views `stream`'s bytes.
inline SplitResult SplitFrame(std::string_view stream, const FrameOptions& options = {}) {
  return SplitFrame(AsBytes(stream), options);
}

/// A decoded request frame.
struct RequestFrame {
  int16_t header_version = 1;   ///< 0, 1 or 2 (registry rule).
  RequestHeader header;         ///< api key, version, correlation id, client id, tags.
  AnyMessage body;              ///< The request body, e.g. body.get<FetchRequest>().
  int16_t api_key() const { return header.request_api_key; }
  int16_t api_version() const { return header.request_api_version; }
};

/// A decoded response frame.
struct ResponseFrame {
  int16_t header_version = 0;   ///< 0 or 1 (registry rule).
  ResponseHeader header;        ///< correlation id (and tags in v1).
  AnyMessage body;
  /// The version the body was read at: the version asked for, except for an ApiVersions
  /// response that a broker answered at v0 because it does not know the version of the
  /// request (KIP-511: error code 35 UNSUPPORTED_VERSION and the broker's own ApiVersions
  /// range, in a v0 body under response header v0; ApiVersionsFallback). Re-encode the
  /// body at this version to get the same bytes back.
  int16_t body_version = 0;
};

/// True when a response to an ApiVersions request of `asked_version` was read as the
/// KIP-511 v0 fallback (`body_version` 0 for a request above v0).
inline bool ApiVersionsFallback(int16_t api_key, int16_t asked_version, int16_t body_version) {
  return api_key == 18 && asked_version > 0 && body_version == 0;
}

/// Decodes one request frame (size prefix included). Errors: kTruncated /
/// kInvalidFrameSize / kTrailingBytes when the size prefix disagrees with the bytes,
/// kFrameTooLarge, kUnknownApiKey, kUnsupportedVersion, and every decode error.
[[nodiscard]] absl::StatusOr<RequestFrame> DecodeRequestFrame(std::span<const uint8_t> frame,
                                                const FrameOptions& options = {});
/// DecodeRequestFrame of a frame held as text (std::string, std::string_view).
[[nodiscard]] inline absl::StatusOr<RequestFrame> DecodeRequestFrame(
    std::string_view frame, const FrameOptions& options = {}) {
  return DecodeRequestFrame(AsBytes(frame), options);
}

/// Decodes one response frame (size prefix included) of (api_key, api_version).
/// ApiVersions (KIP-511): a body that does not decode at `api_version` (> 0; also any
/// version above kwire's newest) is read at v0 and taken when it decodes whole with error
/// code 35 UNSUPPORTED_VERSION — any code under kQuirkApiVersionsAnyFallback (Java's
/// ApiVersionsResponse.parse); `body_version` says which. Otherwise the error is the one
/// at `api_version` (above the newest: kUnsupportedVersion), the v0 reading in its detail.
[[nodiscard]] absl::StatusOr<ResponseFrame> DecodeResponseFrame(std::span<const uint8_t> frame,
                                                  int16_t api_key, int16_t api_version,
                                                  const FrameOptions& options = {});
/// DecodeResponseFrame of a frame held as text (std::string, std::string_view).
[[nodiscard]] inline absl::StatusOr<ResponseFrame> DecodeResponseFrame(
    std::string_view frame, int16_t api_key, int16_t api_version,
    const FrameOptions& options = {}) {
  return DecodeResponseFrame(AsBytes(frame), api_key, api_version, options);
}

/// Encodes a request frame: size prefix, header at the registry's header version
/// (header.request_api_key/version choose the body type, which must match `body`).
/// `options`: strict by default (a string that is not UTF-8 fails kInvalidUtf8); pass
/// the quirks a frame was decoded with to re-encode it byte-exactly. The frame is
/// written into a per-thread scratch buffer and returned in a vector of exactly its size
/// (one allocation; AppendRequestFrame into a reused Writer allocates none).
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> EncodeRequestFrame(const RequestHeader& header,
                                                        const AnyMessage& body,
                                                        const EncodeOptions& options = {});

/// Encodes a response frame for (api_key, api_version).
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> EncodeResponseFrame(const ResponseHeader& header,
                                                         int16_t api_key, int16_t api_version,
                                                         const AnyMessage& body,
                                                         const EncodeOptions& options = {});

/// Appends a request frame (size prefix, header, body) to `*out`, after the bytes already
/// there: with a Writer reused across frames (Writer::Clear between them), encoding
/// allocates nothing once the writer has grown to the largest frame, where
/// EncodeRequestFrame allocates (and page-faults in) a new buffer per frame. `*out` must
/// be ok(). Errors as EncodeRequestFrame, under `out->options()`; on failure `*out`
/// holds a partial frame and its error (Clear it before reuse).
[[nodiscard]] absl::Status AppendRequestFrame(const RequestHeader& header, const AnyMessage& body,
                                Writer* out);

/// AppendRequestFrame for a response frame of (api_key, api_version).
[[nodiscard]] absl::Status AppendResponseFrame(const ResponseHeader& header, int16_t api_key,
                                 int16_t api_version, const AnyMessage& body, Writer* out);

namespace frame_internal {
// The frame calls above and the typed ones below share these. `body(ops)` is called once
// the frame's message type is known (its MessageOps) and returns the object to decode
// the body into, an `ops.spec` type; nullptr refuses that type (kInvalidValue at the
// request's api key, byte 4).
//
// `observer` (nullptr: plain decode) sees the same walk — one walk of a frame for the
// decoder and the explain visitor (codec/harness/explain.cc): it is told about the
// size prefix and reads the header and body itself, with decode.h's walk observed.
class FrameObserver {
 public:
  virtual ~FrameObserver() = default;
  /// The size prefix is read next / was read (`size`, when r.ok()); its checks follow.
  virtual void BeginSizePrefix(const Reader& r) = 0;
  virtual void EndSizePrefix(const Reader& r, int32_t size) = 0;
  /// Decodes the header at `header_version` into `*header` (a RequestHeader or a
  /// ResponseHeader) as DecodeBody does.
  virtual void ReadRequestHeader(Reader& r, int16_t header_version, RequestHeader& header) = 0;
  virtual void ReadResponseHeader(Reader& r, int16_t header_version,
                                  ResponseHeader& header) = 0;
  /// Decodes the body, an `ops.spec` message at `version`, into `body` as ops.decode does,
  /// with `records` (what the frame's options make of records fields).
  virtual void ReadBody(Reader& r, const MessageOps& ops, int16_t version, void* body,
                        const RecordsDecode& records) = 0;
};
// `validator` (nullptr: FrameOptions::records_mode decides) checks records fields instead
// of the RecordsFieldValidator that kValidate installs (ReadRequestAsBroker's collector).
[[nodiscard]] absl::Status DecodeRequestFrameInto(std::span<const uint8_t> frame, const FrameOptions& options,
                                    int16_t* header_version, RequestHeader* header,
                                    absl::FunctionRef<void*(const MessageOps&)> body,
                                    FrameObserver* observer = nullptr,
                                    const RecordsValidator* validator = nullptr);
// `*body_version` receives the version the body was read at (ApiVersions' KIP-511
// fallback: 0).
[[nodiscard]] absl::Status DecodeResponseFrameInto(std::span<const uint8_t> frame, int16_t api_key,
                                     int16_t api_version, const FrameOptions& options,
                                     int16_t* header_version, ResponseHeader* header,
                                     int16_t* body_version,
                                     absl::FunctionRef<void*(const MessageOps&)> body,
                                     FrameObserver* observer = nullptr);
// `body` points at a message of type `spec`.
[[nodiscard]] absl::Status AppendRequestFrame(const RequestHeader& header, const MessageSpec& spec,
                                const void* body, Writer* out);
[[nodiscard]] absl::Status AppendResponseFrame(const ResponseHeader& header, int16_t api_key,
                                 int16_t api_version, const MessageSpec& spec, const void* body,
                                 Writer* out);
// The Encode*Frame calls: `append` writes the frame into this thread's scratch Writer
// (under `options`), which is copied into a vector of exactly the frame's size: one
// allocation, no buffer grown and zero-filled step by step. Frames above 1 MiB take the
// scratch's own buffer instead (no copy; the scratch is not kept that large).
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> EncodeFrameSizedOnce(
    const EncodeOptions& options, absl::FunctionRef<absl::Status(Writer*)> append);
}  // namespace frame_internal

// ---- Typed frames: the body type known at compile time (no AnyMessage, no copy).

/// A decoded request frame whose body is an M, e.g. TypedRequestFrame<ProduceRequest>.
template <KafkaMessage M>
struct TypedRequestFrame {
  int16_t header_version = 1;  ///< 0, 1 or 2 (registry rule).
  RequestHeader header;        ///< api key (M's), version, correlation id, client id, tags.
  M body;
  int16_t api_version() const { return header.request_api_version; }
};

/// A decoded response frame whose body is an M.
template <KafkaMessage M>
struct TypedResponseFrame {
  int16_t header_version = 0;  ///< 0 or 1 (registry rule).
  ResponseHeader header;
  M body;
  int16_t body_version = 0;    ///< As ResponseFrame::body_version.
};

/// Decodes one request frame (size prefix included) straight into an M: the body is
/// decoded in place, never through an AnyMessage. Errors: those of DecodeRequestFrame,
/// and kInvalidValue at byte 4 (RequestHeader.RequestApiKey) when the frame is another
/// API's request. For a server that knows which request a connection carries (e.g. a
/// Produce-only ingest path); with several, switch on the api key and call this per case.
///
///   auto f = kwire::DecodeRequestFrameAs<kwire::ProduceRequest>(bytes);
///   if (f.ok()) for (const auto& t : f->body.TopicData) { ... }
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<TypedRequestFrame<M>> DecodeRequestFrameAs(std::span<const uint8_t> frame,
                                                          const FrameOptions& options = {});

/// Decodes one request frame like DecodeRequestFrameAs, into `*out`, which may hold an
/// earlier frame: the header and body are decoded over it, so the strings and vectors it
/// holds keep their capacity. A connection that decodes frame after frame into one
/// TypedRequestFrame allocates nothing once it has grown to the largest frame (records
/// fields copied unless FrameOptions::borrow_records). The result equals a
/// fresh decode (fields absent at the frame's version, and tagged fields it lacks, are
/// reset to their defaults); every bound (counts, the allocation budget, records checks)
/// applies as in a fresh decode. On failure `*out` holds a partial frame: decode the
/// next frame into it, do not read it. Errors: those of DecodeRequestFrameAs.
///
///   kwire::TypedRequestFrame<kwire::ProduceRequest> f;  // kept per connection
///   for (...) { if (absl::Status s = kwire::DecodeRequestFrameInto(bytes, &f); ...) }
template <KafkaMessage M>
[[nodiscard]] absl::Status DecodeRequestFrameInto(std::span<const uint8_t> frame, TypedRequestFrame<M>* out,
                                    const FrameOptions& options = {}) {
  static_assert(M::kMessage.kind == MessageKind::kRequest, "M must be a request");
  return frame_internal::DecodeRequestFrameInto(
      frame, options, &out->header_version, &out->header,
      [&](const MessageOps& ops) -> void* {
        return ops.spec == &M::kMessage ? &out->body : nullptr;
      });
}

template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<TypedRequestFrame<M>> DecodeRequestFrameAs(std::span<const uint8_t> frame,
                                                          const FrameOptions& options) {
  TypedRequestFrame<M> out;
  if (absl::Status s = DecodeRequestFrameInto(frame, &out, options); !s.ok()) return s;
  return out;
}

/// DecodeRequestFrameAs of a frame held as text (std::string, std::string_view).
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<TypedRequestFrame<M>> DecodeRequestFrameAs(
    std::string_view frame, const FrameOptions& options = {}) {
  return DecodeRequestFrameAs<M>(AsBytes(frame), options);
}

/// Decodes one response frame (size prefix included) of M's API at `api_version` straight
/// into an M. Errors: those of DecodeResponseFrame.
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<TypedResponseFrame<M>> DecodeResponseFrameAs(std::span<const uint8_t> frame,
                                                            int16_t api_version,
                                                            const FrameOptions& options = {});

/// Decodes one response frame of M's API at `api_version` into `*out`, reusing it as
/// DecodeRequestFrameInto does (a client decoding the responses of one API in a loop).
/// Errors: those of DecodeResponseFrame.
template <KafkaMessage M>
[[nodiscard]] absl::Status DecodeResponseFrameInto(std::span<const uint8_t> frame, int16_t api_version,
                                     TypedResponseFrame<M>* out,
                                     const FrameOptions& options = {}) {
  static_assert(M::kMessage.kind == MessageKind::kResponse, "M must be a response");
  return frame_internal::DecodeResponseFrameInto(
      frame, M::kMessage.api_key, api_version, options, &out->header_version, &out->header,
      &out->body_version, [&](const MessageOps&) -> void* { return &out->body; });
}

template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<TypedResponseFrame<M>> DecodeResponseFrameAs(std::span<const uint8_t> frame,
                                                            int16_t api_version,
                                                            const FrameOptions& options) {
  TypedResponseFrame<M> out;
  if (absl::Status s = DecodeResponseFrameInto(frame, api_version, &out, options); !s.ok()) {
    return s;
  }
  return out;
}

/// DecodeResponseFrameAs of a frame held as text (std::string, std::string_view).
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<TypedResponseFrame<M>> DecodeResponseFrameAs(
    std::string_view frame, int16_t api_version, const FrameOptions& options = {}) {
  return DecodeResponseFrameAs<M>(AsBytes(frame), api_version, options);
}

/// Appends a request frame whose body is the typed message `body` to `*out`, encoding it
/// where it is (no copy into an AnyMessage). header.request_api_key must be M's API key
/// (else kInvalidValue); otherwise as AppendRequestFrame above.
///
///   kwire::Writer w;
///   kwire::RequestHeader h;
///   h.request_api_key = kwire::ProduceRequest::kMessage.api_key;
///   h.request_api_version = 9;
///   h.correlation_id = 7;
///   absl::Status s = kwire::AppendRequestFrame(h, produce, &w);  // then w.bytes()
template <KafkaMessage M>
[[nodiscard]] absl::Status AppendRequestFrame(const RequestHeader& header, const M& body, Writer* out) {
  static_assert(M::kMessage.kind == MessageKind::kRequest, "M must be a request");
  return frame_internal::AppendRequestFrame(header, M::kMessage, &body, out);
}

/// Appends a response frame whose body is the typed message `body` (M's API at
/// `api_version`) to `*out`, encoding it where it is. Otherwise as AppendResponseFrame.
template <KafkaMessage M>
[[nodiscard]] absl::Status AppendResponseFrame(const ResponseHeader& header, int16_t api_version,
                                 const M& body, Writer* out) {
  static_assert(M::kMessage.kind == MessageKind::kResponse, "M must be a response");
  return frame_internal::AppendResponseFrame(header, M::kMessage.api_key, api_version,
                                             M::kMessage, &body, out);
}

/// Typed convenience: encodes request `body` of type M with the given header fields
/// (no copy of the body).
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> EncodeRequestFrame(int16_t api_version, int32_t correlation_id,
                                                        std::optional<std::string> client_id,
                                                        const M& body) {
  static_assert(M::kMessage.kind == MessageKind::kRequest);
  RequestHeader h;
  h.request_api_key = M::kMessage.api_key;
  h.request_api_version = api_version;
  h.correlation_id = correlation_id;
  h.client_id = std::move(client_id);
  return frame_internal::EncodeFrameSizedOnce(
      {}, [&](Writer* w) { return AppendRequestFrame(h, body, w); });
}

}  // namespace kwire

#endif  // KWIRE_CODEC_PROTOCOL_FRAME_H_
