#include "codec/wire/writer.h"

#include <algorithm>

namespace kwire {

void Writer::GrowSlow(size_t n) {
  const size_t need = size_ + n;
  buf_.resize(std::max<size_t>({need, buf_.size() * 2, 256}));
}

void Writer::Fail(ErrorKind kind, std::string detail) {
  if (error_.kind != ErrorKind::kOk) return;
  error_.kind = kind;
  error_.offset = size_;
  error_.path = RenderPath(path_);
  error_.detail = std::move(detail);
}

}  // namespace kwire
