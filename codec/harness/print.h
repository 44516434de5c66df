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
// There is no second walk of the grammar: the tree is built by a DecodeObserver
// (observer.h) of decode.h's own walk, so it accepts exactly what DecodeStruct accepts
// (same errors, same paths, same quirks, same allocation budget): a node opens at the
// Reader's offset before a value is read and closes at the offset after it. After a
// failure the nodes read so far remain, and the nodes enclosing the failure offset are
// marked `failed`.
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
// Frames (size prefix + header + body) are explained by codec/harness/explain.h; the
// renderers below turn any node list into the pages' text tree and a hex byte layout.
#ifndef KWIRE_CODEC_HARNESS_PRINT_H_
#define KWIRE_CODEC_HARNESS_PRINT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/schema/decode.h"
#include "codec/schema/message.h"
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
  /// A struct field or a struct array element: its value is its children (renderers
  /// show "= struct"), unlike a string, bytes or array field whose read failed.
  bool is_struct = false;
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
/// in here. The field's verdict is not the printer's: with RecordsDecode::validator set,
/// the explain visitor validates the payload as the decoder does, after the printer.
using RecordsPrinter = bool (*)(const RecordsPrintInput& in, std::vector<PrintNode>& out);

/// Options of the explain visitor.
struct PrintOptions {
  DecodeOptions decode;              ///< Quirks (strict by default), as for decoding.
  bool show_secrets = false;         ///< Print sensitive fields instead of redacting them.
  size_t max_value_chars = 64;       ///< Longer strings / bytes are shortened with "...".
  RecordsPrinter records = nullptr;  ///< See RecordsPrinter; nullptr: opaque.
  /// Frame explanations (codec/harness/explain.h) validate records fields as frame
  /// decoding does (FrameOptions::records_mode), so their verdict is the decoder's;
  /// kOpaque leaves them unexamined.
  RecordsMode records_mode = RecordsMode::kValidate;
  /// Records fields read as views into the frame (FrameOptions::borrow_records), not
  /// copied: the same tree, no copy of the payload.
  bool borrow_records = false;
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
  /// What the decode walk does with records fields (validated as a frame decode does:
  /// codec/protocol/explain.cc sets it). Default: opaque.
  const RecordsDecode& records() const { return records_; }
  void set_records(const RecordsDecode& records) { records_ = records; }
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
  RecordsDecode records_;
};

namespace print_internal {

// The DecodeObserver that builds the object tree: every Begin/End pair of the decode
// walk is a node (print.cc). Labels and types follow the message definitions, or in
// `header_style` the protocol guide's header fields (snake_case names, nullable_ types).
class PrintObserver final : public DecodeObserver {
 public:
  PrintObserver(PrintBuilder& b, std::string path, VersionRule rule, bool header_style)
      : b_(b), rule_(rule), header_style_(header_style) {
    paths_.push_back(std::move(path));
  }

  void BeginField(const Reader& r, const FieldSpec& f) override;
  void EndField(const Reader& r) override;
  void BeginElement(const Reader& r, const FieldSpec& f, int64_t index,
                    const char* struct_name) override;
  void EndElement(const Reader& r) override;
  void BeginElided(const Reader& r, const FieldSpec& f, int64_t from,
                   const char* struct_name) override;
  void EndElided(const Reader& r, int64_t elided, bool sensitive) override;
  void Value(int64_t v) override;
  void Value(double v) override;
  void Value(bool v) override;
  void Value(const Uuid& v) override;
  void Blob(FieldType kind, bool compact, const std::string* s, bool sensitive) override;
  void BeginArrayCount(const Reader& r, bool compact) override;
  int64_t EndArrayCount(const Reader& r, int64_t count, bool compact) override;
  void BeginRecordsLength(const Reader& r, bool compact) override;
  void EndRecordsLength(const Reader& r, int64_t length, bool compact) override;
  void RecordsPayload(const Reader& r, const FieldSpec& f, int16_t version, size_t at,
                      size_t size) override;
  void BeginPresence(const Reader& r) override;
  void EndPresence(const Reader& r, bool present) override;
  void BeginTaggedFields(const Reader& r) override;
  void TaggedFieldCount(const Reader& r, size_t at, uint32_t count) override;
  void EndTaggedFields(const Reader& r) override;
  void BeginTag(const Reader& r) override;
  void TagHeader(const Reader& r, size_t at, uint32_t tag, uint32_t size) override;
  void KnownTag(const FieldSpec& f) override;
  void BeginUnknownTag(const Reader& r) override;
  void EndUnknownTag(const Reader& r, uint32_t size) override;
  void EndTag(const Reader& r) override;

 private:
  std::string Label(const FieldSpec& f) const;
  std::string Type(const FieldSpec& f) const;
  // Opens a node below the innermost open one and makes it the innermost.
  void Open(const Reader& r, PrintNode::Kind kind, std::string label, std::string type,
            std::string path);
  // Closes the innermost node; returns its index.
  size_t Close(const Reader& r);
  PrintNode& Top() { return b_.node(open_.back()); }

  PrintBuilder& b_;
  VersionRule rule_;  // the message's version rule (spec.h): nullable_ types ask it
  bool header_style_;
  std::vector<size_t> open_;         // open nodes, innermost last
  std::vector<std::string> paths_;   // paths of the open fields and elements
};

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

/// Decodes the body of M at `version` from `r` with decode.h's own walk — the same
/// calls as DecodeBody<M>, so the same errors, paths and allocation budget — observed by
/// the tree builder, which appends its nodes to `b`: one node for the struct, then its
/// fields below it. `out` receives the decoded message (as DecodeBody's).
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
    const VersionRule rule = VersionRule::Of(M::kMessage, version);
    print_internal::PrintObserver o(b, scope.path, rule, scope.header_style);
    schema_internal::ObservedContext c{{rule, r, &root, 0, b.records()}, o};
    schema_internal::DecodeStruct(c, out);
  }
  b.Close(r, n);
  r.set_path(root.parent);
}

/// The explain visitor of one message type, for run-time dispatch (kwire::explain's
/// generated table, tools/gen_ops_table.py). `m` is an `M*`, default-constructed.
struct ExplainOps {
  const MessageSpec* spec;
  void (*explain)(Reader& r, int16_t version, PrintBuilder& b, void* m);
};

/// The ExplainOps of M (used by the generated table).
template <KafkaMessage M>
constexpr ExplainOps MakeExplainOps() {
  return ExplainOps{&M::kMessage, [](Reader& r, int16_t v, PrintBuilder& b, void* m) {
                      PrintBody(r, v, b, *static_cast<M*>(m));
                    }};
}

/// The ExplainOps of the message `spec` describes; nullptr for a spec that is not a
/// request, response or header message of codec/defs.
const ExplainOps* FindExplainOps(const MessageSpec* spec);

/// PrintBody (default scope) on a message chosen at run time: `body` receives the
/// decoded message. Fails kInvalidValue when `body`'s type has no table entry.
void PrintAnyBody(Reader& r, int16_t version, PrintBuilder& b, AnyMessage& body);

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

#endif  // KWIRE_CODEC_HARNESS_PRINT_H_
