#include "fuzz/frame_mutator.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/schema/fill.h"

namespace kwire::fuzz {
namespace {

// A decoded fuzz input: the API, version, header and body of one frame.
struct Parsed {
  InputKind kind;
  int16_t api_key = 0;
  int16_t version = 0;
  RequestHeader request_header;
  ResponseHeader response_header;
  std::optional<AnyMessage> body;

  const MutateOps& header_ops() const {
    static const MutateOps* req = FindMutateOps(&RequestHeader::kMessage);
    static const MutateOps* resp = FindMutateOps(&ResponseHeader::kMessage);
    return kind == InputKind::kRequestFrame ? *req : *resp;
  }
  void* header() {
    return kind == InputKind::kRequestFrame ? static_cast<void*>(&request_header)
                                            : static_cast<void*>(&response_header);
  }
  int16_t header_version() const {
    return kind == InputKind::kRequestFrame ? RequestHeaderVersion(api_key, version)
                                            : ResponseHeaderVersion(api_key, version);
  }
  const MutateOps& body_ops() const { return *FindMutateOps(body->ops().spec); }
  VersionRange versions() const {
    const ApiInfo* api = FindApi(api_key);
    return kind == InputKind::kRequestFrame ? api->request_versions() : api->response_versions();
  }
};

int16_t Be16(const uint8_t* p) { return static_cast<int16_t>((p[0] << 8) | p[1]); }

std::optional<Parsed> Parse(InputKind kind, std::span<const uint8_t> in) {
  FrameOptions strict;
  FrameOptions java;
  java.decode.quirks = kQuirksJava;
  Parsed p{};
  p.kind = kind;
  if (kind == InputKind::kRequestFrame) {
    auto f = DecodeRequestFrame(in, strict);
    if (!f.ok()) f = DecodeRequestFrame(in, java);
    if (!f.ok()) return std::nullopt;
    p.api_key = f->api_key();
    p.version = f->api_version();
    p.request_header = std::move(f->header);
    p.body.emplace(std::move(f->body));
  } else {
    if (in.size() < kResponsePrefixSize) return std::nullopt;
    p.api_key = Be16(in.data());
    p.version = Be16(in.data() + 2);
    const auto frame = in.subspan(kResponsePrefixSize);
    auto f = DecodeResponseFrame(frame, p.api_key, p.version, strict);
    if (!f.ok()) f = DecodeResponseFrame(frame, p.api_key, p.version, java);
    if (!f.ok()) return std::nullopt;
    p.response_header = std::move(f->header);
    p.body.emplace(std::move(f->body));
  }
  return p;
}

// Mutated strings may be invalid UTF-8 (fuzz/mutate.h): written as they are, so that the
// targets see both the strict rejection and the kQuirkInvalidUtf8 round trip.
constexpr EncodeOptions kKeepInvalidUtf8{kQuirkInvalidUtf8};

absl::StatusOr<std::vector<uint8_t>> Serialize(const Parsed& p) {
  if (p.kind == InputKind::kRequestFrame) {
    RequestHeader h = p.request_header;
    h.request_api_key = p.api_key;
    h.request_api_version = p.version;
    return EncodeRequestFrame(h, *p.body, kKeepInvalidUtf8);
  }
  auto frame =
      EncodeResponseFrame(p.response_header, p.api_key, p.version, *p.body, kKeepInvalidUtf8);
  if (!frame.ok()) return frame;
  std::vector<uint8_t> out = {static_cast<uint8_t>(p.api_key >> 8),
                              static_cast<uint8_t>(p.api_key),
                              static_cast<uint8_t>(p.version >> 8),
                              static_cast<uint8_t>(p.version)};
  out.insert(out.end(), frame->begin(), frame->end());
  return out;
}

// A version near the current one (neighbours are the interesting boundaries: new
// fields, flexible versions, nullability changes) or anywhere in the range.
int16_t PickVersion(Mutator& mu, VersionRange r, int16_t current) {
  if (mu.Chance(60)) {
    const int16_t v = static_cast<int16_t>(current + (mu.Chance(50) ? 1 : -1));
    if (r.Contains(v)) return v;
  }
  return static_cast<int16_t>(r.lo + static_cast<int>(mu.Below(r.hi - r.lo + 1)));
}

// One structure-aware mutation of `p` (in place). False if nothing changed.
bool MutateStructure(Mutator& mu, Parsed& p) {
  const size_t r = mu.Below(100);
  if (r < 70) {  // body sites, sometimes several at once
    const size_t n = mu.Chance(30) ? 2 + mu.Below(3) : 1;
    bool any = false;
    for (size_t i = 0; i < n; ++i) any |= p.body_ops().mutate(mu, p.version, p.body->raw());
    return any;
  }
  if (r < 80) {  // header sites (correlation id, client id, header tagged fields)
    return p.header_ops().mutate(mu, p.header_version(), p.header());
  }
  if (r < 94) {  // another version of the same API, the message projected onto it
    const int16_t v = PickVersion(mu, p.versions(), p.version);
    if (v == p.version) return false;
    p.version = v;
    p.body_ops().project(v, p.body->raw());
    p.header_ops().project(p.header_version(), p.header());
    return true;
  }
  // Another API: a fresh minimal or random message, the header kept.
  const auto apis = AllApis();
  const ApiInfo& api = apis[mu.Below(apis.size())];
  const MessageOps& ops = api.ops(p.kind == InputKind::kRequestFrame ? Direction::kRequest
                                                                     : Direction::kResponse);
  p.api_key = api.api_key;
  p.version = PickVersion(mu, ops.spec->valid, ops.spec->valid.hi);
  p.body.emplace(ops);
  if (mu.Chance(50)) {
    FillRandom(mu.rng, p.version, *p.body);
  } else {
    FillMinimal(p.version, *p.body);
  }
  p.header_ops().project(p.header_version(), p.header());
  return true;
}

size_t ByteLevel(uint8_t* data, size_t size, size_t max_size, Mutator& mu,
                 ByteMutateFn byte_mutate) {
  ++GetMutatorStats().byte_level;
  if (byte_mutate != nullptr) return byte_mutate(data, size, max_size);
  if (size > 0) data[mu.Below(size)] ^= static_cast<uint8_t>(1u << mu.Below(8));
  return size;
}

}  // namespace

MutatorStats& GetMutatorStats() {
  static MutatorStats stats;
  return stats;
}

size_t MutateFrameInput(InputKind kind, uint8_t* data, size_t size, size_t max_size,
                        unsigned seed, ByteMutateFn byte_mutate) {
  MutatorStats& stats = GetMutatorStats();
  ++stats.calls;
  Mutator mu(seed, byte_mutate);
  mu.max_blob = std::clamp<size_t>(max_size / 4, 16, 4096);
  std::optional<Parsed> original = Parse(kind, {data, size});
  if (!original.has_value() || mu.Chance(12)) {
    if (original.has_value()) ++stats.decoded;
    return ByteLevel(data, size, max_size, mu, byte_mutate);
  }
  ++stats.decoded;
  for (int attempt = 0; attempt < 4; ++attempt) {
    // The first attempt mutates the parsed input itself (no deep copy of the message
    // per execution); a retry parses `data` again (unchanged until an attempt succeeds).
    std::optional<Parsed> reparsed;
    if (attempt > 0) {
      reparsed = Parse(kind, {data, size});
      if (!reparsed.has_value()) break;
    }
    Parsed& p = attempt == 0 ? *original : *reparsed;
    if (!MutateStructure(mu, p)) continue;
    auto encoded = Serialize(p);
    if (!encoded.ok()) {
      ++stats.encode_failed;
      continue;
    }
    if (encoded->size() > max_size) {
      ++stats.too_large;
      continue;
    }
    std::memcpy(data, encoded->data(), encoded->size());
    ++stats.structured;
    size_t n = encoded->size();
    // Now and then one byte-level step on top: a single corruption deep inside an
    // otherwise valid frame.
    if (mu.Chance(10) && byte_mutate != nullptr) n = byte_mutate(data, n, max_size);
    return n;
  }
  return ByteLevel(data, size, max_size, mu, byte_mutate);
}

size_t CrossOverFrameInputs(InputKind kind, const uint8_t* data1, size_t size1,
                            const uint8_t* data2, size_t size2, uint8_t* out, size_t max_out,
                            unsigned seed) {
  Mutator mu(seed);
  std::optional<Parsed> a = Parse(kind, {data1, size1});
  if (a.has_value()) {
    std::optional<Parsed> b = Parse(kind, {data2, size2});
    if (b.has_value() && a->api_key == b->api_key) {
      a->body_ops().crossover(mu, a->version, a->body->raw(), b->body->raw());
      auto encoded = Serialize(*a);
      if (encoded.ok() && encoded->size() <= max_out && !encoded->empty()) {
        std::memcpy(out, encoded->data(), encoded->size());
        return encoded->size();
      }
    }
  }
  // Byte splice: a prefix of the first input, then a suffix of the second.
  const size_t cut1 = mu.Below(size1 + 1);
  const size_t cut2 = mu.Below(size2 + 1);
  const size_t n1 = std::min(cut1, max_out);
  const size_t n2 = std::min(size2 - cut2, max_out - n1);
  if (n1 > 0) std::memcpy(out, data1, n1);
  if (n2 > 0) std::memcpy(out + n1, data2 + cut2, n2);
  return n1 + n2;
}

}  // namespace kwire::fuzz

// Called by the replay main's --mutate mode.
extern "C" void KwireFuzzPrintMutatorStats() {
  const kwire::fuzz::MutatorStats& s = kwire::fuzz::GetMutatorStats();
  std::printf(
      "mutator: %llu calls, %llu inputs decoded, %llu structure-aware outputs, %llu byte-level, "
      "%llu encode failures, %llu too large\n",
      static_cast<unsigned long long>(s.calls), static_cast<unsigned long long>(s.decoded),
      static_cast<unsigned long long>(s.structured), static_cast<unsigned long long>(s.byte_level),
      static_cast<unsigned long long>(s.encode_failed),
      static_cast<unsigned long long>(s.too_large));
}
