#include "codec/protocol/frame.h"

#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "codec/generated/api_versions_response.h"
#include "codec/wire/plural.h"

// Last include: kwire's hints (codec/wire/port_def.inc).
#include "codec/wire/port_def.inc"

namespace kwire {
namespace {

constexpr size_t kSizePrefix = 4;

// The size prefix of `b` (at least 4 bytes), read through a Reader like every other byte.
int32_t PeekInt32(std::span<const uint8_t> b) {
  Reader r(b.first(kSizePrefix));
  return r.ReadInt32();
}

constexpr const char* kSizePath = "Frame.size";

// The size-prefix rule, once (whole frames and the stream splitter): a negative size is
// kInvalidFrameSize, one above options.max_frame_size kFrameTooLarge. SizeAllowed is the
// check (inline: it runs on every frame); SizeError the error of a size that fails it.
inline bool SizeAllowed(int32_t size, const FrameOptions& options) {
  return size >= 0 && size <= options.max_frame_size;
}
KWIRE_COLD void SizeError(int32_t size, const FrameOptions& options, ErrorKind& kind,
                          std::string& detail) {
  if (size < 0) {
    kind = ErrorKind::kInvalidFrameSize;
    detail = absl::StrFormat("size %d", size);
  } else {
    kind = ErrorKind::kFrameTooLarge;
    detail = absl::StrFormat("size %d, the maximum is %d", size, options.max_frame_size);
  }
}

// Checks the size prefix of a whole frame; on success the reader is positioned after it.
void ReadSizePrefix(Reader& r, size_t frame_size, const FrameOptions& options,
                    frame_internal::FrameObserver* o) {
  PathNode root{nullptr, kSizePath, -1};
  r.set_path(&root);
  const size_t at = r.offset();
  if (o != nullptr) o->BeginSizePrefix(r);
  const int32_t size = r.ReadInt32();
  if (o != nullptr) o->EndSizePrefix(r, size);
  if (r.ok()) {
    if (!SizeAllowed(size, options)) [[unlikely]] {
      ErrorKind kind;
      std::string detail;
      SizeError(size, options, kind, detail);
      r.Fail(kind, at, std::move(detail));
    } else if (static_cast<size_t>(size) > frame_size - kSizePrefix) {
      r.Fail(ErrorKind::kTruncated, at,
             absl::StrFormat("size prefix says %s %s, have %d", CountOf(size, "byte"),
                             size == 1 ? "follows" : "follow", frame_size - kSizePrefix));
    } else if (static_cast<size_t>(size) < frame_size - kSizePrefix) {
      r.Fail(ErrorKind::kTrailingBytes, at,
             absl::StrFormat("size prefix says %s %s, have %d", CountOf(size, "byte"),
                             size == 1 ? "follows" : "follow", frame_size - kSizePrefix));
    }
  }
  r.set_path(nullptr);
}

}  // namespace

// What a frame decode does with records fields: validated by `validator` under kValidate,
// borrowed or copied.
RecordsDecode FrameRecords(const FrameOptions& options, const RecordsValidator* validator) {
  return RecordsDecode{options.records_mode == RecordsMode::kValidate ? validator : nullptr,
                       options.borrow_records};
}

namespace {

void ExpectEnd(Reader& r, const char* what) {
  if (r.ok() && !r.AtEnd()) {
    r.Fail(ErrorKind::kTrailingBytes,
           absl::StrFormat("%s after the %s", CountOf(r.remaining(), "byte"), what));
  }
}

}  // namespace

std::optional<RequestApi> PeekRequestApi(std::span<const uint8_t> frame) {
  if (frame.size() < kSizePrefix + 4) return std::nullopt;
  Reader r(frame.subspan(kSizePrefix, 4), kSizePrefix);
  RequestApi ids;
  ids.api_key = r.ReadInt16();
  ids.api_version = r.ReadInt16();
  return ids;
}

SplitResult SplitFrame(std::span<const uint8_t> stream, const FrameOptions& options) {
  SplitResult res;
  if (stream.size() < kSizePrefix) {
    res.status = SplitResult::kNeedMore;
    res.need = kSizePrefix - stream.size();
    return res;
  }
  const int32_t size = PeekInt32(stream);
  if (!SizeAllowed(size, options)) [[unlikely]] {
    SizeError(size, options, res.error.kind, res.error.detail);
    res.status = SplitResult::kError;
    res.error.offset = 0;
    res.error.path = kSizePath;
    return res;
  }
  const size_t total = kSizePrefix + static_cast<size_t>(size);
  if (stream.size() < total) {
    res.status = SplitResult::kNeedMore;
    res.need = total - stream.size();
    return res;
  }
  res.status = SplitResult::kFrame;
  res.frame = stream.first(total);
  return res;
}

namespace frame_internal {

absl::Status DecodeRequestFrameInto(std::span<const uint8_t> frame, const FrameOptions& options,
                                    int16_t* header_version, RequestHeader* header,
                                    absl::FunctionRef<void*(const MessageOps&)> body,
                                    FrameObserver* observer,
                                    const RecordsValidator* validator) {
  const RecordsFieldValidator checker(options.records);
  const RecordsDecode records =
      FrameRecords(options, validator != nullptr ? validator : &checker);
  Reader r(frame, 0, options.reader());
  ReadSizePrefix(r, frame.size(), options, observer);
  if (!r.ok()) return r.error().ToStatus();
  // The api key and version lead every request header version.
  PathNode root{nullptr, "RequestHeader", -1};
  r.set_path(&root);
  if (r.remaining() < 4) {
    r.Fail(ErrorKind::kTruncated, absl::StrFormat("need 4, have %d", r.remaining()));
    return r.error().ToStatus();
  }
  // Read ahead (the header is decoded from here again below, as a whole).
  const RequestApi ids = *PeekRequestApi(frame);
  const int16_t api_key = ids.api_key;
  const int16_t api_version = ids.api_version;
  // Errors point at the offending header field: the api key at byte 4, the version at 6.
  const ApiInfo* api = FindApi(api_key);
  PathNode key_field{&root, "RequestApiKey", -1};
  if (api == nullptr) {
    r.set_path(&key_field);
    r.Fail(ErrorKind::kUnknownApiKey, kSizePrefix, absl::StrFormat("api key %d", api_key));
    return r.error().ToStatus();
  }
  if (!api->request_versions().Contains(api_version)) {
    PathNode field{&root, "RequestApiVersion", -1};
    r.set_path(&field);
    r.Fail(ErrorKind::kUnsupportedVersion, kSizePrefix + 2,
           absl::StrFormat("%s version %d, valid versions are %d-%d", api->name, api_version,
                           api->request_versions().lo, api->request_versions().hi));
    return r.error().ToStatus();
  }
  void* const out = body(*api->request);
  if (out == nullptr) {
    r.set_path(&key_field);
    r.Fail(ErrorKind::kInvalidValue, kSizePrefix,
           absl::StrFormat("api key %d is %sRequest, not the type asked for", api_key,
                           api->name));
    return r.error().ToStatus();
  }
  r.set_path(nullptr);
  *header_version = RequestHeaderVersion(api_key, api_version);
  if (observer != nullptr) {
    observer->ReadRequestHeader(r, *header_version, *header);
    observer->ReadBody(r, *api->request, api_version, out, records);
  } else {
    DecodeBody(r, *header_version, *header);
    api->request->decode(r, api_version, out, records);
  }
  ExpectEnd(r, "request body");
  return r.error().ToStatus();
}

namespace {

constexpr int16_t kApiVersionsKey = 18;
constexpr int16_t kUnsupportedVersion = 35;  // Kafka's Errors.UNSUPPORTED_VERSION

// KIP-511: the broker answers an ApiVersions request of a version it does not know with
// a v0 body (error code 35 and its own ApiVersions range). Reads the body that starts at
// `body_at` as ApiVersions `version` into `*out`, alone and whole. Returns its error code,
// or nullopt when it does not read at that version.
std::optional<int16_t> ReadApiVersionsAt(std::span<const uint8_t> frame, size_t body_at,
                                         int16_t version, const DecodeOptions& options,
                                         ApiVersionsResponse* out) {
  Reader r(frame.subspan(body_at), body_at, options);
  DecodeBody(r, version, *out);
  ExpectEnd(r, "response body");
  if (!r.ok()) return std::nullopt;
  return out->error_code;
}

// The fallback's rule: strict takes a v0 body with error 35 only (what brokers send);
// kQuirkApiVersionsAnyFallback any v0 body (Java's ApiVersionsResponse.parse).
bool TakeFallback(int16_t error_code, uint32_t quirks) {
  return error_code == kUnsupportedVersion || (quirks & kQuirkApiVersionsAnyFallback) != 0;
}

// Strict, and a v0 body that is not the fallback: the error at the version asked for,
// with the v0 reading in its detail.
absl::Status WithV0Hint(Error e, int16_t v0_error_code) {
  e.detail = absl::StrFormat(
      "%s%sthe body reads as ApiVersions v0 with error code %d; KIP-511's v0 fallback "
      "carries 35 UNSUPPORTED_VERSION (Java's ApiVersionsResponse.parse takes any: "
      "kQuirkApiVersionsAnyFallback)",
      e.detail, e.detail.empty() ? "" : "; ", v0_error_code);
  return e.ToStatus();
}

}  // namespace

absl::Status DecodeResponseFrameInto(std::span<const uint8_t> frame, int16_t api_key,
                                     int16_t api_version, const FrameOptions& options,
                                     int16_t* header_version, ResponseHeader* header,
                                     int16_t* body_version,
                                     absl::FunctionRef<void*(const MessageOps&)> body,
                                     FrameObserver* observer) {
  const RecordsFieldValidator checker(options.records);
  const RecordsDecode records = FrameRecords(options, &checker);
  const DecodeOptions decode = options.reader();
  Reader r(frame, 0, decode);
  *body_version = api_version;
  const ApiInfo* api = FindApi(api_key);
  if (api == nullptr) {
    r.Fail(ErrorKind::kUnknownApiKey, absl::StrFormat("api key %d", api_key));
    return r.error().ToStatus();
  }
  const auto unsupported = [&]() {
    Reader at_start(frame, 0, decode);
    at_start.Fail(ErrorKind::kUnsupportedVersion,
                  absl::StrFormat("%s version %d, valid versions are %d-%d", api->name,
                                  api_version, api->response_versions().lo,
                                  api->response_versions().hi));
    return at_start.error();
  };
  // KIP-511 for a version above kwire's newest (a client newer than kwire's definitions):
  // no body at that version can be read, but the broker's v0 fallback can. Negative
  // versions stay unsupported (no client sends them; Java's parse would try v0 there too).
  const bool newer_api_versions =
      api_key == kApiVersionsKey && api_version > api->response_versions().hi;
  if (!api->response_versions().Contains(api_version) && !newer_api_versions) {
    return unsupported().ToStatus();
  }
  ReadSizePrefix(r, frame.size(), options, observer);
  if (!r.ok()) return r.error().ToStatus();
  void* const out = body(*api->response);
  *header_version = ResponseHeaderVersion(api_key, api_version);
  const bool may_fall_back = api_key == kApiVersionsKey && api_version > 0;
  if (observer != nullptr) {
    observer->ReadResponseHeader(r, *header_version, *header);
    int16_t version = api_version;
    std::optional<int16_t> v0;
    // The observer sees one walk: find out first (plainly) which version reads.
    ApiVersionsResponse trial;
    if (may_fall_back && r.ok() &&
        (newer_api_versions ||
         !ReadApiVersionsAt(frame, r.offset(), api_version, decode, &trial).has_value())) {
      v0 = ReadApiVersionsAt(frame, r.offset(), 0, decode, &trial);
      if (v0.has_value() && TakeFallback(*v0, decode.quirks)) version = 0;
    }
    if (newer_api_versions && version != 0) {
      if (!r.ok()) return r.error().ToStatus();
      const Error e = unsupported();
      return v0.has_value() ? WithV0Hint(e, *v0) : e.ToStatus();
    }
    observer->ReadBody(r, *api->response, version, out, records);
    ExpectEnd(r, "response body");
    if (r.ok()) *body_version = version;
    return v0.has_value() && !r.ok() ? WithV0Hint(r.error(), *v0) : r.error().ToStatus();
  }
  DecodeBody(r, *header_version, *header);
  const size_t body_at = r.offset();
  if (newer_api_versions) {
    if (!r.ok()) return r.error().ToStatus();
    const std::optional<int16_t> v0 =
        ReadApiVersionsAt(frame, body_at, 0, decode, static_cast<ApiVersionsResponse*>(out));
    if (v0.has_value() && TakeFallback(*v0, decode.quirks)) {
      *body_version = 0;
      return absl::OkStatus();
    }
    return v0.has_value() ? WithV0Hint(unsupported(), *v0) : unsupported().ToStatus();
  }
  api->response->decode(r, api_version, out, records);
  ExpectEnd(r, "response body");
  if (r.ok() || !may_fall_back || r.error().offset < body_at) return r.error().ToStatus();
  const std::optional<int16_t> v0 =
      ReadApiVersionsAt(frame, body_at, 0, decode, static_cast<ApiVersionsResponse*>(out));
  if (!v0.has_value()) return r.error().ToStatus();
  if (TakeFallback(*v0, decode.quirks)) {
    *body_version = 0;
    return absl::OkStatus();
  }
  return WithV0Hint(r.error(), *v0);
}

}  // namespace frame_internal

absl::StatusOr<RequestFrame> DecodeRequestFrame(std::span<const uint8_t> frame,
                                                const FrameOptions& options) {
  int16_t header_version = 1;
  RequestHeader header;
  std::optional<AnyMessage> body;
  absl::Status s = frame_internal::DecodeRequestFrameInto(
      frame, options, &header_version, &header,
      [&](const MessageOps& ops) { return body.emplace(ops).raw(); });
  if (!s.ok()) return s;
  return RequestFrame{header_version, std::move(header), std::move(*body)};
}

absl::StatusOr<ResponseFrame> DecodeResponseFrame(std::span<const uint8_t> frame,
                                                  int16_t api_key, int16_t api_version,
                                                  const FrameOptions& options) {
  int16_t header_version = 0;
  int16_t body_version = api_version;
  ResponseHeader header;
  std::optional<AnyMessage> body;
  absl::Status s = frame_internal::DecodeResponseFrameInto(
      frame, api_key, api_version, options, &header_version, &header, &body_version,
      [&](const MessageOps& ops) { return body.emplace(ops).raw(); });
  if (!s.ok()) return s;
  return ResponseFrame{header_version, std::move(header), std::move(*body), body_version};
}

namespace {

// Patches the size prefix at `size_pos` of the frame that ends at w.size().
absl::Status FinishFrame(Writer& w, size_t size_pos) {
  if (!w.ok()) return w.error().ToStatus();
  const size_t body = w.size() - size_pos - kSizePrefix;
  if (body > static_cast<size_t>(INT32_MAX)) {
    return Error{ErrorKind::kFrameTooLarge, size_pos, "Frame.size",
                 absl::StrFormat("frame of %d bytes, the int32 size prefix holds at most %d",
                                 body, INT32_MAX)}
        .ToStatus();
  }
  w.PatchInt32(size_pos, static_cast<int32_t>(body));
  return absl::OkStatus();
}

}  // namespace

namespace frame_internal {

absl::Status AppendRequestFrame(const RequestHeader& header, const MessageSpec& spec,
                                const void* body, Writer* out) {
  const ApiInfo* api = FindApi(header.request_api_key);
  if (api == nullptr) {
    return Error{ErrorKind::kUnknownApiKey, out->size(), "RequestHeader.RequestApiKey",
                 absl::StrFormat("api key %d", header.request_api_key)}
        .ToStatus();
  }
  if (api->request->spec != &spec) {
    return Error{ErrorKind::kInvalidValue, out->size(), "",
                 absl::StrFormat("header names %sRequest but the body is %s", api->name,
                                 spec.name)}
        .ToStatus();
  }
  if (!out->ok()) return out->error().ToStatus();
  Writer& w = *out;
  const size_t size_pos = w.ReserveInt32();
  EncodeBody(w, RequestHeaderVersion(header.request_api_key, header.request_api_version),
             header);
  api->request->encode(w, header.request_api_version, body);
  return FinishFrame(w, size_pos);
}

absl::Status AppendResponseFrame(const ResponseHeader& header, int16_t api_key,
                                 int16_t api_version, const MessageSpec& spec, const void* body,
                                 Writer* out) {
  const ApiInfo* api = FindApi(api_key);
  if (api == nullptr) {
    return Error{ErrorKind::kUnknownApiKey, out->size(), "",
                 absl::StrFormat("api key %d", api_key)}
        .ToStatus();
  }
  if (api->response->spec != &spec) {
    return Error{ErrorKind::kInvalidValue, out->size(), "",
                 absl::StrFormat("api key %d is %sResponse but the body is %s", api_key,
                                 api->name, spec.name)}
        .ToStatus();
  }
  if (!out->ok()) return out->error().ToStatus();
  Writer& w = *out;
  const size_t size_pos = w.ReserveInt32();
  EncodeBody(w, ResponseHeaderVersion(api_key, api_version), header);
  api->response->encode(w, api_version, body);
  return FinishFrame(w, size_pos);
}

}  // namespace frame_internal

absl::Status AppendRequestFrame(const RequestHeader& header, const AnyMessage& body,
                                Writer* out) {
  return frame_internal::AppendRequestFrame(header, body.spec(), body.raw(), out);
}

absl::Status AppendResponseFrame(const ResponseHeader& header, int16_t api_key,
                                 int16_t api_version, const AnyMessage& body, Writer* out) {
  return frame_internal::AppendResponseFrame(header, api_key, api_version, body.spec(),
                                             body.raw(), out);
}

namespace frame_internal {

absl::StatusOr<std::vector<uint8_t>> EncodeFrameSizedOnce(
    const EncodeOptions& options, absl::FunctionRef<absl::Status(Writer*)> append) {
  // This thread's scratch writer: it grows to the largest frame of up to
  // kKeepScratchBytes once, and keeps that capacity for the next call.
  constexpr size_t kKeepScratchBytes = size_t{1} << 20;
  thread_local Writer scratch;
  scratch.Clear();
  scratch.set_options(options);
  absl::Status s = append(&scratch);
  if (!s.ok()) {
    // A failure past kKeepScratchBytes drops the buffer, as a success would hand it over.
    if (scratch.size() > kKeepScratchBytes) (void)scratch.Release();
    scratch.Clear();
    return s;
  }
  if (scratch.size() > kKeepScratchBytes) {
    // A large frame: hand over the buffer it was written into (no copy); the scratch
    // starts empty again rather than holding megabytes per thread.
    return scratch.Release();
  }
  std::vector<uint8_t> out(scratch.data(), scratch.data() + scratch.size());
  scratch.Clear();
  return out;
}

}  // namespace frame_internal

absl::StatusOr<std::vector<uint8_t>> EncodeRequestFrame(const RequestHeader& header,
                                                        const AnyMessage& body,
                                                        const EncodeOptions& options) {
  return frame_internal::EncodeFrameSizedOnce(
      options, [&](Writer* w) { return AppendRequestFrame(header, body, w); });
}

absl::StatusOr<std::vector<uint8_t>> EncodeResponseFrame(const ResponseHeader& header,
                                                         int16_t api_key, int16_t api_version,
                                                         const AnyMessage& body,
                                                         const EncodeOptions& options) {
  return frame_internal::EncodeFrameSizedOnce(options, [&](Writer* w) {
    return AppendResponseFrame(header, api_key, api_version, body, w);
  });
}

}  // namespace kwire
