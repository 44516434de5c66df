// Seed corpus generator (run by tools/fuzz-seeds.sh; its output is committed).
//
//   kwire_fuzz_seedgen [--records] <corpus dir>
//
// Writes, replacing the files it owns (names starting min-, seed-, rand-, gen-):
//   request_frame_fuzzer/   min-<Api>-v<N>   every request frame of the conformance
//                                            vectors (minimal.txt, minimal-removed.txt)
//                           seed-<Api>-v<N>  the hand-transcribed seeds.txt frames
//                           rand-<Api>-v<N>  one randomized rich frame per API version
//                                            (FillRandom: arrays, nulls, tagged and
//                                            unknown tagged fields, header tags)
//   response_frame_fuzzer/  the same for responses, each prefixed by api_key int16 and
//                           api_version int16 (the target's input format)
//   request_explain_fuzzer/, response_explain_fuzzer/
//                           the same files as request_frame_fuzzer/ and
//                           response_frame_fuzzer/ (same input formats; git stores
//                           each file once)
//   frame_split_fuzzer/     gen-*: streams of several frames with chunkings, a partial
//                           frame, negative and oversized size prefixes
//   primitives_fuzzer/      gen-*: one program per primitive op with boundary values,
//                           strict and with quirks
//   record_batch_fuzzer/    gen-*: RecordBatch v2 fields (empty, keys/values/nulls,
//                           headers, every codec, control and transactional batches,
//                           several batches, a partial batch, a bad CRC) and legacy
//                           magic 0/1 message sets (plain and a gzip wrapper), each
//                           with an options byte (CRCs enforced, default cap)
// Deterministic: the same definitions give the same bytes.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/records/compression.h"
#include "codec/records/record_batch.h"
#include "codec/wire/writer.h"

#include <zlib.h>

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

namespace kwire {
namespace {

Bytes FromHex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

void Write(const fs::path& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Removes the generator's own files (so that a definition change leaves no stale seed).
void Clean(const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    for (const char* p : {"min-", "seed-", "rand-", "gen-"}) {
      if (n.rfind(p, 0) == 0) fs::remove(e.path());
    }
  }
}

Bytes ResponseInput(int16_t key, int16_t version, const Bytes& frame) {
  Bytes out = {static_cast<uint8_t>(key >> 8), static_cast<uint8_t>(key),
               static_cast<uint8_t>(version >> 8), static_cast<uint8_t>(version)};
  out.insert(out.end(), frame.begin(), frame.end());
  return out;
}

struct Vector {
  int16_t key;
  std::string api;
  int16_t version;
  bool request;
  Bytes frame;
};

std::vector<Vector> ReadVectors(const fs::path& dir) {
  std::vector<Vector> out;
  for (const char* file : {"minimal.txt", "minimal-removed.txt"}) {
    std::ifstream in(dir / file);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ss(line);
      int key, version;
      size_t size;
      std::string api, dir_s, hex;
      ss >> key >> api >> version >> dir_s >> size >> hex;
      out.push_back({static_cast<int16_t>(key), api, static_cast<int16_t>(version),
                     dir_s == "request", FromHex(hex)});
    }
  }
  return out;
}

std::vector<Vector> ReadSeeds(const fs::path& file) {
  std::vector<Vector> out;
  std::ifstream in(file);
  std::string line;
  Vector cur;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string word;
    ss >> word;
    if (word == "vector") {
      int key, version;
      std::string dir_s;
      ss >> key >> cur.api >> version >> dir_s;
      cur.key = static_cast<int16_t>(key);
      cur.version = static_cast<int16_t>(version);
      cur.request = dir_s == "request";
    } else if (word == "hex") {
      std::string hex;
      ss >> hex;
      cur.frame = FromHex(hex);
      out.push_back(cur);
    }
  }
  return out;
}

// A randomized rich frame of (api, version, direction); header fields random too.
Bytes RandomFrame(const ApiInfo& api, int16_t version, Direction d, std::mt19937_64& rng) {
  AnyMessage body(api.ops(d));
  body.ops().fill_random(rng, version, body.raw());
  if (d == Direction::kRequest) {
    RequestHeader h;
    FillRandom(rng, RequestHeaderVersion(api.api_key, version),
               RequestHeaderVersion(api.api_key, version) >= 2, h);
    h.request_api_key = api.api_key;
    h.request_api_version = version;
    if (RequestHeaderVersion(api.api_key, version) == 0) h.client_id = std::string();
    auto f = EncodeRequestFrame(h, body);
    if (!f.ok()) {
      std::fprintf(stderr, "seedgen: %s v%d request: %s\n", api.name, version,
                   f.status().ToString().c_str());
      std::exit(1);
    }
    return *f;
  }
  ResponseHeader h;
  const int16_t hv = ResponseHeaderVersion(api.api_key, version);
  FillRandom(rng, hv, hv >= 1, h);
  auto f = EncodeResponseFrame(h, api.api_key, version, body);
  if (!f.ok()) {
    std::fprintf(stderr, "seedgen: %s v%d response: %s\n", api.name, version,
                 f.status().ToString().c_str());
    std::exit(1);
  }
  return *f;
}

void FrameCorpora(const fs::path& corpus, const fs::path& vectors) {
  // The round-trip and the explain targets of one direction read the same inputs.
  const fs::path req[] = {corpus / "request_frame_fuzzer", corpus / "request_explain_fuzzer"};
  const fs::path resp[] = {corpus / "response_frame_fuzzer", corpus / "response_explain_fuzzer"};
  for (const fs::path& dir : req) Clean(dir);
  for (const fs::path& dir : resp) Clean(dir);
  size_t n = 0;
  auto emit = [&](const std::string& prefix, const Vector& v) {
    const std::string name = absl::StrFormat("%s-%s-v%d", prefix, v.api, v.version);
    if (v.request) {
      for (const fs::path& dir : req) Write(dir / name, v.frame);
    } else {
      const Bytes input = ResponseInput(v.key, v.version, v.frame);
      for (const fs::path& dir : resp) Write(dir / name, input);
    }
    ++n;
  };
  for (const Vector& v : ReadVectors(vectors)) emit("min", v);
  for (const Vector& v : ReadSeeds(vectors / "seeds.txt")) emit("seed", v);
  for (const ApiInfo& api : AllApis()) {
    for (Direction d : {Direction::kRequest, Direction::kResponse}) {
      const VersionRange r = api.ops(d).spec->valid;
      for (int v = r.lo; v <= r.hi; ++v) {
        std::mt19937_64 rng(0x5eed0000ull ^ (uint64_t(api.api_key) << 20) ^ (uint64_t(v) << 4) ^
                            uint64_t(d));
        const int16_t version = static_cast<int16_t>(v);
        Vector out{api.api_key, api.name, version, d == Direction::kRequest,
                   RandomFrame(api, version, d, rng)};
        emit("rand", out);
      }
    }
  }
  std::printf("seedgen: %zu request/response frame seeds (each for both targets)\n", n);
}

void SplitCorpus(const fs::path& corpus, const fs::path& vectors) {
  const fs::path dir = corpus / "frame_split_fuzzer";
  Clean(dir);
  std::vector<Bytes> frames;
  for (const Vector& v : ReadVectors(vectors)) {
    if (v.request && (v.key == 0 || v.key == 1 || v.key == 3 || v.key == 18 || v.key == 36)) {
      frames.push_back(v.frame);
    }
  }
  auto stream = [&](uint8_t max_sel, Bytes chunks, const std::vector<Bytes>& parts) {
    Bytes out = {max_sel, static_cast<uint8_t>(chunks.size())};
    out.insert(out.end(), chunks.begin(), chunks.end());
    for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  size_t i = 0;
  for (size_t a = 0; a + 2 < frames.size(); a += 7) {
    const Bytes chunks = {static_cast<uint8_t>(1 + a % 5), 3, static_cast<uint8_t>(17 + a % 40)};
    Write(dir / absl::StrFormat("gen-stream-%02d", i++),
          stream(0, chunks, {frames[a], frames[a + 1], frames[a + 2]}));
  }
  Bytes partial(frames[0].begin(), frames[0].begin() + static_cast<ptrdiff_t>(frames[0].size() / 2));
  Write(dir / "gen-partial", stream(0, {2}, {frames[1], partial}));
  Write(dir / "gen-negative-size", stream(0, {1}, {frames[0], Bytes{0xff, 0xff, 0xff, 0xfe, 1}}));
  Write(dir / "gen-too-large", stream(1, {5}, {Bytes{0, 0, 0, 17}, Bytes(17, 0)}));
  Write(dir / "gen-max-256", stream(2, {64}, {frames[2], Bytes{0, 0, 1, 0}, Bytes(256, 7)}));
  Write(dir / "gen-empty-frames", stream(3, {1, 1}, {Bytes(4, 0), Bytes(4, 0), Bytes{0, 0}}));
  Write(dir / "gen-one-chunk", stream(0, {}, {frames[3], frames[4]}));
  std::printf("seedgen: %zu frame_split_fuzzer seeds\n", i + 6);
}

void PrimitiveCorpus(const fs::path& corpus) {
  const fs::path dir = corpus / "primitives_fuzzer";
  Clean(dir);
  size_t n = 0;
  auto program = [&](const std::string& name, uint8_t quirks, auto&& body) {
    Writer w;
    w.WriteUint8(quirks);
    body(w);
    const auto b = w.Release();
    Write(dir / ("gen-" + name), Bytes(b.begin(), b.end()));
    ++n;
  };
  // op byte: low 4 bits the op, 0x10 compact, 0x20 nullable, bits 6-7 array min size.
  for (uint8_t q : {0x00, 0x3f}) {
    const std::string sfx = q ? "-quirks" : "";
    program("uvarint" + sfx, q, [](Writer& w) {
      for (uint32_t v : {0u, 1u, 127u, 128u, 300u, 16383u, 16384u, 0x7fffffffu, 0xffffffffu}) {
        w.WriteUint8(0);
        w.WriteUvarint(v);
      }
      w.WriteUint8(0);
      w.WriteRaw("\x80\x00", 2);  // overlong
    });
    program("varint" + sfx, q, [](Writer& w) {
      for (int32_t v : {0, -1, 1, -64, 64, INT32_MIN, INT32_MAX}) {
        w.WriteUint8(1);
        w.WriteVarint(v);
      }
    });
    program("varlong" + sfx, q, [](Writer& w) {
      for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 40, INT64_MIN, INT64_MAX}) {
        w.WriteUint8(2);
        w.WriteVarlong(v);
      }
      w.WriteUint8(2);
      w.WriteRaw("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x03", 10);  // bits beyond 64
    });
    program("strings" + sfx, q, [](Writer& w) {
      w.WriteUint8(0x13);  // compact string
      w.WriteStringLength(true, 5);
      w.WriteRaw("kafka");
      w.WriteUint8(0x33);  // compact nullable string, null
      w.WriteStringLength(true, -1);
      w.WriteUint8(0x03);  // classic string
      w.WriteStringLength(false, 3);
      w.WriteRaw("abc");
      w.WriteUint8(0x23);  // classic nullable, null
      w.WriteStringLength(false, -1);
      w.WriteUint8(0x03);  // classic, -2 (invalid)
      w.WriteInt16(-2);
    });
    program("bytes" + sfx, q, [](Writer& w) {
      w.WriteUint8(0x14);
      w.WriteBytesLength(true, 2);
      w.WriteRaw("\x00\x01", 2);
      w.WriteUint8(0x24);
      w.WriteBytesLength(false, -1);
      w.WriteUint8(0x04);
      w.WriteBytesLength(false, 0);
      w.WriteUint8(0x04);
      w.WriteInt32(0x7fffffff);  // more than is left
    });
    program("arrays" + sfx, q, [](Writer& w) {
      w.WriteUint8(0x15);  // compact count
      w.WriteArrayCount(true, 3);
      w.WriteUint8(0x55);  // classic, min element 4
      w.WriteArrayCount(false, 2);
      w.WriteInt64(0);
      w.WriteUint8(0xf5);  // compact nullable, min 61, null
      w.WriteArrayCount(true, -1);
      w.WriteUint8(0x45);  // classic, min 4: count too large
      w.WriteArrayCount(false, 1000);
    });
    program("tagged" + sfx, q, [](Writer& w) {
      w.WriteUint8(6);
      w.WriteUvarint(3);
      for (uint32_t tag : {0u, 5u, 300u}) {
        w.WriteUvarint(tag);
        w.WriteUvarint(2);
        w.WriteInt16(7);
      }
      w.WriteUint8(6);  // out of order
      w.WriteUvarint(2);
      w.WriteUvarint(4);
      w.WriteUvarint(0);
      w.WriteUvarint(1);
      w.WriteUvarint(0);
    });
    program("fixed" + sfx, q, [](Writer& w) {
      w.WriteUint8(7);
      w.WriteBool(true);
      w.WriteUint8(7);
      w.WriteUint8(2);  // invalid bool
      w.WriteUint8(0x28);
      w.WriteInt8(-1);  // null struct, nullable
      w.WriteUint8(8);
      w.WriteInt8(1);
      w.WriteUint8(9);
      w.WriteInt16(-2);
      w.WriteUint8(10);
      w.WriteInt32(123456);
      w.WriteUint8(11);
      w.WriteInt64(-5);
      w.WriteUint8(12);
      w.WriteFloat64(1.5);
      w.WriteUint8(13);
      w.WriteUuid(Uuid{});
      w.WriteUint8(8);
      w.WriteInt8(5);  // invalid marker
    });
    program("limits" + sfx, q, [](Writer& w) {
      w.WriteUint8(14);  // push limit 6
      w.WriteUint8(6);
      w.WriteUint8(0);
      w.WriteUvarint(300);
      w.WriteUint8(15);  // end of block
      w.WriteUint8(0);
      w.WriteUint8(0);
      w.WriteUvarint(1);
      w.WriteUint8(14);  // limit beyond the input
      w.WriteUint8(200);
    });
  }
  std::printf("seedgen: %zu primitives_fuzzer seeds\n", n);
}

// A legacy (magic 0/1) message: offset, size, CRC-32 (IEEE) over magic..end, magic,
// attributes, [timestamp], key, value.
Bytes LegacyMessage(int8_t magic, int8_t attributes, int64_t offset, const std::string* key,
                    const std::string* value) {
  Writer body;
  body.WriteInt8(magic);
  body.WriteInt8(attributes);
  if (magic == 1) body.WriteInt64(1700000000000);
  for (const std::string* b : {key, value}) {
    body.WriteInt32(b ? static_cast<int32_t>(b->size()) : -1);
    if (b) body.WriteRaw(*b);
  }
  const auto bytes = body.Release();
  Writer w;
  w.WriteInt64(offset);
  w.WriteInt32(static_cast<int32_t>(bytes.size() + 4));
  w.WriteUint32(static_cast<uint32_t>(crc32(0, bytes.data(), static_cast<uInt>(bytes.size()))));
  w.WriteRaw(bytes.data(), bytes.size());
  return w.Release();
}

void RecordCorpus(const fs::path& corpus) {
  const fs::path dir = corpus / "record_batch_fuzzer";
  Clean(dir);
  size_t n = 0;
  auto emit = [&](const std::string& name, const std::vector<Bytes>& batches,
                  uint8_t options = 0x07) {
    Bytes out = {options};
    for (const Bytes& b : batches) out.insert(out.end(), b.begin(), b.end());
    Write(dir / ("gen-" + name), out);
    ++n;
  };
  auto batch = [](BatchHeader h, const std::vector<Record>& records) {
    auto s = EncodeRecordBatch(h, records);
    if (!s.ok()) {
      std::fprintf(stderr, "seedgen: %s\n", s.status().ToString().c_str());
      std::exit(1);
    }
    return Bytes(s->begin(), s->end());
  };
  static const std::string kValue(300, 'v');
  std::vector<Record> three(3);
  for (int i = 0; i < 3; ++i) {
    three[i].offset_delta = i;
    three[i].timestamp_delta = i * 10;
    three[i].key = i == 1 ? std::nullopt : std::optional<std::string_view>("key");
    three[i].value = i == 2 ? std::nullopt : std::optional<std::string_view>(kValue);
  }
  three[0].headers = {{"trace", std::optional<std::string_view>("abc")}, {"n", std::nullopt}};
  BatchHeader h;
  h.base_timestamp = 1700000000000;
  h.max_timestamp = 1700000000020;
  h.last_offset_delta = 2;
  emit("empty-field", {});
  emit("v2-empty", {Bytes(EmptyRecordBatch().begin(), EmptyRecordBatch().end())});
  emit("v2-three", {batch(h, three)});
  for (Compression c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                        Compression::kZstd}) {
    BatchHeader hc = h;
    hc.attributes = static_cast<int16_t>(c);
    emit(std::string("v2-") + CompressionName(c), {batch(hc, three)});
    // The same with a 4 KiB decompression cap and CRCs not enforced.
    emit(std::string("v2-") + CompressionName(c) + "-cap", {batch(hc, three)}, 0);
  }
  BatchHeader txn = h;
  txn.attributes = kAttrTransactional;
  txn.producer_id = 42;
  txn.producer_epoch = 1;
  txn.base_sequence = 0;
  emit("v2-transactional", {batch(txn, three)});
  BatchHeader control = txn;
  control.attributes = kAttrTransactional | kAttrControl;
  control.last_offset_delta = 0;
  const std::string ckey = ControlRecordKey(kControlCommit);
  const std::string cval = EndTxnMarkerValue(7);
  Record marker;
  marker.key = ckey;
  marker.value = cval;
  emit("v2-control-commit", {batch(control, {marker})});
  BatchHeader h2 = h;
  h2.base_offset = 3;
  emit("v2-two-batches", {batch(h, three), batch(h2, {three[0]})});
  Bytes cut = batch(h, three);
  cut.resize(cut.size() - 5);
  emit("v2-partial", {batch(h, {three[1]}), cut});
  Bytes bad_crc = batch(h, three);
  bad_crc[20] ^= 1;
  emit("v2-bad-crc", {bad_crc});
  emit("v2-bad-crc-unenforced", {bad_crc}, 0x06);
  const std::string k = "k", v = "value";
  emit("legacy-v0", {LegacyMessage(0, 0, 0, &k, &v), LegacyMessage(0, 0, 1, nullptr, &v)});
  emit("legacy-v1", {LegacyMessage(1, 0, 5, &k, &v), LegacyMessage(1, 0, 6, &k, nullptr)});
  {
    Bytes inner;
    for (int i = 0; i < 2; ++i) {
      const Bytes m = LegacyMessage(1, 0, i, &k, &v);
      inner.insert(inner.end(), m.begin(), m.end());
    }
    std::vector<uint8_t> gz;
    if (!Compress(Compression::kGzip, inner, &gz).ok()) std::exit(1);
    const std::string wrapped(gz.begin(), gz.end());
    emit("legacy-v1-gzip", {LegacyMessage(1, 1, 1, nullptr, &wrapped)});
  }
  std::printf("seedgen: %zu record_batch_fuzzer seeds\n", n);
}

}  // namespace
}  // namespace kwire

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kwire_fuzz_seedgen <corpus dir>\n");
    return 2;
  }
  const fs::path corpus = argv[argc - 1];
  const fs::path vectors = fs::path(KWIRE_SOURCE_DIR) / "conformance" / "vectors";
  kwire::FrameCorpora(corpus, vectors);
  kwire::SplitCorpus(corpus, vectors);
  kwire::PrimitiveCorpus(corpus);
  kwire::RecordCorpus(corpus);
  return 0;
}
