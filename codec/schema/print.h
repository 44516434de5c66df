// The explain (print) visitor: decodes a message while recording, for every value it
// reads, a node with its byte range [offset, size], Kafka type and value: the object
// tree of the reference documentation pages (see conformance/vectors/seeds.txt), e.g.
//
//   DescribeDelegationTokenRequest   message v3                          [0x0000, 20B]
//   +-- Frame                                                            [0x0000, 4B]
//   |   +-- size                     int32     = 16                      [0x0000, 4B]
//   ...
//   +-- DescribeDelegationTokenRequest struct                            [0x000f, 5B]
//       +-- Owners                   []DescribeDelegationTokenOwner = 1 element
//       |   +-- length               uvarint   = 2 (compact, n+1)        [0x000f, 1B]
//       |   +-- DescribeDelegationTokenOwner[0] ...
//
// Written once over FieldSpec, like decode.h, and decoding with the same Reader calls in
// the same order, so it accepts exactly what DecodeStruct accepts (same errors, same
// paths, same quirks): a node opens at the Reader's offset before a value is read and
// closes at the offset after it. After a failure the nodes read so far remain, and the
// nodes enclosing the failure offset are marked `failed`.
//
// Coverage: scalars, strings, bytes, arrays (a `length` child, then one child per
// element), nullable values (null markers), nullable struct presence markers (a
// `present` child), tagged-field sections (a `count` child, then per tag a `tag N` node
// with `tag`, `size` and the known field's value or an unknown tag's `data`), and
// records (a `length` child and an opaque payload node, or the nodes of a
// RecordsPrinter hook: see PrintOptions::records). Fields marked `sensitive` (SASL
// auth bytes, token HMACs, SCRAM salts and salted passwords) are redacted, value and
// byte layout alike, unless PrintOptions::show_secrets.
//
// Frames (size prefix + header + body) are explained by codec/protocol/explain.h; the
// renderers below turn any node list into the pages' text tree and a hex byte layout.
#ifndef KWIRE_CODEC_SCHEMA_PRINT_H_
#define KWIRE_CODEC_SCHEMA_PRINT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/schema/decode.h"
#include "codec/schema/min_size.h"
#include "codec/schema/spec.h"
#include "codec/wire/reader.h"

namespace kwire {

/// One row of an explained message (one line of the object tree).
struct PrintNode {
  enum class Kind : uint8_t {
    kMessage,       ///< The whole frame (root row).
    kFrame,         ///< The size-prefix group.
    kHeader,        ///< Request or response header.
    kBody,          ///< The message body (top-level struct).
    kField,         ///< A field: scalar, string, bytes, records, struct or array.
    kLength,        ///< An array count or records length prefix.
    kElement,       ///< One array element.
    kPresence,      ///< Nullable struct presence marker (int8 1 / −1).
    kTaggedFields,  ///< A tagged-field section (the count alone when it is 0).
    kTaggedCount,   ///< The count of a non-empty tagged-field section.
    kTag,           ///< One tagged field: tag, size, value.
    kTagHeader,     ///< The tag number or size uvarint of a tagged field.
    kUnknownTag,    ///< The payload of a tag unknown at this version (kept verbatim).
    kRecords,       ///< A records payload (opaque unless a RecordsPrinter decoded it).
  };
  Kind kind = Kind::kField;
  int depth = 0;             ///< 0 for the root; children are one deeper than parents.
  size_t offset = 0;         ///< Absolute byte offset (from the first byte of the frame).
  size_t size = 0;           ///< Bytes covered.
  std::string path;          ///< Dotted path: "Body.Owners[0].PrincipalType".
  std::string label;         ///< Tree label: "PrincipalType", "DescribeDelegationTokenOwner[0]".
  std::string type;          ///< Type column: "int16", "[]X", "struct", "message v3", "v2".
  std::string value;         ///< Value as seeds.txt writes it: `41`, `""`, `empty`, `1`.
  std::string detail;        ///< Encoding detail: "(compact, len+1=1)", "(int16 len=0)".
  std::string note;          ///< Description column: "number of tagged fields in this struct".
  bool redacted = false;     ///< Payload bytes of a sensitive field: renderers hide them,
  uint32_t redact_skip = 0;  ///< except this many leading bytes (the length prefix).
  bool failed = false;       ///< Decoding failed inside (or at the end of) this node.
};

/// What a RecordsPrinter is given: one records field's payload and where it stands.
struct RecordsPrintInput {
  std::span<const uint8_t> data;  ///< The payload bytes (length prefix excluded).
  size_t offset;                  ///< Absolute offset of data[0].
  int depth;                      ///< Depth of the nodes to append.
  const std::string& path;        ///< Path of the field; node paths go under it.
  const FieldSpec& field;         ///< The field (field.records: its records policy).
  int16_t version;                ///< The message version (the policy's rules use it).
  uint32_t quirks;                ///< DecodeOptions::quirks in force.
};

/// Hook for records payloads (Produce/Fetch/ShareFetch `records`): appends nodes that
/// tile [offset, offset + data.size()) and returns true, or returns false to keep the
/// default (one opaque `batches` node). The record batch decoder (codec/records/) plugs
/// in here. The field's verdict is not the printer's: with DecodeOptions::records set,
/// the explain visitor validates the payload as the decoder does, after the printer.
using RecordsPrinter = bool (*)(const RecordsPrintInput& in, std::vector<PrintNode>& out);

/// Options of the explain visitor.
struct PrintOptions {
  DecodeOptions decode;              ///< Quirks (strict by default), as for decoding.
  bool show_secrets = false;         ///< Print sensitive fields instead of redacting them.
  size_t max_value_chars = 64;       ///< Longer strings / bytes are shortened with "...".
  RecordsPrinter records = nullptr;  ///< See RecordsPrinter; nullptr: opaque.
  /// Frame explanations (codec/protocol/explain.h) validate records fields as frame
  /// decoding does (FrameOptions::records_mode), so their verdict is the decoder's;
  /// kOpaque leaves them unexamined. (`decode.records`, if set, is used as it is.)
  RecordsMode records_mode = RecordsMode::kValidate;
  /// Elements shown per array; the rest are decoded (by decode.h, so failures are the
  /// decoder's) and summarized in one node. Bounds the tree of a hostile frame.
  size_t max_array_elements = 1000;
  /// Once this many nodes exist, further arrays show no element (only the summary):
  /// nested arrays cannot multiply the per-array limit. About 1 KB per node.
  size_t max_nodes = 100000;
};

/// Collects nodes while the explain visitor reads. Type-independent, out of line.
/// `bytes` is the whole buffer the Reader reads (its offsets index into it).
class PrintBuilder {
 public:
  PrintBuilder(std::span<const uint8_t> bytes, const PrintOptions& options,
               std::vector<PrintNode>& out, int depth = 0)
      : bytes_(bytes), options_(options), out_(out), depth_(depth) {}

  /// Opens a node at the reader's offset, one level deeper than the open one; its
  /// children follow until Close. Returns its index.
  size_t Open(const Reader& r, PrintNode::Kind kind, std::string label, std::string type,
              std::string path);
  /// Closes node `index` at the reader's offset (or at the failure offset).
  void Close(const Reader& r, size_t index);
  /// Opens a node at `offset` (past bytes), e.g. the tag and size of a tagged field.
  size_t OpenAt(size_t offset, PrintNode::Kind kind, std::string label, std::string type,
                std::string path);
  void CloseAt(size_t index, size_t end);

  /// Node `index` (references die when the next node is appended).
  PrintNode& node(size_t index) { return out_[index]; }
  std::vector<PrintNode>& nodes() { return out_; }
  const PrintOptions& options() const { return options_; }
  std::span<const uint8_t> bytes() const { return bytes_; }
  int depth() const { return depth_; }
  /// Length in bytes of the (u)varint starting at `offset` (as far as the buffer goes).
  size_t VarintLength(size_t offset) const;

  // ---- Value text (seeds.txt conventions).
  static std::string Int(int64_t v);
  static std::string Float(double v);
  static std::string UuidText(const Uuid& u);
  /// Sets value/detail of a string, bytes or records node (`s` nullptr: null) and
  /// redacts it when `sensitive` and secrets are hidden.
  void Blob(size_t index, FieldType kind, bool compact, const std::string* s, bool sensitive);
  /// Header fields print as the protocol guide names them: "request_api_key".
  static std::string SnakeCase(std::string_view name);

 private:
  std::span<const uint8_t> bytes_;
  const PrintOptions& options_;
  std::vector<PrintNode>& out_;
  int depth_;
};

namespace print_internal {

using schema_internal::DecodeContext;
using Kind = PrintNode::Kind;

struct PrintContext {
  DecodeContext dc;  // Reader, version, flexibility, error path (as decode.h)
  PrintBuilder& b;
  bool header_style;  // request/response header: snake_case names, nullable_ types

  Reader& r() { return dc.r; }
  std::string Label(const FieldSpec& f) const {
    return header_style ? PrintBuilder::SnakeCase(f.name) : std::string(f.name);
  }
  std::string Type(const FieldSpec& f) const {
    if (!header_style) return f.type_name;
    std::string t = FieldTypeName(f.type);
    return dc.Nullable(f) ? "nullable_" + t : t;
  }
};

template <KafkaStruct S>
void PrintStructContents(PrintContext& c, S& s, const std::string& path);

template <class T>
inline constexpr bool kIsOptional = false;
template <class X>
inline constexpr bool kIsOptional<std::optional<X>> = true;

// Wire kind of a blob value (`std::string` is a string or bytes, by the field spec).
inline FieldType BlobKind(FieldType t) {
  return t == FieldType::kString ? FieldType::kString : FieldType::kBytes;
}

// A scalar (fixed-width) value: one leaf.
template <class T>
void PrintScalar(PrintContext& c, const FieldSpec& f, T& v, size_t n) {
  schema_internal::DecodeValue(c.dc, f, v);
  if (!c.r().ok()) return;
  PrintNode& node = c.b.node(n);
  if constexpr (std::is_same_v<T, bool>) {
    node.value = v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, double>) {
    node.value = PrintBuilder::Float(v);
  } else if constexpr (std::is_same_v<T, Uuid>) {
    node.value = PrintBuilder::UuidText(v);
  } else {
    node.value = PrintBuilder::Int(static_cast<int64_t>(v));
  }
}

// Records: a `length` child, then the payload (opaque, or the RecordsPrinter's nodes).
void PrintRecords(PrintContext& c, const FieldSpec& f, bool nullable, size_t n,
                  const std::string& path, std::optional<Records>& out);

// Array elements and struct contents.
template <class E>
void PrintElement(PrintContext& c, const FieldSpec& f, bool compact, E& e, const std::string& label,
                  const std::string& path) {
  if constexpr (KafkaStruct<E>) {
    const size_t n = c.b.Open(c.r(), Kind::kElement, label, E::kStructName, path);
    PrintStructContents(c, e, path);
    c.b.Close(c.r(), n);
  } else {
    const size_t n = c.b.Open(c.r(), Kind::kElement, label, FieldTypeName(f.element), path);
    if constexpr (std::is_same_v<E, std::string>) {
      schema_internal::DecodeBlob(c.dc, f.element, compact, false, e);
      if (c.r().ok()) c.b.Blob(n, BlobKind(f.element), compact, &e, f.sensitive);
    } else {
      PrintScalar(c, f, e, n);
    }
    c.b.Close(c.r(), n);
  }
}

// True when a struct element has a sensitive field of its own (AlterUserScramCredentials
// Upsertions, DescribeDelegationToken Tokens): its summarized bytes are then redacted.
template <class E>
constexpr bool HasSensitiveField() {
  if constexpr (KafkaStruct<E>) {
    for (const FieldSpec& f : E::kFields) {
      if (f.sensitive) return true;
    }
  }
  return false;
}

// The count (a `length` child of field node `n`) and the elements; past
// PrintOptions::max_array_elements (or max_nodes) the rest are decoded with decode.h's
// DecodeElement under one summary node. Returns false on null.
template <class E>
bool PrintArray(PrintContext& c, const FieldSpec& f, bool nullable, size_t n,
                const std::string& path, std::vector<E>& v) {
  const bool compact = c.dc.Compact(f);
  const size_t len =
      c.b.Open(c.r(), Kind::kLength, "length", compact ? "uvarint" : "int32", path + ".length");
  // As decode.h: the count is bounded by the bytes left minus those reserved for the
  // enclosing arrays' remaining elements.
  const size_t min = MinElementSize<E>(c.dc.version, c.dc.flexible, compact);
  const size_t at = c.r().offset();
  const int64_t count = c.r().ReadArrayCount(compact, nullable, min, c.dc.reserved);
  c.b.Close(c.r(), len);
  if (!c.r().ok()) return false;
  PrintNode& ln = c.b.node(len);
  ln.value = PrintBuilder::Int(count < 0 ? (compact ? 0 : -1) : (compact ? count + 1 : count));
  if (compact) ln.detail = count < 0 ? "(compact, 0 = null)" : "(compact, n+1)";
  ln.note = count < 0    ? "null"
            : count == 1 ? "one element follows"
                         : PrintBuilder::Int(count) + " elements follow";
  c.b.node(n).value = count < 0 ? "null" : PrintBuilder::Int(count);
  if (count < 0) return false;
  v.clear();
  // Bounded by the bytes left (ReadArrayCount) and charged as decode.h charges it.
  if (count > 0 && !c.r().Charge(static_cast<size_t>(count) * sizeof(E), at)) return false;
  v.resize(static_cast<size_t>(count));
  const std::string elem_name = [&] {
    if constexpr (KafkaStruct<E>) return std::string(E::kStructName);
    return std::string(f.name);
  }();
  const size_t outer_reserved = c.dc.reserved;
  const PrintOptions& po = c.b.options();
  const int64_t shown = c.b.nodes().size() >= po.max_nodes
                            ? 0
                            : std::min<int64_t>(count, static_cast<int64_t>(po.max_array_elements));
  size_t rest = SIZE_MAX;  // the summary node of elements [shown, count)
  for (int64_t i = 0; i < count; ++i) {
    c.dc.node->index = i;
    c.dc.reserved = outer_reserved + static_cast<size_t>(count - 1 - i) * min;
    if (i < shown) {
      const std::string idx = "[" + PrintBuilder::Int(i) + "]";
      PrintElement(c, f, compact, v[static_cast<size_t>(i)], elem_name + idx, path + idx);
    } else {
      if (i == shown) {
        rest = c.b.Open(c.r(), Kind::kElement, elem_name + "[" + PrintBuilder::Int(i) + "...]",
                        "", path + "[" + PrintBuilder::Int(i) + "...]");
      }
      schema_internal::DecodeElement(c.dc, f, compact, v[static_cast<size_t>(i)]);
    }
    if (!c.r().ok()) break;
  }
  if (rest != SIZE_MAX) {
    c.b.Close(c.r(), rest);
    PrintNode& s = c.b.node(rest);
    s.value = PrintBuilder::Int(count - shown) + " more elements";
    s.note = "not shown (PrintOptions::max_array_elements / max_nodes)";
    if ((f.sensitive || HasSensitiveField<E>()) && !po.show_secrets) s.redacted = true;
  }
  c.dc.reserved = outer_reserved;
  c.dc.node->index = -1;
  return true;
}

// One field value of C++ type T, as node `label` at `path`.
template <class T>
void PrintValue(PrintContext& c, const FieldSpec& f, T& v, const std::string& label,
                const std::string& path) {
  const bool nullable = c.dc.Nullable(f);
  const bool compact = c.dc.Compact(f);
  const size_t n = c.b.Open(c.r(), Kind::kField, label, c.Type(f), path);
  if constexpr (std::is_same_v<T, std::string>) {
    schema_internal::DecodeBlob(c.dc, f.type, compact, false, v);
    if (c.r().ok()) c.b.Blob(n, BlobKind(f.type), compact, &v, f.sensitive);
  } else if constexpr (std::is_same_v<T, Records>) {
    std::optional<Records> rec;
    PrintRecords(c, f, false, n, path, rec);
    if (rec) v = std::move(*rec);
  } else if constexpr (KafkaStruct<T>) {
    PrintStructContents(c, v, path);
  } else if constexpr (kIsOptional<T>) {
    using X = typename T::value_type;
    if constexpr (std::is_same_v<X, std::string>) {
      std::string s;
      const bool present = schema_internal::DecodeBlob(c.dc, f.type, compact, nullable, s);
      if (present)
        v = std::move(s);
      else
        v.reset();
      if (c.r().ok()) c.b.Blob(n, BlobKind(f.type), compact, v ? &*v : nullptr, f.sensitive);
    } else if constexpr (std::is_same_v<X, Records>) {
      PrintRecords(c, f, nullable, n, path, v);
    } else if constexpr (KafkaStruct<X>) {
      const size_t m = c.b.Open(c.r(), Kind::kPresence, "present", "int8", path + ".present");
      const bool present = c.r().ReadStructPresence(nullable);
      c.b.Close(c.r(), m);
      if (c.r().ok()) {
        c.b.node(m).value = present ? "1" : "-1";
        c.b.node(m).note = present ? "nullable struct: present" : "nullable struct: null";
        if (!present) c.b.node(n).value = "null";
      }
      if (present)
        PrintStructContents(c, v.emplace(), path);
      else
        v.reset();
    } else {
      X arr;
      if (PrintArray(c, f, nullable, n, path, arr))
        v = std::move(arr);
      else
        v.reset();
    }
  } else if constexpr (schema_internal::IsVector<T>::value) {
    PrintArray(c, f, false, n, path, v);
  } else {
    PrintScalar(c, f, v, n);
  }
  c.b.Close(c.r(), n);
}

// Regular (untagged) fields present at the version, in wire order.
struct RegularFieldPrinter {
  PrintContext& c;
  PathNode& node;
  const std::string& path;
  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    if constexpr (!kIsTagged<T>) {
      if (!f.versions.Contains(c.dc.version) || !c.r().ok()) return;
      node.name = f.name;
      const std::string label = c.Label(f);
      PrintValue(c, f, value, label, path + "." + label);
    }
  }
};

// The payload of one known tag; sets `found` when the tag is known here.
struct TaggedFieldPrinter {
  PrintContext& c;
  PathNode& node;
  const std::string& path;
  uint32_t tag;
  const FieldSpec* found = nullptr;
  template <class T>
  void operator()(const FieldSpec& f, Tagged<T>& value) {
    if (found || f.tag != static_cast<int32_t>(tag) || !f.tagged.Contains(c.dc.version)) return;
    found = &f;
    node.name = f.name;
    const std::string label = c.Label(f);
    PrintValue(c, f, value.emplace(), label, path + "." + label);
  }
  template <class T>
  void operator()(const FieldSpec&, T&) {}  // untagged fields
};

// Out-of-line parts of the tagged-field section.
// Opens the section node and reads the count (with a `count` child when non-zero).
size_t OpenTaggedFields(PrintContext& c, const std::string& path, uint32_t* count);
// Reads one tag header into an open `tag N` node with `tag` and `size` children.
// Returns the node index, or SIZE_MAX when the header failed (node closed, the reader
// has the error).
size_t PrintTagHeader(PrintContext& c, const std::string& path, int64_t previous, uint32_t* tag,
                      uint32_t* size);
// Labels tag node `n` once its payload is known: `field` is the known field.
void FinishKnownTag(PrintContext& c, size_t n, const FieldSpec& field);
// The payload of an unknown tag: a `data` node; kept for re-encoding (as decode.h).
void PrintUnknownTag(PrintContext& c, size_t n, UnknownTaggedFields& unknown, uint32_t tag,
                     uint32_t size);

template <KafkaStruct S>
void PrintTaggedFields(PrintContext& c, S& s, PathNode& node, const std::string& path) {
  node.name = "tagged_fields";
  uint32_t count = 0;
  const size_t section = OpenTaggedFields(c, path, &count);
  int64_t previous = -1;
  for (uint32_t i = 0; i < count && c.r().ok(); ++i) {
    node.name = "tagged_fields";
    const size_t at = c.r().offset();
    uint32_t tag = 0, size = 0;
    const size_t n = PrintTagHeader(c, path, previous, &tag, &size);
    if (n == SIZE_MAX) break;
    previous = tag;
    // As decode.h: a known value longer than `size` fails kTagSizeMismatch at `at`.
    const Reader::TagLimit limit = c.r().PushTagLimit(size, at);
    const size_t outer_reserved = c.dc.reserved;
    c.dc.reserved = 0;  // the reserved bytes lie beyond this limit
    TaggedFieldPrinter d{c, node, path, tag};
    S::VisitFields(d, s);
    if (d.found != nullptr) {
      schema_internal::CheckTagConsumed(c.dc, at, tag, size);
      FinishKnownTag(c, n, *d.found);
    } else {
      PrintUnknownTag(c, n, s.unknown_tagged_fields, tag, size);
    }
    c.dc.reserved = outer_reserved;
    c.r().PopTagLimit(limit);
    c.b.Close(c.r(), n);
  }
  c.b.Close(c.r(), section);
}

// The fields of struct `s` (whose node is open) and its tagged-field section.
template <KafkaStruct S>
void PrintStructContents(PrintContext& c, S& s, const std::string& path) {
  PathNode node{c.dc.node, nullptr, -1};
  PathNode* const parent = c.dc.node;
  c.dc.node = &node;
  c.r().set_path(&node);
  RegularFieldPrinter d{c, node, path};
  S::VisitFields(d, s);
  if (c.dc.flexible && c.r().ok()) PrintTaggedFields(c, s, node, path);
  c.dc.node = parent;
  c.r().set_path(parent);
}

// Fails like DecodeBody for a version outside the message's valid versions.
void FailVersion(Reader& r, int16_t version, const MessageSpec& spec);

}  // namespace print_internal

/// How a top-level struct appears in the tree: its node's label, type, path and note.
struct PrintScope {
  PrintNode::Kind kind = PrintNode::Kind::kBody;
  std::string label;  ///< Default: the message name.
  std::string type;   ///< Default: "struct".
  std::string path = "Body";
  std::string note;           ///< Default: "message body, version N".
  bool header_style = false;  ///< snake_case names and nullable_ types (headers).
};

/// Decodes the body of M at `version` from `r` exactly as DecodeBody<M> does (same
/// errors and paths) while appending its nodes to `b`: one node for the struct, then
/// its fields below it. `out` must be default-constructed.
template <class M>
requires KafkaStruct<M> && requires { M::kMessage; }
void PrintBody(Reader& r, int16_t version, PrintBuilder& b, M& out, const PrintScope& scope = {}) {
  PathNode root{r.path(), M::kMessage.name, -1};
  r.set_path(&root);
  const size_t n = b.Open(r, scope.kind, scope.label.empty() ? M::kMessage.name : scope.label,
                          scope.type.empty() ? "struct" : scope.type, scope.path);
  b.node(n).note =
      scope.note.empty() ? "message body, version " + PrintBuilder::Int(version) : scope.note;
  if (!M::kMessage.valid.Contains(version)) {
    print_internal::FailVersion(r, version, M::kMessage);
  } else {
    const bool flexible = M::kMessage.flexible.Contains(version);
    print_internal::PrintContext c{schema_internal::DecodeContext{r, version, flexible, &root}, b,
                                   scope.header_style};
    print_internal::PrintStructContents(c, out, scope.path);
  }
  b.Close(r, n);
  r.set_path(root.parent);
}

/// The object tree as text, in the documentation pages' style: one row per node with
/// tree branches, label, type, `= value detail`, `[0xOFFS, NB]` and a note. Nodes marked
/// `failed` get a trailing "<-- decoding stopped here".
/// `width` > 0 fits every row in that many columns (code points): the value column is
/// shortened with "…" first (to 10 columns; the whole value follows on an indented
/// continuation line), then the type column (to 12), and notes that do not fit move to
/// continuation lines too, wrapped at word boundaries; the
/// tree and range columns stay whole (a tree too deep for the width leaves its rows
/// long). 0: no limit.
std::string RenderObjectTree(const std::vector<PrintNode>& nodes, size_t width = 0);

/// The bytes as a hex dump, 16 per row, with an offset column, a column header, and
/// per row a region map (F frame, H header, B body, R records, T tagged fields);
/// bytes of redacted nodes print as "**".
std::string RenderByteLayout(std::span<const uint8_t> bytes, const std::vector<PrintNode>& nodes);

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_PRINT_H_
