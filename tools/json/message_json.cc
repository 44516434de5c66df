// Scalars of the JSON mapping (conformance/FORMAT.md) and the checks shared by every
// message type; the per-type visitors are in message_json.h.
#include "tools/json/message_json.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

#include "codec/wire/hex.h"

namespace kwire::json_internal {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr uint64_t kCanonicalNan = 0x7ff8000000000000ull;

const char* TypeName(const Json& j) { return j.type_name(); }

// An integer JSON number within [lo, hi].
template <class T>
bool IntFromJson(Context& c, const Json& j, T& v, const char* kafka_type) {
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      v = static_cast<T>(u);
      return true;
    }
  } else if (j.is_number_integer()) {
    const int64_t i = j.get<int64_t>();
    if (i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
        (i < 0 || static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
      v = static_cast<T>(i);
      return true;
    }
  } else {
    c.Fail(absl::StrCat("expected an ", kafka_type, " number, got ", TypeName(j)));
    return false;
  }
  c.Fail(absl::StrCat(j.dump(), " is out of range for ", kafka_type));
  return false;
}

}  // namespace

void Context::Fail(std::string_view what) {
  if (!error.empty()) return;
  error = path.empty() ? std::string(what) : absl::StrCat(path, ": ", std::string(what));
}

Context::Scope::Scope(Context& ctx, std::string_view name) : c(ctx), size(ctx.path.size()) {
  if (!c.path.empty()) c.path += '.';
  c.path.append(name.data(), name.size());
}

Context::Scope::Scope(Context& ctx, size_t index) : c(ctx), size(ctx.path.size()) {
  absl::StrAppend(&c.path, "[", index, "]");
}

Json Int64ToJson(int64_t v) { return Json(absl::StrCat(v)); }

Json Float64ToJson(double v) {
  if (std::isfinite(v)) return Json(v);  // shortest form that reads back to the same bits
  if (std::isinf(v)) return Json(v > 0 ? "Infinity" : "-Infinity");
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  if (bits == kCanonicalNan) return Json("NaN");
  std::string s = "NaN:0x";
  for (int shift = 60; shift >= 0; shift -= 4) s += kHexDigits[(bits >> shift) & 0xf];
  return Json(std::move(s));
}

Json UuidToJson(const Uuid& u) {
  return HexToJson(std::string_view(reinterpret_cast<const char*>(u.bytes.data()), u.bytes.size()));
}

Json HexToJson(std::string_view bytes) { return Json(HexString(bytes)); }

void FromJson(Context& c, const Json& j, int8_t& v) { IntFromJson(c, j, v, "int8"); }
void FromJson(Context& c, const Json& j, int16_t& v) { IntFromJson(c, j, v, "int16"); }
void FromJson(Context& c, const Json& j, uint16_t& v) { IntFromJson(c, j, v, "uint16"); }
void FromJson(Context& c, const Json& j, int32_t& v) { IntFromJson(c, j, v, "int32"); }

void FromJson(Context& c, const Json& j, int64_t& v) {
  if (!j.is_string()) {
    IntFromJson(c, j, v, "int64");
    return;
  }
  const std::string& s = j.get_ref<const std::string&>();
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end) {
    c.Fail(absl::StrCat("\"", s, "\" is not an int64 in decimal"));
  }
}

void FromJson(Context& c, const Json& j, double& v) {
  if (j.is_number()) {
    v = j.get<double>();
    return;
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "Infinity") {
      v = std::numeric_limits<double>::infinity();
      return;
    }
    if (s == "-Infinity") {
      v = -std::numeric_limits<double>::infinity();
      return;
    }
    if (s == "NaN") {
      v = std::bit_cast<double>(kCanonicalNan);
      return;
    }
    std::string raw;
    if (s.size() == 22 && s.compare(0, 6, "NaN:0x") == 0 &&
        ParseHex(std::string_view(s).substr(6), raw)) {
      uint64_t bits = 0;
      for (char ch : raw) bits = bits << 8 | static_cast<uint8_t>(ch);
      v = std::bit_cast<double>(bits);
      if (std::isnan(v)) return;
    }
  }
  c.Fail(absl::StrCat("expected a float64 (a number, \"Infinity\", \"-Infinity\", \"NaN\" or "
                      "\"NaN:0x\" and 16 hex digits of a NaN), got ",
                      j.dump()));
}

void FromJson(Context& c, const Json& j, bool& v) {
  if (!j.is_boolean()) {
    c.Fail(absl::StrCat("expected true or false, got ", TypeName(j)));
    return;
  }
  v = j.get<bool>();
}

void FromJson(Context& c, const Json& j, Uuid& v) {
  std::string raw;
  if (!j.is_string() || j.get_ref<const std::string&>().size() != 32 ||
      !ParseHex(j.get_ref<const std::string&>(), raw)) {
    c.Fail(absl::StrCat("expected a uuid as 32 hex digits, got ", j.dump()));
    return;
  }
  std::memcpy(v.bytes.data(), raw.data(), 16);
}

void BlobFromJson(Context& c, const Json& j, FieldType kind, std::string& v) {
  if (!j.is_string()) {
    c.Fail(absl::StrCat(kind == FieldType::kString ? "expected a string" : "expected hex bytes",
                        ", got ", j.is_null() ? "null, but the field is not nullable at this version"
                                               : TypeName(j)));
    return;
  }
  if (kind == FieldType::kString) {
    v = j.get<std::string>();  // the JSON parser accepted only UTF-8
    return;
  }
  if (!ParseHex(j.get_ref<const std::string&>(), v)) {
    c.Fail("expected bytes as an even number of hex digits");
  }
}

void FromJson(Context& c, const Json& j, Records& v) {
  std::string bytes;
  if (!j.is_string() || !ParseHex(j.get_ref<const std::string&>(), bytes)) {
    c.Fail(absl::StrCat("expected records as hex bytes, got ",
                        j.is_string() ? "a string that is not hex" : TypeName(j)));
    return;
  }
  v = Records(std::move(bytes));
}

void UnknownTagsFromJson(Context& c, const Json& j, const std::vector<int32_t>& known,
                         UnknownTaggedFields& out) {
  if (!c.flexible) {
    c.Fail("tagged fields exist only in flexible versions");
    return;
  }
  if (!j.is_array()) {
    c.Fail("expected an array of {\"tag\": N, \"data\": hex}");
    return;
  }
  out.clear();
  int64_t previous = -1;
  for (size_t i = 0; i < j.size() && c.ok(); ++i) {
    Context::Scope scope(c, i);
    const Json& e = j[i];
    if (!e.is_object() || e.size() != 2 || !e.contains("tag") || !e.contains("data")) {
      c.Fail("expected {\"tag\": N, \"data\": hex}");
      return;
    }
    UnknownTaggedField t;
    {
      Context::Scope tag_scope(c, "tag");
      if (!IntFromJson(c, e["tag"], t.tag, "uint32 tag")) return;
    }
    if (static_cast<int64_t>(t.tag) <= previous) {
      c.Fail(absl::StrCat("tag ", t.tag, " after tag ", previous, ": tags must be ascending"));
      return;
    }
    for (int32_t k : known) {
      if (static_cast<int64_t>(k) == t.tag) {
        c.Fail(absl::StrCat("tag ", t.tag, " is a known tagged field here: give it by name"));
        return;
      }
    }
    previous = t.tag;
    Context::Scope data_scope(c, "data");
    BlobFromJson(c, e["data"], FieldType::kBytes, t.data);
    out.push_back(std::move(t));
  }
}

void CheckMembers(Context& c, const Json& j, std::span<const FieldSpec> fields,
                  const char* struct_name) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key == "_unknownTaggedFields") {
      if (!c.flexible) {
        Context::Scope scope(c, key);
        c.Fail(absl::StrCat("tagged fields exist only in flexible versions; ", struct_name,
                            " v", c.version, " is not flexible"));
        return;
      }
      continue;
    }
    const FieldSpec* f = nullptr;
    for (const FieldSpec& candidate : fields) {
      if (key == candidate.name) f = &candidate;
    }
    Context::Scope scope(c, key);
    if (f == nullptr) {
      c.Fail(absl::StrCat(struct_name, " has no field ", key));
      return;
    }
    if (!c.Present(*f) || (f->IsTagged() && !c.Tagged(*f))) {
      c.Fail(absl::StrCat(struct_name, ".", key, " does not exist at version ", c.version));
      return;
    }
  }
}

}  // namespace kwire::json_internal

namespace kwire {

std::string JavaStringOf(std::string_view bytes) {
  // The JDK's decoder (sun.nio.cs.UTF_8) with CodingErrorAction.REPLACE: a lead byte
  // 80..C1 or F5..FF is malformed alone; a sequence whose second byte is out of its range
  // (E0 needs A0..BF, F0 90..BF, F4 80..8F, every other lead 80..BF) is malformed after
  // its lead; a later byte that is not 80..BF ends the malformed prefix before it; a
  // sequence cut short by the end is one malformed prefix; a 3-byte sequence that decodes
  // to a surrogate (ED A0..BF) is malformed whole.
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  auto byte = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  auto cont = [&](size_t k) { return k < bytes.size() && (byte(k) & 0xC0) == 0x80; };
  std::string out;
  out.reserve(bytes.size() + 8);
  size_t i = 0;
  while (i < bytes.size()) {
    const uint8_t b1 = byte(i);
    size_t len = 0;  // of the well-formed sequence at i, or 0
    size_t bad = 1;  // bytes one U+FFFD replaces when len == 0
    if (b1 < 0x80) {
      len = 1;
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      if (cont(i + 1)) len = 2;
    } else if (b1 >= 0xE0 && b1 <= 0xEF) {
      if (cont(i + 1) && !(b1 == 0xE0 && byte(i + 1) < 0xA0)) {
        if (!cont(i + 2)) {
          bad = 2;
        } else if (b1 == 0xED && byte(i + 1) >= 0xA0) {
          bad = 3;  // a surrogate
        } else {
          len = 3;
        }
      }
    } else if (b1 >= 0xF0 && b1 <= 0xF4) {
      if (cont(i + 1) && !(b1 == 0xF0 && byte(i + 1) < 0x90) &&
          !(b1 == 0xF4 && byte(i + 1) > 0x8F)) {
        if (!cont(i + 2)) {
          bad = 2;
        } else if (!cont(i + 3)) {
          bad = 3;
        } else {
          len = 4;
        }
      }
    }
    if (len > 0) {
      out.append(bytes.substr(i, len));
      i += len;
    } else {
      out.append(kReplacement);
      i += bad;
    }
  }
  return out;
}

}  // namespace kwire
