// Writer: exact bytes of every Write*, Writer -> Reader round trips, reserve/patch,
// growth, Release and sticky encode failures.
#include "codec/wire/writer.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/wire/reader.h"
#include "codec/wire/test_util.h"

namespace kwire {
namespace {

using wire_testing::Hex;
using wire_testing::ToHex;

struct WriteCase {
  const char* name;
  std::function<void(Writer&)> write;
  const char* hex;
};

TEST(WriterBytes, EveryWriteIsExact) {
  Uuid uuid;
  for (int i = 0; i < 16; ++i) uuid.bytes[i] = static_cast<uint8_t>(0xf0 + i);
  const WriteCase kCases[] = {
      {"int8 0", [](Writer& w) { w.WriteInt8(0); }, "00"},
      {"int8 max", [](Writer& w) { w.WriteInt8(INT8_MAX); }, "7f"},
      {"int8 min", [](Writer& w) { w.WriteInt8(INT8_MIN); }, "80"},
      {"int8 -1", [](Writer& w) { w.WriteInt8(-1); }, "ff"},
      {"uint8 max", [](Writer& w) { w.WriteUint8(UINT8_MAX); }, "ff"},
      {"int16 0", [](Writer& w) { w.WriteInt16(0); }, "00 00"},
      {"int16", [](Writer& w) { w.WriteInt16(0x0102); }, "01 02"},
      {"int16 max", [](Writer& w) { w.WriteInt16(INT16_MAX); }, "7f ff"},
      {"int16 min", [](Writer& w) { w.WriteInt16(INT16_MIN); }, "80 00"},
      {"int16 -2", [](Writer& w) { w.WriteInt16(-2); }, "ff fe"},
      {"uint16 max", [](Writer& w) { w.WriteUint16(UINT16_MAX); }, "ff ff"},
      {"uint16", [](Writer& w) { w.WriteUint16(0xfe01); }, "fe 01"},
      {"int32 0", [](Writer& w) { w.WriteInt32(0); }, "00 00 00 00"},
      {"int32", [](Writer& w) { w.WriteInt32(0x01020304); }, "01 02 03 04"},
      {"int32 max", [](Writer& w) { w.WriteInt32(INT32_MAX); }, "7f ff ff ff"},
      {"int32 min", [](Writer& w) { w.WriteInt32(INT32_MIN); }, "80 00 00 00"},
      {"uint32 max", [](Writer& w) { w.WriteUint32(UINT32_MAX); }, "ff ff ff ff"},
      {"uint32", [](Writer& w) { w.WriteUint32(0xfedcba98); }, "fe dc ba 98"},
      {"int64 0", [](Writer& w) { w.WriteInt64(0); }, "00 00 00 00 00 00 00 00"},
      {"int64", [](Writer& w) { w.WriteInt64(0x0102030405060708); }, "01 02 03 04 05 06 07 08"},
      {"int64 max", [](Writer& w) { w.WriteInt64(INT64_MAX); }, "7f ff ff ff ff ff ff ff"},
      {"int64 min", [](Writer& w) { w.WriteInt64(INT64_MIN); }, "80 00 00 00 00 00 00 00"},
      {"int64 -1", [](Writer& w) { w.WriteInt64(-1); }, "ff ff ff ff ff ff ff ff"},
      {"float64 0", [](Writer& w) { w.WriteFloat64(0.0); }, "00 00 00 00 00 00 00 00"},
      {"float64 -0", [](Writer& w) { w.WriteFloat64(-0.0); }, "80 00 00 00 00 00 00 00"},
      {"float64 1.5", [](Writer& w) { w.WriteFloat64(1.5); }, "3f f8 00 00 00 00 00 00"},
      {"float64 max", [](Writer& w) { w.WriteFloat64(std::numeric_limits<double>::max()); },
       "7f ef ff ff ff ff ff ff"},
      {"float64 lowest", [](Writer& w) { w.WriteFloat64(std::numeric_limits<double>::lowest()); },
       "ff ef ff ff ff ff ff ff"},
      {"float64 -inf", [](Writer& w) { w.WriteFloat64(-std::numeric_limits<double>::infinity()); },
       "ff f0 00 00 00 00 00 00"},
      {"float64 sNaN",
       [](Writer& w) { w.WriteFloat64(std::bit_cast<double>(uint64_t{0x7ff0000000000001})); },
       "7f f0 00 00 00 00 00 01"},
      {"float64 -NaN payload",
       [](Writer& w) { w.WriteFloat64(std::bit_cast<double>(uint64_t{0xfff8000000001234})); },
       "ff f8 00 00 00 00 12 34"},
      {"bool false", [](Writer& w) { w.WriteBool(false); }, "00"},
      {"bool true", [](Writer& w) { w.WriteBool(true); }, "01"},
      {"uuid zero", [](Writer& w) { w.WriteUuid(Uuid{}); },
       "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
      {"uuid", [&uuid](Writer& w) { w.WriteUuid(uuid); },
       "f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 fa fb fc fd fe ff"},
      {"uvarint 0", [](Writer& w) { w.WriteUvarint(0); }, "00"},
      {"uvarint 128", [](Writer& w) { w.WriteUvarint(128); }, "80 01"},
      {"uvarint max", [](Writer& w) { w.WriteUvarint(UINT32_MAX); }, "ff ff ff ff 0f"},
      {"varint -1", [](Writer& w) { w.WriteVarint(-1); }, "01"},
      {"varint min", [](Writer& w) { w.WriteVarint(INT32_MIN); }, "ff ff ff ff 0f"},
      {"varlong max", [](Writer& w) { w.WriteVarlong(INT64_MAX); },
       "fe ff ff ff ff ff ff ff ff 01"},
      {"raw", [](Writer& w) { w.WriteRaw("abc", 3); }, "61 62 63"},
      {"raw view", [](Writer& w) { w.WriteRaw(std::string_view("\x00\xff", 2)); }, "00 ff"},
      {"raw empty", [](Writer& w) { w.WriteRaw(nullptr, 0); }, ""},
      {"string len", [](Writer& w) { w.WriteStringLength(false, 3); }, "00 03"},
      {"string len max", [](Writer& w) { w.WriteStringLength(false, 32767); }, "7f ff"},
      {"string null", [](Writer& w) { w.WriteStringLength(false, -1); }, "ff ff"},
      {"compact string len", [](Writer& w) { w.WriteStringLength(true, 3); }, "04"},
      {"compact string 127", [](Writer& w) { w.WriteStringLength(true, 127); }, "80 01"},
      {"compact string null", [](Writer& w) { w.WriteStringLength(true, -1); }, "00"},
      {"bytes len", [](Writer& w) { w.WriteBytesLength(false, 0x010203); }, "00 01 02 03"},
      {"bytes null", [](Writer& w) { w.WriteBytesLength(false, -1); }, "ff ff ff ff"},
      {"compact bytes len", [](Writer& w) { w.WriteBytesLength(true, 0); }, "01"},
      {"compact bytes max", [](Writer& w) { w.WriteBytesLength(true, INT32_MAX); },
       "80 80 80 80 08"},
      {"compact bytes null", [](Writer& w) { w.WriteBytesLength(true, -1); }, "00"},
      {"array count", [](Writer& w) { w.WriteArrayCount(false, 2); }, "00 00 00 02"},
      {"array null", [](Writer& w) { w.WriteArrayCount(false, -1); }, "ff ff ff ff"},
      {"compact array count", [](Writer& w) { w.WriteArrayCount(true, 2); }, "03"},
      {"compact array null", [](Writer& w) { w.WriteArrayCount(true, -1); }, "00"},
  };
  std::string all;
  Writer concatenated;
  for (const WriteCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Writer w;
    c.write(w);
    EXPECT_EQ(ToHex(w.bytes()), c.hex);
    EXPECT_EQ(w.size(), Hex(c.hex).size());
    EXPECT_TRUE(w.ok());
    c.write(concatenated);
    if (*c.hex != '\0') all += all.empty() ? c.hex : std::string(" ") + c.hex;
  }
  EXPECT_EQ(ToHex(concatenated.bytes()), all);
}

// Boundary values of every fixed-width type, written then read back.
TEST(WriterRoundTrip, FixedWidthBoundaries) {
  Writer w;
  const int8_t i8[] = {0, 1, -1, INT8_MAX, INT8_MIN};
  const int16_t i16[] = {0, 1, -1, INT16_MAX, INT16_MIN};
  const uint16_t u16[] = {0, 1, 0x8000, UINT16_MAX};
  const int32_t i32[] = {0, 1, -1, INT32_MAX, INT32_MIN};
  const uint32_t u32[] = {0, 1, 0x80000000u, UINT32_MAX};
  const int64_t i64[] = {0, 1, -1, INT64_MAX, INT64_MIN};
  const uint64_t f64[] = {std::bit_cast<uint64_t>(0.0),
                          std::bit_cast<uint64_t>(-0.0),
                          std::bit_cast<uint64_t>(std::numeric_limits<double>::max()),
                          std::bit_cast<uint64_t>(std::numeric_limits<double>::lowest()),
                          std::bit_cast<uint64_t>(std::numeric_limits<double>::denorm_min()),
                          0x7ff8000000000000,
                          0x7ff0000000000001,
                          0xffffffffffffffff};
  Uuid uuid_max;
  uuid_max.bytes.fill(0xff);
  const Uuid uuids[] = {Uuid{}, uuid_max};
  for (auto v : i8) w.WriteInt8(v);
  for (auto v : i16) w.WriteInt16(v);
  for (auto v : u16) w.WriteUint16(v);
  for (auto v : i32) w.WriteInt32(v);
  for (auto v : u32) w.WriteUint32(v);
  for (auto v : i64) w.WriteInt64(v);
  for (auto v : f64) w.WriteFloat64(std::bit_cast<double>(v));
  for (bool v : {false, true}) w.WriteBool(v);
  for (const Uuid& v : uuids) w.WriteUuid(v);

  Reader r(w.bytes());
  for (auto v : i8) EXPECT_EQ(r.ReadInt8(), v);
  for (auto v : i16) EXPECT_EQ(r.ReadInt16(), v);
  for (auto v : u16) EXPECT_EQ(r.ReadUint16(), v);
  for (auto v : i32) EXPECT_EQ(r.ReadInt32(), v);
  for (auto v : u32) EXPECT_EQ(r.ReadUint32(), v);
  for (auto v : i64) EXPECT_EQ(r.ReadInt64(), v);
  for (auto v : f64) EXPECT_EQ(std::bit_cast<uint64_t>(r.ReadFloat64()), v);
  for (bool v : {false, true}) EXPECT_EQ(r.ReadBool(), v);
  for (const Uuid& v : uuids) EXPECT_EQ(r.ReadUuid(), v);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
}

// Length prefixes written by Writer are read back by Reader as the same length.
TEST(WriterRoundTrip, LengthPrefixes) {
  for (bool compact : {false, true}) {
    SCOPED_TRACE(compact ? "compact" : "classic");
    Writer w;
    w.WriteStringLength(compact, -1);
    w.WriteStringLength(compact, 0);
    w.WriteStringLength(compact, 2);
    w.WriteRaw("hi");
    w.WriteBytesLength(compact, -1);
    w.WriteBytesLength(compact, 1);
    w.WriteUint8(7);
    w.WriteArrayCount(compact, -1);
    w.WriteArrayCount(compact, 1);
    w.WriteInt32(9);
    Reader r(w.bytes());
    EXPECT_EQ(r.ReadStringLength(compact, true), -1);
    EXPECT_EQ(r.ReadStringLength(compact, false), 0);
    EXPECT_EQ(r.ReadStringLength(compact, false), 2);
    EXPECT_EQ(r.ReadRaw(2), "hi");
    EXPECT_EQ(r.ReadBytesLength(compact, true), -1);
    EXPECT_EQ(r.ReadBytesLength(compact, false), 1);
    EXPECT_EQ(r.ReadUint8(), 7);
    EXPECT_EQ(r.ReadArrayCount(compact, true, 4), -1);
    EXPECT_EQ(r.ReadArrayCount(compact, false, 4), 1);
    EXPECT_EQ(r.ReadInt32(), 9);
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_TRUE(r.AtEnd());
  }
}

// Random mix of every primitive, compared with an independent big-endian reference and
// read back.
TEST(WriterRoundTrip, RandomMixMatchesReference) {
  enum Op {
    kInt8,
    kInt16,
    kUint16,
    kInt32,
    kUint32,
    kInt64,
    kFloat64,
    kBool,
    kUuid,
    kUvarint,
    kVarint,
    kVarlong,
    kRaw,
    kNumOps
  };
  std::mt19937_64 rng(20240101);
  std::vector<uint8_t> want;
  auto big_endian = [&want](uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) want.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto zigzag = [](int64_t v) {
    return v >= 0 ? 2 * static_cast<uint64_t>(v) : 2 * static_cast<uint64_t>(-(v + 1)) + 1;
  };
  struct Item {
    Op op;
    uint64_t bits;
  };
  std::vector<Item> items;
  Writer w(16);  // start small: growth happens many times
  for (int i = 0; i < 20000; ++i) {
    const Op op = static_cast<Op>(rng() % kNumOps);
    const uint64_t bits = rng() >> (rng() % 64);  // all magnitudes
    items.push_back({op, bits});
    switch (op) {
      case kInt8:
        w.WriteInt8(static_cast<int8_t>(bits));
        big_endian(bits, 1);
        break;
      case kInt16:
        w.WriteInt16(static_cast<int16_t>(bits));
        big_endian(bits, 2);
        break;
      case kUint16:
        w.WriteUint16(static_cast<uint16_t>(bits));
        big_endian(bits, 2);
        break;
      case kInt32:
        w.WriteInt32(static_cast<int32_t>(bits));
        big_endian(bits, 4);
        break;
      case kUint32:
        w.WriteUint32(static_cast<uint32_t>(bits));
        big_endian(bits, 4);
        break;
      case kInt64:
        w.WriteInt64(static_cast<int64_t>(bits));
        big_endian(bits, 8);
        break;
      case kFloat64:
        w.WriteFloat64(std::bit_cast<double>(bits));
        big_endian(bits, 8);
        break;
      case kBool:
        w.WriteBool(bits & 1);
        big_endian(bits & 1, 1);
        break;
      case kUuid: {
        Uuid u;
        for (int b = 0; b < 16; ++b) u.bytes[b] = static_cast<uint8_t>(bits >> (b % 8 * 8));
        w.WriteUuid(u);
        want.insert(want.end(), u.bytes.begin(), u.bytes.end());
        break;
      }
      case kUvarint: {
        const auto enc = wire_testing::RefLeb128(static_cast<uint32_t>(bits));
        w.WriteUvarint(static_cast<uint32_t>(bits));
        want.insert(want.end(), enc.begin(), enc.end());
        break;
      }
      case kVarint: {
        const auto enc = wire_testing::RefLeb128(zigzag(static_cast<int32_t>(bits)));
        w.WriteVarint(static_cast<int32_t>(bits));
        want.insert(want.end(), enc.begin(), enc.end());
        break;
      }
      case kVarlong: {
        const auto enc = wire_testing::RefLeb128(zigzag(static_cast<int64_t>(bits)));
        w.WriteVarlong(static_cast<int64_t>(bits));
        want.insert(want.end(), enc.begin(), enc.end());
        break;
      }
      case kRaw: {
        const std::string s(bits % 40, static_cast<char>('a' + bits % 26));
        w.WriteRaw(s);
        want.insert(want.end(), s.begin(), s.end());
        break;
      }
      case kNumOps:
        break;
    }
  }
  ASSERT_EQ(w.size(), want.size());
  ASSERT_TRUE(std::equal(want.begin(), want.end(), w.data()));

  Reader r(want.data(), want.size());
  for (const Item& it : items) {
    const uint64_t b = it.bits;
    switch (it.op) {
      case kInt8:
        ASSERT_EQ(r.ReadInt8(), static_cast<int8_t>(b));
        break;
      case kInt16:
        ASSERT_EQ(r.ReadInt16(), static_cast<int16_t>(b));
        break;
      case kUint16:
        ASSERT_EQ(r.ReadUint16(), static_cast<uint16_t>(b));
        break;
      case kInt32:
        ASSERT_EQ(r.ReadInt32(), static_cast<int32_t>(b));
        break;
      case kUint32:
        ASSERT_EQ(r.ReadUint32(), static_cast<uint32_t>(b));
        break;
      case kInt64:
        ASSERT_EQ(r.ReadInt64(), static_cast<int64_t>(b));
        break;
      case kFloat64:
        ASSERT_EQ(std::bit_cast<uint64_t>(r.ReadFloat64()), b);
        break;
      case kBool:
        ASSERT_EQ(r.ReadBool(), (b & 1) != 0);
        break;
      case kUuid:
        ASSERT_EQ(r.ReadUuid().bytes[9], static_cast<uint8_t>(b >> 8));
        break;
      case kUvarint:
        ASSERT_EQ(r.ReadUvarint(), static_cast<uint32_t>(b));
        break;
      case kVarint:
        ASSERT_EQ(r.ReadVarint(), static_cast<int32_t>(b));
        break;
      case kVarlong:
        ASSERT_EQ(r.ReadVarlong(), static_cast<int64_t>(b));
        break;
      case kRaw:
        ASSERT_EQ(r.ReadRaw(b % 40).size(), b % 40);
        break;
      case kNumOps:
        break;
    }
  }
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
}

TEST(Writer, ReserveAndPatch) {
  Writer w;
  w.WriteInt16(0x0a0b);
  const size_t pos = w.ReserveInt32();
  EXPECT_EQ(pos, 2u);
  EXPECT_EQ(w.size(), 6u);
  // Enough after the reservation to force several reallocations.
  for (int i = 0; i < 5000; ++i) w.WriteUint8(static_cast<uint8_t>(i));
  w.PatchInt32(pos, static_cast<int32_t>(w.size() - pos - 4));
  const auto b = w.bytes();
  EXPECT_EQ(ToHex(b.subspan(0, 6)), "0a 0b 00 00 13 88");  // 5000
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(b[6 + i], static_cast<uint8_t>(i)) << i;
  w.PatchInt32(pos, INT32_MIN);
  EXPECT_EQ(ToHex(w.bytes().subspan(0, 7)), "0a 0b 80 00 00 00 00");
  w.PatchInt32(pos, -2);
  EXPECT_EQ(ToHex(w.bytes().subspan(0, 7)), "0a 0b ff ff ff fe 00");
  *w.MutableAt(0) = 0x77;
  EXPECT_EQ(w.bytes()[0], 0x77);
  EXPECT_EQ(w.size(), 5006u);
}

// ReserveUvarint / PatchUvarint (a tagged field's size written after its value): the
// bytes after the reserved one move up by as many bytes as the uvarint needs beyond one,
// across the 1-to-5-byte boundaries, and a move past the capacity reallocates.
TEST(Writer, ReserveAndPatchUvarint) {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{127}, size_t{128}, size_t{16383},
                         size_t{16384}, size_t{2097151}, size_t{2097152}}) {
    SCOPED_TRACE(n);
    Writer w;
    w.WriteUint8(0xee);
    const size_t pos = w.ReserveUvarint();
    EXPECT_EQ(pos, 1u);
    for (size_t i = 0; i < n; ++i) w.WriteUint8(static_cast<uint8_t>(i * 7));
    w.WriteUint8(0xdd);
    w.PatchUvarint(pos, static_cast<uint32_t>(n));
    uint8_t want[kMaxUvarintBytes];
    const size_t len = EncodeUvarint(want, static_cast<uint32_t>(n));
    const auto b = w.bytes();
    ASSERT_EQ(b.size(), 1 + len + n + 1);
    EXPECT_EQ(b[0], 0xee);
    for (size_t i = 0; i < len; ++i) ASSERT_EQ(b[1 + i], want[i]) << i;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(b[1 + len + i], static_cast<uint8_t>(i * 7)) << i;
    EXPECT_EQ(b.back(), 0xdd);
    // It reads back as a uvarint followed by its n bytes.
    Reader r(b.subspan(1));
    EXPECT_EQ(r.ReadUvarint(), n);
    EXPECT_EQ(r.remaining(), n + 1);
  }
  // The largest: 5 bytes.
  Writer w;
  const size_t pos = w.ReserveUvarint();
  w.WriteUint8(0x42);
  w.PatchUvarint(pos, UINT32_MAX);
  EXPECT_EQ(ToHex(w.bytes()), "ff ff ff ff 0f 42");
}

TEST(Writer, GrowthKeepsContents) {
  constexpr size_t kTotal = size_t{1} << 20;
  Writer w;
  std::vector<uint8_t> want;
  want.reserve(kTotal + 64);
  uint32_t x = 1;
  while (want.size() < kTotal) {
    x = x * 1664525u + 1013904223u;
    switch (x >> 30) {
      case 0:
        w.WriteUint8(static_cast<uint8_t>(x));
        want.push_back(static_cast<uint8_t>(x));
        break;
      case 1:
        w.WriteUint32(x);
        for (int s = 24; s >= 0; s -= 8) want.push_back(static_cast<uint8_t>(x >> s));
        break;
      case 2: {
        const auto enc = wire_testing::RefLeb128(x);
        w.WriteUvarint(x);
        want.insert(want.end(), enc.begin(), enc.end());
        break;
      }
      default: {
        const std::vector<uint8_t> chunk(x % 3000, static_cast<uint8_t>(x >> 8));
        w.WriteRaw(chunk.data(), chunk.size());
        want.insert(want.end(), chunk.begin(), chunk.end());
        break;
      }
    }
  }
  ASSERT_EQ(w.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), w.data()));
  EXPECT_TRUE(std::equal(want.begin(), want.end(), w.bytes().begin()));
  const std::vector<uint8_t> released = w.Release();
  EXPECT_EQ(released, want);
}

// WriteRaw copies up to 64 bytes inline with overlapping fixed-size loads and stores:
// every length 0..130 (each size class, its edges, the memcpy path) after every
// misalignment 0..15, from a source allocated to exactly n bytes (ASan flags any read
// outside it) into a writer whose capacity ends exactly at the copy (Release exposes any
// byte written outside [size, size + n)).
TEST(Writer, WriteRawEveryLengthAndAlignment) {
  for (size_t n = 0; n <= 130; ++n) {
    for (size_t skew = 0; skew < 16; ++skew) {
      std::unique_ptr<uint8_t[]> src(new uint8_t[n]);
      for (size_t i = 0; i < n; ++i) src[i] = static_cast<uint8_t>(0x40 + i * 7 + skew);
      Writer w(skew + n + 2);
      for (size_t i = 0; i < skew; ++i) w.WriteUint8(0xee);
      w.WriteRaw(src.get(), n);
      w.WriteUint16(0xa5a5);
      ASSERT_EQ(w.size(), skew + n + 2) << "n=" << n << " skew=" << skew;
      const std::vector<uint8_t> out = w.Release();
      for (size_t i = 0; i < skew; ++i) ASSERT_EQ(out[i], 0xee) << "n=" << n << " i=" << i;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[skew + i], src[i]) << "n=" << n << " skew=" << skew << " i=" << i;
      }
      EXPECT_EQ(out[skew + n], 0xa5);
      EXPECT_EQ(out[skew + n + 1], 0xa5);
    }
  }
}

// WriteBigEndianArray (the encoder's path for int8/int16/int32/int64 arrays) writes what
// one WriteInt* per element writes, at every length and alignment, growing the buffer
// across the array (a writer of capacity 1).
template <class T>
void CheckBigEndianArray(void (Writer::*one)(T)) {
  std::mt19937_64 rng(sizeof(T));
  for (size_t n = 0; n <= 40; ++n) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(rng());
    if (n > 0) v[0] = std::numeric_limits<T>::min();
    if (n > 1) v[1] = std::numeric_limits<T>::max();
    if (n > 2) v[2] = -1;
    for (size_t skew = 0; skew < 3; ++skew) {
      Writer bulk(1), each(1);
      for (size_t i = 0; i < skew; ++i) {
        bulk.WriteUint8(0xee);
        each.WriteUint8(0xee);
      }
      bulk.WriteBigEndianArray(v.data(), v.size());
      for (T x : v) (each.*one)(x);
      bulk.WriteUint8(0x5a);
      each.WriteUint8(0x5a);
      ASSERT_EQ(bulk.size(), skew + n * sizeof(T) + 1);
      EXPECT_EQ(ToHex(bulk.bytes()), ToHex(each.bytes()))
          << sizeof(T) << "-byte elements, n=" << n << " skew=" << skew;
    }
  }
}

TEST(Writer, WriteBigEndianArrayEqualsOneWritePerElement) {
  CheckBigEndianArray<int8_t>(&Writer::WriteInt8);
  CheckBigEndianArray<int16_t>(&Writer::WriteInt16);
  CheckBigEndianArray<int32_t>(&Writer::WriteInt32);
  CheckBigEndianArray<int64_t>(&Writer::WriteInt64);
}

TEST(WriterBytes, BigEndianArrayOfInt32) {
  Writer w;
  const int32_t v[] = {1, -1, 0x01020304};
  w.WriteBigEndianArray(v, 3);
  EXPECT_EQ(ToHex(w.bytes()), "00 00 00 01 ff ff ff ff 01 02 03 04");
}

// Clear keeps the capacity and restarts at offset 0; writes after growth land after the
// old bytes (the cursors are rebased on every reallocation).
TEST(Writer, ClearAndRegrowKeepCursorsConsistent) {
  Writer w(4);
  w.WriteInt32(0x01020304);
  w.WriteUint8(5);  // grows
  EXPECT_EQ(ToHex(w.bytes()), "01 02 03 04 05");
  w.Clear();
  EXPECT_EQ(w.size(), 0u);
  w.WriteUvarint(300);
  w.WriteRaw("xyz", 3);
  EXPECT_EQ(ToHex(w.bytes()), "ac 02 78 79 7a");
  Writer empty;
  empty.Clear();
  EXPECT_EQ(empty.size(), 0u);
  empty.WriteRaw("", 0);
  EXPECT_EQ(empty.size(), 0u);
  empty.WriteVarlong(-1);
  EXPECT_EQ(ToHex(empty.bytes()), "01");
}

TEST(Writer, ReleaseReturnsExactlySize) {
  Writer w(1024);
  EXPECT_EQ(w.size(), 0u);
  EXPECT_TRUE(w.bytes().empty());
  w.WriteInt32(0x01020304);
  w.WriteUvarint(300);
  EXPECT_EQ(w.size(), 6u);
  const std::vector<uint8_t> out = w.Release();
  EXPECT_EQ(ToHex(out), "01 02 03 04 ac 02");
  EXPECT_EQ(w.size(), 0u);
  EXPECT_TRUE(w.bytes().empty());
  // Reusable after Release.
  w.WriteInt16(-1);
  EXPECT_EQ(ToHex(w.bytes()), "ff ff");
  EXPECT_EQ(ToHex(w.Release()), "ff ff");
  EXPECT_TRUE(Writer().Release().empty());
}

TEST(Writer, FailIsStickyWithOffsetAndPath) {
  Writer w;
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(w.error().kind, ErrorKind::kOk);
  const PathNode root{nullptr, "ProduceRequest"};
  const PathNode topics{&root, "TopicData", 1};
  const PathNode name{&topics, "Name"};
  w.WriteInt32(0);
  w.WriteInt8(0);
  w.set_path(&name);
  EXPECT_EQ(w.path(), &name);
  w.Fail(ErrorKind::kStringTooLong, "string of 40000 bytes, max 32767");
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, ErrorKind::kStringTooLong);
  EXPECT_EQ(w.error().offset, 5u);
  EXPECT_EQ(w.error().path, "ProduceRequest.TopicData[1].Name");
  EXPECT_EQ(w.error().ToString(),
            "string_too_long at byte 5 in ProduceRequest.TopicData[1].Name (string of 40000 bytes, "
            "max 32767)");
  EXPECT_EQ(w.error().ToStatus().code(), absl::StatusCode::kFailedPrecondition);

  // Later writes still append; later failures change nothing.
  w.set_path(&root);
  w.WriteInt16(1);
  w.Fail(ErrorKind::kNullNotAllowed, "other");
  w.Fail(ErrorKind::kNonDefaultField);
  EXPECT_EQ(w.size(), 7u);
  EXPECT_EQ(w.error().kind, ErrorKind::kStringTooLong);
  EXPECT_EQ(w.error().offset, 5u);
  EXPECT_EQ(w.error().path, "ProduceRequest.TopicData[1].Name");
  EXPECT_EQ(w.error().detail, "string of 40000 bytes, max 32767");

  Writer no_path;
  no_path.Fail(ErrorKind::kNonDefaultField);
  EXPECT_EQ(no_path.error().ToString(), "non_default_field at byte 0");
}

}  // namespace
}  // namespace kwire
