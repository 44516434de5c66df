// The message schema of a request or response as kwire defines it: the generated
// structs' FieldSpec rows (codec/schema/spec.h, from codec/defs/*.kdef), nested structs
// one level deeper, in wire order. What the site's API pages show under "schema" —
// kwire's own facts (name, type, versions, nullable versions, tag), never Kafka's JSON
// files or their descriptions.
//
// A walk over VisitFields, instantiated per message type in the generated
// schema_table_*.cc shards (tools/gen_ops_table.py) and reached through SchemaOf(spec).
#ifndef KWIRE_TOOLS_HTML_SCHEMA_H_
#define KWIRE_TOOLS_HTML_SCHEMA_H_

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/schema/message.h"
#include "codec/schema/spec.h"

namespace kwire::html {

/// One field of a message schema.
struct SchemaRow {
  int depth = 0;               ///< 0: a field of the message; 1: of a struct inside it, ...
  const FieldSpec* field = nullptr;  ///< The field's spec (static storage).
};

namespace schema_internal {

// The struct type behind a member: T for T, std::optional<T>, Tagged<T>, std::vector<T>.
template <class T>
struct Inner {
  using type = T;
};
template <class T>
struct Inner<std::optional<T>> : Inner<T> {};
template <class T>
struct Inner<Tagged<T>> : Inner<T> {};
template <class T>
struct Inner<std::vector<T>> : Inner<T> {};

template <class S>
void AppendFields(int depth, std::vector<SchemaRow>& out) {
  S s{};
  S::VisitFields(
      [&](const FieldSpec& f, auto& member) {
        out.push_back(SchemaRow{depth, &f});
        using M = typename Inner<std::remove_cvref_t<decltype(member)>>::type;
        if constexpr (KafkaStruct<M>) AppendFields<M>(depth + 1, out);
      },
      s);
}

}  // namespace schema_internal

/// The schema of one message type, for run-time dispatch (the generated table).
struct SchemaOps {
  const MessageSpec* spec;
  void (*rows)(std::vector<SchemaRow>& out);
};

/// The SchemaOps of M (used by the generated table).
template <KafkaMessage M>
constexpr SchemaOps MakeSchemaOps() {
  return SchemaOps{&M::kMessage,
                   [](std::vector<SchemaRow>& out) { schema_internal::AppendFields<M>(0, out); }};
}

/// The table entry of `spec` (a request, response or header message), or nullptr.
const SchemaOps* FindSchemaOps(const MessageSpec* spec);

/// Every field of the message `spec` describes, pre-order (nested struct fields follow
/// their struct field, one deeper); empty for a spec without a table entry.
std::vector<SchemaRow> SchemaOf(const MessageSpec* spec);

/// A version range as the definitions write it: "3", "0-2", "2+", "none".
std::string RangeText(VersionRange r);

}  // namespace kwire::html

#endif  // KWIRE_TOOLS_HTML_SCHEMA_H_
