// Fill visitors: build the documented minimal instance of a message (conformance
// suite, see conformance/README.md) or a randomized rich instance (round-trip tests and
// fuzz seeds). Both only touch fields present at the version, so the result encodes
// at that version. Library kwire::fill (not part of the core codec): the fillers of
// every message type are instantiated in its own generated table (FillOps).
#ifndef KWIRE_CODEC_HARNESS_FILL_H_
#define KWIRE_CODEC_HARNESS_FILL_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codec/schema/message.h"
#include "codec/schema/spec.h"

namespace kwire {

/// The 61-byte empty RecordBatch v2 (magic 2, zero records, batchLength 49, CRC-32C
/// over attributes..end = 0x595fb7dd) that minimal instances put in records fields.
const std::string& EmptyRecordBatch();

namespace schema_internal {

template <class T>
struct IsOptionalT : std::false_type {};
template <class X>
struct IsOptionalT<std::optional<X>> : std::true_type {};

// ---- Minimal instance.
template <KafkaStruct S>
void FillMinimalStruct(int16_t version, S& s);

template <class T>
void FillMinimalValue(int16_t version, const FieldSpec& f, FieldType kind, T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    v = T{};
  } else if constexpr (std::is_same_v<T, Uuid>) {
    v = Uuid{};
  } else if constexpr (std::is_same_v<T, std::string>) {
    v.clear();
  } else if constexpr (std::is_same_v<T, Records>) {
    v = Records(EmptyRecordBatch());
  } else if constexpr (KafkaStruct<T>) {
    FillMinimalStruct(version, v);
  } else if constexpr (IsOptionalT<T>::value) {
    FillMinimalValue(version, f, kind, v.emplace());
  } else {  // std::vector<E>: exactly one sample element
    v.clear();
    v.emplace_back();
    FillMinimalValue(version, f, f.element, v.back());
  }
}

struct MinimalFiller {
  int16_t version;
  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    // Presence alone: the rule's flexible flag matters only to tagged fields, which stay
    // absent here.
    if (!VersionRule{version, false}.Present(f)) return;
    if constexpr (kIsTagged<T>) {
      value.reset();  // tagged fields stay at their default: absent
    } else {
      FillMinimalValue(version, f, f.type, value);
    }
  }
};

template <KafkaStruct S>
void FillMinimalStruct(int16_t version, S& s) {
  MinimalFiller m{version};
  S::VisitFields(m, s);
}

// ---- Randomized rich instance.
struct RandomFiller;

template <KafkaStruct S>
void FillRandomStruct(std::mt19937_64& rng, VersionRule rule, S& s);

inline bool Chance(std::mt19937_64& rng, int percent) {
  return static_cast<int>(rng() % 100) < percent;
}
inline std::string RandomBytes(std::mt19937_64& rng, size_t max_len) {
  std::string s(rng() % (max_len + 1), '\0');
  for (char& ch : s) ch = static_cast<char>('a' + rng() % 26);
  return s;
}

// A records field that passes validation under the field's records policy: whole empty
// RecordBatch v2s (exactly one where the policy requires it, else 0–2) with random
// baseOffset and partitionLeaderEpoch (outside the CRC); random bytes for an unaligned
// field (FetchSnapshot).
inline std::string RandomRecords(std::mt19937_64& rng, const FieldSpec& f, int16_t version) {
  if (f.records.layout == RecordsLayout::kUnaligned) return RandomBytes(rng, 24);
  const size_t n = version >= f.records.one_v2_batch_from ? 1 : rng() % 3;
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    std::string b = EmptyRecordBatch();
    const uint64_t base_offset = rng();
    const uint32_t leader_epoch = static_cast<uint32_t>(rng());
    for (int k = 0; k < 8; ++k) b[k] = static_cast<char>(base_offset >> (56 - 8 * k));
    for (int k = 0; k < 4; ++k) b[12 + k] = static_cast<char>(leader_epoch >> (24 - 8 * k));
    out += b;
  }
  return out;
}

template <class T>
void FillRandomValue(std::mt19937_64& rng, VersionRule rule, const FieldSpec& f, T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    v = (rng() & 1) != 0;
  } else if constexpr (std::is_same_v<T, double>) {
    v = static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000) / 8.0;
  } else if constexpr (std::is_integral_v<T>) {
    // Mix small values (short varints, realistic ids) and full-range ones.
    v = Chance(rng, 50) ? static_cast<T>(rng() % 16) : static_cast<T>(rng());
  } else if constexpr (std::is_same_v<T, Uuid>) {
    for (uint8_t& b : v.bytes) b = static_cast<uint8_t>(rng());
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = RandomBytes(rng, 8);
  } else if constexpr (std::is_same_v<T, Records>) {
    v = Records(RandomRecords(rng, f, rule.version));
  } else if constexpr (KafkaStruct<T>) {
    FillRandomStruct(rng, rule, v);
  } else if constexpr (IsOptionalT<T>::value) {
    if (rule.Nullable(f) && Chance(rng, 20)) {
      v.reset();
    } else {
      FillRandomValue(rng, rule, f, v.emplace());
    }
  } else {  // std::vector<E>: 0–3 elements
    v.clear();
    v.resize(rng() % 4);
    for (auto& e : v) FillRandomValue(rng, rule, f, e);
  }
}

struct RandomFiller {
  std::mt19937_64& rng;
  VersionRule rule;
  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    if (!rule.Present(f)) return;
    if constexpr (kIsTagged<T>) {
      if (Chance(rng, 50)) {
        FillRandomValue(rng, rule, f, value.emplace());
      } else {
        value.reset();
      }
    } else {
      FillRandomValue(rng, rule, f, value);
    }
  }
};

template <KafkaStruct S>
void FillRandomStruct(std::mt19937_64& rng, VersionRule rule, S& s) {
  RandomFiller r{rng, rule};
  S::VisitFields(r, s);
  s.unknown_tagged_fields.clear();
  if (rule.flexible && Chance(rng, 30)) {
    // Tags far above any known tag, ascending.
    uint32_t tag = 100 + static_cast<uint32_t>(rng() % 50);
    for (int i = 0, n = 1 + static_cast<int>(rng() % 2); i < n; ++i) {
      s.unknown_tagged_fields.push_back({tag, RandomBytes(rng, 4)});
      tag += 1 + static_cast<uint32_t>(rng() % 1000);
    }
  }
}

}  // namespace schema_internal

/// Sets every field present at `version` to the documented minimal value: numbers zero,
/// strings/bytes empty, arrays one sample element, nullable fields non-null, records one
/// empty RecordBatch, tagged fields absent. `s` should be default-constructed.
template <KafkaStruct S>
void FillMinimal(int16_t version, S& s) {
  schema_internal::FillMinimalStruct(version, s);
}

/// Fills every field present at `version` with random values from `rng`: arrays of 0–3
/// elements, nulls where nullable, tagged fields present or absent, and (in flexible
/// versions) unknown tagged fields. Deterministic for a given rng state.
template <KafkaStruct S>
void FillRandom(std::mt19937_64& rng, int16_t version, bool flexible, S& s) {
  schema_internal::FillRandomStruct(rng, VersionRule{version, flexible}, s);
}

/// The fillers of one message type, for run-time dispatch (kwire::fill's generated
/// table, tools/gen_ops_table.py). Pointers are `M*`.
struct FillOps {
  const MessageSpec* spec;
  void (*fill_minimal)(int16_t version, void* m);
  void (*fill_random)(std::mt19937_64& rng, int16_t version, void* m);
};

/// The FillOps of M (used by the generated table).
template <KafkaMessage M>
constexpr FillOps MakeFillOps() {
  return FillOps{
      &M::kMessage,
      [](int16_t v, void* m) { FillMinimal(v, *static_cast<M*>(m)); },
      [](std::mt19937_64& rng, int16_t v, void* m) {
        schema_internal::FillRandomStruct(rng, VersionRule::Of(M::kMessage, v), *static_cast<M*>(m));
      },
  };
}

/// The FillOps of the message `spec` describes; nullptr for a spec that is not a
/// request, response or header message of codec/defs.
const FillOps* FindFillOps(const MessageSpec* spec);

/// FillMinimal on a message chosen at run time (a request, response or header type;
/// another type is left unchanged). `m` should be default-constructed.
void FillMinimal(int16_t version, AnyMessage& m);
/// FillRandom on a message chosen at run time (flexible as `version` of its type is).
void FillRandom(std::mt19937_64& rng, int16_t version, AnyMessage& m);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_FILL_H_
