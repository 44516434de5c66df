#include "codec/records/crc32c.h"

#include <boost/crc.hpp>

#include "codec/wire/port.h"

#if KWIRE_CRC32C_ISAL
#include <isa-l/crc.h>

#include <climits>
#endif

namespace kwire {
namespace crc32c_internal {

namespace {
uint32_t ReverseBits(uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  return ByteSwap(v);
}
}  // namespace

uint32_t Crc32cBoost(const void* data, size_t n, uint32_t crc) {
  // Reflected CRC-32C, init 0xffffffff, final xor 0xffffffff. To continue from a
  // finished `crc` the register restarts at ~crc; crc_optimal's constructor takes the
  // initial remainder unreflected and reflects it (ReflectIn), so pass it bit-reversed.
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> c(ReverseBits(~crc));
  c.process_bytes(data, n);
  return c.checksum();
}

}  // namespace crc32c_internal

#if KWIRE_CRC32C_ISAL

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

const char* Crc32cBackendName() { return "isal"; }

#else

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  return crc32c_internal::Crc32cBoost(data, n, crc);
}

const char* Crc32cBackendName() { return "boost"; }

#endif

}  // namespace kwire
