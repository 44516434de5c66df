// The renderers of explanation trees (print.h): the object tree as text, and the byte
// layout. They read PrintNodes only, whoever built them (the explain visitor, the records
// explanation of codec/harness/records_explain.h).
#include "codec/harness/print.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "codec/harness/render.h"

namespace kwire {

namespace {

using Kind = PrintNode::Kind;

bool HasChildren(const std::vector<PrintNode>& nodes, size_t i) {
  return i + 1 < nodes.size() && nodes[i + 1].depth > nodes[i].depth;
}

// The value column in two parts: "= value" and its encoding detail ("(compact, n+1)"),
// which may move to the note column when the row is too narrow for both.
struct ValueText {
  std::string main, detail;
  std::string Whole() const { return detail.empty() ? main : main + " " + detail; }
};

ValueText ValueColumn(const std::vector<PrintNode>& nodes, size_t i) {
  const PrintNode& n = nodes[i];
  if (n.value.empty()) {
    // A struct is its children. An array, string or bytes field has a value once read:
    // none here means its read failed, and the failure row under it says why.
    return {n.is_struct && HasChildren(nodes, i) ? "= struct" : "", ""};
  }
  if (n.kind == Kind::kField && n.type.rfind("[]", 0) == 0 && n.value != "null") {
    return {"= " + n.value + (n.value == "1" ? " element" : " elements"), ""};
  }
  return {"= " + n.value, n.detail};
}

size_t DisplayWidth(const std::string& s) {
  // Count UTF-8 code points (the tree uses ASCII, values may not).
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xc0) != 0x80;
  return w;
}

// Appends `s` padded to `width` columns, then a two-space gap (also after an overlong `s`).
void Pad(std::string& out, const std::string& s, size_t width) {
  out += s;
  for (size_t w = DisplayWidth(s); w < width; ++w) out.push_back(' ');
  out += "  ";
}

// The number of bytes of `s` that hold its first `cols` code points.
size_t PrefixBytes(const std::string& s, size_t cols) {
  size_t w = 0, i = 0;
  for (; i < s.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    if ((ch & 0xc0) != 0x80 && w++ == cols) break;
  }
  return i;
}

// `s` cut to at most `width` code points, the last one "…" when cut.
std::string Ellipsize(const std::string& s, size_t width) {
  if (DisplayWidth(s) <= width) return s;
  if (width == 0) return "";
  return s.substr(0, PrefixBytes(s, width - 1)) + "…";
}

// Appends `text` as lines of at most `width` columns, each starting with `prefix` (the
// tree's guides, padded to the text's column), broken at spaces (a word longer than the
// room is cut).
void AppendWrapped(std::string& out, const std::string& text, const std::string& prefix,
                   size_t width) {
  const size_t indent = DisplayWidth(prefix);
  const size_t room = width > indent + 8 ? width - indent : 8;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) break;
    size_t end = i, cols = 0, last_space = std::string::npos;
    while (end < text.size() && cols < room) {
      const unsigned char ch = static_cast<unsigned char>(text[end]);
      if (text[end] == ' ') last_space = end;
      if ((ch & 0xc0) != 0x80) ++cols;
      ++end;
    }
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) ++end;
    // (Not after a one-character word: "= " stays with the value that follows.)
    if (end < text.size() && text[end] != ' ' && last_space != std::string::npos &&
        last_space > i + 1) {
      end = last_space;
    }
    out += prefix;
    out.append(text, i, end - i);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    i = end;
  }
}

// deepest[i]: node i failed and no node of its subtree did (the failure itself, not an
// ancestor that encloses it).
std::vector<bool> DeepestFailures(const std::vector<PrintNode>& nodes) {
  const size_t n = nodes.size();
  std::vector<bool> deepest(n, false);
  std::vector<size_t> open;  // ancestors of the current node, innermost last
  std::vector<bool> failed_below(n, false);
  for (size_t i = 0; i <= n; ++i) {
    // Close the subtrees that end before node i, telling each parent about failures.
    while (!open.empty() && (i == n || nodes[open.back()].depth >= nodes[i].depth)) {
      const size_t k = open.back();
      open.pop_back();
      deepest[k] = nodes[k].failed && !failed_below[k];
      if (!open.empty() && (nodes[k].failed || failed_below[k])) failed_below[open.back()] = true;
    }
    if (i < n) open.push_back(i);
  }
  return deepest;
}

}  // namespace

std::string RenderObjectTree(const std::vector<PrintNode>& nodes, size_t width) {
  return RenderObjectTree(nodes, width, OffsetBase::kHex);
}

std::string RenderObjectTree(const std::vector<PrintNode>& nodes, size_t width,
                             OffsetBase offsets) {
  const size_t n = nodes.size();
  // has_next[i]: a later sibling follows node i (backward scan, see below).
  std::vector<bool> has_next(n, false);
  {
    std::vector<bool> seen;
    for (size_t k = n; k-- > 0;) {
      const size_t d = static_cast<size_t>(std::max(0, nodes[k].depth));
      if (seen.size() <= d) seen.resize(d + 1, false);
      has_next[k] = seen[d];
      seen[d] = true;
      seen.resize(d + 1);  // deeper nodes after k belong to k or to earlier subtrees
    }
  }
  const std::vector<bool> deepest = DeepestFailures(nodes);
  struct Row {
    std::string name, type, range, note;
    bool failed_here = false;  // the deepest failed row: the marker follows the note
    ValueText value;
    std::string guide;  // tree guides under the name, for continuation lines
  };
  std::vector<Row> rows;
  rows.reserve(n);
  std::vector<bool> open;  // open[d]: the ancestor at depth d has a later sibling
  for (size_t i = 0; i < n; ++i) {
    const PrintNode& node = nodes[i];
    const size_t d = static_cast<size_t>(std::max(0, node.depth));
    Row row;
    for (size_t k = 1; k < d; ++k) row.name += k < open.size() && open[k] ? "|   " : "    ";
    if (d > 0) row.name += "+-- ";
    row.name += node.label;
    if (open.size() <= d) open.resize(d + 1, false);
    open[d] = has_next[i];
    // Below the row: the guides of the ancestors' later siblings, this node's own later
    // siblings (at its "+--"), and its children (under its label).
    for (size_t k = 1; k <= d; ++k) row.guide += open[k] ? "|   " : "    ";
    if (HasChildren(nodes, i)) row.guide += "|";
    while (!row.guide.empty() && row.guide.back() == ' ') row.guide.pop_back();
    row.type = node.type;
    row.value = ValueColumn(nodes, i);
    row.range = offsets == OffsetBase::kHex
                    ? absl::StrFormat("[0x%04x, %dB]", node.offset, node.size)
                    : absl::StrFormat("[%d, %dB]", node.offset, node.size);
    row.note = node.note;
    row.failed_here = deepest[i];
    rows.push_back(std::move(row));
  }
  // Column widths (capped so that one long value does not push every row).
  size_t w_name = 0, w_type = 0, w_value = 0, w_range = 0;
  for (const Row& r : rows) {
    w_name = std::max(w_name, DisplayWidth(r.name));
    w_type = std::max(w_type, std::min<size_t>(DisplayWidth(r.type), 40));
    w_value = std::max(w_value, std::min<size_t>(DisplayWidth(r.value.Whole()), 48));
    w_range = std::max(w_range, DisplayWidth(r.range));
  }
  if (width > 0) {
    // The value column gives way first (to no less than 10 columns), then the type
    // column (to no less than 12).
    const size_t fixed = w_name + 2 + 2 + 2 + w_range;  // + type + value
    const size_t room = width > fixed ? width - fixed : 0;
    if (w_type + w_value > room) {
      w_value = std::max<size_t>(10, room > w_type ? room - w_type : 0);
      if (w_type + w_value > room) w_type = std::max<size_t>(12, room > w_value ? room - w_value : 0);
    }
  }
  std::string out;
  for (Row& r : rows) {
    // A value too wide for its column: its encoding detail moves to the note when the
    // value alone fits; else the column says "= (below)" and the whole value follows
    // on a continuation line (never cut, never printed twice).
    std::string value = r.value.Whole(), rest;
    if (width > 0 && DisplayWidth(value) > w_value) {
      if (!r.value.detail.empty() && DisplayWidth(r.value.main) <= w_value) {
        r.note = r.note.empty() ? r.value.detail : r.value.detail + "; " + r.note;
        value = r.value.main;
      } else {
        rest = std::move(value);
        value = "= (below)";
      }
    }
    if (r.failed_here) {
      r.note += r.note.empty() ? "<-- decoding failed here" : "  <-- decoding failed here";
    }
    std::string line;
    Pad(line, r.name, w_name);
    Pad(line, width > 0 ? Ellipsize(r.type, w_type) : r.type, w_type);
    Pad(line, value, w_value);
    if (r.note.empty() && rest.empty()) {
      line += r.range;
    } else if (width == 0) {
      Pad(line, r.range, w_range);
      line += r.note;
    } else {
      Pad(line, r.range, w_range);
      if (rest.empty() && DisplayWidth(line) + DisplayWidth(r.note) <= width) {
        line += r.note;
      } else {  // continuation lines, under the type column, behind the tree's guides
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line;
        out += '\n';
        const size_t indent = std::min(w_name + 2, width / 2);
        std::string prefix = r.guide;
        const size_t guide_width = DisplayWidth(prefix);
        prefix.append(guide_width + 2 <= indent ? indent - guide_width : 2, ' ');
        if (!rest.empty()) AppendWrapped(out, rest, prefix, width);
        if (!r.note.empty()) AppendWrapped(out, r.note, prefix, width);
        continue;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

std::string RenderByteLayout(std::span<const uint8_t> bytes, const std::vector<PrintNode>& nodes) {
  const size_t size = bytes.size();
  std::string region(size, '.');
  std::vector<bool> hidden(size, false);
  for (const PrintNode& n : nodes) {  // pre-order: deeper nodes override
    char cls = 0;
    switch (n.kind) {
      case Kind::kFrame:
        cls = 'F';
        break;
      case Kind::kHeader:
        cls = 'H';
        break;
      case Kind::kBody:
        cls = 'B';
        break;
      case Kind::kRecords:
        cls = 'R';
        break;
      case Kind::kTaggedFields:
        cls = 'T';
        break;
      default:
        break;
    }
    const size_t lo = std::min(n.offset, size), hi = std::min(n.offset + n.size, size);
    if (cls != 0) std::fill(region.begin() + lo, region.begin() + hi, cls);
    if (n.redacted) {
      for (size_t i = std::min(lo + n.redact_skip, hi); i < hi; ++i) hidden[i] = true;
    }
  }
  const int digits = size > 0x10000 ? (size > 0x1000000 ? 8 : 6) : 4;
  std::string out = absl::StrFormat("byte layout (%d bytes, 16 bytes per row)\n", size);
  out += std::string(static_cast<size_t>(digits) + 2, ' ');
  for (int c = 0; c < 16; ++c) out += absl::StrFormat(" %X ", c);
  out += "   regions\n";
  for (size_t row = 0; row < size; row += 16) {
    std::string line = absl::StrFormat("%0*x  ", digits, row);
    std::string map;
    for (size_t i = row; i < row + 16; ++i) {
      if (i < size) {
        line += hidden[i] ? " **" : absl::StrFormat(" %02x", bytes[i]);
        map.push_back(region[i]);
      } else {
        line += "   ";
      }
    }
    out += line + "   " + map + "\n";
  }
  out += "regions: F frame, H header, B body, R records, T tagged fields";
  if (std::find(hidden.begin(), hidden.end(), true) != hidden.end()) {
    out += "; ** redacted (sensitive field)";
  }
  out += "\n";
  return out;
}

}  // namespace kwire
