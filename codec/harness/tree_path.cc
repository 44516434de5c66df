#include "codec/harness/tree_path.h"

#include "absl/strings/str_cat.h"

namespace kwire {

std::string TreePathOfJsonPath(std::string_view json_path, Direction dir) {
  if (json_path.starts_with("body")) return "Body" + std::string(json_path.substr(4));
  if (!json_path.starts_with("header")) return "";
  std::string out = dir == Direction::kRequest ? "RequestHeader" : "ResponseHeader";
  const std::string_view rest = json_path.substr(6);
  // Member names in snake case, indexes as they are.
  size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] == '.') {
      size_t end = i + 1;
      while (end < rest.size() && rest[end] != '.' && rest[end] != '[') ++end;
      absl::StrAppend(&out, ".", PrintBuilder::SnakeCase(rest.substr(i + 1, end - i - 1)));
      i = end;
    } else {
      const size_t end = rest.find(']', i);
      const size_t stop = end == std::string_view::npos ? rest.size() : end + 1;
      out.append(rest.substr(i, stop - i));
      i = stop;
    }
  }
  return out;
}

const PrintNode* FindTreeNode(const FrameExplanation& ex, std::string_view tree_path) {
  std::string_view p = tree_path;
  while (!p.empty()) {
    for (const PrintNode& n : ex.nodes) {
      if (n.path == p) return &n;
    }
    const size_t cut = p.find_last_of(".[");
    if (cut == std::string_view::npos) break;
    p = p.substr(0, cut);
  }
  return ex.nodes.empty() ? nullptr : &ex.nodes[0];
}

}  // namespace kwire
