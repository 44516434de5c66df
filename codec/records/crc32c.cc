#include "codec/records/crc32c.h"

#include <isa-l/crc.h>

#include <climits>

namespace kwire {

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  // crc32_iscsi takes the running register (not inverted) and an int length.
  uint32_t reg = ~crc;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const int chunk = n > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(n);
    reg = crc32_iscsi(const_cast<unsigned char*>(p), chunk, reg);
    p += chunk;
    n -= static_cast<size_t>(chunk);
  }
  return ~reg;
}

}  // namespace kwire
