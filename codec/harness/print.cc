// Out-of-line, type-independent parts of the explain visitor (print.h): node
// bookkeeping and value text. The renderers are in render.cc.
#include "codec/harness/print.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "codec/wire/hex.h"
#include "codec/wire/utf8.h"

namespace kwire {

// ---- PrintBuilder.

size_t PrintBuilder::OpenAt(size_t offset, PrintNode::Kind kind, std::string label,
                            std::string type, std::string path) {
  PrintNode n;
  n.kind = kind;
  n.depth = depth_++;
  n.offset = offset;
  n.label = std::move(label);
  n.type = std::move(type);
  n.path = std::move(path);
  out_.push_back(std::move(n));
  return out_.size() - 1;
}

size_t PrintBuilder::Open(const Reader& r, PrintNode::Kind kind, std::string label,
                          std::string type, std::string path) {
  // After a failure the reader is drained; new nodes start at the failure.
  const size_t at = r.ok() ? r.offset() : r.error().offset;
  return OpenAt(at, kind, std::move(label), std::move(type), std::move(path));
}

void PrintBuilder::CloseAt(size_t index, size_t end) {
  PrintNode& n = out_[index];
  n.size = end > n.offset ? end - n.offset : 0;
  --depth_;
}

void PrintBuilder::Close(const Reader& r, size_t index) {
  if (r.ok()) {
    CloseAt(index, r.offset());
    return;
  }
  // Failed inside: the node ends at the failure, or after its last complete child.
  size_t end = std::max(out_[index].offset, r.error().offset);
  for (size_t i = index + 1; i < out_.size(); ++i) {
    end = std::max(end, out_[i].offset + out_[i].size);
  }
  out_[index].failed = true;
  CloseAt(index, end);
}

size_t PrintBuilder::VarintLength(size_t offset) const {
  size_t i = offset;
  while (i < bytes_.size() && (bytes_[i] & 0x80) != 0) ++i;
  return std::min(i + 1, bytes_.size()) - std::min(offset, bytes_.size());
}

std::string PrintBuilder::Int(int64_t v) { return std::to_string(v); }

std::string PrintBuilder::Float(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string PrintBuilder::UuidText(const Uuid& u) {
  // Kafka's Uuid.toString(): URL-safe base64 without padding (22 characters).
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(u.bytes.data()), u.bytes.size()));
}

std::string PrintBuilder::SnakeCase(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(name[i]);
    if (std::isupper(ch) && i > 0) {
      const unsigned char prev = static_cast<unsigned char>(name[i - 1]);
      const bool next_lower =
          i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      if (std::islower(prev) || std::isdigit(prev) || (std::isupper(prev) && next_lower)) {
        out.push_back('_');
      }
    }
    out.push_back(static_cast<char>(std::tolower(ch)));
  }
  return out;
}

namespace {

// A string value as a quoted literal, shortened to about `max` bytes (at a character
// boundary): well-formed UTF-8 characters as they are, control characters and the bytes
// of ill-formed sequences escaped (\n, \x01, \xff), never raw.
std::string Quote(std::string_view s, size_t max) {
  std::string out = "\"";
  size_t keep = s.size();
  if (keep > max) {
    keep = max;
    // Back off over continuation bytes (at most 3) so a character is not split.
    for (int i = 0; i < 3 && keep > 0 && (static_cast<uint8_t>(s[keep]) & 0xc0) == 0x80; ++i) {
      --keep;
    }
    if (keep == 0) keep = max;
  }
  out += EscapeUtf8ForDisplay(s.substr(0, keep));
  out += keep < s.size() ? "\"..." : "\"";
  return out;
}

// Bytes as 0x-prefixed hex, shortened to `max` hex digits.
std::string HexValue(std::string_view s, size_t max) {
  if (s.empty()) return "empty";
  const size_t n = std::min(s.size(), std::max<size_t>(1, max / 2));
  std::string out = "0x" + HexString(s.substr(0, n));
  if (n < s.size()) out += "...";
  return out;
}

}  // namespace

void PrintBuilder::Blob(size_t index, FieldType kind, bool compact, const std::string* s,
                        bool sensitive) {
  PrintNode& n = out_[index];
  const int64_t len = s == nullptr ? -1 : static_cast<int64_t>(s->size());
  if (compact) {
    n.detail = len < 0 ? "(compact, 0 = null)" : absl::StrFormat("(compact, len+1=%d)", len + 1);
  } else {
    n.detail = absl::StrFormat("(%s len=%d)", kind == FieldType::kString ? "int16" : "int32", len);
  }
  if (s == nullptr) {
    n.value = "null";
  } else if (sensitive && !options_.show_secrets && !s->empty()) {
    n.value = absl::StrFormat("<redacted, %d bytes>", s->size());
    n.redacted = true;
    n.redact_skip = static_cast<uint32_t>(compact ? VarintLength(n.offset)
                                                  : (kind == FieldType::kString ? 2 : 4));
  } else if (kind == FieldType::kString) {
    n.value = Quote(*s, options_.max_value_chars);
    // Only under kQuirkInvalidUtf8 (strict decoding stops at the first bad byte).
    if (const size_t bad = FindInvalidUtf8(*s); bad != s->size()) {
      const size_t prefix = compact ? VarintLength(n.offset) : 2;
      n.note = absl::StrFormat("invalid UTF-8 at byte %d: %s", n.offset + prefix + bad,
                               DescribeInvalidUtf8(*s, bad));
    }
  } else {
    n.value = HexValue(*s, options_.max_value_chars);
  }
}

namespace print_internal {

using Kind = PrintNode::Kind;

namespace {
// Wire kind of a blob value (`std::string` is a string or bytes, by the field spec).
FieldType BlobKind(FieldType t) {
  return t == FieldType::kString ? FieldType::kString : FieldType::kBytes;
}
}  // namespace

namespace {

// A count or length row (`ln`, type int32 / uvarint) whose read failed at its own first
// byte (a count too large for the bytes left, a negative length): the row covers the
// prefix and shows the value on the wire, the value the error is about.
void FailedPrefix(const PrintBuilder& b, PrintNode& ln, bool compact) {
  const std::span<const uint8_t> bytes = b.bytes();
  if (ln.offset >= bytes.size()) return;
  int64_t wire = 0;
  size_t width = 0;
  if (compact) {
    width = b.VarintLength(ln.offset);
    if (width > 5 || (bytes[ln.offset + width - 1] & 0x80) != 0) return;  // no whole uvarint
    for (size_t k = width; k-- > 0;) wire = (wire << 7) | (bytes[ln.offset + k] & 0x7f);
  } else {
    width = 4;
    if (ln.offset + width > bytes.size()) return;
    for (size_t k = 0; k < width; ++k) wire = (wire << 8) | bytes[ln.offset + k];
    wire = int64_t{static_cast<int32_t>(static_cast<uint32_t>(wire))};
  }
  ln.size = std::max(ln.size, width);
  ln.value = PrintBuilder::Int(wire);
  if (compact) ln.detail = wire == 0 ? "(compact, 0 = null)" : "(compact, n+1)";
}

}  // namespace

std::string PrintObserver::Label(const FieldSpec& f) const {
  return header_style_ ? PrintBuilder::SnakeCase(f.name) : std::string(f.name);
}

std::string PrintObserver::Type(const FieldSpec& f) const {
  if (!header_style_) return f.type_name;
  std::string t = FieldTypeName(f.type);
  return rule_.Nullable(f) ? "nullable_" + t : t;
}

void PrintObserver::Open(const Reader& r, Kind kind, std::string label, std::string type,
                         std::string path) {
  open_.push_back(b_.Open(r, kind, std::move(label), std::move(type), std::move(path)));
}

size_t PrintObserver::Close(const Reader& r) {
  const size_t n = open_.back();
  open_.pop_back();
  b_.Close(r, n);
  return n;
}

void PrintObserver::BeginField(const Reader& r, const FieldSpec& f) {
  std::string label = Label(f);
  std::string path = paths_.back() + "." + label;
  paths_.push_back(path);
  Open(r, Kind::kField, std::move(label), Type(f), std::move(path));
  Top().is_struct = f.type == FieldType::kStruct;
}

void PrintObserver::EndField(const Reader& r) {
  Close(r);
  paths_.pop_back();
}

void PrintObserver::BeginElement(const Reader& r, const FieldSpec& f, int64_t index,
                                 const char* struct_name) {
  const std::string idx = "[" + PrintBuilder::Int(index) + "]";
  std::string path = paths_.back() + idx;
  paths_.push_back(path);
  Open(r, Kind::kElement, std::string(struct_name != nullptr ? struct_name : f.name) + idx,
       struct_name != nullptr ? struct_name : FieldTypeName(f.element), std::move(path));
  Top().is_struct = struct_name != nullptr;
}

void PrintObserver::EndElement(const Reader& r) {
  Close(r);
  paths_.pop_back();
}

void PrintObserver::BeginElided(const Reader& r, const FieldSpec& f, int64_t from,
                                const char* struct_name) {
  const std::string idx = "[" + PrintBuilder::Int(from) + "...]";
  Open(r, Kind::kElement, std::string(struct_name != nullptr ? struct_name : f.name) + idx, "",
       paths_.back() + idx);
}

void PrintObserver::EndElided(const Reader& r, int64_t elided, bool sensitive) {
  PrintNode& s = b_.node(Close(r));
  s.value = PrintBuilder::Int(elided) + " more elements";
  s.note = "not shown (PrintOptions::max_array_elements / max_nodes)";
  if (sensitive && !b_.options().show_secrets) s.redacted = true;
}

void PrintObserver::Value(int64_t v) { Top().value = PrintBuilder::Int(v); }
void PrintObserver::Value(double v) { Top().value = PrintBuilder::Float(v); }
void PrintObserver::Value(bool v) { Top().value = v ? "true" : "false"; }
void PrintObserver::Value(const Uuid& v) {
  // Kafka's form (base64, as kafka-topics.sh prints topic IDs) with the JSON mapping's
  // (conformance/FORMAT.md: 32 hex digits) beside it, so either can be searched for.
  PrintNode& n = Top();
  n.value = PrintBuilder::UuidText(v);
  n.detail = "(hex " + HexString(std::span<const uint8_t>(v.bytes.data(), v.bytes.size())) + ")";
}

void PrintObserver::Blob(FieldType kind, bool compact, const std::string* s, bool sensitive) {
  b_.Blob(open_.back(), BlobKind(kind), compact, s, sensitive);
}

void PrintObserver::BeginArrayCount(const Reader& r, bool compact) {
  Open(r, Kind::kLength, "length", compact ? "uvarint" : "int32", paths_.back() + ".length");
}

int64_t PrintObserver::EndArrayCount(const Reader& r, int64_t count, bool compact) {
  PrintNode& ln = b_.node(Close(r));
  if (!r.ok()) {
    if (r.error().offset == ln.offset) FailedPrefix(b_, ln, compact);
    return 0;
  }
  ln.value = PrintBuilder::Int(count < 0 ? (compact ? 0 : -1) : (compact ? count + 1 : count));
  if (compact) ln.detail = count < 0 ? "(compact, 0 = null)" : "(compact, n+1)";
  ln.note = count < 0    ? "null"
            : count == 1 ? "one element follows"
                         : PrintBuilder::Int(count) + " elements follow";
  Top().value = count < 0 ? "null" : PrintBuilder::Int(count);
  const PrintOptions& po = b_.options();
  // Bounds the tree of a hostile frame: the rest are decoded under one summary node.
  return b_.nodes().size() >= po.max_nodes
             ? 0
             : std::min<int64_t>(count, static_cast<int64_t>(po.max_array_elements));
}

void PrintObserver::BeginRecordsLength(const Reader& r, bool compact) {
  Open(r, Kind::kLength, "length", compact ? "uvarint" : "int32", paths_.back() + ".length");
}

void PrintObserver::EndRecordsLength(const Reader& r, int64_t size, bool compact) {
  PrintNode& ln = b_.node(Close(r));
  if (!r.ok()) {
    if (r.error().offset == ln.offset) FailedPrefix(b_, ln, compact);
    return;
  }
  ln.value = PrintBuilder::Int(size < 0 ? (compact ? 0 : -1) : (compact ? size + 1 : size));
  if (compact) ln.detail = size < 0 ? "(compact, 0 = null)" : "(compact, len+1)";
  ln.note = size < 0 ? "null" : "bytes of record batches that follow";
  if (size < 0) Top().value = "null";
}

void PrintObserver::RecordsPayload(const Reader& r, const FieldSpec& f, int16_t version,
                                   size_t at, size_t size) {
  Top().value = size == 0 ? "empty" : absl::StrFormat("%d bytes", size);
  if (size == 0) return;
  const std::string& path = paths_.back();
  const std::span<const uint8_t> payload = b_.bytes().subspan(at, size);
  const RecordsPrinter hook = b_.options().records;
  if (hook == nullptr ||
      !hook(RecordsPrintInput{payload, at, b_.depth(), path, f, version, r.quirks()},
            b_.nodes())) {
    // Default: opaque. (Hook point for RecordBatch v2 decoding: PrintOptions::records.)
    const size_t p = b_.OpenAt(at, Kind::kRecords, "batches", "records", path + ".batches");
    b_.node(p).value = absl::StrFormat("%d bytes", size);
    b_.node(p).note = f.records.layout == RecordsLayout::kUnaligned
                          ? "a byte range of a snapshot, not aligned to batches (not parsed)"
                          : "record batches, not decoded here";
    b_.CloseAt(p, at + size);
  }
  // The verdict is the decoder's: it validates the field (RecordsDecode::validator) right
  // after this call.
}

void PrintObserver::BeginPresence(const Reader& r) {
  Open(r, Kind::kPresence, "present", "int8", paths_.back() + ".present");
}

void PrintObserver::EndPresence(const Reader& r, bool present) {
  PrintNode& m = b_.node(Close(r));
  if (!r.ok()) return;
  m.value = present ? "1" : "-1";
  m.note = present ? "nullable struct: present" : "nullable struct: null";
  if (!present) Top().value = "null";
}

void PrintObserver::BeginTaggedFields(const Reader& r) {
  Open(r, Kind::kTaggedFields, "tagged_fields", "uvarint", paths_.back() + ".tagged_fields");
}

void PrintObserver::TaggedFieldCount(const Reader& r, size_t at, uint32_t count) {
  Top().value = PrintBuilder::Int(count);
  Top().note = header_style_ ? "number of tagged fields in the header"
                             : "number of tagged fields in this struct";
  if (count > 0) {
    const size_t m =
        b_.OpenAt(at, Kind::kTaggedCount, "count", "uvarint", paths_.back() + ".tagged_fields.count");
    b_.node(m).value = PrintBuilder::Int(count);
    b_.CloseAt(m, r.offset());
  }
}

void PrintObserver::EndTaggedFields(const Reader& r) { Close(r); }

void PrintObserver::BeginTag(const Reader& r) {
  Open(r, Kind::kTag, "tag", "tagged_field", paths_.back() + ".tagged_fields.tag");
}

void PrintObserver::TagHeader(const Reader& r, size_t at, uint32_t tag, uint32_t size) {
  const std::string base = paths_.back() + ".tagged_fields.tag" + PrintBuilder::Int(tag);
  Top().label = "tag " + PrintBuilder::Int(tag);
  Top().path = base;
  const size_t mid = at + b_.VarintLength(at);
  const size_t t = b_.OpenAt(at, Kind::kTagHeader, "tag", "uvarint", base + ".tag");
  b_.node(t).value = PrintBuilder::Int(tag);
  b_.CloseAt(t, mid);
  const size_t s = b_.OpenAt(mid, Kind::kTagHeader, "size", "uvarint", base + ".size");
  b_.node(s).value = PrintBuilder::Int(size);
  b_.node(s).note = "bytes of the value that follows";
  b_.CloseAt(s, r.offset());
}

void PrintObserver::KnownTag(const FieldSpec& f) {
  Top().note = absl::StrFormat("tagged field %s", Label(f));
}

void PrintObserver::BeginUnknownTag(const Reader& r) {
  Top().note = "unknown at this version, kept for re-encoding";
  std::string path = Top().path + ".data";
  Open(r, Kind::kUnknownTag, "data", "bytes", std::move(path));
}

void PrintObserver::EndUnknownTag(const Reader& r, uint32_t size) {
  PrintNode& d = b_.node(Close(r));
  if (!r.ok()) return;
  const auto raw = b_.bytes().subspan(d.offset, size);
  d.value = HexValue(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()),
                     b_.options().max_value_chars);
}

void PrintObserver::EndTag(const Reader& r) { Close(r); }

void FailVersion(Reader& r, int16_t version, const MessageSpec& spec) {
  r.Fail(ErrorKind::kUnsupportedVersion, absl::StrFormat("version %d, valid versions are %d-%d",
                                                         version, spec.valid.lo, spec.valid.hi));
}

}  // namespace print_internal

void PrintAnyBody(Reader& r, int16_t version, PrintBuilder& b, AnyMessage& body) {
  const ExplainOps* ops = FindExplainOps(&body.spec());
  if (ops == nullptr) {
    r.Fail(ErrorKind::kInvalidValue,
           absl::StrFormat("%s has no explain table entry", body.spec().name));
    return;
  }
  ops->explain(r, version, b, body.raw());
}

}  // namespace kwire
