// Structure-aware mutation of decoded messages, for the frame fuzzers' custom mutators.
//
// Written once, like the codec's own visitors (codec/harness/fill.h): a visitor over the
// FieldSpec list of every generated struct (VisitFields), instantiated per message type
// in the generated mutate_table_*.cc shards (tools/gen_ops_table.py) and reached
// at run time through FindMutateOps(spec).
//
// One mutation picks one "site" uniformly among all sites of a message at its version:
//   scalar fields       interesting values (0, −1, limits, varint boundaries), ±small
//                       deltas, bit flips, random values; bools toggled; float64 NaN/inf/−0
//   string/bytes        cleared, byte-mutated (LLVMFuzzerMutate), truncated, doubled,
//                       replaced by tokens; strings stay ≤ 32767 bytes and sometimes
//                       get an ill-formed UTF-8 sequence (stray continuation, overlong,
//                       surrogate, above U+10FFFF, truncated, F5..FF) inserted
//   records             RecordBatch v2 aware: header fields (magic, attributes / codec,
//                       counts, offsets) rewritten, bytes mutated, batches appended or
//                       cut; batchLength and CRC-32C then recomputed (FixRecordBatches)
//   arrays              cleared, grown (new random element or copy), shrunk, reordered
//   nullable values     null ↔ non-null (a new value is filled at random)
//   tagged fields       present ↔ absent (known tags, KIP-482)
//   tagged sections     unknown tags added (small, large, known-at-other-versions
//                       numbers), removed, payload-mutated (flexible versions only)
// Nothing touches a field absent at the version, so the result always encodes: lengths,
// counts and tag sizes are recomputed by the encoder. Version changes go through
// ProjectToVersion (fields absent at the new version reset to their defaults, null made
// non-null where the new version forbids it, tags dropped in non-flexible versions).
#ifndef KWIRE_FUZZ_MUTATE_H_
#define KWIRE_FUZZ_MUTATE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/harness/fill.h"
#include "codec/records/crc32c.h"
#include "codec/schema/message.h"
#include "codec/schema/min_size.h"
#include "codec/schema/spec.h"

namespace kwire::fuzz {

/// Byte-level mutation of `data[0, size)` in a buffer of `max_size` bytes; returns the
/// new size. libFuzzer's LLVMFuzzerMutate in fuzz builds, a simple one in replay builds.
using ByteMutateFn = size_t (*)(uint8_t* data, size_t size, size_t max_size);

/// Random source and limits of one mutation.
struct Mutator {
  std::mt19937_64 rng;
  ByteMutateFn byte_mutate = nullptr;
  /// Largest string/bytes value a mutation creates.
  size_t max_blob = 512;
  /// Also make values no encoder accepts (message_encode_fuzzer: the encoder's
  /// refusals): strings of 32,768 bytes (whatever max_blob), unknown tags out of order,
  /// repeated, or numbered like a known tagged field. Off for the frame mutator, whose
  /// results always encode.
  bool refusals = false;

  explicit Mutator(uint64_t seed, ByteMutateFn fn = nullptr) : rng(seed), byte_mutate(fn) {}
  uint64_t Next() { return rng(); }
  /// Uniform in [0, n); 0 when n == 0.
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }
  bool Chance(int percent) { return static_cast<int>(rng() % 100) < percent; }
};

/// Recomputes batchLength and CRC-32C of every RecordBatch v2 in `records` (batches
/// back to back; a batchLength that overruns the field is cut to what is left). Stops
/// at the first batch that is not magic 2 or is shorter than its 61-byte header.
inline void FixRecordBatches(std::string& records) {
  size_t pos = 0;
  auto get32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, records.data() + at, 4);
    return __builtin_bswap32(v);
  };
  auto put32 = [&](size_t at, uint32_t v) {
    v = __builtin_bswap32(v);
    std::memcpy(records.data() + at, &v, 4);
  };
  while (records.size() - pos >= 61 && records[pos + 16] == 2) {
    size_t len = get32(pos + 8);
    if (len > records.size() - pos - 12 || len < 49) len = records.size() - pos - 12;
    put32(pos + 8, static_cast<uint32_t>(len));
    put32(pos + 17, Crc32c(records.data() + pos + 21, len - 9));
    pos += 12 + len;
  }
}

namespace mutate_internal {

template <class T>
struct IsVector : std::false_type {};
template <class E>
struct IsVector<std::vector<E>> : std::true_type {};
template <class T>
struct IsOptional : std::false_type {};
template <class X>
struct IsOptional<std::optional<X>> : std::true_type {};

// State of one walk over a message: count sites (mutating == false) or mutate the
// `target`-th one.
struct Walk : VersionRule {  // the message's version rule (codec/schema/spec.h)
  Mutator& mu;
  bool mutating = false;
  size_t target = 0;
  size_t seen = 0;
  bool done = false;

  // Every site calls Hit once: true at the site to mutate.
  bool Hit() {
    const bool hit = mutating && !done && seen == target;
    ++seen;
    if (hit) done = true;
    return hit;
  }
};

// ---- Leaf mutations.
template <class T>
T MutateInteger(Mutator& mu, T v) {
  using U = std::make_unsigned_t<T>;
  static constexpr int64_t kInteresting[] = {
      0,    1,     -1,    2,      0x7f,   0x80,       0xff,       0x100,     0x3fff,
      0x4000, 0x7fff, 0x8000, 0xffff, 0x1fffff, 0x200000, 0x0fffffff, 0x7fffffff, 32767,
      -2,   -128,  -32768, INT32_MIN, INT64_MIN, INT64_MAX, 1000,   16,         64};
  switch (mu.Below(7)) {
    case 0:
    case 1:
      return static_cast<T>(kInteresting[mu.Below(std::size(kInteresting))]);
    case 2:  // small delta, wrapping
      return static_cast<T>(static_cast<U>(static_cast<U>(v) +
                                           static_cast<U>(mu.Below(17)) - U{8}));
    case 3:
      return static_cast<T>(static_cast<U>(v) ^ static_cast<U>(U{1} << mu.Below(sizeof(T) * 8)));
    case 4:
      return static_cast<T>(mu.Next());
    case 5:
      return std::numeric_limits<T>::max();
    default:
      return std::numeric_limits<T>::min();
  }
}

inline double MutateDouble(Mutator& mu, double v) {
  static constexpr double kInteresting[] = {0.0,
                                            -0.0,
                                            1.0,
                                            -1.0,
                                            0.5,
                                            std::numeric_limits<double>::infinity(),
                                            -std::numeric_limits<double>::infinity(),
                                            std::numeric_limits<double>::quiet_NaN(),
                                            std::numeric_limits<double>::denorm_min(),
                                            std::numeric_limits<double>::max(),
                                            std::numeric_limits<double>::lowest()};
  if (mu.Chance(60)) return kInteresting[mu.Below(std::size(kInteresting))];
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  bits = mu.Chance(50) ? bits ^ (uint64_t{1} << mu.Below(64)) : mu.Next();
  std::memcpy(&v, &bits, 8);
  return v;
}

inline void MutateUuid(Mutator& mu, Uuid& u) {
  switch (mu.Below(4)) {
    case 0:
      u = Uuid{};
      break;
    case 1:
      for (uint8_t& b : u.bytes) b = static_cast<uint8_t>(mu.Next());
      break;
    case 2:
      u.bytes[mu.Below(16)] ^= static_cast<uint8_t>(1u << mu.Below(8));
      break;
    default:
      u.bytes.fill(0xff);
      break;
  }
}

// Byte-level mutation of a string through mu.byte_mutate (or a bit flip without it).
inline void ByteMutate(Mutator& mu, std::string& s, size_t cap) {
  cap = std::max(cap, s.size());
  if (mu.byte_mutate == nullptr || cap == 0) {
    if (!s.empty()) s[mu.Below(s.size())] ^= static_cast<char>(1u << mu.Below(8));
    return;
  }
  std::string buf = s;
  buf.resize(cap);
  const size_t n = mu.byte_mutate(reinterpret_cast<uint8_t*>(buf.data()), s.size(), cap);
  buf.resize(std::min(n, cap));
  s = std::move(buf);
}

// A string (≤ 32767 bytes) or bytes value.
inline void MutateBlob(Mutator& mu, bool is_string, std::string& s) {
  const size_t cap = is_string ? std::min<size_t>(mu.max_blob, 0x7fff) : mu.max_blob;
  if (is_string && mu.refusals && mu.Chance(20)) {  // just over the limit
    s.assign(0x8000 + mu.Below(2), 'k');
    return;
  }
  static const char* const kTokens[] = {"", "\0", "\xff", "\xc3\x28", "__consumer_offsets",
                                        "topic", "-1", "%s%n", "\xef\xbf\xbd", "PLAIN",
                                        "SCRAM-SHA-256", "range", "localhost:9092",
                                        "\xc0\xaf", "\xf0\x9f\x98\x80"};
  // Ill-formed UTF-8 (RFC 3629): stray continuation, overlong 2/3/4-byte, surrogate,
  // above U+10FFFF, truncated 3-byte, bytes that never start a sequence.
  static const char* const kBadUtf8[] = {"\x80",         "\xc0\xaf",         "\xe0\x80\xaf",
                                         "\xf0\x80\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                         "\xe2\x82",     "\xf5",             "\xff"};
  if (is_string && mu.Chance(10)) {
    const size_t at = mu.Below(s.size() + 1);
    s.insert(at, kBadUtf8[mu.Below(std::size(kBadUtf8))]);
    if (s.size() > cap) s.resize(cap);
    return;
  }
  switch (mu.Below(6)) {
    case 0:
      s.clear();
      break;
    case 1:
    case 2:
      ByteMutate(mu, s, cap);
      break;
    case 3:
      s.resize(mu.Below(s.size() + 1));
      break;
    case 4:
      s = kTokens[mu.Below(std::size(kTokens))];
      if (s.empty() && mu.Chance(50)) s.assign(1, '\0');
      break;
    default:
      s += s.empty() ? std::string(1 + mu.Below(32), 'k') : s;
      if (s.size() > cap) s.resize(cap);
      break;
  }
}

// A records value, RecordBatch v2 aware (see FixRecordBatches).
inline void MutateRecords(Mutator& mu, std::string& r) {
  auto put = [&](size_t at, const void* p, size_t n) {
    if (at + n <= r.size()) std::memcpy(r.data() + at, p, n);
  };
  switch (mu.Below(8)) {
    case 0:
      r = EmptyRecordBatch();
      break;
    case 1:
      r.clear();
      break;
    case 2:  // another batch after the last one (cap the size)
      if (r.size() < mu.max_blob) r += EmptyRecordBatch();
      break;
    case 3:  // a partial batch at the end (Fetch responses may end with one)
      r.resize(mu.Below(r.size() + 1));
      return;  // no fix-up: keep the cut
    case 4: {  // a header field of the first batch
      static constexpr struct { size_t at, size; } kFields[] = {
          {0, 8}, {12, 4}, {16, 1}, {21, 2}, {23, 4}, {27, 8}, {35, 8},
          {43, 8}, {51, 2}, {53, 4}, {57, 4}};
      const auto f = kFields[mu.Below(std::size(kFields))];
      if (f.at == 21) {  // attributes: compression codec, transactional, control bits
        const uint16_t attr = static_cast<uint16_t>(mu.Below(8) | (mu.Below(8) << 3));
        const uint8_t be[2] = {static_cast<uint8_t>(attr >> 8), static_cast<uint8_t>(attr)};
        put(21, be, 2);
      } else if (f.size == 1) {
        const uint8_t magic = static_cast<uint8_t>(mu.Chance(70) ? 2 : mu.Below(4));
        put(f.at, &magic, 1);
      } else {
        uint64_t v = mu.Chance(50) ? mu.Below(4) : mu.Next();
        if (mu.Chance(20)) v = ~uint64_t{0};  // −1
        uint8_t be[8];
        for (size_t i = 0; i < f.size; ++i) be[i] = static_cast<uint8_t>(v >> (8 * (f.size - 1 - i)));
        put(f.at, be, f.size);
      }
      break;
    }
    default:
      ByteMutate(mu, r, std::max(mu.max_blob, r.size() + 64));
      break;
  }
  if (mu.Chance(90)) FixRecordBatches(r);
}

template <KafkaStruct S>
void WalkStruct(Walk& w, S& s);

// A new value for a field (or array element), filled at random at the walk's version.
template <class T>
void FillNew(Walk& w, const FieldSpec& f, T& v) {
  schema_internal::FillRandomValue(w.mu.rng, static_cast<const VersionRule&>(w), f, v);
}

template <class E>
void MutateArray(Walk& w, const FieldSpec& f, std::vector<E>& v) {
  Mutator& mu = w.mu;
  switch (mu.Below(6)) {
    case 0:
      v.clear();
      break;
    case 1:  // a new random element at a random position
      if (v.size() < 256) {
        E e{};
        FillNew(w, f, e);
        v.insert(v.begin() + static_cast<ptrdiff_t>(mu.Below(v.size() + 1)), std::move(e));
      }
      break;
    case 2:  // a copy of an element
      if (!v.empty() && v.size() < 256) {
        E e = v[mu.Below(v.size())];
        v.insert(v.begin() + static_cast<ptrdiff_t>(mu.Below(v.size() + 1)), std::move(e));
      }
      break;
    case 3:
      if (!v.empty()) v.erase(v.begin() + static_cast<ptrdiff_t>(mu.Below(v.size())));
      break;
    case 4:
      if (v.size() >= 2) std::swap(v[mu.Below(v.size())], v[mu.Below(v.size())]);
      break;
    default:  // many elements (array counts, minimum sizes)
      if (v.empty()) {
        v.resize(1 + mu.Below(8));
        for (E& e : v) FillNew(w, f, e);
      } else {
        const size_t n = std::min<size_t>(v.size() * (2 + mu.Below(7)), 256);
        for (size_t i = v.size(); i < n; ++i) v.push_back(v[i % v.size()]);
      }
      break;
  }
}

// Visits one value (field or element) of wire kind `kind`.
template <class T>
void WalkValue(Walk& w, const FieldSpec& f, FieldType kind, T& v) {
  if (w.done) return;
  if constexpr (std::is_same_v<T, bool>) {
    if (w.Hit()) v = !v;
  } else if constexpr (std::is_same_v<T, double>) {
    if (w.Hit()) v = MutateDouble(w.mu, v);
  } else if constexpr (std::is_integral_v<T>) {
    if (w.Hit()) v = MutateInteger(w.mu, v);
  } else if constexpr (std::is_same_v<T, Uuid>) {
    if (w.Hit()) MutateUuid(w.mu, v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (w.Hit()) MutateBlob(w.mu, kind == FieldType::kString, v);
  } else if constexpr (std::is_same_v<T, Records>) {
    if (w.Hit()) {
      MutateRecords(w.mu, v.mutable_bytes());  // a borrowed payload is copied first
    }
  } else if constexpr (KafkaStruct<T>) {
    WalkStruct(w, v);
  } else if constexpr (IsOptional<T>::value) {
    if (w.Nullable(f) && w.Hit()) {
      if (v.has_value()) {
        v.reset();
      } else {
        FillNew(w, f, v.emplace());
      }
      return;
    }
    if (v.has_value()) WalkValue(w, f, kind, *v);
  } else {  // std::vector<E>
    if (w.Hit()) {
      MutateArray(w, f, v);
      return;
    }
    for (auto& e : v) {
      if (w.done) return;
      WalkValue(w, f, f.element, e);
    }
  }
}

struct FieldWalker {
  Walk& w;
  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    if (w.done || !w.Present(f)) return;
    if constexpr (kIsTagged<T>) {
      if (!w.Tagged(f)) return;
      if (w.Hit()) {
        if (value.has_value()) {
          value.reset();
        } else {
          FillNew(w, f, value.emplace());
        }
        return;
      }
      if (value.has_value()) WalkValue(w, f, f.type, *value);
    } else {
      WalkValue(w, f, f.type, value);
    }
  }
};

// Whether `tag` is the tag of a tagged field of S at `version`: such a number must not be
// an unknown tag (the encoder refuses it, kTagDuplicate). The mutator's additions and
// ProjectStruct's version change both ask here.
template <KafkaStruct S>
bool IsKnownTag(VersionRule at, uint32_t tag) {
  for (const FieldSpec& f : S::kFields) {
    if (at.TagNames(f, tag)) return true;
  }
  return false;
}

template <KafkaStruct S>
void MutateUnknownTags(Walk& w, S& s) {
  Mutator& mu = w.mu;
  UnknownTaggedFields& u = s.unknown_tagged_fields;
  if (mu.refusals && mu.Chance(30)) {  // tags an encoder must refuse
    switch (mu.Below(3)) {
      case 0:  // a lower tag after the last one
        u.push_back({u.empty() ? 0u : u.back().tag - std::min<uint32_t>(u.back().tag, 1 + mu.Below(3)), "r"});
        break;
      case 1:  // a repeated tag
        if (!u.empty()) u.push_back(u[mu.Below(u.size())]);
        break;
      default:  // the number of a tagged field of the struct at this version, as an unknown tag
        for (const FieldSpec& f : S::kFields) {
          if (f.IsTagged() && w.Present(f) && w.Tagged(f) && mu.Chance(50)) {
            u.push_back({static_cast<uint32_t>(f.tag), ""});
            break;
          }
        }
        break;
    }
    return;
  }
  const size_t op = u.empty() ? 0 : mu.Below(4);
  if (op == 0) {  // add one
    uint32_t tag;
    switch (mu.Below(3)) {
      case 0:
        tag = static_cast<uint32_t>(mu.Below(8));  // near (or equal to) known tag numbers
        break;
      case 1:
        tag = static_cast<uint32_t>(mu.Below(20000));
        break;
      default:
        tag = 0xffffffffu - static_cast<uint32_t>(mu.Below(4));  // 5-byte uvarints
        break;
    }
    if (IsKnownTag<S>(w, tag)) return;
    auto it = std::lower_bound(u.begin(), u.end(), tag,
                               [](const UnknownTaggedField& x, uint32_t t) { return x.tag < t; });
    if (it != u.end() && it->tag == tag) return;
    UnknownTaggedField field{tag, std::string(mu.Below(9), '\0')};
    for (char& c : field.data) c = static_cast<char>(mu.Next());
    u.insert(it, std::move(field));
  } else if (op == 1) {
    u.erase(u.begin() + static_cast<ptrdiff_t>(mu.Below(u.size())));
  } else if (op == 2) {
    ByteMutate(mu, u[mu.Below(u.size())].data, 64);
  } else {
    u.clear();
  }
}

template <KafkaStruct S>
void WalkStruct(Walk& w, S& s) {
  FieldWalker fw{w};
  S::VisitFields(fw, s);
  if (w.flexible && !w.done && w.Hit()) MutateUnknownTags(w, s);
}

// ---- Projection to another version (its VersionRule: codec/schema/spec.h).
template <KafkaStruct S>
void ProjectStruct(VersionRule at, S& s);

template <class T>
void ProjectValue(VersionRule at, const FieldSpec& f, T& v) {
  if constexpr (KafkaStruct<T>) {
    ProjectStruct(at, v);
  } else if constexpr (IsOptional<T>::value) {
    if (!v.has_value() && !at.Nullable(f)) v.emplace();
    if (v.has_value()) ProjectValue(at, f, *v);
  } else if constexpr (IsVector<T>::value) {
    for (auto& e : v) ProjectValue(at, f, e);
  }
}

struct Projector {
  VersionRule at;
  template <class T>
  void operator()(const FieldSpec& f, T& value, const T& default_value) {
    if (!at.Present(f)) {
      value = default_value;
      return;
    }
    if constexpr (kIsTagged<T>) {
      if (!at.Tagged(f)) {
        value.reset();
      } else if (value.has_value()) {
        ProjectValue(at, f, *value);
      }
    } else {
      ProjectValue(at, f, value);
    }
  }
};

template <KafkaStruct S>
void ProjectStruct(VersionRule at, S& s) {
  Projector p{at};
  S::VisitFields(p, s, schema_internal::DefaultInstance<S>());
  if (!at.flexible) {
    s.unknown_tagged_fields.clear();
    return;
  }
  // An unknown tag at the old version may be a known tagged field at the new one
  // (VoteResponse's tag 0 is NodeEndpoints from v1): dropped, as the encoder refuses it.
  std::erase_if(s.unknown_tagged_fields,
                [&](const UnknownTaggedField& u) { return IsKnownTag<S>(at, u.tag); });
}

// ---- Crossover: each field present at the version is kept or taken from the other
// message; structs and arrays of structs are crossed recursively.
template <KafkaStruct S>
void CrossStruct(Mutator& mu, VersionRule at, S& a, const S& b);

struct Crosser {
  Mutator& mu;
  VersionRule at;
  template <class T>
  void operator()(const FieldSpec& f, T& a, const T& b) {
    if (!at.Present(f) || mu.Chance(50)) return;
    if constexpr (KafkaStruct<T>) {
      CrossStruct(mu, at, a, b);
    } else if constexpr (IsVector<T>::value) {
      if constexpr (KafkaStruct<typename T::value_type>) {
        if (!a.empty() && !b.empty() && mu.Chance(50)) {
          for (size_t i = 0; i < a.size() && i < b.size(); ++i) CrossStruct(mu, at, a[i], b[i]);
          return;
        }
      }
      if (mu.Chance(50)) {
        a = b;
      } else {
        a.insert(a.end(), b.begin(), b.begin() + static_cast<ptrdiff_t>(std::min<size_t>(b.size(), 64)));
      }
    } else {
      a = b;
    }
  }
};

template <KafkaStruct S>
void CrossStruct(Mutator& mu, VersionRule at, S& a, const S& b) {
  Crosser c{mu, at};
  S::VisitFields(c, a, b);
  if (mu.Chance(25)) a.unknown_tagged_fields = b.unknown_tagged_fields;
}

// ---- Equality with float64 compared bit for bit (NaN == NaN; 0.0 != −0.0), so that
// "decode → encode → decode gives an equal message" is checkable for every input.
template <KafkaStruct S>
bool StructBitwiseEqual(const S& a, const S& b);

template <class T>
bool ValueBitwiseEqual(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    return std::memcmp(&a, &b, sizeof a) == 0;
  } else if constexpr (KafkaStruct<T>) {
    return StructBitwiseEqual(a, b);
  } else if constexpr (kIsTagged<T> || IsOptional<T>::value) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || ValueBitwiseEqual(*a, *b);
  } else if constexpr (IsVector<T>::value) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!ValueBitwiseEqual(a[i], b[i])) return false;
    }
    return true;
  } else {
    return a == b;
  }
}

struct BitwiseComparer {
  bool equal = true;
  template <class T>
  void operator()(const FieldSpec&, const T& a, const T& b) {
    if (equal) equal = ValueBitwiseEqual(a, b);
  }
};

template <KafkaStruct S>
bool StructBitwiseEqual(const S& a, const S& b) {
  BitwiseComparer c;
  S::VisitFields(c, a, b);
  return c.equal && a.unknown_tagged_fields == b.unknown_tagged_fields;
}

}  // namespace mutate_internal

/// Number of mutation sites of `m` at `version` (≥ 1 for every flexible version).
template <KafkaMessage M>
size_t CountSites(int16_t version, M& m) {
  Mutator unused(0);
  mutate_internal::Walk w{VersionRule::Of(M::kMessage, version), unused};
  mutate_internal::WalkStruct(w, m);
  return w.seen;
}

/// Applies one mutation at a uniformly chosen site. Returns false if `m` has no site.
template <KafkaMessage M>
bool MutateMessage(Mutator& mu, int16_t version, M& m) {
  const size_t n = CountSites(version, m);
  if (n == 0) return false;
  mutate_internal::Walk w{VersionRule::Of(M::kMessage, version), mu, true, mu.Below(n)};
  mutate_internal::WalkStruct(w, m);
  return w.done;
}

/// Makes `m` encodable at `version`: fields absent there are reset to their defaults,
/// null values made non-null where `version` forbids null, known tags not tagged at
/// `version` dropped, and unknown tags dropped when `version` is not flexible or when
/// they carry the number of a tagged field of `version`.
template <KafkaMessage M>
void ProjectToVersion(int16_t version, M& m) {
  mutate_internal::ProjectStruct(VersionRule::Of(M::kMessage, version), m);
}

/// Field-wise crossover of `a` with `b` (same type), then projected to `version`.
template <KafkaMessage M>
void CrossOver(Mutator& mu, int16_t version, M& a, const M& b) {
  mutate_internal::CrossStruct(mu, VersionRule::Of(M::kMessage, version), a, b);
  ProjectToVersion(version, a);
}

/// Field-wise equality with float64 compared bit for bit.
template <KafkaStruct S>
bool BitwiseEqual(const S& a, const S& b) {
  return mutate_internal::StructBitwiseEqual(a, b);
}

/// The mutation functions of one message type, for run-time dispatch (pointers are M*).
struct MutateOps {
  const MessageSpec* spec;
  bool (*mutate)(Mutator& mu, int16_t version, void* m);
  /// CountSites: the mutation sites of `m` at `version` (about its fields and elements).
  size_t (*count_sites)(int16_t version, void* m);
  void (*project)(int16_t version, void* m);
  void (*crossover)(Mutator& mu, int16_t version, void* a, const void* b);
  bool (*bitwise_equal)(const void* a, const void* b);
};

template <KafkaMessage M>
constexpr MutateOps MakeMutateOps() {
  return MutateOps{
      &M::kMessage,
      [](Mutator& mu, int16_t v, void* m) { return MutateMessage(mu, v, *static_cast<M*>(m)); },
      [](int16_t v, void* m) { return CountSites(v, *static_cast<M*>(m)); },
      [](int16_t v, void* m) { ProjectToVersion(v, *static_cast<M*>(m)); },
      [](Mutator& mu, int16_t v, void* a, const void* b) {
        CrossOver(mu, v, *static_cast<M*>(a), *static_cast<const M*>(b));
      },
      [](const void* a, const void* b) {
        return BitwiseEqual(*static_cast<const M*>(a), *static_cast<const M*>(b));
      },
  };
}

/// The MutateOps of the message type described by `spec` (every request, response and
/// header type), or nullptr. Defined by the generated mutate_table.cc over its shards.
const MutateOps* FindMutateOps(const MessageSpec* spec);

}  // namespace kwire::fuzz

#endif  // KWIRE_FUZZ_MUTATE_H_
