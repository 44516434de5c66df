#include "codec/wire/writer.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"

namespace kwire {

void Writer::GrowSlow(size_t n) {
  const size_t used = size();
  buf_.resize(std::max<size_t>({used + n, buf_.size() * 2, 256}));
  Rebase(used);
}

void Writer::PatchLongUvarint(size_t pos, uint32_t v) {
  uint8_t prefix[kMaxUvarintBytes];
  const size_t n = EncodeUvarint(prefix, v);
  Ensure(n - 1);  // may move the buffer: positions, not pointers, until here
  uint8_t* const at = buf_.data() + pos;
  std::memmove(at + n, at + 1, static_cast<size_t>(cur_ - (at + 1)));
  cur_ += n - 1;
  std::memcpy(at, prefix, n);
}

void Writer::Fail(ErrorKind kind, std::string detail) {
  if (error_.kind != ErrorKind::kOk) return;
  error_.kind = kind;
  error_.offset = size();
  error_.path = RenderPath(path_);
  error_.detail = std::move(detail);
}

bool Writer::InvalidUtf8(std::string_view s, size_t bad) {
  if ((options_.quirks & kQuirkInvalidUtf8) != 0) return true;
  Fail(ErrorKind::kInvalidUtf8,
       absl::StrFormat("string of %d bytes, byte %d of it: %s", s.size(), bad,
                       DescribeInvalidUtf8(s, bad)));
  return false;
}

}  // namespace kwire
