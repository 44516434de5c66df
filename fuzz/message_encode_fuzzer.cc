// message_encode_fuzzer: the encoder from the message side. The frame targets start from
// bytes, so they only ever encode messages that decoded; this target builds messages
// (codec/harness/fill.h's random or minimal instance, then fuzz/mutate.h's structure-aware
// mutations) at one version and encodes them at the same or another, reaching what no
// decoded message holds: fields absent at the version with non-default values, nulls
// where the version forbids them, tags in non-flexible versions, strings over 32,767
// bytes, unknown tags out of order, repeated or numbered like a known tag, a header
// naming another API, unsupported versions.
//
// Input (missing bytes read as 0):
//   byte 0  bit 0 response (else request); bit 1 minimal instance (else random);
//           bit 2 strict encode (else EncodeOptions with kQuirkInvalidUtf8);
//           bit 3 refusals on (Mutator::refusals, for the last mutation);
//           bit 4 the header or API key names another API
//   1–2     API (index into AllApis(), big-endian, modulo their number)
//   3       fill version (index into the message's valid versions, modulo)
//   4       encode version (same; 255 = one above the highest, unsupported)
//   5       number of mutations (low 4 bits)
//   6…      seed of the random choices (std::seed_seq over these bytes)
//
// Invariants (a violation aborts):
//   * an encode that succeeds decodes (records opaque, kQuirkInvalidUtf8 when the encode
//     allowed it) and re-encodes to the same bytes: the encoder never writes what the
//     decoder refuses or reads differently;
//   * an encode that fails carries its Error (ErrorFromStatus): an encode kind, the
//     Status code of that kind, the Error's text as the message, and a field path for
//     field-level kinds;
//   * a message filled and mutated at the version it is encoded at, without refusals and
//     with a matching header, encodes (strictly: or fails only for invalid UTF-8) and
//     decodes to an equal header and body (float64 bit for bit);
//   * ProjectToVersion (the frame mutator's way to change version) makes any such message
//     encodable at the new version, with the same equality;
//   * the registry finds each API by key and by name; a copy of a message is equal to it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "codec/harness/fill.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/wire/error.h"
#include "fuzz/frame_parts.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/mutate.h"

namespace kwire::fuzz {
namespace {

// Mutation stops when the message has more sites (fields and elements) than this.
constexpr size_t kMaxSites = 100000;

struct Choices {
  bool response = false;
  bool minimal = false;
  bool strict = false;
  bool refusals = false;
  bool other_api = false;
  size_t api = 0;
  uint8_t fill_version = 0;
  uint8_t encode_version = 0;
  int mutations = 0;
  std::span<const uint8_t> seed;
};

Choices Read(std::span<const uint8_t> in) {
  auto at = [&](size_t i) -> uint8_t { return i < in.size() ? in[i] : 0; };
  Choices c;
  c.response = at(0) & 1;
  c.minimal = at(0) & 2;
  c.strict = at(0) & 4;
  c.refusals = at(0) & 8;
  c.other_api = at(0) & 16;
  c.api = (size_t{at(1)} << 8) | at(2);
  c.fill_version = at(3);
  c.encode_version = at(4);
  c.mutations = at(5) & 15;
  c.seed = in.size() > 6 ? in.subspan(6) : std::span<const uint8_t>();
  return c;
}

int16_t PickVersion(VersionRange r, uint8_t b) {
  if (b == 255) return static_cast<int16_t>(r.hi + 1);
  return static_cast<int16_t>(r.lo + b % (r.hi - r.lo + 1));
}

bool IsEncodeKind(ErrorKind k) {
  switch (k) {
    case ErrorKind::kStringTooLong:
    case ErrorKind::kNonDefaultField:
    case ErrorKind::kNullNotAllowed:
    case ErrorKind::kInvalidUtf8:
    case ErrorKind::kTagOutOfOrder:
    case ErrorKind::kTagDuplicate:
    case ErrorKind::kUnknownApiKey:
    case ErrorKind::kUnsupportedVersion:
    case ErrorKind::kInvalidValue:
      return true;
    default:
      return false;
  }
}

bool IsFieldKind(ErrorKind k) {
  return k == ErrorKind::kStringTooLong || k == ErrorKind::kNonDefaultField ||
         k == ErrorKind::kNullNotAllowed || k == ErrorKind::kInvalidUtf8 ||
         k == ErrorKind::kTagOutOfOrder || k == ErrorKind::kTagDuplicate;
}

void CheckRefusal(const absl::Status& st, const char* what) {
  const std::optional<Error> e = ErrorFromStatus(st);
  KWIRE_FUZZ_CHECK(e.has_value(), "%s: a refusal without its Error: %s", what, st.ToString());
  KWIRE_FUZZ_CHECK(IsEncodeKind(e->kind), "%s: refused with a decode kind: %s", what,
                   e->ToString());
  KWIRE_FUZZ_CHECK(st.code() == ErrorKindStatusCode(e->kind), "%s: status code of %s",
                   what, e->ToString());
  KWIRE_FUZZ_CHECK(st.message() == e->ToString(), "%s: message '%s' but Error '%s'", what,
                   st.message(), e->ToString());
  KWIRE_FUZZ_CHECK(!IsFieldKind(e->kind) || !e->path.empty(), "%s: no field path: %s", what,
                   e->ToString());
}

// The frame decoded again: opaque records (this target is about the message grammar;
// record batches are record_batch_fuzzer's) and invalid UTF-8 when the encode kept it.
// Checks that it decodes and re-encodes to the same bytes; returns whether the decoded
// header and body equal `s`'s.
bool CheckDecodes(const FrameParts& s, int16_t version, const EncodeOptions& eo,
                  const std::vector<uint8_t>& bytes) {
  FrameOptions o;
  o.records_mode = RecordsMode::kOpaque;
  o.quirks = eo.quirks & kQuirkInvalidUtf8;
  const char* name = s.body->spec().name;
  // An encode that succeeded named the body's own API (the encoder refuses others).
  auto back = FrameParts::Decode(s.response, bytes, s.api_key, version, o);
  KWIRE_FUZZ_CHECK(back.ok(), "%s v%d encoded, but its encoding does not decode: %s\n%s", name,
                   version, back.status().ToString(), Hex(bytes));
  auto again = back->Encode(eo);
  KWIRE_FUZZ_CHECK(again.ok() && *again == bytes, "%s v%d: decode then encode differs: %s", name,
                   version,
                   again.ok() ? ShowDifference(bytes, *again) : again.status().ToString());
  return back->BitwiseEquals(s);
}

// Encodes `s` at `version` with its header naming `key`; when `must_encode`, the encode
// must succeed (a strict one may refuse invalid UTF-8 only) and decode to `s`.
void EncodeAndCheck(FrameParts& s, int16_t key, int16_t version, const EncodeOptions& eo,
                    bool must_encode, const char* what) {
  auto bytes = s.EncodeAs(key, version, eo);
  const char* name = s.body->spec().name;
  if (!bytes.ok()) {
    CheckRefusal(bytes.status(), what);
    const bool utf8_refused = (eo.quirks & kQuirkInvalidUtf8) == 0 &&
                              ErrorFromStatus(bytes.status())->kind == ErrorKind::kInvalidUtf8;
    KWIRE_FUZZ_CHECK(!must_encode || utf8_refused,
                     "%s: %s v%d made at its version does not encode: %s", what, name, version,
                     bytes.status().ToString());
    return;
  }
  const bool same = CheckDecodes(s, version, eo, *bytes);
  KWIRE_FUZZ_CHECK(!must_encode || same, "%s: %s v%d decodes to another message", what, name,
                   version);
}

void Check(std::span<const uint8_t> in) {
  const Choices c = Read(in);
  const std::span<const ApiInfo> apis = AllApis();
  const ApiInfo& api = apis[c.api % apis.size()];
  KWIRE_FUZZ_CHECK(FindApi(api.api_key) == &api && FindApiByName(api.name) == &api,
                   "the registry does not find %s (key %d)", api.name, api.api_key);
  const MessageOps& ops = api.ops(c.response ? Direction::kResponse : Direction::kRequest);
  const VersionRange valid = ops.spec->valid;
  const int16_t fill_version = PickVersion(valid, static_cast<uint8_t>(c.fill_version % 255));
  const int16_t version = PickVersion(valid, c.encode_version);

  std::seed_seq seq(c.seed.begin(), c.seed.end());
  Mutator mu(0);
  mu.rng.seed(seq);

  FrameParts s;
  s.response = c.response;
  s.api_key = api.api_key;
  s.version = fill_version;
  s.body.emplace(ops);
  const int16_t fill_header_version = s.header_version();
  if (c.minimal) {
    FillMinimal(fill_version, *s.body);
  } else {
    FillRandom(mu.rng, fill_version, *s.body);
    if (c.response) {
      FillRandom(mu.rng, fill_header_version,
                 ResponseHeader::kMessage.flexible.Contains(fill_header_version),
                 s.response_header);
    } else {
      FillRandom(mu.rng, fill_header_version,
                 RequestHeader::kMessage.flexible.Contains(fill_header_version),
                 s.request_header);
    }
  }
  const MutateOps& body_ops = *FindMutateOps(ops.spec);
  for (int i = 0; i < c.mutations; ++i) {
    // Bounded memory: array mutations multiply elements (up to 256 per array, nested
    // arrays multiply again), so mutating stops at kMaxSites; strings stay within
    // max_blob (512) except the 32,768-byte ones of the refusals, which only the last
    // mutation makes (no later array copy can multiply them).
    if (body_ops.count_sites(fill_version, s.body->raw()) > kMaxSites) break;
    mu.refusals = c.refusals && i == c.mutations - 1;
    if (mu.Chance(85)) {
      body_ops.mutate(mu, fill_version, s.body->raw());
    } else {
      s.header_ops().mutate(mu, fill_header_version, s.header());
    }
  }
  {
    const AnyMessage copy = *s.body;
    KWIRE_FUZZ_CHECK(body_ops.bitwise_equal(copy.raw(), s.body->raw()), "a copy of %s differs",
                     ops.spec->name);
  }

  // The header or API key names another API (or none): refused.
  int16_t key = api.api_key;
  if (c.other_api) {
    key = mu.Chance(20) ? int16_t{-1}
                        : apis[(c.api + 1 + mu.Below(apis.size() - 1)) % apis.size()].api_key;
  }
  const EncodeOptions eo{c.strict ? 0u : kQuirkInvalidUtf8};
  const bool supported = valid.Contains(version);
  const bool consistent = !c.refusals && !c.other_api;
  EncodeAndCheck(s, key, version, eo, consistent && supported && version == fill_version,
                 "as made");
  if (!supported || version == fill_version) return;
  // Projected to the encode version: encodable by construction (the frame mutator's
  // promise), unless refusals or another API were asked for.
  s.version = version;
  body_ops.project(version, s.body->raw());
  s.header_ops().project(s.header_version(), s.header());
  EncodeAndCheck(s, key, version, eo, consistent, "projected");
}

}  // namespace
}  // namespace kwire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kwire::fuzz::Check({data, size});
  return 0;
}
