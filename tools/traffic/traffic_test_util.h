// Frames for the traffic and proxy tests: typed messages encoded by the codec.
#ifndef KWIRE_TOOLS_TRAFFIC_TRAFFIC_TEST_UTIL_H_
#define KWIRE_TOOLS_TRAFFIC_TRAFFIC_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codec/protocol/frame.h"
#include "codec/wire/writer.h"

namespace kwire::traffic_testing {

template <class M>
std::vector<uint8_t> Request(int16_t version, int32_t correlation_id, const M& body) {
  absl::StatusOr<std::vector<uint8_t>> f =
      EncodeRequestFrame(version, correlation_id, std::string("kwire-test"), body);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : std::vector<uint8_t>{};
}

template <class M>
std::vector<uint8_t> Response(int16_t version, int32_t correlation_id, const M& body) {
  Writer w;
  ResponseHeader h;
  h.correlation_id = correlation_id;
  const absl::Status s = AppendResponseFrame(h, version, body, &w);
  EXPECT_TRUE(s.ok()) << s;
  return std::vector<uint8_t>(w.data(), w.data() + w.size());
}

}  // namespace kwire::traffic_testing

#endif  // KWIRE_TOOLS_TRAFFIC_TRAFFIC_TEST_UTIL_H_
