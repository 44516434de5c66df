// The JSON mapping of Kafka messages (conformance/FORMAT.md, format 1), as visitors
// over the generated structs' FieldSpec lists (VisitFields), like every other visitor
// of the codec (codec/schema/spec.h). They work on decoded values, never on wire bytes:
// the wire walk stays in decode.h / encode.h. Instantiated per message type in the
// generated json_table_*.cc shards (tools/gen_ops_table.py) and reached through
// FindJsonOps(spec), so that none of this is in the core library. Public calls:
// tools/json/json.h.
#ifndef KWIRE_TOOLS_JSON_MESSAGE_JSON_H_
#define KWIRE_TOOLS_JSON_MESSAGE_JSON_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/schema/message.h"
#include "codec/schema/spec.h"
#include "codec/wire/utf8.h"

namespace kwire {

/// JSON values of the mapping: objects keep their members in insertion order
/// (definition order).
using Json = nlohmann::ordered_json;

/// The string that Java's `new String(bytes, StandardCharsets.UTF_8)` reads from `bytes`
/// (what Kafka's Readable.readString returns), as UTF-8: each ill-formed subsequence is
/// replaced by U+FFFD as the JDK's UTF-8 decoder does it, i.e. one U+FFFD per maximal
/// subpart (Unicode 15, section 3.9, "U+FFFD Substitution of Maximal Subparts"), except
/// that an encoded surrogate (ED A0..BF 80..BF) is one U+FFFD for its three bytes (the
/// JDK checks the second byte of ED only after decoding). Well-formed input is returned
/// unchanged.
std::string JavaStringOf(std::string_view bytes);

namespace json_internal {

// ---- Scalars that are not JSON numbers (message_json.cc).
Json Int64ToJson(int64_t v);
Json Float64ToJson(double v);
Json UuidToJson(const Uuid& u);
Json HexToJson(std::string_view bytes);

/// The state of one conversion: the message version, whether it is flexible, the JSON
/// path of the value being converted (for errors) and the first error.
struct Context : VersionRule {  // the message's version rule (codec/schema/spec.h)
  std::string path;
  std::string error;  ///< Empty while everything converted.
  /// To JSON: a string that is not UTF-8 is written as Java reads it (JavaStringOf)
  /// instead of failing.
  bool java_strings = false;

  bool ok() const { return error.empty(); }
  void Fail(std::string_view what);
  /// Appends `.name` or `[i]` to the path for the life of the object.
  struct Scope {
    Context& c;
    size_t size;
    Scope(Context& c, std::string_view name);
    Scope(Context& c, size_t index);
    ~Scope() { c.path.resize(size); }
  };
};

// ---- Scalars from JSON (message_json.cc); each fails `c` with what was expected.
void FromJson(Context& c, const Json& j, int8_t& v);
void FromJson(Context& c, const Json& j, int16_t& v);
void FromJson(Context& c, const Json& j, uint16_t& v);
void FromJson(Context& c, const Json& j, int32_t& v);
void FromJson(Context& c, const Json& j, int64_t& v);
void FromJson(Context& c, const Json& j, double& v);
void FromJson(Context& c, const Json& j, bool& v);
void FromJson(Context& c, const Json& j, Uuid& v);
/// A `string` (kind kString: a JSON string) or `bytes` (kBytes: hex) value.
void BlobFromJson(Context& c, const Json& j, FieldType kind, std::string& v);
void FromJson(Context& c, const Json& j, Records& v);
/// `_unknownTaggedFields`: [{"tag": N, "data": hex}], ascending, none of `known` (the
/// struct's known tag numbers at this version).
void UnknownTagsFromJson(Context& c, const Json& j, const std::vector<int32_t>& known,
                         UnknownTaggedFields& out);
/// Fails unless every member of object `j` names a field of `fields` that exists at the
/// version (or is `_unknownTaggedFields` in a flexible version).
void CheckMembers(Context& c, const Json& j, std::span<const FieldSpec> fields,
                  const char* struct_name);

template <KafkaStruct S>
Json StructToJson(Context& c, const S& s);
template <KafkaStruct S>
void StructFromJson(Context& c, const Json& j, S& s);

// ---- To JSON. `kind` distinguishes string from bytes (a field's type, an array's
// element type).
template <class T>
Json ValueToJson(Context& c, FieldType kind, const T& v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return Int64ToJson(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return Float64ToJson(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return Json(v);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return Json(static_cast<int>(v));
  } else if constexpr (std::is_integral_v<T>) {
    return Json(v);
  } else if constexpr (std::is_same_v<T, Uuid>) {
    return UuidToJson(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (kind == FieldType::kString) {
      if (!IsValidUtf8(v)) {
        if (c.java_strings) return Json(JavaStringOf(v));
        c.Fail("a string that is not UTF-8 has no JSON form (decoded under a quirk)");
        return Json();
      }
      return Json(v);
    }
    return HexToJson(v);
  } else if constexpr (std::is_same_v<T, Records>) {
    return HexToJson(v.data());
  } else if constexpr (KafkaStruct<T>) {
    return StructToJson(c, v);
  } else if constexpr (requires { typename T::value_type; v.has_value(); }) {
    return v.has_value() ? ValueToJson(c, kind, *v) : Json(nullptr);
  } else {
    Json a = Json::array();
    for (size_t i = 0; i < v.size() && c.ok(); ++i) {
      Context::Scope scope(c, i);
      a.push_back(ValueToJson(c, kind, v[i]));
    }
    return a;
  }
}

template <class T>
inline constexpr bool kIsVector = false;
template <class T>
inline constexpr bool kIsVector<std::vector<T>> = true;

struct FieldToJson {
  Context& c;
  Json& out;
  template <class T>
  void operator()(const FieldSpec& f, const T& value) {
    if (!c.ok() || !c.Present(f)) return;
    Context::Scope scope(c, f.name);
    if constexpr (kIsTagged<T>) {
      if (!c.Tagged(f) || !value.has_value()) return;
      out[f.name] = ValueToJson(c, f.type == FieldType::kArray ? f.element : f.type, *value);
    } else {
      out[f.name] = ValueToJson(c, f.type == FieldType::kArray ? f.element : f.type, value);
    }
  }
};

template <KafkaStruct S>
Json StructToJson(Context& c, const S& s) {
  Json out = Json::object();
  FieldToJson v{c, out};
  S::VisitFields(v, s);
  if (c.flexible && !s.unknown_tagged_fields.empty()) {
    Json tags = Json::array();
    for (const UnknownTaggedField& t : s.unknown_tagged_fields) {
      tags.push_back(Json{{"tag", t.tag}, {"data", HexToJson(t.data)}});
    }
    out["_unknownTaggedFields"] = std::move(tags);
  }
  return out;
}

// ---- From JSON.
template <class T>
void ValueFromJson(Context& c, const Json& j, const FieldSpec& f, FieldType kind, T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    BlobFromJson(c, j, kind, v);
  } else if constexpr (KafkaStruct<T>) {
    StructFromJson(c, j, v);
  } else if constexpr (requires { typename T::value_type; v.has_value(); }) {
    if (j.is_null()) {
      if (!c.Nullable(f)) {
        c.Fail("null, but the field is not nullable at this version");
        return;
      }
      v.reset();
      return;
    }
    ValueFromJson(c, j, f, kind, v.emplace());
  } else if constexpr (kIsVector<T>) {
    if (!j.is_array()) {
      c.Fail(j.is_null() ? "null, but the field is not nullable at this version"
                         : "expected an array");
      return;
    }
    v.clear();
    v.resize(j.size());
    for (size_t i = 0; i < j.size() && c.ok(); ++i) {
      Context::Scope scope(c, i);
      ValueFromJson(c, j[i], f, kind, v[i]);
    }
  } else {
    FromJson(c, j, v);
  }
}

struct FieldFromJson {
  Context& c;
  const Json& j;
  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    if (!c.ok() || !c.Present(f)) return;
    auto it = j.find(f.name);
    if (it == j.end()) return;  // a missing member keeps the field's default
    Context::Scope scope(c, f.name);
    const FieldType kind = f.type == FieldType::kArray ? f.element : f.type;
    if constexpr (kIsTagged<T>) {
      ValueFromJson(c, *it, f, kind, value.emplace());
    } else {
      ValueFromJson(c, *it, f, kind, value);
    }
  }
};

struct KnownTags {
  int16_t version;
  std::vector<int32_t>& out;
  template <class T>
  void operator()(const FieldSpec& f, const T&) {
    if (f.IsTagged() && f.tagged.Contains(version)) out.push_back(f.tag);
  }
};

template <KafkaStruct S>
void StructFromJson(Context& c, const Json& j, S& s) {
  if (!j.is_object()) {
    c.Fail(std::string("expected an object (") + S::kStructName + ")");
    return;
  }
  CheckMembers(c, j, S::kFields, S::kStructName);
  if (!c.ok()) return;
  FieldFromJson v{c, j};
  S::VisitFields(v, s);
  auto it = j.find("_unknownTaggedFields");
  if (c.ok() && it != j.end()) {
    std::vector<int32_t> known;
    KnownTags k{c.version, known};
    S::VisitFields(k, s);
    Context::Scope scope(c, "_unknownTaggedFields");
    UnknownTagsFromJson(c, *it, known, s.unknown_tagged_fields);
  }
}

/// The JSON calls of one message type, for run-time dispatch (pointers are M*).
struct JsonOps {
  const MessageSpec* spec;
  Json (*to_json)(Context& c, const void* m);
  void (*from_json)(Context& c, const Json& j, void* m);
};

template <KafkaMessage M>
constexpr JsonOps MakeJsonOps() {
  return JsonOps{
      &M::kMessage,
      [](Context& c, const void* m) { return StructToJson(c, *static_cast<const M*>(m)); },
      [](Context& c, const Json& j, void* m) { StructFromJson(c, j, *static_cast<M*>(m)); },
  };
}

/// The JsonOps of every request, response and header type, or nullptr. Defined by the
/// generated json_table.cc over its shards.
const JsonOps* FindJsonOps(const MessageSpec* spec);

}  // namespace json_internal
}  // namespace kwire

#endif  // KWIRE_TOOLS_JSON_MESSAGE_JSON_H_
