#include "codec/wire/path.h"

#include <utility>
#include <vector>

#include "absl/strings/str_format.h"

namespace kwire {

std::string RenderPath(const PathNode* leaf) {
  std::vector<const PathNode*> chain;
  for (const PathNode* n = leaf; n != nullptr; n = n->parent) chain.push_back(n);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const PathNode* n = *it;
    if (n->name != nullptr && n->name[0] != '\0') {
      if (!out.empty()) out += '.';
      out += n->name;
    }
    if (n->index >= 0) absl::StrAppendFormat(&out, "[%d]", n->index);
  }
  return out;
}

Error MakeError(ErrorKind kind, size_t at, const PathNode* path, std::string detail) {
  Error e;
  e.kind = kind;
  e.offset = at;
  e.path = RenderPath(path);
  e.detail = std::move(detail);
  return e;
}

}  // namespace kwire
