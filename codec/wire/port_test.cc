// codec/wire/port.h (byte order, unaligned access) and the port macros' confinement:
// every public header of the core library is included below, and then none of
// port_def.inc's macros may be defined (issue 37 item 2: nothing of the port reaches a
// user's translation unit). tools/layers_test.py checks the same rule over the sources.
#include "codec/wire/port.h"

#include <array>
#include <cstdint>
#include <vector>

#include "codec/generated/fetch_response.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_request.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/records/compression.h"
#include "codec/records/crc32c.h"
#include "codec/records/record_batch.h"
#include "codec/records/validate.h"
#include "codec/schema/decode.h"
#include "codec/schema/encode.h"
#include "codec/schema/message.h"
#include "codec/schema/min_size.h"
#include "codec/schema/observer.h"
#include "codec/schema/spec.h"
#include "codec/wire/error.h"
#include "codec/wire/path.h"
#include "codec/wire/quirks.h"
#include "codec/wire/reader.h"
#include "codec/wire/types.h"
#include "codec/wire/utf8.h"
#include "codec/wire/varint.h"
#include "codec/wire/varint_decode.h"
#include "codec/wire/writer.h"
#include "gtest/gtest.h"

#if defined(KWIRE_LIKELY) || defined(KWIRE_UNLIKELY) || defined(KWIRE_ALWAYS_INLINE) || \
    defined(KWIRE_NOINLINE) || defined(KWIRE_COLD) || defined(KWIRE_VARINT_LIKELY)
#error "a port macro leaked out of a public kwire header"
#endif

namespace kwire {
namespace {

TEST(Port, ByteSwapReversesEachWidth) {
  static_assert(ByteSwap<uint8_t>(0xab) == 0xab);
  static_assert(ByteSwap<uint16_t>(0x1234) == 0x3412);
  static_assert(ByteSwap<uint32_t>(0x12345678u) == 0x78563412u);
  static_assert(ByteSwap<uint64_t>(0x0102030405060708ull) == 0x0807060504030201ull);
  static_assert(ByteSwap<int16_t>(int16_t{-2}) == int16_t{-257});  // fffe -> feff
  EXPECT_EQ(ByteSwap<int32_t>(1), 0x01000000);
}

TEST(Port, BigEndianLoadsReadNetworkOrderAtAnyAlignment) {
  // One byte of offset, so every load below is unaligned.
  const std::array<uint8_t, 10> b = {0x00, 0xff, 0xff, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04, 0x05};
  EXPECT_EQ(LoadBigEndian<int32_t>(b.data() + 1), -2);
  EXPECT_EQ(LoadBigEndian<uint32_t>(b.data() + 1), 0xfffffffeu);
  EXPECT_EQ(LoadBigEndian<int16_t>(b.data() + 3), int16_t{-2});
  EXPECT_EQ(LoadBigEndian<uint16_t>(b.data() + 5), 0x0102);
  EXPECT_EQ(LoadBigEndian<int64_t>(b.data() + 1), static_cast<int64_t>(0xfffffffe01020304ull));
  EXPECT_EQ(LoadBigEndian<uint64_t>(b.data() + 2), 0xfffffe0102030405ull);
  EXPECT_EQ(LoadLittleEndian<uint32_t>(b.data() + 5), 0x04030201u);
}

TEST(Port, BigEndianStoresRoundTripAndMatchTheWire) {
  std::array<uint8_t, 9> b{};
  StoreBigEndian(b.data() + 1, int32_t{-2});
  EXPECT_EQ(b, (std::array<uint8_t, 9>{0, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0}));
  StoreBigEndian(b.data() + 1, uint64_t{0x0102030405060708});
  EXPECT_EQ(b, (std::array<uint8_t, 9>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(LoadBigEndian<uint64_t>(b.data() + 1), uint64_t{0x0102030405060708});
  StoreBigEndian(b.data(), int16_t{-32768});
  EXPECT_EQ(b[0], 0x80);
  EXPECT_EQ(b[1], 0x00);
  // Writer's and Reader's INT32 agree with the port functions.
  Writer w;
  w.WriteInt32(-2);
  w.WriteInt64(int64_t{0x0102030405060708});
  const std::vector<uint8_t> out(w.bytes().begin(), w.bytes().end());
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(LoadBigEndian<int32_t>(out.data()), -2);
  Reader r(out);
  EXPECT_EQ(r.ReadInt32(), -2);
  EXPECT_EQ(r.ReadInt64(), LoadBigEndian<int64_t>(out.data() + 4));
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace kwire
