// Seed corpus generator (run by tools/fuzz-seeds.sh; its output is committed).
//
//   kwire_fuzz_seedgen [--records] <corpus dir>
//
// Writes, replacing the files it owns (names starting min-, seed-, rand-, gen-, rec-):
//   request_frame_fuzzer/   min-<Api>-v<N>   every request frame of the conformance
//                                            vectors (minimal.txt, minimal-removed.txt)
//                           seed-<Api>-v<N>  the hand-transcribed seeds.txt frames
//                           rand-<Api>-v<N>  one randomized rich frame per API version
//                                            (FillRandom: arrays, nulls, tagged and
//                                            unknown tagged fields, header tags)
//                           rec-<Api>-v<N>-<name>  the frames of records.jsonl (record
//                                            batches of every codec, accepted and
//                                            rejected), those within max_len
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
//                           with an options byte (CRCs enforced, default cap); the
//                           error paths: compression bombs under the 4 KiB / 64 KiB /
//                           1 MiB caps, truncated, corrupt, empty and concatenated
//                           payloads of every codec, raw snappy and every xerial
//                           fault, zstd skippable frames and window limit, Kafka's
//                           magic-0 LZ4 header checksum, legacy wrappers of every
//                           codec and their inner-message faults, batch header,
//                           record and control-record faults (strict and with the
//                           Java quirks); rec-*: the records fields of records.jsonl
//   message_encode_fuzzer/  gen-<Api>-<request|response>-{same,refusals}: a message
//                           made and encoded at the highest version, and one encoded at
//                           the lowest with refusals on (EncodeCorpus)
// Deterministic: the same definitions give the same bytes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "codec/harness/fill.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/records/compression.h"
#include "codec/records/crc32c.h"
#include "codec/records/record_batch.h"
#include "codec/wire/hex.h"
#include "codec/wire/port.h"
#include "codec/wire/writer.h"

#include <zlib.h>

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

namespace kwire {
namespace {

// The vectors' frames (checked hex: conformance/check.cc rejects a bad one).
Bytes FromHex(const std::string& hex) {
  Bytes out;
  ParseHex(hex, out);
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
    for (const char* p : {"min-", "seed-", "rand-", "gen-", "rec-"}) {
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

// The frame targets' max_len (fuzz/*_frame_fuzzer.options): no seed is longer.
constexpr size_t kFrameMaxLen = 16384;
// record_batch_fuzzer's max_len.
constexpr size_t kRecordsMaxLen = 65536;

// The string value of "key":"..." in one JSON line (no escapes inside: ids and hex).
std::string JsonString(const std::string& line, const std::string& key, size_t from = 0,
                       size_t* end = nullptr) {
  const std::string k = "\"" + key + "\":\"";
  const size_t at = line.find(k, from);
  if (at == std::string::npos) return {};
  const size_t start = at + k.size();
  const size_t stop = line.find('"', start);
  if (end != nullptr) *end = stop;
  return line.substr(start, stop - start);
}

struct RecordsVector {
  Vector v;
  std::string name;                // the id's last component, e.g. "gzip-corrupt"
  std::vector<Bytes> records;      // every "Records" field of the body, in order
};

// conformance/vectors/records.jsonl, read with plain string search (the format is one
// object per line, ids and hex strings without escapes).
std::vector<RecordsVector> ReadRecordsVectors(const fs::path& file) {
  std::vector<RecordsVector> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    RecordsVector rv;
    const std::string id = JsonString(line, "id");
    rv.name = id.substr(id.rfind('/') + 1);
    rv.v.api = JsonString(line, "api_name");
    rv.v.request = JsonString(line, "direction") == "request";
    auto number = [&](const std::string& key) {
      const size_t at = line.find("\"" + key + "\":");
      return at == std::string::npos ? -1 : std::stoi(line.substr(at + key.size() + 3));
    };
    rv.v.key = static_cast<int16_t>(number("api_key"));
    rv.v.version = static_cast<int16_t>(number("version"));
    rv.v.frame = FromHex(JsonString(line, "frame"));
    for (size_t pos = 0;;) {
      size_t end = 0;
      const std::string hex = JsonString(line, "Records", pos, &end);
      if (end == 0 || end == std::string::npos) break;
      rv.records.push_back(FromHex(hex));
      pos = end;
    }
    out.push_back(std::move(rv));
  }
  return out;
}

// A randomized rich frame of (api, version, direction); header fields random too.
Bytes RandomFrame(const ApiInfo& api, int16_t version, Direction d, std::mt19937_64& rng) {
  AnyMessage body(api.ops(d));
  FillRandom(rng, version, body);
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
  // records.jsonl: frames whose records fields hold batches of every codec, accepted and
  // rejected (named after the vector's last id component), within the targets' max_len.
  size_t skipped = 0;
  for (const RecordsVector& rv : ReadRecordsVectors(vectors / "records.jsonl")) {
    if (rv.v.frame.size() + (rv.v.request ? 0 : 4) > kFrameMaxLen) {
      ++skipped;
      continue;
    }
    const std::string name = absl::StrFormat("rec-%s-v%d-%s", rv.v.api, rv.v.version, rv.name);
    if (rv.v.request) {
      for (const fs::path& dir : req) Write(dir / name, rv.v.frame);
    } else {
      const Bytes input = ResponseInput(rv.v.key, rv.v.version, rv.v.frame);
      for (const fs::path& dir : resp) Write(dir / name, input);
    }
    ++n;
  }
  std::printf("seedgen: records.jsonl frames longer than max_len left out: %zu\n", skipped);
  // A gzip batch in a Produce frame whose records count (1,000,000, under max_records)
  // needs more Record objects than half the frame decoder's allocation budget: refused
  // before decompressing. CRC-32C recomputed.
  for (const RecordsVector& rv : ReadRecordsVectors(vectors / "records.jsonl")) {
    if (rv.v.api != "Produce" || rv.v.version != 9 || rv.name != "gzip" || rv.records.empty()) {
      continue;
    }
    const Bytes& field = rv.records[0];
    Bytes f = rv.v.frame;
    const auto at = std::search(f.begin(), f.end(), field.begin(), field.end());
    if (at == f.end() || field.size() < 61) break;
    const size_t b = static_cast<size_t>(at - f.begin());
    const uint32_t count = 1000000;
    kwire::StoreBigEndian(f.data() + b + 57, count);
    const size_t batch_end = b + 12 + kwire::LoadBigEndian<uint32_t>(f.data() + b + 8);
    kwire::StoreBigEndian(f.data() + b + 17, Crc32c(f.data() + b + 21, batch_end - b - 21));
    Vector g = rv.v;
    g.frame = f;
    g.api = "records-count-over-budget-Produce";
    emit("gen", g);
    break;
  }
  // Frames that fail in the size prefix, after the body, or inside the body of an API
  // with sensitive fields (the explanation then hides the undecoded bytes).
  auto resize = [](Bytes f, size_t size) {
    f.resize(size);
    const uint32_t body = static_cast<uint32_t>(size - 4);
    f[0] = static_cast<uint8_t>(body >> 24);
    f[1] = static_cast<uint8_t>(body >> 16);
    f[2] = static_cast<uint8_t>(body >> 8);
    f[3] = static_cast<uint8_t>(body);
    return f;
  };
  // Hand-laid ApiVersions frames (key 18): tagged fields out of order and duplicated
  // (request v3), a known tagged field whose declared size is larger / smaller than its
  // value (response v3, FinalizedFeaturesEpoch, tag 1, int64), and a long client id of
  // two-byte characters (the explanation shortens it at a character boundary).
  auto laid = [&](const std::string& name, bool request, int16_t version,
                  const std::function<void(Writer&)>& body) {
    Writer w;
    body(w);
    const auto b = w.Release();
    Vector g{18, name, version, request, {}};
    Bytes f(4, 0);
    f.insert(f.end(), b.begin(), b.end());
    g.frame = resize(f, f.size());
    emit("gen", g);
  };
  auto v3_request = [](Writer& w, const Bytes& tags) {
    w.WriteInt16(18);
    w.WriteInt16(3);
    w.WriteInt32(7);
    w.WriteInt16(0);  // client_id ""
    w.WriteUint8(0);  // header tagged fields
    w.WriteRaw("\x02" "a" "\x02" "b", 4);
    w.WriteRaw(tags.data(), tags.size());
  };
  // ClientSoftwareName not UTF-8: a sequence cut by the string's end, above U+10FFFF.
  auto bad_name = [&](std::string_view name) {
    return [&, name](Writer& w) {
      w.WriteInt16(18);
      w.WriteInt16(3);
      w.WriteInt32(7);
      w.WriteInt16(0);
      w.WriteUint8(0);
      w.WriteUvarint(static_cast<uint32_t>(name.size() + 1));
      w.WriteRaw(name);
      w.WriteRaw("\x02" "b" "\x00", 3);
    };
  };
  laid("utf8-cut-sequence-ApiVersions", true, 3, bad_name("ab\xe2\x82"));
  laid("utf8-above-10ffff-ApiVersions", true, 3, bad_name("a\xf4\x90\x80\x80"));
  laid("tags-out-of-order-ApiVersions", true, 3,
       [&](Writer& w) { v3_request(w, {2, 5, 0, 3, 0}); });
  laid("tags-duplicate-ApiVersions", true, 3, [&](Writer& w) { v3_request(w, {2, 5, 1, 9, 5, 0}); });
  auto v3_response = [](Writer& w, uint8_t declared, size_t value_bytes) {
    w.WriteInt32(7);   // correlation id (response header v0)
    w.WriteInt16(0);   // error code
    w.WriteUint8(1);   // ApiKeys: empty compact array
    w.WriteInt32(0);   // throttle
    w.WriteUint8(1);   // one tagged field
    w.WriteUint8(1);   // tag 1: FinalizedFeaturesEpoch
    w.WriteUint8(declared);
    for (size_t i = 0; i < value_bytes; ++i) w.WriteUint8(static_cast<uint8_t>(i));
  };
  laid("tag-size-above-value-ApiVersions", false, 3, [&](Writer& w) { v3_response(w, 9, 9); });
  laid("tag-size-below-value-ApiVersions", false, 3, [&](Writer& w) { v3_response(w, 7, 8); });
  // KIP-511 (issue 38): brokers answer an ApiVersions request of a version they do not
  // know with a v0 body — error 35 and their own ApiVersions range, or none — whatever
  // version was asked; and a v0 body with error 0, which only Java's any-error fallback
  // (kQuirkApiVersionsAnyFallback) takes.
  auto v0_fallback = [](int16_t error, int16_t max_version) {
    return [=](Writer& w) {
      w.WriteInt32(123);  // correlation id (response header v0)
      w.WriteInt16(error);
      w.WriteInt32(max_version < 0 ? 0 : 1);  // ApiKeys: int32 count at v0
      if (max_version >= 0) {
        w.WriteInt16(18);
        w.WriteInt16(0);
        w.WriteInt16(max_version);
      }
    };
  };
  // Named for the version asked (the file name's -v<N>); the body is v0 in each.
  for (int16_t v = 1; v <= 4; ++v) laid("kip511-v0-fallback-ApiVersions", false, v, v0_fallback(35, 3));
  // Asked at versions above kwire's newest (a client newer than kwire): the same fallback.
  for (int16_t v : {int16_t{129}, int16_t{32767}}) {
    laid("kip511-v0-fallback-ApiVersions", false, v, v0_fallback(35, 4));
  }
  laid("kip511-v0-fallback-empty-ApiVersions", false, 3, v0_fallback(35, -1));
  laid("kip511-v0-error-0-ApiVersions", false, 3, v0_fallback(0, 3));
  // Client ids the explanation escapes: control characters, quote, backslash, a C1
  // control (U+0085), and a byte that is not UTF-8.
  for (const auto& [name, id] : std::vector<std::pair<std::string, std::string>>{
           {"client-id-escapes-ApiVersions", "a\n\r\t\\\"\x01\x7f\xc2\x85z"},
           {"client-id-not-utf8-ApiVersions", "a\xff\xc3" "b"}}) {
    laid(name, true, 0, [&, id = id](Writer& w) {
      w.WriteInt16(18);
      w.WriteInt16(0);
      w.WriteInt32(7);
      w.WriteInt16(static_cast<int16_t>(id.size()));
      w.WriteRaw(id);
    });
  }
  laid("long-client-id-ApiVersions", true, 0, [&](Writer& w) {
    std::string id;
    for (int i = 0; i < 200; ++i) id += "\xc3\xa9";  // é
    w.WriteInt16(18);
    w.WriteInt16(0);
    w.WriteInt32(7);
    w.WriteInt16(static_cast<int16_t>(id.size()));
    w.WriteRaw(id);
  });
  std::map<std::string, bool> sensitive_done;
  for (const Vector& v : ReadVectors(vectors)) {
    const ApiInfo* api = FindApi(v.key);
    if (api == nullptr || v.frame.size() < 8) continue;
    const Direction d = v.request ? Direction::kRequest : Direction::kResponse;
    std::vector<std::pair<std::string, Bytes>> out;
    if (v.key == 18 && v.version == 0) {
      Bytes neg = v.frame;
      neg[0] = neg[1] = neg[2] = 0xff;
      neg[3] = 0xfe;
      out.push_back({"negative-size", neg});
      out.push_back({"trailing-bytes", resize(v.frame, v.frame.size() + 3)});
    }
    const std::string key = absl::StrFormat("%s-%d", v.api, v.request);
    if (api->ops(d).spec->has_sensitive && !sensitive_done[key]) {
      sensitive_done[key] = true;
      out.push_back({"sensitive-cut", resize(v.frame, v.frame.size() - 1)});
    }
    for (const auto& [what, frame] : out) {
      Vector g = v;
      g.frame = frame;
      g.api = absl::StrFormat("%s-%s", what, v.api);
      emit("gen", g);
    }
  }
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

// ---- Record batches built byte by byte (for the error paths of the records decoder
// and of every decompressor).

void PutBe32(Bytes& b, size_t at, uint32_t v) { kwire::StoreBigEndian(b.data() + at, v); }

Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes Str(std::string_view s) { return Bytes(s.begin(), s.end()); }

// A RecordBatch v2 with `attributes`, `count` and `payload` as given (the records
// section, compressed or not, taken as is); batchLength and CRC-32C correct.
Bytes RawV2(int16_t attributes, int32_t count, const Bytes& payload) {
  Writer w;
  w.WriteInt64(0);
  w.WriteInt32(static_cast<int32_t>(kRecordBatchHeaderSize - kLogOverhead + payload.size()));
  w.WriteInt32(0);   // partitionLeaderEpoch
  w.WriteInt8(2);
  w.WriteUint32(0);  // CRC, below
  w.WriteInt16(attributes);
  w.WriteInt32(count > 0 ? count - 1 : 0);
  w.WriteInt64(1700000000000);
  w.WriteInt64(1700000000000);
  w.WriteInt64(-1);
  w.WriteInt16(-1);
  w.WriteInt32(-1);
  w.WriteInt32(count);
  w.WriteRaw(payload.data(), payload.size());
  const auto v = w.Release();
  Bytes b(v.begin(), v.end());
  PutBe32(b, 17, Crc32c(b.data() + 21, b.size() - 21));
  return b;
}

// The records section of an uncompressed encoding of `records`.
Bytes Plain(const std::vector<Record>& records) {
  BatchHeader h;
  auto s = EncodeRecordBatch(h, records);
  if (!s.ok()) {
    std::fprintf(stderr, "seedgen: %s\n", s.status().ToString().c_str());
    std::exit(1);
  }
  return Bytes(s->begin() + kRecordBatchHeaderSize, s->end());
}

Bytes Compressed(Compression c, const Bytes& plain) {
  std::vector<uint8_t> out;
  if (!Compress(c, plain, &out).ok()) std::exit(1);
  return out;
}

// A raw snappy block (the xerial chunk of an input under 32 KiB, without the framing).
Bytes RawSnappy(const Bytes& plain) {
  const Bytes x = Compressed(Compression::kSnappy, plain);
  return Bytes(x.begin() + 20, x.end());
}

// One hand-written v2 record: length, attributes 0, timestampDelta, offsetDelta, then
// `rest` (key, value, headers as the caller writes them).
Bytes RawRecord(int32_t offset_delta, const Bytes& rest, int32_t length_adjust = 0) {
  Writer body;
  body.WriteInt8(0);
  body.WriteVarlong(0);
  body.WriteVarint(offset_delta);
  body.WriteRaw(rest.data(), rest.size());
  const auto b = body.Release();
  Writer w;
  w.WriteVarint(static_cast<int32_t>(b.size()) + length_adjust);
  w.WriteRaw(b.data(), b.size());
  const auto v = w.Release();
  return Bytes(v.begin(), v.end());
}

Bytes Varint(int32_t v) {
  Writer w;
  w.WriteVarint(v);
  const auto b = w.Release();
  return Bytes(b.begin(), b.end());
}

// varint length + bytes.
Bytes VarBytes(std::string_view s) { return Cat({Varint(static_cast<int32_t>(s.size())), Str(s)}); }

// A legacy message with raw `value` bytes (for compressed wrappers) and a CRC that is
// right unless `bad_crc`.
Bytes Legacy(int8_t magic, int8_t attributes, int64_t offset, const Bytes* value,
             bool bad_crc = false, const std::string* key = nullptr) {
  const std::string v = value ? std::string(value->begin(), value->end()) : std::string();
  Bytes m = LegacyMessage(magic, attributes, offset, key, value ? &v : nullptr);
  if (bad_crc) m[12] ^= 0x40;
  return m;
}

// Kafka's magic-0 LZ4 frame: the header checksum byte computed over the frame magic and
// the descriptor (KAFKA-3160), as old clients wrote it.
Bytes KafkaLegacyLz4(const Bytes& plain) {
  Bytes f = Compressed(Compression::kLz4, plain);
  const size_t hs = 4 + 2 + ((f[4] & 0x08) ? 8 : 0) + ((f[4] & 0x01) ? 4 : 0) + 1;
  f[hs - 1] = static_cast<uint8_t>(compression_internal::XxHash32(f.data(), hs - 1, 0) >> 8);
  return f;
}

template <typename Emit, typename Batch>
void RecordErrorSeeds(Emit& emit, Batch& batch, const BatchHeader& h,
                      const std::vector<Record>& three) {
  const Compression kCodecs[] = {Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                 Compression::kZstd};
  const Bytes plain = Plain(three);
  const int32_t n3 = static_cast<int32_t>(three.size());

  // -- Compression bombs: 300 KB of one byte in a few hundred compressed bytes, under
  // the 4 KiB, 64 KiB and 1 MiB caps (options bits 1-2; the last one decodes).
  {
    static const std::string kBomb(300000, 'z');
    Record r;
    r.key = "bomb";
    r.value = kBomb;
    BatchHeader hb = h;
    hb.last_offset_delta = 0;
    for (Compression c : kCodecs) {
      hb.attributes = static_cast<int16_t>(c);
      const Bytes b = batch(hb, {r});
      for (uint8_t options : {0x01, 0x03, 0x05}) {
        emit(absl::StrFormat("v2-%s-bomb-cap%d", CompressionName(c), options >> 1), {b}, options);
      }
    }
  }
  // -- Per codec: truncated, corrupt, empty, concatenated payloads.
  const size_t half = plain.size() / 2;
  const Bytes first(plain.begin(), plain.begin() + static_cast<ptrdiff_t>(half));
  const Bytes second(plain.begin() + static_cast<ptrdiff_t>(half), plain.end());
  for (Compression c : kCodecs) {
    const int16_t a = static_cast<int16_t>(c);
    const std::string name = CompressionName(c);
    const Bytes whole = Compressed(c, plain);
    Bytes cut(whole.begin(), whole.end() - 3);
    emit("v2-" + name + "-truncated", {RawV2(a, n3, cut)});
    Bytes corrupt = whole;
    for (size_t i = corrupt.size() / 2; i < corrupt.size() / 2 + 4; ++i) corrupt[i] ^= 0xa5;
    emit("v2-" + name + "-corrupt-body", {RawV2(a, n3, corrupt)});
    emit("v2-" + name + "-empty-payload", {RawV2(a, 0, {})});
    emit("v2-" + name + "-no-records", {RawV2(a, 0, Compressed(c, {}))});
    emit("v2-" + name + "-two-parts",
         {RawV2(a, n3, Cat({Compressed(c, first), Compressed(c, second)}))});
    emit("v2-" + name + "-garbage-after", {RawV2(a, n3, Cat({whole, Str("garbage!")}))});
    // Decompresses to fewer bytes than the records count needs.
    emit("v2-" + name + "-count-beyond-data", {RawV2(a, 1000, whole)});
    // Decompresses to the records, one record missing / one too many for the count.
    emit("v2-" + name + "-count-short", {RawV2(a, n3 + 1, whole)});
    emit("v2-" + name + "-count-long", {RawV2(a, n3 - 1, whole)});
    // Above RecordsOptions::max_records: refused before decompressing.
    emit("v2-" + name + "-count-above-max", {RawV2(a, 1 << 21, whole)});
    // A corrupt record inside the decompressed payload.
    emit("v2-" + name + "-record-length-negative",
         {RawV2(a, 1, Compressed(c, RawRecord(0, Cat({Varint(-1), Varint(-1), Varint(0)}), -20)))});
  }
  // gzip: a bad magic in the first and in a second member; the stored (level 0) stream.
  {
    const Bytes gz = Compressed(Compression::kGzip, plain);
    Bytes bad = gz;
    bad[0] = 0x1e;
    emit("v2-gzip-bad-magic", {RawV2(1, n3, bad)});
    emit("v2-gzip-second-member-bad-magic", {RawV2(1, n3, Cat({gz, Str("\x1f\x8c....")}))});
    Bytes bad_block = gz;
    bad_block[10] = 0xff;  // BTYPE 11: invalid block type
    emit("v2-gzip-invalid-block", {RawV2(1, n3, bad_block)});
    emit("v2-gzip-one-byte", {RawV2(1, n3, Bytes{0x1f})});
  }
  // snappy: the raw block (librdkafka, the broker) and every xerial framing fault.
  {
    const Bytes raw = RawSnappy(plain);
    emit("v2-snappy-raw", {RawV2(2, n3, raw)});
    emit("v2-snappy-raw-empty", {RawV2(2, 0, Bytes{0x00})});
    emit("v2-snappy-raw-bad-preamble", {RawV2(2, n3, Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})});
    Bytes raw_bad = raw;
    raw_bad.resize(raw_bad.size() / 2);
    emit("v2-snappy-raw-invalid", {RawV2(2, n3, raw_bad)});
    // Declares 1 MiB (a varint preamble) in a few bytes: refused by the cap first.
    emit("v2-snappy-raw-declares-1m", {RawV2(2, n3, Bytes{0x80, 0x80, 0x40, 0x00})}, 0x01);
    const Bytes x = Compressed(Compression::kSnappy, plain);
    const Bytes head(x.begin(), x.begin() + 16);
    emit("v2-snappy-xerial-short-header", {RawV2(2, n3, Bytes(x.begin(), x.begin() + 12))});
    emit("v2-snappy-xerial-short-chunk-length", {RawV2(2, n3, Cat({head, Bytes{0, 0}}))});
    emit("v2-snappy-xerial-negative-chunk", {RawV2(2, n3, Cat({head, Bytes{0x80, 0, 0, 0}}))});
    emit("v2-snappy-xerial-chunk-beyond", {RawV2(2, n3, Cat({head, Bytes{0, 0, 1, 0, 1, 2, 3}}))});
    emit("v2-snappy-xerial-header-only", {RawV2(2, 0, head)});
    Bytes bad_chunk = x;
    bad_chunk.resize(bad_chunk.size() - 4);
    PutBe32(bad_chunk, 16, static_cast<uint32_t>(bad_chunk.size() - 20));
    emit("v2-snappy-xerial-invalid-chunk", {RawV2(2, n3, bad_chunk)});
  }
  // zstd: a skippable frame before the data frame; the window-size limit (a frame
  // whose window is above the 4 KiB cap's 2^12) and the cap met over several frames.
  {
    const Bytes zs = Compressed(Compression::kZstd, plain);
    const Bytes skippable = {0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 's', 'k', 'i', 'p'};
    emit("v2-zstd-skippable-frame", {RawV2(4, n3, Cat({skippable, zs}))});
    std::vector<Record> big(3);
    static const std::string kPart(1800, 'p');
    Bytes frames;
    for (int i = 0; i < 3; ++i) {
      big[i].offset_delta = i;
      big[i].value = kPart;
      frames = Cat({frames, Compressed(Compression::kZstd, Plain({big[i]}))});
    }
    emit("v2-zstd-frames-over-cap", {RawV2(4, 3, frames)}, 0x01);
    emit("v2-zstd-frames", {RawV2(4, 3, frames)});
  }

  // -- The batch iterator: too short for a header, batchLength below the minimum, a bad
  // magic, a header cut inside.
  emit("iter-five-bytes", {Bytes{0, 0, 0, 0, 0}});
  {
    Bytes b = batch(h, three);
    Bytes small = b;
    PutBe32(small, 8, 10);
    emit("iter-batch-length-10", {small});
    Bytes magic3 = b;
    magic3[16] = 3;
    emit("iter-magic-3", {magic3});
    Bytes magicneg = b;
    magicneg[16] = 0xff;
    emit("iter-magic-negative", {magicneg});
    Bytes v2short = b;
    PutBe32(v2short, 8, 30);
    emit("iter-v2-batch-length-30", {v2short});
    emit("iter-header-cut", {Bytes(b.begin(), b.begin() + 15)});
    emit("iter-header-cut-17", {Bytes(b.begin(), b.begin() + 17)});
    // A legacy message whose size claims more than its key and value.
    const std::string k = "k", v = "value";
    Bytes trailing = LegacyMessage(0, 0, 0, &k, &v);
    trailing.push_back(0);
    PutBe32(trailing, 8, static_cast<uint32_t>(trailing.size() - 12));
    emit("legacy-v0-trailing-byte", {trailing});
    Bytes overrun = LegacyMessage(1, 0, 0, &k, &v);
    PutBe32(overrun, overrun.size() - v.size() - 4, 100);
    emit("legacy-v1-value-overruns", {overrun});
    emit("legacy-v0-bad-crc", {Legacy(0, 0, 0, nullptr, true, &k)});
    emit("legacy-v0-bad-crc-unenforced", {Legacy(0, 0, 0, nullptr, true, &k)}, 0x06);
    emit("legacy-v0-cut", {Bytes(trailing.begin(), trailing.end() - 3)});
  }
  // -- Legacy compressed wrappers: every codec, log-append time, and every fault of
  // the inner messages.
  {
    const std::string k = "k", v = "value";
    const Bytes inner1 = Cat({LegacyMessage(1, 0, 0, &k, &v), LegacyMessage(1, 0, 1, nullptr, &v)});
    const Bytes inner0 = Cat({LegacyMessage(0, 0, 0, &k, &v), LegacyMessage(0, 0, 1, nullptr, &v)});
    for (Compression c : {Compression::kGzip, Compression::kSnappy, Compression::kLz4}) {
      const Bytes z1 = Compressed(c, inner1);
      const Bytes z0 = c == Compression::kLz4 ? KafkaLegacyLz4(inner0) : Compressed(c, inner0);
      emit(absl::StrFormat("legacy-v1-%s", CompressionName(c)),
           {Legacy(1, static_cast<int8_t>(c), 1, &z1)});
      emit(absl::StrFormat("legacy-v0-%s", CompressionName(c)),
           {Legacy(0, static_cast<int8_t>(c), 1, &z0)});
    }
    // magic 0 with a correct LZ4 header checksum (nothing to repair), and a corrupt one.
    const Bytes lz0 = Compressed(Compression::kLz4, inner0);
    emit("legacy-v0-lz4-standard-checksum", {Legacy(0, 3, 1, &lz0)});
    Bytes lz0bad = lz0;
    lz0bad[6] ^= 0x11;
    emit("legacy-v0-lz4-bad-checksum", {Legacy(0, 3, 1, &lz0bad)});
    const Bytes gz1 = Compressed(Compression::kGzip, inner1);
    emit("legacy-v1-gzip-log-append-time", {Legacy(1, 0x09, 1, &gz1)});
    emit("legacy-v1-zstd", {Legacy(1, 4, 1, &gz1)});
    emit("legacy-v1-codec-6", {Legacy(1, 6, 1, &gz1)});
    emit("legacy-v1-gzip-null-value", {Legacy(1, 1, 1, nullptr)});
    emit("legacy-v1-gzip-corrupt", {Legacy(1, 1, 1, &inner1)});
    auto wrap = [&](const std::string& name, const Bytes& inner, uint8_t options = 0x07) {
      const Bytes gz = Compressed(Compression::kGzip, inner);
      emit("legacy-v1-gzip-" + name, {Legacy(1, 1, 5, &gz)}, options);
    };
    wrap("empty", {});
    wrap("inner-cut", Bytes(inner1.begin(), inner1.begin() + 10));
    Bytes small = inner1;
    PutBe32(small, 8, 10);
    wrap("inner-size-10", small);
    Bytes big = inner1;
    PutBe32(big, 8, 5000);
    wrap("inner-size-beyond", big);
    wrap("inner-magic-0", inner0);
    Bytes v1small = LegacyMessage(1, 0, 0, nullptr, nullptr);
    PutBe32(v1small, 8, 16);
    wrap("inner-size-16-magic-1", v1small);
    Bytes trailing = LegacyMessage(1, 0, 0, &k, &v);
    trailing.push_back(0);
    PutBe32(trailing, 8, static_cast<uint32_t>(trailing.size() - 12));
    wrap("inner-trailing-byte", trailing);
    const Bytes nested_value = Compressed(Compression::kGzip, inner1);
    wrap("inner-compressed", Legacy(1, 1, 0, &nested_value));
    const Bytes vb = Str(v);
    wrap("inner-bad-crc", Cat({Legacy(1, 0, 0, &vb, true), LegacyMessage(1, 0, 1, &k, &v)}));
    wrap("inner-bad-crc-unenforced", Legacy(1, 0, 0, &vb, true), 0x06);
    Bytes overruns = LegacyMessage(1, 0, 0, &k, &v);
    PutBe32(overruns, overruns.size() - v.size() - 4, 100);
    wrap("inner-value-overruns", overruns);
  }
  // magic 0 LZ4 with a frame descriptor carrying content size and dictionary id: the
  // header checksum repair hashes 18 bytes (xxHash32's 16-byte stripes).
  {
    const std::string k = "k", v = "value";
    const Bytes inner0 = LegacyMessage(0, 0, 0, &k, &v);
    const Bytes f = Compressed(Compression::kLz4, inner0);
    // FLG: version 01, independent blocks, content size, dictionary id; BD as written.
    Bytes head = {0x04, 0x22, 0x4d, 0x18, 0x69, f[5]};
    for (int i = 0; i < 8; ++i) head.push_back(i == 0 ? static_cast<uint8_t>(inner0.size()) : 0);
    for (int i = 0; i < 4; ++i) head.push_back(0);
    head.push_back(static_cast<uint8_t>(
        compression_internal::XxHash32(head.data(), head.size(), 0) >> 8));
    const size_t hs = 4 + 2 + ((f[4] & 0x08) ? 8 : 0) + ((f[4] & 0x01) ? 4 : 0) + 1;
    const Bytes z = Cat({head, Bytes(f.begin() + static_cast<ptrdiff_t>(hs), f.end())});
    emit("legacy-v0-lz4-dict-id", {Legacy(0, 3, 0, &z)});
  }
  // More batches than the explanation shows (1000): 1001 empty batches, 61 KB.
  {
    std::vector<Bytes> empties(1001, Bytes(EmptyRecordBatch().begin(), EmptyRecordBatch().end()));
    emit("v2-1001-empty-batches", empties, 0x06);
  }
  // -- v2 batch faults outside the records.
  emit("v2-codec-5", {RawV2(5, n3, plain)});
  emit("v2-codec-7-transactional", {RawV2(0x17, n3, plain)});
  emit("v2-count-negative", {RawV2(0, -1, plain)});
  emit("v2-count-beyond-bytes", {RawV2(0, 1000, plain)});
  emit("v2-count-short", {RawV2(0, n3 + 1, plain)});
  emit("v2-count-long", {RawV2(0, n3 - 1, plain)});
  emit("v2-log-append-time", {RawV2(kAttrLogAppendTime, n3, plain)});
  emit("v2-delete-horizon", {RawV2(kAttrDeleteHorizon | 1, n3, Compressed(Compression::kGzip, plain))});
  {
    // 20 records (more than the explanation's 16 per batch), values that are text with
    // escapes, binary, and longer than the 64 bytes shown.
    static const std::string kLong(100, 'L');
    const std::string_view values[] = {"line\nbreak\ttab\rcr\"quote\\back", "\x01\x02\xff",
                                       kLong, ""};
    std::vector<Record> many(20);
    for (int i = 0; i < 20; ++i) {
      many[i].offset_delta = i;
      many[i].value = values[i % 4];
      many[i].key = values[(i + 1) % 4];
    }
    BatchHeader hm = h;
    hm.last_offset_delta = 19;
    emit("v2-twenty-records", {batch(hm, many)});
    hm.attributes = static_cast<int16_t>(Compression::kLz4);
    emit("v2-twenty-records-lz4", {batch(hm, many)});
  }
  // -- Records: every fault ReadRecord reports, each once where the fast path declines
  // and the reference path decides (strict), and under the Java quirks (options bit 3).
  {
    const Bytes nul = Varint(-1);
    const Bytes zero = Varint(0);
    auto one = [&](const std::string& name, const Bytes& rec, bool quirks_too = false) {
      emit("record-" + name, {RawV2(0, 1, rec)});
      if (quirks_too) emit("record-" + name + "-quirks", {RawV2(0, 1, rec)}, 0x0f);
    };
    one("length-negative", Cat({Varint(-3), Bytes(10, 0)}));
    one("length-beyond", RawRecord(0, Cat({nul, nul, zero}), 50));
    one("length-short-of-fields", RawRecord(0, Cat({nul, nul, zero}), -1));
    one("length-past-fields", Cat({RawRecord(0, Cat({nul, nul, zero, Bytes{0, 0}}))}));
    one("key-length-minus-2", RawRecord(0, Cat({Varint(-2), nul, zero})), true);
    one("value-length-minus-5", RawRecord(0, Cat({nul, Varint(-5), zero})), true);
    one("key-beyond-record", RawRecord(0, Cat({Varint(40), nul, zero})));
    one("header-count-negative", RawRecord(0, Cat({nul, nul, Varint(-2)})));
    one("header-count-beyond", RawRecord(0, Cat({nul, nul, Varint(30), Bytes{0, 0}})));
    one("header-key-length-negative", RawRecord(0, Cat({nul, nul, Varint(1), Varint(-1), nul})));
    one("header-key-invalid-utf8",
        RawRecord(0, Cat({nul, nul, Varint(1), VarBytes("k\xc0\xaf"), nul})), true);
    one("header-key-beyond", RawRecord(0, Cat({nul, nul, Varint(1), Varint(20), nul})));
    one("header-value-minus-2", RawRecord(0, Cat({nul, nul, Varint(1), VarBytes("h"), Varint(-2)})),
        true);
    one("headers", RawRecord(0, Cat({VarBytes("key"), VarBytes("v"), Varint(2), VarBytes("h1"),
                                     VarBytes("x"), VarBytes("h2"), nul})));
    // Non-canonical (overlong) varints: the fast path declines them, the reference path
    // rejects them strictly and reads them under the quirks.
    one("varint-overlong-length", Cat({Bytes{0x8c, 0x00}, Bytes{0}, zero, zero, nul, nul, zero}), true);
    one("varint-overlong-key-length", RawRecord(0, Cat({Bytes{0x81, 0x00}, nul, zero})), true);
    one("varint-overlong-header-count", RawRecord(0, Cat({nul, nul, Bytes{0x82, 0x00}, VarBytes("h"), nul})), true);
    one("varint-too-long", RawRecord(0, Cat({Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}, nul, zero})), true);
    one("varlong-timestamp-too-long",
        Cat({Varint(14), Bytes{0}, Bytes(10, 0xff), Bytes{0x01}, zero, nul}), true);
    one("truncated-varint-at-end", RawRecord(0, Cat({nul, nul, Bytes{0x80}})));
  }
  // -- Control batches: every marker and key fault (DecodeControlRecord).
  {
    const int16_t ctl = kAttrTransactional | kAttrControl;
    auto control = [&](const std::string& name, const std::optional<std::string>& key,
                       const std::optional<std::string>& value) {
      const Bytes k = key ? VarBytes(*key) : Varint(-1);
      const Bytes v = value ? VarBytes(*value) : Varint(-1);
      emit("control-" + name, {RawV2(ctl, 1, RawRecord(0, Cat({k, v, Varint(0)})))});
    };
    control("abort", ControlRecordKey(kControlAbort), EndTxnMarkerValue(3));
    control("type-5", ControlRecordKey(5), std::nullopt);
    control("key-null", std::nullopt, EndTxnMarkerValue(1));
    control("key-2-bytes", std::string("\0\0", 2), EndTxnMarkerValue(1));
    control("key-version-negative", ControlRecordKey(kControlCommit, -1), EndTxnMarkerValue(1));
    control("key-version-0-long", ControlRecordKey(kControlCommit) + "xx", EndTxnMarkerValue(1));
    control("key-version-1-long", ControlRecordKey(kControlCommit, 1) + "xx", EndTxnMarkerValue(1));
    control("value-null", ControlRecordKey(kControlCommit), std::nullopt);
    control("value-short", ControlRecordKey(kControlAbort), std::string("\0\0\0", 3));
    control("value-version-negative", ControlRecordKey(kControlCommit), EndTxnMarkerValue(1, -1));
    control("value-version-0-long", ControlRecordKey(kControlCommit), EndTxnMarkerValue(1) + "x");
    control("value-version-1-long", ControlRecordKey(kControlAbort), EndTxnMarkerValue(1, 1) + "x");
    BatchHeader hc = h;
    hc.attributes = ctl | static_cast<int16_t>(Compression::kGzip);
    hc.last_offset_delta = 0;
    Record marker;
    const std::string ck = ControlRecordKey(kControlAbort);
    const std::string cv = EndTxnMarkerValue(9);
    marker.key = ck;
    marker.value = cv;
    emit("control-gzip", {batch(hc, {marker})});
  }
}

void RecordCorpus(const fs::path& corpus, const fs::path& vectors) {
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
  RecordErrorSeeds(emit, batch, h, three);
  // The records fields of conformance/vectors/records.jsonl (every codec, accepted and
  // rejected by the frame decoders; here without the frame's policy), CRCs enforced.
  for (const RecordsVector& rv : ReadRecordsVectors(vectors / "records.jsonl")) {
    for (size_t i = 0; i < rv.records.size(); ++i) {
      if (rv.records[i].empty() || rv.records[i].size() + 1 > kRecordsMaxLen) continue;
      const std::string name =
          absl::StrFormat("rec-%s-v%d-%s-%s%s", rv.v.api, rv.v.version,
                          rv.v.request ? "request" : "response", rv.name,
                          i == 0 ? "" : absl::StrFormat("-%d", i));
      Bytes out = {0x07};
      out.insert(out.end(), rv.records[i].begin(), rv.records[i].end());
      Write(dir / name, out);
      ++n;
    }
  }
  std::printf("seedgen: %zu record_batch_fuzzer seeds\n", n);
}

}  // namespace
}  // namespace kwire

namespace kwire {
namespace {

// message_encode_fuzzer/gen-<Api>-<request|response>-<kind>: its input format (fuzz/
// message_encode_fuzzer.cc) for every API and direction: a random message made and
// encoded at the highest version ("same"), and one made at the highest and encoded at
// the lowest with refusals on ("refusals": absent fields, nulls, tags, long strings).
void EncodeCorpus(const fs::path& corpus) {
  const fs::path dir = corpus / "message_encode_fuzzer";
  Clean(dir);
  const auto apis = AllApis();
  for (size_t i = 0; i < apis.size(); ++i) {
    for (bool response : {false, true}) {
      const VersionRange r = apis[i].ops(response ? Direction::kResponse : Direction::kRequest)
                                 .spec->valid;
      const uint8_t hi = static_cast<uint8_t>(r.hi - r.lo);
      const uint8_t b0 = response ? 1 : 0;
      const Bytes same = {b0, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i), hi, hi, 4,
                          static_cast<uint8_t>(i), 0x5e, 0xed};
      const Bytes refusals = {static_cast<uint8_t>(b0 | 8), static_cast<uint8_t>(i >> 8),
                              static_cast<uint8_t>(i), hi, 0, 6, static_cast<uint8_t>(i), 0x0f,
                              0xf5};
      const std::string stem = absl::StrFormat("gen-%s-%s-", apis[i].name,
                                               response ? "response" : "request");
      Write(dir / (stem + "same"), same);
      Write(dir / (stem + "refusals"), refusals);
    }
  }
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
  kwire::RecordCorpus(corpus, vectors);
  kwire::EncodeCorpus(corpus);
  return 0;
}
