// Test helper shared by tools/json/json_test.cc and conformance/jsonl_test.cc.
#ifndef KWIRE_TOOLS_JSON_JSON_TEST_UTIL_H_
#define KWIRE_TOOLS_JSON_JSON_TEST_UTIL_H_

#include <span>

#include "codec/protocol/frame_test_util.h"
#include "tools/json/json.h"

namespace kwire::json_testing {

/// Decodes `frame` as the case's request or response frame (strict) and gives its
/// object in the JSON mapping (RequestFrameToJson / ResponseFrameToJson), or the status.
inline absl::StatusOr<Json> FrameJson(const frame_testing::Case& c,
                                      std::span<const uint8_t> frame) {
  if (c.request()) {
    absl::StatusOr<RequestFrame> f = DecodeRequestFrame(frame);
    if (!f.ok()) return f.status();
    return RequestFrameToJson(*f);
  }
  absl::StatusOr<ResponseFrame> f = DecodeResponseFrame(frame, c.api->api_key, c.version);
  if (!f.ok()) return f.status();
  return ResponseFrameToJson(*f, c.api->api_key, c.version);
}

}  // namespace kwire::json_testing

#endif  // KWIRE_TOOLS_JSON_JSON_TEST_UTIL_H_
