// Minimum wire size of a value, used to bound array counts by the bytes left before
// anything is allocated (DESIGN.md §1.3: memory is O(frame bytes), never O(claimed count)).
#ifndef KWIRE_CODEC_SCHEMA_MIN_SIZE_H_
#define KWIRE_CODEC_SCHEMA_MIN_SIZE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/schema/spec.h"

namespace kwire {

template <KafkaStruct S>
size_t StructMinSize(VersionRule at);

namespace schema_internal {

template <KafkaStruct S>
size_t TabledStructMinSize(VersionRule at);

template <class T>
struct IsVector : std::false_type {};
template <class E>
struct IsVector<std::vector<E>> : std::true_type {};

/// Kafka's fixed-width signed integers (int8, int16, int32, int64), whose wire size is
/// their sizeof: arrays of them are read and written in bulk, with one bounds check.
template <class E>
inline constexpr bool kIsFixedWidthInt =
    std::is_integral_v<E> && !std::is_same_v<E, bool> && std::is_signed_v<E>;

/// Smallest encoding of a value of C++ type T in a field with compact-ness `compact`.
template <class T>
size_t MinValueSize(VersionRule at, bool compact) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int8_t>) {
    return 1;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return sizeof(T);
  } else if constexpr (std::is_same_v<T, Uuid>) {
    return 16;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return compact ? 1 : 2;  // string: int16; bytes: int32 — 2 is the lower bound
  } else if constexpr (std::is_same_v<T, Records> || IsVector<T>::value) {
    return compact ? 1 : 4;
  } else if constexpr (KafkaStruct<T>) {
    return TabledStructMinSize<T>(at);
  } else {  // std::optional<X>: the null marker (length −1, count −1, or int8 −1)
    using X = typename T::value_type;
    if constexpr (KafkaStruct<X>) return 1;
    return MinValueSize<X>(at, compact);
  }
}

struct MinSizeVisitor {
  VersionRule at;
  size_t total = 0;
  template <class T>
  void operator()(const FieldSpec& f, const T&) {
    if constexpr (kIsTagged<T>) return;
    if (!at.Present(f)) return;
    const bool compact = at.Compact(f);
    if constexpr (std::is_same_v<T, std::string>) {
      total += f.type == FieldType::kString ? (compact ? 1 : 2) : (compact ? 1 : 4);
    } else {
      total += MinValueSize<T>(at, compact);
    }
  }
};

template <KafkaStruct S>
const S& DefaultInstance() {
  static const S instance{};
  return instance;
}

/// Versions below this have their struct minimum sizes tabled (Kafka's highest version
/// of any API is below 20 today); a higher one is computed on each call.
inline constexpr int16_t kMinSizeTableVersions = 32;

/// StructMinSize<S>(at), looked up: it is constant per (S, version, flexible), so the
/// table is filled once, by StructMinSize itself (the rule is written once, above), the
/// first time an S is sized — not on every array decode (issue 37 item 3).
template <KafkaStruct S>
size_t TabledStructMinSize(VersionRule at) {
  struct Table {
    uint32_t size[kMinSizeTableVersions][2];  // [version][flexible]
  };
  static const Table table = [] {
    Table t{};
    for (int16_t v = 0; v < kMinSizeTableVersions; ++v) {
      t.size[v][0] = static_cast<uint32_t>(StructMinSize<S>(VersionRule{v, false}));
      t.size[v][1] = static_cast<uint32_t>(StructMinSize<S>(VersionRule{v, true}));
    }
    return t;
  }();
  if (at.version >= 0 && at.version < kMinSizeTableVersions) {
    return table.size[at.version][at.flexible ? 1 : 0];
  }
  return StructMinSize<S>(at);
}

}  // namespace schema_internal

/// Smallest number of bytes a struct S occupies at `version` (tagged fields absent,
/// strings/arrays empty, nullable structs null). Always ≥ 1 in flexible versions.
template <KafkaStruct S>
size_t StructMinSize(VersionRule at) {
  schema_internal::MinSizeVisitor v{at};
  S::VisitFields(v, schema_internal::DefaultInstance<S>());
  return v.total + (at.flexible ? 1 : 0);
}

/// Smallest encoding of one array element of C++ type E, in an array whose count is
/// compact or not. Constant per (E, version, compact): a struct's is looked up in a
/// table filled once (TabledStructMinSize), a scalar's folds to a constant.
template <class E>
size_t MinElementSize(VersionRule at, bool compact) {
  return schema_internal::MinValueSize<E>(at, compact);
}

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_MIN_SIZE_H_
