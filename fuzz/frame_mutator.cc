#include "fuzz/frame_mutator.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "codec/harness/fill.h"
#include "codec/protocol/registry.h"
#include "fuzz/frame_parts.h"

namespace kwire::fuzz {
namespace {

int16_t Be16(const uint8_t* p) { return static_cast<int16_t>((p[0] << 8) | p[1]); }

// A fuzz input as FrameParts: decoded strictly, else with every Java quirk; nullopt when
// neither decodes.
std::optional<FrameParts> Parse(InputKind kind, std::span<const uint8_t> in) {
  const bool response = kind == InputKind::kResponseInput;
  int16_t key = 0;
  int16_t version = 0;
  std::span<const uint8_t> frame = in;
  if (response) {
    if (in.size() < kResponsePrefixSize) return std::nullopt;
    key = Be16(in.data());
    version = Be16(in.data() + 2);
    frame = in.subspan(kResponsePrefixSize);
  }
  for (const uint32_t quirks : {0u, kQuirksJava}) {
    FrameOptions o;
    o.quirks = quirks;
    auto p = FrameParts::Decode(response, frame, key, version, o);
    if (p.ok()) return std::move(*p);
  }
  return std::nullopt;
}

// Mutated strings may be invalid UTF-8 (fuzz/mutate.h): written as they are, so that the
// targets see both the strict rejection and the kQuirkInvalidUtf8 round trip.
constexpr EncodeOptions kKeepInvalidUtf8{kQuirkInvalidUtf8};

// The fuzz input of `p`: its frame, after the API key and version for a response.
absl::StatusOr<std::vector<uint8_t>> Serialize(FrameParts& p) {
  auto frame = p.Encode(kKeepInvalidUtf8);
  if (!frame.ok() || !p.response) return frame;
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
bool MutateStructure(Mutator& mu, FrameParts& p) {
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
  const MessageOps& ops = api.ops(p.response ? Direction::kResponse : Direction::kRequest);
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
  std::optional<FrameParts> original = Parse(kind, {data, size});
  if (!original.has_value() || mu.Chance(12)) {
    if (original.has_value()) ++stats.decoded;
    return ByteLevel(data, size, max_size, mu, byte_mutate);
  }
  ++stats.decoded;
  for (int attempt = 0; attempt < 4; ++attempt) {
    // The first attempt mutates the parsed input itself (no deep copy of the message
    // per execution); a retry parses `data` again (unchanged until an attempt succeeds).
    std::optional<FrameParts> reparsed;
    if (attempt > 0) {
      reparsed = Parse(kind, {data, size});
      if (!reparsed.has_value()) break;
    }
    FrameParts& p = attempt == 0 ? *original : *reparsed;
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
  std::optional<FrameParts> a = Parse(kind, {data1, size1});
  if (a.has_value()) {
    std::optional<FrameParts> b = Parse(kind, {data2, size2});
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
