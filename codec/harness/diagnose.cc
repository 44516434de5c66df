#include "codec/harness/diagnose.h"

#include <algorithm>
#include <optional>

#include "absl/functional/function_ref.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codec/harness/explain.h"
#include "codec/protocol/registry.h"
#include "codec/wire/plural.h"
#include "codec/wire/port.h"
#include "codec/wire/utf8.h"
#include "codec/wire/varint.h"

namespace kwire {
namespace {

constexpr size_t kSizePrefix = 4;
// Bytes decoded in all by the length search of one frame (each try decodes it whole).
constexpr size_t kMaxWorkBytes = size_t{64} << 20;

// True when `frame` decodes cleanly.
using Decodes = absl::FunctionRef<bool(std::span<const uint8_t>)>;

// Writes the low `width` (2 or 4) bytes of `v` big-endian at `at`.
void PutBig(std::vector<uint8_t>& b, size_t at, uint64_t v, size_t width) {
  if (width == 2) {
    StoreBigEndian(b.data() + at, static_cast<uint16_t>(v));
  } else {
    StoreBigEndian(b.data() + at, static_cast<uint32_t>(v));
  }
}

// Writes `v` as a canonical uvarint of exactly `width` bytes; false when it takes another
// number of bytes (the frame would change size).
bool PutUvarint(std::vector<uint8_t>& b, size_t at, uint64_t v, size_t width) {
  uint8_t enc[kMaxVarlongBytes];
  if (EncodeUvarint64(enc, v) != width) return false;
  std::copy(enc, enc + width, b.begin() + static_cast<ptrdiff_t>(at));
  return true;
}

// "v3", "v3-v5, v7".
std::string VersionList(const std::vector<int16_t>& vs) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < vs.size();) {
    size_t j = i;
    while (j + 1 < vs.size() && vs[j + 1] == vs[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrFormat("v%d", vs[i])
                           : absl::StrFormat("v%d-v%d", vs[i], vs[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ", ");
}

// "7", "7 or 9", "7, 8 or 9".
std::string ValueList(const std::vector<int64_t>& vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) {
    if (i > 0) s += i + 1 == vs.size() ? " or " : ", ";
    s += std::to_string(vs[i]);
  }
  return s;
}

// A length or count prefix of the frame, from its explanation's rows.
struct Prefix {
  size_t offset = 0, width = 0;
  bool uvarint = false;  // else big-endian int16 / int32 (by width)
  bool plus_one = false; // compact: the wire value is n+1 (0 = null)
  const char* what = "";
  std::string owner;     // the value's path, error style
  int64_t read = 0;      // n
  bool encloses = false; // its value holds the failure (an array or value that failed)
};

// The wire value at p.offset (p.width bytes).
std::optional<int64_t> ReadPrefix(std::span<const uint8_t> b, const Prefix& p) {
  if (p.offset + p.width > b.size() || p.width == 0) return std::nullopt;
  uint64_t v = 0;
  if (p.uvarint) {
    for (size_t k = p.width; k-- > 0;) v = (v << 7) | (b[p.offset + k] & 0x7f);
    return static_cast<int64_t>(v);
  }
  const uint8_t* at = b.data() + p.offset;
  return p.width == 2 ? int64_t{LoadBigEndian<int16_t>(at)} : int64_t{LoadBigEndian<int32_t>(at)};
}

// The prefixes of an explanation (length rows, tag sizes) read before `failed_at` (or at
// it), the likeliest culprits first.
std::vector<Prefix> FindPrefixes(const std::vector<PrintNode>& nodes,
                                 std::span<const uint8_t> bytes, size_t failed_at) {
  using Kind = PrintNode::Kind;
  const std::string message = nodes.empty() ? "" : nodes[0].label;
  std::vector<Prefix> out;
  std::vector<size_t> open;  // ancestors of node i
  for (size_t i = 0; i < nodes.size(); ++i) {
    const PrintNode& n = nodes[i];
    while (!open.empty() && nodes[open.back()].depth >= n.depth) open.pop_back();
    const PrintNode* parent = open.empty() ? nullptr : &nodes[open.back()];
    open.push_back(i);
    const bool length = n.kind == Kind::kLength;
    const bool tag_size = n.kind == Kind::kTagHeader && n.label == "size";
    if ((!length && !tag_size) || parent == nullptr || n.offset > failed_at) continue;
    Prefix p;
    p.offset = n.offset;
    p.uvarint = n.type == "uvarint";
    p.width = p.uvarint ? std::min<size_t>(n.size, 5) : (n.type == "int16" ? 2 : 4);
    if (p.uvarint && p.width == 0) continue;
    p.plus_one = p.uvarint && length;
    const std::string& t = parent->type;
    if (tag_size) {
      p.what = "tagged field size";
    } else if (t.rfind("[]", 0) == 0 || t.rfind("nullable_[]", 0) == 0) {
      p.what = "array count";
    } else if (t.find("records") != std::string::npos) {
      p.what = "records length";
    } else if (t.find("string") != std::string::npos) {
      p.what = "string length";
    } else {
      p.what = "bytes length";
    }
    std::string owner = tag_size ? n.path : parent->path;
    if (owner.rfind("Body", 0) == 0) owner = message + owner.substr(4);
    p.owner = owner;
    p.encloses = parent->failed;
    const std::optional<int64_t> wire = ReadPrefix(bytes, p);
    if (!wire) continue;
    p.read = p.plus_one ? *wire - 1 : *wire;
    out.push_back(std::move(p));
  }
  // The counts and lengths of the arrays and values the failure is in first (a count one
  // too large fails in a later element, or deeper), innermost first; then the others,
  // nearest first.
  std::stable_sort(out.begin(), out.end(), [](const Prefix& a, const Prefix& b) {
    if (a.encloses != b.encloses) return a.encloses;
    return a.offset > b.offset;
  });
  return out;
}

// The values of `p` (other than the one read, of the same width) with which the frame
// decodes; `work` counts the bytes decoded.
std::vector<int64_t> TryValues(std::span<const uint8_t> frame, const Prefix& p,
                               const DiagnoseOptions& d, Decodes decodes, size_t& work) {
  std::vector<int64_t> found;
  const size_t value_at = p.offset + p.width;
  // A length or count never exceeds the bytes after its prefix.
  const int64_t hi = static_cast<int64_t>(std::min<size_t>(
      frame.size() - std::min(frame.size(), value_at), d.max_values > 0 ? d.max_values - 1 : 0));
  std::vector<uint8_t> b(frame.begin(), frame.end());
  for (int64_t v = 0; v <= hi && found.size() < DecodeHint::kMaxValues; ++v) {
    if (v == p.read) continue;
    if (work + frame.size() > kMaxWorkBytes) break;
    const uint64_t wire = static_cast<uint64_t>(p.plus_one ? v + 1 : v);
    if (p.uvarint) {
      if (!PutUvarint(b, p.offset, wire, p.width)) continue;
    } else {
      if (p.width == 2 && v > 0x7fff) break;
      PutBig(b, p.offset, wire, p.width);
    }
    work += frame.size();
    if (decodes(b)) found.push_back(v);
  }
  return found;
}

void LengthHints(std::span<const uint8_t> frame, const FrameExplanation& ex,
                 const DiagnoseOptions& d, Decodes decodes, std::vector<DecodeHint>& out) {
  const std::optional<Error> e = ErrorFromStatus(ex.status);
  if (!e || frame.size() > d.max_frame_bytes) return;
  std::vector<Prefix> prefixes = FindPrefixes(ex.nodes, frame, e->offset);
  if (prefixes.size() > d.max_prefixes) prefixes.resize(d.max_prefixes);
  size_t work = 0;
  std::vector<DecodeHint> found;
  for (const Prefix& p : prefixes) {
    std::vector<int64_t> with = TryValues(frame, p, d, decodes, work);
    if (with.empty()) continue;
    DecodeHint h;
    h.kind = DecodeHint::Kind::kLength;
    h.offset = p.offset;
    h.path = p.owner;
    h.read = p.read;
    h.decodes_with = with;
    std::string runs;
    const bool has_end = std::string_view(p.what) != "array count";
    if (has_end && p.read >= 0) {
      const size_t end = p.offset + p.width + static_cast<size_t>(p.read);
      runs = end > frame.size()
                 ? absl::StrFormat(", running to byte %d, past the end of the frame (byte %d)",
                                   end, frame.size())
                 : absl::StrFormat(", running to byte %d", end);
    }
    // A compact length or count is n+1 on the wire: both are given, so that the byte to
    // write is not worked out by hand (the explain tree's length row shows the wire value).
    std::string read = std::to_string(p.read), values = ValueList(with);
    if (p.plus_one) {
      std::vector<int64_t> wire = with;
      for (int64_t& v : wire) ++v;
      read = absl::StrFormat("%d (uvarint %d on the wire: compact, n+1)", p.read, p.read + 1);
      values = absl::StrFormat("%s (uvarint %s)", values, ValueList(wire));
    }
    h.text = absl::StrFormat("the %s at byte %d (%s) reads %s%s; with %s there the frame "
                             "decodes cleanly",
                             p.what, p.offset, p.owner, read, runs, values);
    found.push_back(std::move(h));
  }
  // Tried nearest first (the search budget goes to the likeliest), reported earliest
  // first: with one fault, the earliest length with which the frame decodes is its
  // likeliest cause; a later one that also does only makes up for it (a string length
  // made longer misplaces the next length, which a "fix" would then read from the data).
  std::stable_sort(found.begin(), found.end(),
                   [](const DecodeHint& a, const DecodeHint& b) { return a.offset < b.offset; });
  for (DecodeHint& h : found) out.push_back(std::move(h));
}

void SizeHints(std::span<const uint8_t> frame, const DiagnoseOptions& d, Decodes decodes,
               std::vector<DecodeHint>& out) {
  if (frame.size() < kSizePrefix) return;
  Reader r(frame.first(kSizePrefix));
  const int64_t size = r.ReadInt32();
  const int64_t have = static_cast<int64_t>(frame.size() - kSizePrefix);
  DecodeHint h;
  h.kind = DecodeHint::Kind::kSizePrefix;
  h.offset = 0;
  h.path = "Frame.size";
  h.read = size;
  std::vector<uint8_t> b(frame.begin(), frame.end());
  if (size != have) {
    PutBig(b, 0, static_cast<uint64_t>(have), kSizePrefix);
    if (!decodes(b)) return;
    h.decodes_with = {have};
    h.text = absl::StrFormat("the size prefix at byte 0 reads %d, but %d bytes follow; with %d "
                             "(%d %s) the frame decodes cleanly",
                             size, have, have, size > have ? size - have : have - size,
                             size > have ? "less" : "more");
    out.push_back(std::move(h));
    return;
  }
  std::vector<std::string> texts;
  for (int k = 1; k <= d.max_size_slack; ++k) {
    if (size - k >= 0) {
      std::vector<uint8_t> less(frame.begin(), frame.end() - k);
      PutBig(less, 0, static_cast<uint64_t>(size - k), kSizePrefix);
      if (decodes(less)) {
        h.decodes_with.push_back(size - k);
        texts.push_back(absl::StrFormat("with %d (%d less: the frame ends %d %s earlier, where "
                                        "the next one would start)",
                                        size - k, k, k, k == 1 ? "byte" : "bytes"));
      }
    }
    if (d.following.size() >= static_cast<size_t>(k)) {
      std::vector<uint8_t> more(frame.begin(), frame.end());
      more.insert(more.end(), d.following.begin(), d.following.begin() + k);
      PutBig(more, 0, static_cast<uint64_t>(size + k), kSizePrefix);
      if (decodes(more)) {
        h.decodes_with.push_back(size + k);
        texts.push_back(absl::StrFormat("with %d (%d more: the next %d %s of the stream)",
                                        size + k, k, k, k == 1 ? "byte" : "bytes"));
      }
    }
  }
  if (texts.empty()) return;
  std::sort(h.decodes_with.begin(), h.decodes_with.end());
  h.text = absl::StrFormat("the size prefix at byte 0 reads %d; %s the frame decodes cleanly",
                           size, absl::StrJoin(texts, ", or "));
  out.push_back(std::move(h));
}

// A frame whose size prefix counts the bytes there are, alone (no stream after it), that
// decodes when k zero bytes are appended (and the prefix says k more): it may have been
// cut short after it was framed — a capture that stopped, a writer that wrote a size
// prefix for bytes it never sent. Zeros are the smallest value of every type (an empty
// string, array or tagged section, 0 for numbers), so they complete most cuts; the hint
// says they were a guess.
void CutShortHint(std::span<const uint8_t> frame, const DiagnoseOptions& d, Decodes decodes,
                  std::vector<DecodeHint>& out) {
  constexpr int kMaxCut = 64;
  if (frame.size() < kSizePrefix || !d.following.empty() || frame.size() > d.max_frame_bytes) {
    return;
  }
  Reader r(frame.first(kSizePrefix));
  const int64_t size = r.ReadInt32();
  if (size != static_cast<int64_t>(frame.size() - kSizePrefix)) return;
  std::vector<uint8_t> b(frame.begin(), frame.end());
  for (int k = 1; k <= kMaxCut; ++k) {
    b.push_back(0);
    PutBig(b, 0, static_cast<uint64_t>(size + k), kSizePrefix);
    if (!decodes(b)) continue;
    DecodeHint h;
    h.kind = DecodeHint::Kind::kCutShort;
    h.offset = frame.size();
    h.path = "Frame.end";
    h.read = size;
    h.decodes_with = {size + k};
    h.text = absl::StrFormat(
        "the frame may be cut short: its size prefix (%d) counts the bytes there are, and "
        "with %s more at its end (zeros were tried) and %d in the prefix it decodes cleanly "
        "(a capture that stopped, or a writer that framed bytes it did not send)",
        size, CountOf(k, "byte"), size + k);
    out.push_back(std::move(h));
    return;
  }
}

// The explanation (with a length row under every value) that the length search reads.
PrintOptions ExplainOptions(const FrameOptions& options) {
  PrintOptions po;
  po.decode = options.reader();
  po.records_mode = options.records_mode;
  return po;
}


// ---- The failure in an explanation.

using Kind = PrintNode::Kind;

// Whether the explained message's body is at a flexible version (compact strings): the
// root row names the message and its version ("MetadataResponse", "message v9").
bool BodyFlexible(const FrameExplanation& ex) {
  if (ex.nodes.empty()) return false;
  const PrintNode& root = ex.nodes[0];
  constexpr std::string_view kPrefix = "message v";
  int version = 0;
  if (root.type.rfind(kPrefix, 0) != 0 ||
      !absl::SimpleAtoi(root.type.substr(kPrefix.size()), &version)) {
    return false;
  }
  for (const ApiInfo& api : AllApis()) {
    for (Direction d : {Direction::kRequest, Direction::kResponse}) {
      const MessageSpec* spec = api.ops(d).spec;
      if (root.label == spec->name) return VersionRule::Of(*spec, version).flexible;
    }
  }
  return false;
}

bool HasChildren(const std::vector<PrintNode>& nodes, size_t i) {
  return i + 1 < nodes.size() && nodes[i + 1].depth > nodes[i].depth;
}

// A string or bytes value's node (a field, or an element of an array of them): "string",
// "nullable_string", "bytes", "compact_bytes"... but not an array or records.
bool IsBlobType(const std::string& type) {
  if (type.rfind("[]", 0) == 0 || type.find("records") != std::string::npos) return false;
  return type.find("string") != std::string::npos || type.find("bytes") != std::string::npos;
}

// The length row of the value at nodes[i] (no children), prefixed as `compact` says.
PrintNode LengthRow(const FrameExplanation& ex, const PrintNode& v, bool compact) {
  const std::span<const uint8_t> b = ex.bytes;
  const bool string = v.type.find("string") != std::string::npos;
  PrintNode ln;
  ln.kind = Kind::kLength;
  ln.depth = v.depth + 1;
  ln.offset = v.offset;
  ln.path = v.path + ".length";
  ln.label = "length";
  ln.type = compact ? "uvarint" : (string ? "int16" : "int32");
  int64_t wire = 0;
  size_t width = 0;
  if (compact) {
    while (v.offset + width < b.size() && width < 5) {
      const uint8_t byte = b[v.offset + width];
      wire |= int64_t{byte & 0x7f} << (7 * width);
      ++width;
      if ((byte & 0x80) == 0) break;
    }
    if (width == 0 || (b[v.offset + width - 1] & 0x80) != 0) return ln;  // no whole uvarint
  } else {
    width = string ? 2 : 4;
    if (v.offset + width > b.size()) return ln;
    const uint8_t* at = b.data() + v.offset;
    wire = string ? int64_t{LoadBigEndian<int16_t>(at)} : int64_t{LoadBigEndian<int32_t>(at)};
  }
  ln.size = width;
  ln.value = std::to_string(wire);
  const int64_t n = compact ? wire - 1 : wire;
  if (compact) ln.detail = wire == 0 ? "(compact, 0 = null)" : "(compact, len+1)";
  ln.note = n < 0 ? "null"
                  : absl::StrFormat("bytes of the %s that follow (to byte %d)",
                                    string ? "string" : "value",
                                    v.offset + width + static_cast<size_t>(n));
  return ln;
}

// A string as a quoted literal, escaped (never raw), cut to `max` bytes.
std::string QuotedPrefix(std::string_view s, size_t max) {
  const bool cut = s.size() > max;
  if (cut) s = s.substr(0, max);
  while (!s.empty() && FindInvalidUtf8(s) != s.size()) s.remove_suffix(1);  // whole chars
  return "\"" + EscapeUtf8ForDisplay(s) + "\"...";
}

}  // namespace

void AddValueLengthRows(FrameExplanation& ex, bool all) {
  const std::optional<Error> e = ErrorFromStatus(ex.status);
  const bool flexible = BodyFlexible(ex);
  std::vector<PrintNode> out;
  out.reserve(ex.nodes.size());
  for (size_t i = 0; i < ex.nodes.size(); ++i) {
    out.push_back(ex.nodes[i]);
    const PrintNode& v = ex.nodes[i];
    if ((v.kind != Kind::kField && v.kind != Kind::kElement) || !IsBlobType(v.type) ||
        HasChildren(ex.nodes, i)) {
      continue;
    }
    const bool failed = v.failed && e.has_value() && v.value.empty();
    const bool whole = !v.failed && !v.value.empty() && !v.detail.empty();
    if (!failed && !(all && whole)) continue;
    // The header's client_id is an int16 string at every version; the body's values are
    // compact at its flexible versions (their detail says it too when read whole).
    const bool compact = whole ? v.detail.rfind("(compact", 0) == 0
                               : flexible && v.path.rfind("RequestHeader", 0) != 0 &&
                                     v.path.rfind("ResponseHeader", 0) != 0;
    PrintNode ln = LengthRow(ex, v, compact);
    if (ln.size == 0) continue;
    if (failed) {
      const size_t start = ln.offset + ln.size;
      if (e->offset <= ln.offset) {
        ln.failed = true;  // the length itself: past the bytes left, negative, ...
      } else if (e->offset >= start && !ln.value.empty()) {
        // Inside the value: its bytes up to the failure; the node covers the failing byte.
        PrintNode& field = out.back();
        const int64_t n = std::stoll(ln.value) - (compact ? 1 : 0);
        const size_t end = start + static_cast<size_t>(std::max<int64_t>(n, 0));
        const size_t upto = std::min({static_cast<size_t>(e->offset), end, ex.bytes.size()});
        const std::string_view before(reinterpret_cast<const char*>(ex.bytes.data()) + start,
                                      upto - start);
        // Not the text of a message with secrets (its bytes are hidden: explain.cc).
        const bool secret = std::any_of(ex.nodes.begin(), ex.nodes.end(),
                                        [](const PrintNode& n) { return n.redacted; });
        if (v.type.find("string") != std::string::npos && !secret) {
          field.value = QuotedPrefix(before, 48);
        } else {
          field.value = absl::StrFormat("%d bytes...", before.size());
        }
        field.note = absl::StrFormat("%d bytes from byte %d to %d (the length at byte %d); shown "
                                     "up to byte %d, where decoding failed",
                                     n, start, end, ln.offset, upto);
        if (upto < ex.bytes.size()) field.size = std::max(field.size, upto + 1 - field.offset);
      }
    }
    // The value and its ancestors (closed before this row existed) cover the row and
    // the failing byte: children stay inside their parents.
    const size_t field_at = out.size() - 1;
    size_t need = std::max(out[field_at].offset + out[field_at].size, ln.offset + ln.size);
    int depth = out[field_at].depth + 1;
    for (size_t k = field_at + 1; k-- > 0;) {
      if (out[k].depth >= depth) continue;
      depth = out[k].depth;
      if (out[k].offset + out[k].size < need) out[k].size = need - out[k].offset;
    }
    out.push_back(std::move(ln));
  }
  ex.nodes = std::move(out);
}

void MarkCrcFailure(FrameExplanation& ex) {
  const std::optional<Error> e = ErrorFromStatus(ex.status);
  if (!e || e->kind != ErrorKind::kCrcMismatch) return;
  std::vector<PrintNode>& nodes = ex.nodes;
  // The batch the decoder stopped in: the records row whose range holds the crc field.
  for (size_t b = 0; b < nodes.size(); ++b) {
    const PrintNode& batch = nodes[b];
    if (batch.kind != Kind::kRecords || e->offset < batch.offset ||
        e->offset >= batch.offset + batch.size) {
      continue;
    }
    size_t end = b + 1;  // one past the batch's subtree
    while (end < nodes.size() && nodes[end].depth > batch.depth) ++end;
    size_t crc = SIZE_MAX, check = SIZE_MAX;
    for (size_t i = b + 1; i < end; ++i) {
      if (nodes[i].depth != batch.depth + 1) continue;
      if (nodes[i].label == "crc" && nodes[i].offset == e->offset) crc = i;
      if (nodes[i].label == "crcCheck") check = i;
    }
    const size_t mark = crc != SIZE_MAX ? crc : check;
    if (mark == SIZE_MAX) return;
    nodes[mark].failed = true;
    for (size_t i = b + 1; i < end; ++i) {
      if (i == mark || !nodes[i].failed || nodes[i].label != "error") continue;
      nodes[i].failed = false;
      nodes[i].note = "read on past the CRC mismatch above: a decoder stops at the crc";
    }
    return;
  }
}

std::string RenderMarkedByteLayout(const FrameExplanation& ex) {
  std::string layout = RenderByteLayout(ex.bytes, ex.nodes);
  const std::optional<Error> e = ErrorFromStatus(ex.status);
  if (!e) return layout;
  const size_t size = ex.bytes.size(), at = e->offset;
  // Lines: title, column header, one per 16 bytes, legend (RenderByteLayout's format).
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i + 1 < layout.size(); ++i) {
    if (layout[i] == '\n') starts.push_back(i + 1);
  }
  if (at < size && 2 + at / 16 < starts.size()) {
    const size_t digits = size > 0x10000 ? (size > 0x1000000 ? 8 : 6) : 4;
    const size_t line = starts[2 + at / 16], col = at % 16;
    const size_t hex = line + digits + 2 + 3 * col;  // the space before the byte's hex
    const size_t map = line + digits + 2 + 3 * 16 + 3 + col;
    if (map < layout.size() && layout[hex] == ' ') {
      layout[hex] = '>';
      layout[map] = '!';
    }
  }
  if (!layout.empty() && layout.back() == '\n') layout.pop_back();
  layout += at < size ? absl::StrFormat("; >! byte %d (0x%04x), where decoding failed", at, at)
                      : absl::StrFormat("; decoding failed at byte %d, past the last byte", at);
  return layout + "\n";
}

Error ErrorInContext(const FrameExplanation& ex) {
  std::optional<Error> e = ErrorFromStatus(ex.status);
  if (!e) return Error{};
  if (e->detail.find(" read at byte ") != std::string::npos) return *e;
  // The innermost failed element, its array and the array's count row.
  const std::vector<PrintNode>& nodes = ex.nodes;
  size_t element = SIZE_MAX;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].kind == Kind::kElement && nodes[i].failed &&
        (element == SIZE_MAX || nodes[i].depth > nodes[element].depth)) {
      element = i;
    }
  }
  if (element == SIZE_MAX) return *e;
  const std::string& path = nodes[element].path;
  const size_t open = path.rfind('[');
  int64_t index = 0;
  if (open == std::string::npos || path.back() != ']' ||
      !absl::SimpleAtoi(path.substr(open + 1, path.size() - open - 2), &index)) {
    return *e;  // e.g. an elided run "[1000...]"
  }
  const std::string count_path = path.substr(0, open) + ".length";
  // The array's field name: the last component before the index ("Partitions").
  const size_t dot = path.rfind('.', open);
  const size_t name_at = dot == std::string::npos ? 0 : dot + 1;
  const std::string array = path.substr(name_at, open - name_at);
  for (const PrintNode& n : nodes) {
    if (n.kind != Kind::kLength || n.path != count_path || n.value.empty()) continue;
    int64_t wire = 0;
    if (!absl::SimpleAtoi(n.value, &wire)) break;
    const bool compact = n.type == "uvarint";
    const std::string context =
        compact ? absl::StrFormat("in element %d of %s, an array of count %d read at byte %d "
                                  "(compact, uvarint %d)",
                                  index, array, wire - 1, n.offset, wire)
                : absl::StrFormat("in element %d of %s, an array of count %d read at byte %d",
                                  index, array, wire, n.offset);
    e->detail = e->detail.empty() ? context : e->detail + "; " + context;
    break;
  }
  return *e;
}

std::string RenderErrorInContext(const FrameExplanation& ex) {
  if (ex.status.ok()) return "";
  const Error e = ErrorInContext(ex);
  std::string text = e.ToString();
  const std::string at = absl::StrFormat("at byte %d", e.offset);
  if (const size_t p = text.find(at); p != std::string::npos) {
    text.insert(p + at.size(), absl::StrFormat(" (0x%04x)", e.offset));
  }
  return text;
}

std::vector<DecodeHint> DiagnoseRequestFrame(std::span<const uint8_t> frame,
                                             const FrameOptions& options,
                                             const DiagnoseOptions& d) {
  std::vector<DecodeHint> out;
  if (DecodeRequestFrame(frame, options).ok()) return out;
  const auto decodes = [&](std::span<const uint8_t> f) { return DecodeRequestFrame(f, options).ok(); };
  if (const std::optional<RequestApi> ids = PeekRequestApi(frame)) {
    if (const ApiInfo* api = FindApi(ids->api_key)) {
      std::vector<int16_t> versions;
      std::vector<uint8_t> b(frame.begin(), frame.end());
      const VersionRange valid = api->request_versions();
      for (int v = valid.lo; v <= valid.hi; ++v) {
        if (v == ids->api_version) continue;
        PutBig(b, kSizePrefix + 2, static_cast<uint64_t>(v), 2);
        if (decodes(b)) versions.push_back(static_cast<int16_t>(v));
      }
      if (!versions.empty()) {
        DecodeHint h;
        h.kind = DecodeHint::Kind::kVersion;
        h.offset = kSizePrefix + 2;
        h.path = "RequestHeader.request_api_version";
        h.read = ids->api_version;
        for (size_t i = 0; i < versions.size() && i < DecodeHint::kMaxValues; ++i) {
          h.decodes_with.push_back(versions[i]);
        }
        h.text = absl::StrFormat("the header's request_api_version at byte 6 reads %d; the "
                                 "frame decodes cleanly as %sRequest %s",
                                 ids->api_version, api->name, VersionList(versions));
        out.push_back(std::move(h));
      }
    }
  }
  SizeHints(frame, d, decodes, out);
  FrameExplanation ex = ExplainRequestFrame(frame, ExplainOptions(options));
  AddValueLengthRows(ex, true);
  LengthHints(frame, ex, d, decodes, out);
  // Zeros appended also complete a frame whose count or length was made larger, or that
  // was read at another version: any other hint (the frame decodes as it is, with one
  // value changed) is the likelier cause, and wins.
  if (out.empty()) CutShortHint(frame, d, decodes, out);
  return out;
}

std::vector<DecodeHint> DiagnoseResponseFrame(std::span<const uint8_t> frame, int16_t api_key,
                                              int16_t api_version, const FrameOptions& options,
                                              const DiagnoseOptions& d) {
  std::vector<DecodeHint> out;
  const ApiInfo* api = FindApi(api_key);
  if (api == nullptr || DecodeResponseFrame(frame, api_key, api_version, options).ok()) return out;
  std::vector<int16_t> versions = ResponseVersionsThatDecode(frame, api_key, options);
  std::erase(versions, api_version);
  if (!versions.empty()) {
    DecodeHint h;
    h.kind = DecodeHint::Kind::kVersion;
    h.offset = SIZE_MAX;
    h.path = "version";
    h.read = api_version;
    for (size_t i = 0; i < versions.size() && i < DecodeHint::kMaxValues; ++i) {
      h.decodes_with.push_back(versions[i]);
    }
    h.text = absl::StrFormat("the frame decodes cleanly as %sResponse %s, not v%d: was the "
                             "request another version?",
                             api->name, VersionList(versions), api_version);
    out.push_back(std::move(h));
  }
  const auto decodes = [&](std::span<const uint8_t> f) {
    return DecodeResponseFrame(f, api_key, api_version, options).ok();
  };
  SizeHints(frame, d, decodes, out);
  if (api->response_versions().Contains(api_version)) {
    FrameExplanation ex =
        ExplainResponseFrame(frame, api_key, api_version, ExplainOptions(options));
    AddValueLengthRows(ex, true);
    LengthHints(frame, ex, d, decodes, out);
  }
  if (out.empty()) CutShortHint(frame, d, decodes, out);  // as for requests
  return out;
}

std::vector<int16_t> ResponseVersionsThatDecode(std::span<const uint8_t> frame, int16_t api_key,
                                                const FrameOptions& options) {
  std::vector<int16_t> out;
  const ApiInfo* api = FindApi(api_key);
  if (api == nullptr) return out;
  const VersionRange valid = api->response_versions();
  for (int v = valid.lo; v <= valid.hi; ++v) {
    if (DecodeResponseFrame(frame, api_key, static_cast<int16_t>(v), options).ok()) {
      out.push_back(static_cast<int16_t>(v));
    }
  }
  return out;
}

std::string RenderHints(const std::vector<DecodeHint>& hints) {
  std::string out;
  for (const DecodeHint& h : hints) absl::StrAppend(&out, "hint: ", h.text, "\n");
  return out;
}

}  // namespace kwire
