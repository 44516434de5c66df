// Conformance: every documented minimal frame (conformance/vectors/*.txt, produced by the
// independent reference encoder tools/conformance_ref.py) decodes, re-encodes to the
// same bytes, and equals what the codec's own minimal-instance builder encodes.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"

#ifndef KWIRE_CONFORMANCE_DIR
#error "KWIRE_CONFORMANCE_DIR must name conformance/vectors"
#endif

namespace kwire {
namespace {

struct Vector {
  std::string file;
  int line = 0;
  int16_t api_key = 0;
  std::string name;
  int16_t version = 0;
  Direction dir = Direction::kRequest;
  std::vector<uint8_t> bytes;
};

std::vector<Vector> Load(const std::string& file) {
  std::vector<Vector> out;
  std::ifstream in(std::string(KWIRE_CONFORMANCE_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << "cannot open " << file;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Vector v;
    int key = 0, version = 0;
    size_t size = 0;
    std::string dir, hex;
    ss >> key >> v.name >> version >> dir >> size >> hex;
    v.file = file;
    v.line = n;
    v.api_key = static_cast<int16_t>(key);
    v.version = static_cast<int16_t>(version);
    v.dir = dir == "request" ? Direction::kRequest : Direction::kResponse;
    const std::string raw = absl::HexStringToBytes(hex);
    v.bytes.assign(raw.begin(), raw.end());
    EXPECT_EQ(v.bytes.size(), size) << file << ":" << n;
    out.push_back(std::move(v));
  }
  return out;
}

std::string Hex(const std::vector<uint8_t>& b) {
  return absl::BytesToHexString(std::string(b.begin(), b.end()));
}

// The codec's own documented minimal frame for (api, version, direction).
std::vector<uint8_t> MinimalFrame(const ApiInfo& api, int16_t version, Direction dir) {
  AnyMessage body(api.ops(dir));
  body.ops().fill_minimal(version, body.raw());
  absl::StatusOr<std::vector<uint8_t>> frame;
  if (dir == Direction::kRequest) {
    RequestHeader h;
    h.request_api_key = api.api_key;
    h.request_api_version = version;
    h.client_id = "";
    frame = EncodeRequestFrame(h, body);
  } else {
    frame = EncodeResponseFrame(ResponseHeader{}, api.api_key, version, body);
  }
  EXPECT_TRUE(frame.ok()) << frame.status();
  return frame.ok() ? *frame : std::vector<uint8_t>{};
}

void CheckVector(const Vector& v) {
  SCOPED_TRACE(absl::StrFormat("%s:%d %s v%d %s", v.file, v.line, v.name, v.version,
                               DirectionName(v.dir)));
  const ApiInfo* api = FindApi(v.api_key);
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->name, v.name);
  std::vector<uint8_t> reencoded;
  if (v.dir == Direction::kRequest) {
    auto f = DecodeRequestFrame(v.bytes);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->api_key(), v.api_key);
    EXPECT_EQ(f->api_version(), v.version);
    auto e = EncodeRequestFrame(f->header, f->body);
    ASSERT_TRUE(e.ok()) << e.status();
    reencoded = *e;
  } else {
    auto f = DecodeResponseFrame(v.bytes, v.api_key, v.version);
    ASSERT_TRUE(f.ok()) << f.status();
    auto e = EncodeResponseFrame(f->header, v.api_key, v.version, f->body);
    ASSERT_TRUE(e.ok()) << e.status();
    reencoded = *e;
  }
  EXPECT_EQ(Hex(reencoded), Hex(v.bytes)) << "decode -> encode is not byte-identical";
  EXPECT_EQ(Hex(MinimalFrame(*api, v.version, v.dir)), Hex(v.bytes))
      << "the codec's minimal instance differs from the reference";
}

TEST(Conformance, CurrentVersions) {
  const auto vectors = Load("minimal.txt");
  EXPECT_EQ(vectors.size(), 608u);
  for (const Vector& v : vectors) CheckVector(v);
}

TEST(Conformance, RemovedVersions) {
  const auto vectors = Load("minimal-removed.txt");
  EXPECT_EQ(vectors.size(), 64u);
  for (const Vector& v : vectors) {
    CheckVector(v);
    EXPECT_TRUE(FindApi(v.api_key)->IsRemoved(v.version)) << v.name << " v" << v.version;
  }
}

}  // namespace
}  // namespace kwire
