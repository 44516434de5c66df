// Variable-length integers: varint.h encoders and size functions, Reader decoding
// (canonical, strict failures, Java quirks) and Writer encoding.
#include "codec/wire/varint.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/wire/reader.h"
#include "codec/wire/test_util.h"
#include "codec/wire/writer.h"

namespace kwire {
namespace {

using wire_testing::Cat;
using wire_testing::Hex;
using wire_testing::RefLeb128;
using wire_testing::ToHex;

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr uint32_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

// Zigzag computed arithmetically in a wider domain, independent of varint.h.
uint64_t RefZigZag(int64_t v) {
  return v >= 0 ? 2 * static_cast<uint64_t>(v) : 2 * static_cast<uint64_t>(-(v + 1)) + 1;
}

// ---- ZigZag and size helpers.

static_assert(ZigZagEncode32(0) == 0 && ZigZagEncode32(-1) == 1 && ZigZagEncode32(1) == 2);
static_assert(ZigZagEncode32(kI32Min) == kU32Max && ZigZagEncode32(kI32Max) == kU32Max - 1);
static_assert(ZigZagDecode32(kU32Max) == kI32Min && ZigZagDecode64(kU64Max) == kI64Min);
static_assert(UvarintSize(0) == 1 && UvarintSize(kU32Max) == 5);
static_assert(Uvarint64Size(0) == 1 && Uvarint64Size(kU64Max) == 10);

TEST(ZigZag, Boundaries32) {
  const struct {
    int32_t v;
    uint32_t zz;
  } kCases[] = {{0, 0},
                {-1, 1},
                {1, 2},
                {-2, 3},
                {2, 4},
                {-64, 127},
                {64, 128},
                {kI32Max, 0xfffffffe},
                {kI32Min, kU32Max},
                {kI32Min + 1, 0xfffffffd}};
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.v);
    EXPECT_EQ(ZigZagEncode32(c.v), c.zz);
    EXPECT_EQ(ZigZagEncode32(c.v), RefZigZag(c.v));
    EXPECT_EQ(ZigZagDecode32(c.zz), c.v);
  }
}

TEST(ZigZag, Boundaries64) {
  const struct {
    int64_t v;
    uint64_t zz;
  } kCases[] = {{0, 0},
                {-1, 1},
                {1, 2},
                {kI32Min, 0xffffffffu},
                {int64_t{kI32Max} + 1, 0x100000000u},
                {kI64Max, kU64Max - 1},
                {kI64Min, kU64Max},
                {kI64Min + 1, kU64Max - 2}};
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.v);
    EXPECT_EQ(ZigZagEncode64(c.v), c.zz);
    EXPECT_EQ(ZigZagEncode64(c.v), RefZigZag(c.v));
    EXPECT_EQ(ZigZagDecode64(c.zz), c.v);
  }
}

TEST(VarintSize, EveryLengthBoundary) {
  EXPECT_EQ(UvarintSize(0), 1u);
  EXPECT_EQ(Uvarint64Size(0), 1u);
  for (size_t k = 1; k <= 9; ++k) {
    const uint64_t first = uint64_t{1} << (7 * k);  // smallest value of k+1 bytes
    SCOPED_TRACE(k);
    EXPECT_EQ(Uvarint64Size(first - 1), k);
    EXPECT_EQ(Uvarint64Size(first), k + 1);
    if (first <= kU32Max) {
      EXPECT_EQ(UvarintSize(static_cast<uint32_t>(first - 1)), k);
      EXPECT_EQ(UvarintSize(static_cast<uint32_t>(first)), k + 1);
    }
  }
  EXPECT_EQ(UvarintSize(kU32Max), 5u);
  EXPECT_EQ(Uvarint64Size(kU64Max), 10u);
  // Every bit length agrees with the reference encoder.
  for (int bits = 1; bits <= 64; ++bits) {
    const uint64_t lo = uint64_t{1} << (bits - 1);
    const uint64_t hi = bits == 64 ? kU64Max : (uint64_t{1} << bits) - 1;
    EXPECT_EQ(Uvarint64Size(lo), RefLeb128(lo).size()) << lo;
    EXPECT_EQ(Uvarint64Size(hi), RefLeb128(hi).size()) << hi;
    if (bits <= 32) {
      EXPECT_EQ(UvarintSize(static_cast<uint32_t>(lo)), RefLeb128(lo).size()) << lo;
      EXPECT_EQ(UvarintSize(static_cast<uint32_t>(hi)), RefLeb128(hi).size()) << hi;
    }
  }
  const struct {
    int32_t v;
    size_t size;
  } kVarint[] = {{0, 1}, {-1, 1}, {63, 1}, {-64, 1}, {64, 2}, {-65, 2}, {kI32Max, 5}, {kI32Min, 5}};
  for (const auto& c : kVarint) EXPECT_EQ(VarintSize(c.v), c.size) << c.v;
  const struct {
    int64_t v;
    size_t size;
  } kVarlong[] = {{0, 1},
                  {-1, 1},
                  {-64, 1},
                  {64, 2},
                  {kI32Min, 5},
                  {int64_t{1} << 31, 5},
                  {int64_t{1} << 34, 6},
                  {kI64Max, 10},
                  {kI64Min, 10}};
  for (const auto& c : kVarlong) EXPECT_EQ(VarlongSize(c.v), c.size) << c.v;
}

// ---- Canonical uvarints: exact bytes through every encoder and the decoder.

struct UvarintCase {
  uint32_t value;
  const char* hex;
};

class UvarintCanonical : public ::testing::TestWithParam<UvarintCase> {};

TEST_P(UvarintCanonical, EncodesDecodesAndSizes) {
  const UvarintCase& c = GetParam();
  const std::vector<uint8_t> want = Hex(c.hex);

  std::array<uint8_t, kMaxUvarintBytes> buf{};
  const size_t n = EncodeUvarint(buf.data(), c.value);
  EXPECT_EQ(ToHex({buf.data(), n}), c.hex);
  EXPECT_EQ(UvarintSize(c.value), want.size());
  EXPECT_EQ(Uvarint64Size(c.value), want.size());
  std::array<uint8_t, kMaxVarlongBytes> buf64{};
  EXPECT_EQ(ToHex({buf64.data(), EncodeUvarint64(buf64.data(), c.value)}), c.hex);

  Writer w;
  w.WriteUvarint(c.value);
  EXPECT_EQ(ToHex(w.bytes()), c.hex);

  // Decode with a byte on either side: the value must consume exactly its bytes.
  const std::vector<uint8_t> in = Cat(Cat(Hex("aa"), want), Hex("bb"));
  Reader r(in.data(), in.size());
  EXPECT_EQ(r.ReadUint8(), 0xaa);
  EXPECT_EQ(r.ReadUvarint(), c.value);
  EXPECT_EQ(r.offset(), 1 + want.size());
  EXPECT_EQ(r.ReadUint8(), 0xbb);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
}

INSTANTIATE_TEST_SUITE_P(Boundaries, UvarintCanonical,
                         ::testing::Values(UvarintCase{0, "00"}, UvarintCase{1, "01"},
                                           UvarintCase{127, "7f"}, UvarintCase{128, "80 01"},
                                           UvarintCase{300, "ac 02"}, UvarintCase{16383, "ff 7f"},
                                           UvarintCase{16384, "80 80 01"},
                                           UvarintCase{(1u << 21) - 1, "ff ff 7f"},
                                           UvarintCase{1u << 21, "80 80 80 01"},
                                           UvarintCase{(1u << 28) - 1, "ff ff ff 7f"},
                                           UvarintCase{1u << 28, "80 80 80 80 01"},
                                           UvarintCase{kU32Max - 1, "fe ff ff ff 0f"},
                                           UvarintCase{kU32Max, "ff ff ff ff 0f"}),
                         [](const ::testing::TestParamInfo<UvarintCase>& info) {
                           return "v" + std::to_string(info.param.value);
                         });

TEST(Varint, ExactBytes) {
  const struct {
    int32_t v;
    const char* hex;
  } kCases[] = {{0, "00"},
                {-1, "01"},
                {1, "02"},
                {-2, "03"},
                {63, "7e"},
                {-64, "7f"},
                {64, "80 01"},
                {-65, "81 01"},
                {kI32Max, "fe ff ff ff 0f"},
                {kI32Min, "ff ff ff ff 0f"}};
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.v);
    std::array<uint8_t, kMaxUvarintBytes> buf{};
    EXPECT_EQ(ToHex({buf.data(), EncodeVarint(buf.data(), c.v)}), c.hex);
    EXPECT_EQ(VarintSize(c.v), Hex(c.hex).size());
    Writer w;
    w.WriteVarint(c.v);
    EXPECT_EQ(ToHex(w.bytes()), c.hex);
    const std::vector<uint8_t> in = Hex(c.hex);
    Reader r(in.data(), in.size());
    EXPECT_EQ(r.ReadVarint(), c.v);
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_TRUE(r.AtEnd());
  }
}

TEST(Varlong, ExactBytes) {
  const struct {
    int64_t v;
    const char* hex;
  } kCases[] = {{0, "00"},
                {-1, "01"},
                {1, "02"},
                {-64, "7f"},
                {64, "80 01"},
                {kI32Min, "ff ff ff ff 0f"},
                {int64_t{kI32Max} + 1, "80 80 80 80 10"},
                {kI64Max, "fe ff ff ff ff ff ff ff ff 01"},
                {kI64Min, "ff ff ff ff ff ff ff ff ff 01"}};
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.v);
    std::array<uint8_t, kMaxVarlongBytes> buf{};
    EXPECT_EQ(ToHex({buf.data(), EncodeVarlong(buf.data(), c.v)}), c.hex);
    EXPECT_EQ(VarlongSize(c.v), Hex(c.hex).size());
    Writer w;
    w.WriteVarlong(c.v);
    EXPECT_EQ(ToHex(w.bytes()), c.hex);
    const std::vector<uint8_t> in = Hex(c.hex);
    Reader r(in.data(), in.size());
    EXPECT_EQ(r.ReadVarlong(), c.v);
    EXPECT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_TRUE(r.AtEnd());
  }
}

// ---- Malformed encodings: strict failure kind, and what each quirk makes of them.

enum class VarType { kUvarint, kVarint, kVarlong };

struct MalformedCase {
  VarType type;
  const char* hex;
  ErrorKind strict;     // kind in strict mode (at the value's first byte)
  uint32_t quirk;       // the quirk that admits it, or 0 if none does
  int64_t quirk_value;  // the value Java produces (uvarint as its uint32 value)
};

std::string Describe(const MalformedCase& c) {
  static constexpr const char* kNames[] = {"uvarint", "varint", "varlong"};
  return std::string(kNames[static_cast<int>(c.type)]) + " " + c.hex;
}

// Reads one value of `type`; the uvarint is widened so one return type fits all.
int64_t ReadVar(Reader& r, VarType type) {
  switch (type) {
    case VarType::kUvarint:
      return r.ReadUvarint();
    case VarType::kVarint:
      return r.ReadVarint();
    case VarType::kVarlong:
      return r.ReadVarlong();
  }
  return -12345;
}

const MalformedCase kMalformed[] = {
    // Overlong (ends in a zero group).
    {VarType::kUvarint, "80 00", ErrorKind::kVarintNonCanonical, kQuirkNonCanonicalVarint, 0},
    {VarType::kUvarint, "ff 80 00", ErrorKind::kVarintNonCanonical, kQuirkNonCanonicalVarint, 127},
    {VarType::kUvarint, "81 80 80 00", ErrorKind::kVarintNonCanonical, kQuirkNonCanonicalVarint, 1},
    {VarType::kUvarint, "80 80 80 80 00", ErrorKind::kVarintNonCanonical, kQuirkNonCanonicalVarint,
     0},
    {VarType::kVarint, "81 80 00", ErrorKind::kVarintNonCanonical, kQuirkNonCanonicalVarint, -1},
    {VarType::kVarlong, "80 00", ErrorKind::kVarintNonCanonical, kQuirkNonCanonicalVarint, 0},
    {VarType::kVarlong, "80 80 80 80 80 80 80 80 80 00", ErrorKind::kVarintNonCanonical,
     kQuirkNonCanonicalVarint, 0},
    {VarType::kVarlong, "ff ff ff ff ff ff ff ff ff 00", ErrorKind::kVarintNonCanonical,
     kQuirkNonCanonicalVarint, -(int64_t{1} << 62)},  // zigzag(2^63 - 1)
    // Bits beyond 32 (64) in the last byte: Java drops them.
    {VarType::kUvarint, "ff ff ff ff 1f", ErrorKind::kVarintOverflow, kQuirkVarintExtraBits,
     kU32Max},
    {VarType::kUvarint, "ff ff ff ff 7f", ErrorKind::kVarintOverflow, kQuirkVarintExtraBits,
     kU32Max},
    {VarType::kUvarint, "80 80 80 80 10", ErrorKind::kVarintOverflow, kQuirkVarintExtraBits, 0},
    {VarType::kUvarint, "85 80 80 80 70", ErrorKind::kVarintOverflow, kQuirkVarintExtraBits, 5},
    {VarType::kVarint, "fe ff ff ff 7f", ErrorKind::kVarintOverflow, kQuirkVarintExtraBits,
     kI32Max},
    {VarType::kVarint, "ff ff ff ff 1f", ErrorKind::kVarintOverflow, kQuirkVarintExtraBits,
     kI32Min},
    {VarType::kVarlong, "ff ff ff ff ff ff ff ff ff 02", ErrorKind::kVarintOverflow,
     kQuirkVarintExtraBits, -(int64_t{1} << 62)},
    {VarType::kVarlong, "ff ff ff ff ff ff ff ff ff 7f", ErrorKind::kVarintOverflow,
     kQuirkVarintExtraBits, kI64Min},
    // Too long: no quirk admits these (Java throws too).
    {VarType::kUvarint, "ff ff ff ff ff 01", ErrorKind::kVarintTooLong, 0, 0},
    {VarType::kUvarint, "80 80 80 80 80 00", ErrorKind::kVarintTooLong, 0, 0},
    {VarType::kUvarint, "ff ff ff ff ff", ErrorKind::kVarintTooLong, 0, 0},
    {VarType::kVarint, "ff ff ff ff ff 01", ErrorKind::kVarintTooLong, 0, 0},
    {VarType::kVarlong, "ff ff ff ff ff ff ff ff ff ff 01", ErrorKind::kVarintTooLong, 0, 0},
    {VarType::kVarlong, "80 80 80 80 80 80 80 80 80 80 00", ErrorKind::kVarintTooLong, 0, 0},
};

TEST(VarintMalformed, StrictFailsAtValueStart) {
  for (const MalformedCase& c : kMalformed) {
    SCOPED_TRACE(Describe(c));
    // Two bytes before the value, one after; base offset 1000.
    const std::vector<uint8_t> in = Cat(Cat(Hex("00 01"), Hex(c.hex)), Hex("7e"));
    Reader r(in.data(), in.size(), 1000);
    r.Skip(2);
    EXPECT_EQ(ReadVar(r, c.type), 0);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, c.strict);
    EXPECT_EQ(r.error().offset, 1002u);
    EXPECT_EQ(r.remaining(), 0u);
    EXPECT_EQ(r.ReadUint8(), 0);  // drained
  }
}

TEST(VarintMalformed, QuirkAdmitsWithJavaValue) {
  for (const MalformedCase& c : kMalformed) {
    SCOPED_TRACE(Describe(c));
    const std::vector<uint8_t> in = Cat(Hex(c.hex), Hex("7e"));
    // The matching quirk alone admits it and consumes exactly the encoding.
    if (c.quirk != 0) {
      Reader r(in.data(), in.size(), 0, DecodeOptions{c.quirk});
      EXPECT_EQ(ReadVar(r, c.type), c.quirk_value);
      EXPECT_EQ(r.ReadUint8(), 0x7e);
      EXPECT_TRUE(r.ok()) << r.error().ToString();
      EXPECT_TRUE(r.AtEnd());
    }
    // Every other quirk leaves the strict failure in place.
    Reader r(in.data(), in.size(), 0, DecodeOptions{kQuirksJava & ~c.quirk});
    EXPECT_EQ(ReadVar(r, c.type), 0);
    EXPECT_EQ(r.error().kind, c.strict);
  }
}

TEST(VarintMalformed, ErrorText) {
  const struct {
    VarType type;
    const char* hex;
    const char* text;
  } kCases[] = {
      {VarType::kUvarint, "ff ff ff ff ff 01",
       "varint_too_long at byte 0 (uvarint continues past 5 bytes)"},
      {VarType::kUvarint, "ff ff ff ff 1f",
       "varint_overflow at byte 0 (uvarint byte 5 is 0x1f, more than 32 bits)"},
      {VarType::kVarlong, "ff ff ff ff ff ff ff ff ff 02",
       "varint_overflow at byte 0 (varlong byte 10 is 0x02, more than 64 bits)"},
      {VarType::kVarint, "80 00",
       "varint_non_canonical at byte 0 (varint of 2 bytes ends in a zero group (overlong))"},
      {VarType::kUvarint, "80 80", "truncated at byte 0 (uvarint: need 3, have 2)"},
  };
  for (const auto& c : kCases) {
    const std::vector<uint8_t> in = Hex(c.hex);
    Reader r(in.data(), in.size());
    ReadVar(r, c.type);
    EXPECT_EQ(r.error().ToString(), c.text);
  }
}

// ---- Randomized round trip against the reference encoder.

constexpr int kRandomValues = 100000;

// A value with a uniformly chosen bit length in [0, max_bits], so every encoded
// length occurs.
uint64_t RandomBits(std::mt19937_64& rng, int max_bits) {
  const int bits = static_cast<int>(rng() % static_cast<uint64_t>(max_bits + 1));
  if (bits == 0) return 0;
  return (rng() >> (64 - bits)) | (uint64_t{1} << (bits - 1));
}

// Checks one encoding against the reference, appends it to `want` and counts its length.
void CheckEncoding(std::span<const uint8_t> got, const std::vector<uint8_t>& ref,
                   std::vector<uint8_t>* want, std::array<int, 11>* lengths) {
  ASSERT_EQ(ToHex(got), ToHex(ref));
  want->insert(want->end(), ref.begin(), ref.end());
  ++(*lengths)[ref.size()];
}

TEST(VarintRandom, UvarintMatchesReference) {
  std::mt19937_64 rng(0x6b77697265);
  std::vector<uint32_t> values;
  std::vector<uint8_t> want;
  std::array<int, 11> lengths{};
  Writer w;
  for (int i = 0; i < kRandomValues; ++i) {
    const uint32_t v = static_cast<uint32_t>(RandomBits(rng, 32));
    const std::vector<uint8_t> ref = RefLeb128(v);
    std::array<uint8_t, kMaxUvarintBytes> buf{};
    CheckEncoding({buf.data(), EncodeUvarint(buf.data(), v)}, ref, &want, &lengths);
    ASSERT_EQ(UvarintSize(v), ref.size()) << v;
    w.WriteUvarint(v);
    values.push_back(v);
  }
  for (size_t len = 1; len <= 5; ++len) EXPECT_GT(lengths[len], 1000) << len;
  ASSERT_EQ(w.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), w.data()));
  Reader r(want.data(), want.size());
  for (uint32_t v : values) ASSERT_EQ(r.ReadUvarint(), v);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
}

TEST(VarintRandom, VarintMatchesReference) {
  std::mt19937_64 rng(0x7a6967);
  std::vector<int32_t> values;
  std::vector<uint8_t> want;
  std::array<int, 11> lengths{};
  Writer w;
  for (int i = 0; i < kRandomValues; ++i) {
    const uint64_t magnitude = RandomBits(rng, 31);
    const int32_t v = (rng() & 1) ? static_cast<int32_t>(-1 - static_cast<int64_t>(magnitude))
                                  : static_cast<int32_t>(magnitude);
    const std::vector<uint8_t> ref = RefLeb128(RefZigZag(v));
    std::array<uint8_t, kMaxUvarintBytes> buf{};
    CheckEncoding({buf.data(), EncodeVarint(buf.data(), v)}, ref, &want, &lengths);
    ASSERT_EQ(VarintSize(v), ref.size()) << v;
    w.WriteVarint(v);
    values.push_back(v);
  }
  for (size_t len = 1; len <= 5; ++len) EXPECT_GT(lengths[len], 1000) << len;
  ASSERT_EQ(w.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), w.data()));
  Reader r(want.data(), want.size());
  for (int32_t v : values) ASSERT_EQ(r.ReadVarint(), v);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
}

TEST(VarintRandom, VarlongMatchesReference) {
  std::mt19937_64 rng(0x6c6f6e67);
  std::vector<int64_t> values;
  std::vector<uint8_t> want;
  std::array<int, 11> lengths{};
  Writer w;
  for (int i = 0; i < kRandomValues; ++i) {
    const uint64_t magnitude = RandomBits(rng, 63);
    const int64_t v =
        (rng() & 1) ? -1 - static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    const std::vector<uint8_t> ref = RefLeb128(RefZigZag(v));
    std::array<uint8_t, kMaxVarlongBytes> buf{};
    CheckEncoding({buf.data(), EncodeVarlong(buf.data(), v)}, ref, &want, &lengths);
    ASSERT_EQ(VarlongSize(v), ref.size()) << v;
    w.WriteVarlong(v);
    values.push_back(v);
  }
  for (size_t len = 1; len <= 10; ++len) EXPECT_GT(lengths[len], 1000) << len;
  ASSERT_EQ(w.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), w.data()));
  Reader r(want.data(), want.size());
  for (int64_t v : values) ASSERT_EQ(r.ReadVarlong(), v);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r.AtEnd());
}

}  // namespace
}  // namespace kwire
