#include "fuzz/frame_parts.h"

#include <utility>

namespace kwire::fuzz {

const MutateOps& FrameParts::header_ops() const {
  static const MutateOps* req = FindMutateOps(&RequestHeader::kMessage);
  static const MutateOps* resp = FindMutateOps(&ResponseHeader::kMessage);
  return response ? *resp : *req;
}

VersionRange FrameParts::versions() const {
  const ApiInfo* api = FindApi(api_key);
  return response ? api->response_versions() : api->request_versions();
}

absl::StatusOr<std::vector<uint8_t>> FrameParts::EncodeAs(int16_t key, int16_t v,
                                                          const EncodeOptions& eo) {
  if (response) return EncodeResponseFrame(response_header, key, v, *body, eo);
  request_header.request_api_key = key;
  request_header.request_api_version = v;
  return EncodeRequestFrame(request_header, *body, eo);
}

absl::StatusOr<FrameParts> FrameParts::Decode(bool response, std::span<const uint8_t> frame,
                                              int16_t key, int16_t v, const FrameOptions& o) {
  FrameParts p;
  p.response = response;
  if (response) {
    auto f = DecodeResponseFrame(frame, key, v, o);
    if (!f.ok()) return f.status();
    p.api_key = key;
    p.version = f->body_version;  // KIP-511: an ApiVersions v0 fallback is a v0 body
    p.response_header = std::move(f->header);
    p.body.emplace(std::move(f->body));
  } else {
    auto f = DecodeRequestFrame(frame, o);
    if (!f.ok()) return f.status();
    p.api_key = f->api_key();
    p.version = f->api_version();
    p.request_header = std::move(f->header);
    p.body.emplace(std::move(f->body));
  }
  return p;
}

bool FrameParts::BitwiseEquals(const FrameParts& other) const {
  return response == other.response && &body->spec() == &other.body->spec() &&
         header_ops().bitwise_equal(header(), other.header()) &&
         body_ops().bitwise_equal(body->raw(), other.body->raw());
}

}  // namespace kwire::fuzz
