#include "codec/wire/writer.h"

#include <algorithm>

namespace kwire {

void Writer::GrowSlow(size_t n) {
  const size_t used = size();
  buf_.resize(std::max<size_t>({used + n, buf_.size() * 2, 256}));
  Rebase(used);
}

void Writer::Fail(ErrorKind kind, std::string detail) {
  if (error_.kind != ErrorKind::kOk) return;
  error_.kind = kind;
  error_.offset = size();
  error_.path = RenderPath(path_);
  error_.detail = std::move(detail);
}

}  // namespace kwire
