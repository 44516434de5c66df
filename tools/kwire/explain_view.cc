#include "tools/kwire/explain_view.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/harness/diagnose.h"

namespace kwire::cli {
namespace {

using Kind = PrintNode::Kind;

// A path compared ignoring case and underscores: "RequestHeader.ClientId" and
// "RequestHeader.client_id" are the same.
std::string Normalize(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// `path` is `prefix` or a node below it ("Topics" holds "Topics[3]" and "Topics.length").
bool AtOrBelow(const std::string& path, const std::string& prefix) {
  return path.size() >= prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
         (path.size() == prefix.size() || path[prefix.size()] == '.' ||
          path[prefix.size()] == '[');
}

// The indices of the nodes `view.path` names: the first spelling that matches any node
// of (as given; with the message name replaced by the body's path; "header." replaced by
// the header's; relative to the body), at a component boundary, else as a plain prefix.
std::vector<size_t> MatchPath(const std::vector<PrintNode>& nodes, const std::string& path) {
  std::vector<std::string> norm(nodes.size());
  std::string body_path, header_path, message;
  for (size_t i = 0; i < nodes.size(); ++i) {
    norm[i] = Normalize(nodes[i].path);
    if (nodes[i].kind == Kind::kBody && body_path.empty()) body_path = norm[i];
    if (nodes[i].kind == Kind::kHeader && header_path.empty()) header_path = norm[i];
  }
  if (!nodes.empty()) message = Normalize(nodes[0].label);
  const std::string p = Normalize(path);
  if (p.empty()) return {};
  std::vector<std::string> spellings = {p};
  if (!body_path.empty() && !message.empty() && AtOrBelow(p, message)) {
    spellings.push_back(body_path + p.substr(message.size()));
  }
  // The JSON mapping's (conformance/FORMAT.md, a verdict's differences): "header.ClientId".
  if (!header_path.empty() && AtOrBelow(p, "header")) {
    spellings.push_back(header_path + p.substr(6));
  }
  if (!body_path.empty()) spellings.push_back(body_path + (p.front() == '[' ? "" : ".") + p);
  for (bool boundary : {true, false}) {
    for (const std::string& s : spellings) {
      std::vector<size_t> hits;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (boundary ? AtOrBelow(norm[i], s) : norm[i].rfind(s, 0) == 0) hits.push_back(i);
      }
      if (!hits.empty()) return hits;
    }
  }
  // Last: the path's end ("Batch[0].Records.Record[1]" below any field).
  std::vector<size_t> hits;
  const std::string tail = "." + p;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const size_t at = norm[i].find(tail);
    if (at != std::string::npos && AtOrBelow(norm[i].substr(at), tail)) hits.push_back(i);
  }
  return hits;
}

}  // namespace

absl::StatusOr<std::vector<PrintNode>> SelectNodes(const std::vector<PrintNode>& nodes,
                                                   const ExplainView& view,
                                                   std::vector<std::pair<size_t, size_t>>* ranges) {
  const size_t n = nodes.size();
  // end[i]: one past the last node of i's subtree; parent[i]: i's parent (n for a root).
  std::vector<size_t> end(n, n), parent(n, n);
  {
    std::vector<size_t> open;
    for (size_t i = 0; i < n; ++i) {
      while (!open.empty() && nodes[open.back()].depth >= nodes[i].depth) {
        end[open.back()] = i;
        open.pop_back();
      }
      if (!open.empty()) parent[i] = open.back();
      open.push_back(i);
    }
  }
  // The roots of the selected subtrees (none inside another).
  std::vector<size_t> roots;
  if (view.path.empty()) {
    for (size_t i = 0; i < n; i = end[i]) roots.push_back(i);
  } else {
    for (size_t i : MatchPath(nodes, view.path)) {
      if (roots.empty() || i >= end[roots.back()]) roots.push_back(i);
    }
    if (roots.empty()) {
      std::vector<std::string> fields;
      std::string body;
      for (size_t i = 0; i < n; ++i) {
        if (nodes[i].kind == Kind::kBody && body.empty()) {
          body = nodes[i].label;
          for (size_t j = i + 1; j < end[i]; j = end[j]) fields.push_back(nodes[j].label);
        }
      }
      return absl::NotFoundError(absl::StrFormat(
          "--path '%s' matches no row of %s%s", view.path,
          n > 0 ? nodes[0].label : std::string("this frame"),
          fields.empty() ? std::string()
                         : absl::StrFormat(" (the fields of %s: %s)", body,
                                           absl::StrJoin(fields, ", "))));
    }
  }
  // keep[i]: the node's row is printed; collapse[i]: its children become one summary row.
  std::vector<bool> keep(n, false), collapse(n, false);
  for (size_t r : roots) {
    for (size_t a = parent[r]; a != n; a = parent[a]) keep[a] = true;
    const int base = nodes[r].depth;
    for (size_t j = r; j < end[r]; ++j) {
      const int rel = nodes[j].depth - base;
      if (view.depth && rel > *view.depth) continue;
      keep[j] = true;
      collapse[j] = view.depth && rel == *view.depth && end[j] > j + 1;
    }
    if (ranges != nullptr) ranges->emplace_back(nodes[r].offset, nodes[r].offset + nodes[r].size);
  }
  std::vector<PrintNode> out;
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    out.push_back(nodes[i]);
    if (!collapse[i]) continue;
    PrintNode s;
    s.kind = Kind::kField;
    s.depth = nodes[i].depth + 1;
    s.offset = nodes[i + 1].offset;
    s.path = nodes[i].path + ".…";
    s.label = "…";
    size_t bytes = 0;
    for (size_t j = i + 1; j < end[i]; j = end[j]) bytes += nodes[j].size;
    for (size_t j = i + 1; j < end[i]; ++j) s.failed = s.failed || nodes[j].failed;
    s.size = bytes;
    const size_t rows = end[i] - i - 1;
    s.note = absl::StrFormat("%d %s, %d bytes, below --depth %d", rows,
                             rows == 1 ? "row" : "rows", bytes, *view.depth);
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::string> RenderExplainView(const FrameExplanation& ex, const ExplainView& view,
                                              size_t width) {
  std::vector<std::pair<size_t, size_t>> ranges;
  absl::StatusOr<std::vector<PrintNode>> nodes = SelectNodes(ex.nodes, view, &ranges);
  if (!nodes.ok()) return nodes.status();
  std::string out = ex.title + "\n\n";
  if (view.bytes) {
    // The layout of every node (its region map is the whole frame's), then, with a
    // path, only its rows that hold selected bytes.
    const std::string layout = RenderMarkedByteLayout(ex);  // the failing byte marked
    if (view.path.empty()) {
      out += layout;
    } else {
      bool gap = false;
      size_t line_no = 0;
      for (absl::string_view line : absl::StrSplit(layout, '\n', absl::SkipEmpty())) {
        ++line_no;
        const bool row = line_no > 2 && !line.empty() && std::isxdigit(static_cast<unsigned char>(line[0]));
        if (line_no == 1 && !line.empty() && line.back() == ')') {
          out += absl::StrFormat("%s, the rows of %s only)\n", line.substr(0, line.size() - 1),
                                 view.path);
          continue;
        }
        if (!row) {
          out += std::string(line) + "\n";
          continue;
        }
        size_t at = 0;
        const size_t digits = line.find(' ');
        for (size_t k = 0; k < digits && k < line.size(); ++k) {
          at = at * 16 + static_cast<size_t>(std::isdigit(static_cast<unsigned char>(line[k]))
                                                 ? line[k] - '0'
                                                 : std::tolower(line[k]) - 'a' + 10);
        }
        const bool wanted = std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) {
          return r.first < at + 16 && at < r.second;
        });
        if (wanted) {
          out += std::string(line) + "\n";
          gap = false;
        } else if (!gap) {
          out += "…\n";
          gap = true;
        }
      }
    }
    out += "\n";
  }
  out += "object tree\n";
  std::string tree = RenderObjectTree(*nodes, width, view.offsets);
  if (tree.empty() || tree.back() != '\n') tree += '\n';
  return out + tree;
}

}  // namespace kwire::cli
