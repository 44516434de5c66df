#include "codec/harness/minimal.h"

#include "codec/harness/fill.h"
#include "codec/protocol/frame.h"

namespace kwire {

absl::StatusOr<std::vector<uint8_t>> EncodeMinimalFrame(const ApiInfo& api, int16_t version,
                                                        Direction dir) {
  AnyMessage body(api.ops(dir));
  FillMinimal(version, body);
  if (dir == Direction::kRequest) {
    RequestHeader h;
    h.request_api_key = api.api_key;
    h.request_api_version = version;
    h.client_id = "";
    return EncodeRequestFrame(h, body);
  }
  return EncodeResponseFrame(ResponseHeader{}, api.api_key, version, body);
}

}  // namespace kwire
