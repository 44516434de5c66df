// Reader: fixed-width values, bool/uuid, length prefixes, array counts, struct
// presence, tagged-field helpers, limits, truncation at every offset, errors and paths.
// Variable-length integers are in varint_test.cc, Writer in writer_test.cc.
#include "codec/wire/reader.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "codec/wire/error.h"
#include "codec/wire/test_util.h"

namespace kwire {
namespace {

using wire_testing::Cat;
using wire_testing::Hex;
using wire_testing::ToHex;

constexpr size_t kSizeMax = std::numeric_limits<size_t>::max();

// Asserts that `r` has failed and is drained: every read returns a zero value, the
// cursor does not move and the recorded error does not change.
void ExpectDrained(Reader& r) {
  ASSERT_FALSE(r.ok());
  const Error before = r.error();
  const size_t offset = r.offset();
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(r.ReadInt8(), 0);
  EXPECT_EQ(r.ReadUint8(), 0);
  EXPECT_EQ(r.ReadInt16(), 0);
  EXPECT_EQ(r.ReadUint16(), 0);
  EXPECT_EQ(r.ReadInt32(), 0);
  EXPECT_EQ(r.ReadUint32(), 0u);
  EXPECT_EQ(r.ReadInt64(), 0);
  EXPECT_EQ(std::bit_cast<uint64_t>(r.ReadFloat64()), 0u);
  EXPECT_FALSE(r.ReadBool());
  EXPECT_EQ(r.ReadUuid(), Uuid{});
  EXPECT_EQ(r.ReadUvarint(), 0u);
  EXPECT_EQ(r.ReadVarint(), 0);
  EXPECT_EQ(r.ReadVarlong(), 0);
  EXPECT_TRUE(r.ReadRaw(0).empty());
  EXPECT_TRUE(r.ReadRaw(1).empty());
  r.Skip(3);
  for (bool compact : {false, true}) {
    EXPECT_EQ(r.ReadStringLength(compact, true), 0);
    EXPECT_EQ(r.ReadBytesLength(compact, true), 0);
    EXPECT_EQ(r.ReadArrayCount(compact, true, 1), 0);
  }
  EXPECT_FALSE(r.ReadStructPresence(true));
  EXPECT_EQ(r.ReadTaggedFieldCount(), 0u);
  uint32_t tag = 7, size = 7;
  EXPECT_FALSE(r.ReadTagHeader(-1, &tag, &size));
  EXPECT_EQ(tag, 0u);
  EXPECT_EQ(size, 0u);
  r.PopLimit(r.PushLimit(1));
  r.PopLimit(r.PushLimit(0));
  EXPECT_EQ(r.offset(), offset);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(r.error().kind, before.kind);
  EXPECT_EQ(r.error().offset, before.offset);
  EXPECT_EQ(r.error().path, before.path);
  EXPECT_EQ(r.error().detail, before.detail);
}

std::vector<uint8_t> Repeat(uint8_t b, size_t n) { return std::vector<uint8_t>(n, b); }

// A Reader over literal hex bytes, owning them.
struct HexReader {
  explicit HexReader(const char* hex, DecodeOptions options = {}, size_t base = 0)
      : bytes(Hex(hex)), r(bytes.data(), bytes.size(), base, options) {}
  HexReader(std::vector<uint8_t> b, DecodeOptions options = {}, size_t base = 0)
      : bytes(std::move(b)), r(bytes.data(), bytes.size(), base, options) {}
  std::vector<uint8_t> bytes;
  Reader r;
};

void ExpectError(const Reader& r, ErrorKind kind, size_t offset) {
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, kind) << r.error().ToString();
  EXPECT_EQ(r.error().offset, offset) << r.error().ToString();
  EXPECT_EQ(r.remaining(), 0u);
}

// ---- Fixed-width values: literal big-endian bytes, boundaries, cursor movement.

template <typename T>
struct FixedCase {
  T value;
  const char* hex;
};

template <typename T>
void CheckFixed(T (Reader::*read)(), std::initializer_list<FixedCase<T>> cases) {
  std::vector<uint8_t> all;
  for (const FixedCase<T>& c : cases) {
    SCOPED_TRACE(c.hex);
    HexReader h(c.hex);
    EXPECT_EQ((h.r.*read)(), c.value);
    EXPECT_TRUE(h.r.ok()) << h.r.error().ToString();
    EXPECT_TRUE(h.r.AtEnd());
    EXPECT_EQ(h.r.offset(), sizeof(T));
    all = Cat(std::move(all), h.bytes);
  }
  // Back to back, each read starts where the previous ended.
  Reader r(all.data(), all.size());
  for (const FixedCase<T>& c : cases) EXPECT_EQ((r.*read)(), c.value) << c.hex;
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.AtEnd());
}

TEST(ReaderFixed, Int8) {
  CheckFixed<int8_t>(&Reader::ReadInt8,
                     {{0, "00"}, {1, "01"}, {127, "7f"}, {-128, "80"}, {-1, "ff"}});
}

TEST(ReaderFixed, Uint8) {
  CheckFixed<uint8_t>(&Reader::ReadUint8, {{0, "00"}, {0x7f, "7f"}, {0x80, "80"}, {0xff, "ff"}});
}

TEST(ReaderFixed, Int16) {
  CheckFixed<int16_t>(&Reader::ReadInt16, {{0, "00 00"},
                                           {0x0102, "01 02"},
                                           {INT16_MAX, "7f ff"},
                                           {INT16_MIN, "80 00"},
                                           {-1, "ff ff"},
                                           {-2, "ff fe"}});
}

TEST(ReaderFixed, Uint16) {
  CheckFixed<uint16_t>(&Reader::ReadUint16,
                       {{0, "00 00"}, {0x0102, "01 02"}, {0x8000, "80 00"}, {UINT16_MAX, "ff ff"}});
}

TEST(ReaderFixed, Int32) {
  CheckFixed<int32_t>(&Reader::ReadInt32, {{0, "00 00 00 00"},
                                           {0x01020304, "01 02 03 04"},
                                           {INT32_MAX, "7f ff ff ff"},
                                           {INT32_MIN, "80 00 00 00"},
                                           {-1, "ff ff ff ff"},
                                           {256, "00 00 01 00"}});
}

TEST(ReaderFixed, Uint32) {
  CheckFixed<uint32_t>(&Reader::ReadUint32, {{0, "00 00 00 00"},
                                             {0x01020304, "01 02 03 04"},
                                             {0x80000000u, "80 00 00 00"},
                                             {UINT32_MAX, "ff ff ff ff"}});
}

TEST(ReaderFixed, Int64) {
  CheckFixed<int64_t>(&Reader::ReadInt64, {{0, "00 00 00 00 00 00 00 00"},
                                           {0x0102030405060708, "01 02 03 04 05 06 07 08"},
                                           {INT64_MAX, "7f ff ff ff ff ff ff ff"},
                                           {INT64_MIN, "80 00 00 00 00 00 00 00"},
                                           {-1, "ff ff ff ff ff ff ff ff"},
                                           {256, "00 00 00 00 00 00 01 00"}});
}

TEST(ReaderFixed, Float64BitPatterns) {
  // Compared as bits: NaN payloads and the sign of zero must survive.
  const struct {
    uint64_t bits;
    const char* hex;
  } kCases[] = {
      {std::bit_cast<uint64_t>(0.0), "00 00 00 00 00 00 00 00"},
      {std::bit_cast<uint64_t>(-0.0), "80 00 00 00 00 00 00 00"},
      {std::bit_cast<uint64_t>(1.0), "3f f0 00 00 00 00 00 00"},
      {std::bit_cast<uint64_t>(-2.5), "c0 04 00 00 00 00 00 00"},
      {std::bit_cast<uint64_t>(std::numeric_limits<double>::max()), "7f ef ff ff ff ff ff ff"},
      {std::bit_cast<uint64_t>(std::numeric_limits<double>::lowest()), "ff ef ff ff ff ff ff ff"},
      {std::bit_cast<uint64_t>(std::numeric_limits<double>::min()), "00 10 00 00 00 00 00 00"},
      {std::bit_cast<uint64_t>(std::numeric_limits<double>::denorm_min()),
       "00 00 00 00 00 00 00 01"},
      {std::bit_cast<uint64_t>(std::numeric_limits<double>::infinity()), "7f f0 00 00 00 00 00 00"},
      {std::bit_cast<uint64_t>(-std::numeric_limits<double>::infinity()),
       "ff f0 00 00 00 00 00 00"},
      {0x7ff8000000000000, "7f f8 00 00 00 00 00 00"},  // quiet NaN
      {0x7ff0000000000001, "7f f0 00 00 00 00 00 01"},  // signalling NaN
      {0xfff8000000001234, "ff f8 00 00 00 00 12 34"},  // negative NaN with payload
      {0x7fffffffffffffff, "7f ff ff ff ff ff ff ff"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.hex);
    HexReader h(c.hex);
    EXPECT_EQ(std::bit_cast<uint64_t>(h.r.ReadFloat64()), c.bits);
    EXPECT_TRUE(h.r.ok());
    EXPECT_TRUE(h.r.AtEnd());
  }
  HexReader h("c0 04 00 00 00 00 00 00");
  EXPECT_EQ(h.r.ReadFloat64(), -2.5);
}

TEST(ReaderFixed, Uuid) {
  const char* kHexes[] = {"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
                          "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f",
                          "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"};
  for (const char* hex : kHexes) {
    HexReader h(Cat(Hex(hex), Hex("aa")));
    const Uuid u = h.r.ReadUuid();
    EXPECT_EQ(ToHex(u.bytes), hex);
    EXPECT_EQ(h.r.offset(), 16u);
    EXPECT_EQ(h.r.ReadUint8(), 0xaa);
    EXPECT_TRUE(h.r.ok());
  }
}

TEST(ReaderFixed, RawAndSkip) {
  HexReader h("61 62 63 64 65");
  EXPECT_EQ(h.r.ReadRaw(0), "");
  EXPECT_EQ(h.r.ReadRaw(2), "ab");
  h.r.Skip(1);
  EXPECT_EQ(h.r.offset(), 3u);
  EXPECT_EQ(h.r.ReadRaw(2), "de");
  EXPECT_TRUE(h.r.AtEnd());
  EXPECT_TRUE(h.r.ok());
  // Sizes that would wrap the cursor fail cleanly.
  for (size_t n : {kSizeMax, kSizeMax - 1, size_t{6}}) {
    HexReader big("61 62 63 64 65", {}, 10);
    big.r.Skip(1);
    EXPECT_TRUE(big.r.ReadRaw(n).empty());
    ExpectError(big.r, ErrorKind::kTruncated, 11);
  }
}

// ---- Bool.

TEST(ReaderBool, StrictAndQuirk) {
  HexReader ok("00 01");
  EXPECT_FALSE(ok.r.ReadBool());
  EXPECT_TRUE(ok.r.ReadBool());
  EXPECT_TRUE(ok.r.ok());
  for (const char* bad : {"02", "ff", "80"}) {
    SCOPED_TRACE(bad);
    HexReader strict(Cat(Hex("01 00"), Hex(bad)), {}, 40);
    EXPECT_TRUE(strict.r.ReadBool());
    EXPECT_FALSE(strict.r.ReadBool());
    EXPECT_FALSE(strict.r.ReadBool());
    ExpectError(strict.r, ErrorKind::kInvalidBool, 42);
    ExpectDrained(strict.r);

    HexReader lenient(Cat(Hex(bad), Hex("00")), {kQuirkAnyNonZeroBool});
    EXPECT_TRUE(lenient.r.ReadBool());
    EXPECT_FALSE(lenient.r.ReadBool());
    EXPECT_TRUE(lenient.r.ok());
    EXPECT_TRUE(lenient.r.AtEnd());
  }
  HexReader text("02");
  text.r.ReadBool();
  EXPECT_EQ(text.r.error().ToString(), "invalid_bool at byte 0 (byte 0x02, expected 0x00 or 0x01)");
}

// ---- Length prefixes: strings, bytes, array counts.

struct LengthCase {
  const char* name;
  std::vector<uint8_t> bytes;  // the prefix, then whatever follows it
  bool compact;
  bool nullable;
  uint32_t quirks;
  int64_t want;        // returned length (-1 null), 0 on failure
  ErrorKind kind;      // kOk, or the failure (always at the prefix's offset)
  size_t prefix_size;  // bytes the prefix occupies when it succeeds
};

enum class LengthKind { kString, kBytes, kArray };

int64_t ReadLength(Reader& r, LengthKind kind, bool compact, bool nullable) {
  switch (kind) {
    case LengthKind::kString:
      return r.ReadStringLength(compact, nullable);
    case LengthKind::kBytes:
      return r.ReadBytesLength(compact, nullable);
    case LengthKind::kArray:
      return r.ReadArrayCount(compact, nullable, 1);
  }
  return -12345;
}

void CheckLengths(LengthKind kind, const std::vector<LengthCase>& cases) {
  for (const LengthCase& c : cases) {
    SCOPED_TRACE(c.name);
    // Preceded by two bytes; base offset 500, so failures are at 502.
    HexReader h(Cat(Hex("ee ee"), c.bytes), {c.quirks}, 500);
    h.r.Skip(2);
    EXPECT_EQ(ReadLength(h.r, kind, c.compact, c.nullable), c.want);
    if (c.kind == ErrorKind::kOk) {
      EXPECT_TRUE(h.r.ok()) << h.r.error().ToString();
      EXPECT_EQ(h.r.offset(), 502 + c.prefix_size);
    } else {
      ExpectError(h.r, c.kind, 502);
      ExpectDrained(h.r);
    }
  }
}

// A compact prefix of wire value `wire` (length + 1), then `body` bytes of filler.
std::vector<uint8_t> CompactPrefix(uint64_t wire, size_t body = 0) {
  std::vector<uint8_t> out = wire_testing::RefLeb128(wire);
  out.resize(out.size() + body, 'x');
  return out;
}

TEST(ReaderLength, ClassicString) {
  constexpr uint32_t kNeg = kQuirkAnyNegativeLengthIsNull;
  constexpr ErrorKind kOk = ErrorKind::kOk;
  CheckLengths(
      LengthKind::kString,
      {
          {"empty", Hex("00 00"), false, false, 0, 0, kOk, 2},
          {"abc", Hex("00 03 61 62 63"), false, false, 0, 3, kOk, 2},
          {"null", Hex("ff ff"), false, true, 0, -1, kOk, 2},
          {"null, not nullable", Hex("ff ff"), false, false, 0, 0, ErrorKind::kUnexpectedNull, 0},
          {"-2", Hex("ff fe"), false, true, 0, 0, ErrorKind::kInvalidLength, 0},
          {"-32768", Hex("80 00"), false, true, 0, 0, ErrorKind::kInvalidLength, 0},
          {"-2 quirk", Hex("ff fe"), false, true, kNeg, -1, kOk, 2},
          {"-32768 quirk", Hex("80 00"), false, true, kNeg, -1, kOk, 2},
          {"-2 quirk, not nullable", Hex("ff fe"), false, false, kNeg, 0, ErrorKind::kInvalidLength,
           0},
          {"-1 quirk, not nullable", Hex("ff ff"), false, false, kNeg, 0,
           ErrorKind::kUnexpectedNull, 0},
          {"past end", Hex("00 04 61 62 63"), false, false, 0, 0, ErrorKind::kTruncated, 0},
          {"32767 fits", Cat(Hex("7f ff"), Repeat('x', 32767)), false, false, 0, 32767, kOk, 2},
          {"32767 short", Cat(Hex("7f ff"), Repeat('x', 32766)), false, false, 0, 0,
           ErrorKind::kTruncated, 0},
          {"truncated prefix", Hex("00"), false, false, 0, 0, ErrorKind::kTruncated, 0},
      });
}

TEST(ReaderLength, CompactString) {
  constexpr ErrorKind kOk = ErrorKind::kOk;
  CheckLengths(
      LengthKind::kString,
      {
          {"empty", Hex("01"), true, false, 0, 0, kOk, 1},
          {"abc", Hex("04 61 62 63"), true, false, 0, 3, kOk, 1},
          {"null", Hex("00"), true, true, 0, -1, kOk, 1},
          {"null, not nullable", Hex("00"), true, false, 0, 0, ErrorKind::kUnexpectedNull, 0},
          {"past end", Hex("05 61 62 63"), true, false, 0, 0, ErrorKind::kTruncated, 0},
          {"127 (2-byte prefix)", CompactPrefix(128, 127), true, false, 0, 127, kOk, 2},
          {"32767 fits", CompactPrefix(32768, 32767), true, false, 0, 32767, kOk, 3},
          {"32768 over the cap", CompactPrefix(32769, 32768), true, true, 0, 0,
           ErrorKind::kInvalidLength, 0},
          {"2^32-2", Hex("ff ff ff ff 0f"), true, true, 0, 0, ErrorKind::kInvalidLength, 0},
          // Java reads the uvarint as an int: 0xffffffff - 1 is -2, null where nullable.
          {"2^32-2 all quirks", Hex("ff ff ff ff 0f"), true, true, kQuirksJava, -1, kOk, 5},
          {"2^32-2 all quirks, not nullable", Hex("ff ff ff ff 0f"), true, false, kQuirksJava, 0,
           ErrorKind::kInvalidLength, 0},
          {"overlong prefix", Hex("80 00"), true, true, 0, 0, ErrorKind::kVarintNonCanonical, 0},
          {"overlong null, quirk", Hex("80 00"), true, true, kQuirkNonCanonicalVarint, -1, kOk, 2},
          {"overlong empty, quirk", Hex("81 00"), true, false, kQuirkNonCanonicalVarint, 0, kOk, 2},
          {"truncated prefix", Hex("80"), true, false, 0, 0, ErrorKind::kTruncated, 0},
      });
}

TEST(ReaderLength, ClassicBytes) {
  constexpr uint32_t kNeg = kQuirkAnyNegativeLengthIsNull;
  constexpr ErrorKind kOk = ErrorKind::kOk;
  CheckLengths(
      LengthKind::kBytes,
      {
          {"empty", Hex("00 00 00 00"), false, false, 0, 0, kOk, 4},
          {"3", Hex("00 00 00 03 01 02 03"), false, false, 0, 3, kOk, 4},
          {"null", Hex("ff ff ff ff"), false, true, 0, -1, kOk, 4},
          {"null, not nullable", Hex("ff ff ff ff"), false, false, 0, 0, ErrorKind::kUnexpectedNull,
           0},
          {"-2", Hex("ff ff ff fe"), false, true, 0, 0, ErrorKind::kInvalidLength, 0},
          {"INT32_MIN", Hex("80 00 00 00"), false, true, 0, 0, ErrorKind::kInvalidLength, 0},
          {"INT32_MIN quirk", Hex("80 00 00 00"), false, true, kNeg, -1, kOk, 4},
          {"INT32_MAX", Hex("7f ff ff ff 00 00"), false, false, 0, 0, ErrorKind::kTruncated, 0},
          {"one past end", Hex("00 00 00 03 01 02"), false, false, 0, 0, ErrorKind::kTruncated, 0},
          {"above 32767 is fine", Cat(Hex("00 00 80 00"), Repeat(0, 32768)), false, false, 0, 32768,
           kOk, 4},
      });
}

TEST(ReaderLength, CompactBytes) {
  constexpr ErrorKind kOk = ErrorKind::kOk;
  CheckLengths(
      LengthKind::kBytes,
      {
          {"empty", Hex("01"), true, false, 0, 0, kOk, 1},
          {"3", Hex("04 01 02 03"), true, false, 0, 3, kOk, 1},
          {"null", Hex("00"), true, true, 0, -1, kOk, 1},
          {"null, not nullable", Hex("00"), true, false, 0, 0, ErrorKind::kUnexpectedNull, 0},
          {"past end", Hex("05 01 02 03"), true, false, 0, 0, ErrorKind::kTruncated, 0},
          // Lengths near the top of the uvarint range: nothing may wrap.
          {"INT32_MAX", CompactPrefix(uint64_t{1} << 31, 3), true, false, 0, 0,
           ErrorKind::kTruncated, 0},
          {"2^31", CompactPrefix((uint64_t{1} << 31) + 1, 3), true, false, 0, 0,
           ErrorKind::kInvalidLength, 0},
          {"2^32-2", Hex("ff ff ff ff 0f 00"), true, true, 0, 0, ErrorKind::kInvalidLength, 0},
          {"2^32-2 all quirks", Hex("ff ff ff ff 0f 00"), true, true, kQuirksJava, -1, kOk, 5},
          {"2^31 all quirks", CompactPrefix((uint64_t{1} << 31) + 1, 3), true, true, kQuirksJava,
           -1, kOk, 5},
          // uvarint 2^31: Java's int is INT32_MIN, minus 1 wraps to INT32_MAX (not null).
          {"INT32_MAX all quirks", CompactPrefix(uint64_t{1} << 31, 3), true, true, kQuirksJava,
           0, ErrorKind::kTruncated, 0},
      });
}

TEST(ReaderLength, ErrorText) {
  HexReader past("00 05 61 62 63");
  past.r.ReadStringLength(false, false);
  EXPECT_EQ(past.r.error().ToString(), "truncated at byte 0 (string of 5 bytes, have 3)");
  HexReader neg("ff fe");
  neg.r.ReadStringLength(false, true);
  EXPECT_EQ(neg.r.error().ToString(),
            "invalid_length at byte 0 (string length -2 (only -1 means null))");
  HexReader cap(CompactPrefix(32769));
  cap.r.ReadStringLength(true, false);
  EXPECT_EQ(cap.r.error().ToString(),
            "invalid_length at byte 0 (string length 32768 exceeds the maximum 32767)");
  HexReader null("ff ff ff ff");
  null.r.ReadBytesLength(false, false);
  EXPECT_EQ(null.r.error().ToString(),
            "unexpected_null at byte 0 (null bytes in a non-nullable field)");
}

// A length check must not form `cursor + length`: place the input at the very top
// of the offset space and ask for lengths that would wrap.
TEST(ReaderLength, NoOverflowNearTopOfOffsets) {
  const std::vector<uint8_t> in = Cat(Hex("7f ff ff ff"), Repeat(0, 8));
  const size_t base = kSizeMax - in.size();
  Reader r(in.data(), in.size(), base);
  EXPECT_EQ(r.ReadBytesLength(false, false), 0);
  ExpectError(r, ErrorKind::kTruncated, base);
}

// ---- Array counts.

TEST(ReaderArrayCount, ClassicAndCompact) {
  constexpr uint32_t kNeg = kQuirkAnyNegativeLengthIsNull;
  constexpr ErrorKind kOk = ErrorKind::kOk;
  CheckLengths(LengthKind::kArray,
               {
                   {"0", Hex("00 00 00 00"), false, false, 0, 0, kOk, 4},
                   {"null", Hex("ff ff ff ff"), false, true, 0, -1, kOk, 4},
                   {"null, not nullable", Hex("ff ff ff ff"), false, false, 0, 0,
                    ErrorKind::kUnexpectedNull, 0},
                   {"-2", Hex("ff ff ff fe"), false, true, 0, 0, ErrorKind::kInvalidLength, 0},
                   {"-2 quirk", Hex("ff ff ff fe"), false, true, kNeg, -1, kOk, 4},
                   {"INT32_MAX, nothing after", Hex("7f ff ff ff"), false, false, 0, 0,
                    ErrorKind::kCountTooLarge, 0},
                   {"INT32_MAX, elements after", Cat(Hex("7f ff ff ff"), Repeat(1, 100)), false,
                    false, 0, 0, ErrorKind::kCountTooLarge, 0},
                   {"3 fits exactly", Hex("00 00 00 03 01 02 03"), false, false, 0, 3, kOk, 4},
                   {"4, 3 bytes left", Hex("00 00 00 04 01 02 03"), false, false, 0, 0,
                    ErrorKind::kCountTooLarge, 0},
                   {"compact 0", Hex("01"), true, false, 0, 0, kOk, 1},
                   {"compact null", Hex("00"), true, true, 0, -1, kOk, 1},
                   {"compact null, not nullable", Hex("00"), true, false, 0, 0,
                    ErrorKind::kUnexpectedNull, 0},
                   {"compact 2 fits", Hex("03 01 02"), true, false, 0, 2, kOk, 1},
                   {"compact INT32_MAX", CompactPrefix(uint64_t{1} << 31, 100), true, false, 0, 0,
                    ErrorKind::kCountTooLarge, 0},
                   // Beyond the int32 cap: kInvalidLength, checked before the bytes left.
                   {"compact 2^32-2", Hex("ff ff ff ff 0f"), true, false, 0, 0,
                    ErrorKind::kInvalidLength, 0},
                   {"compact 2^32-2, elements after", Cat(Hex("ff ff ff ff 0f"), Repeat(1, 100)),
                    true, true, 0, 0, ErrorKind::kInvalidLength, 0},
                   {"compact 2^31", CompactPrefix((uint64_t{1} << 31) + 1, 100), true, false, 0, 0,
                    ErrorKind::kInvalidLength, 0},
                   // Java's int view: -2, null where nullable.
                   {"compact 2^32-2, all quirks", Hex("ff ff ff ff 0f"), true, true, kQuirksJava, -1,
                    kOk, 5},
                   {"compact 2^32-2, all quirks, not nullable", Hex("ff ff ff ff 0f"), true, false,
                    kQuirksJava, 0, ErrorKind::kInvalidLength, 0},
               });
}

TEST(ReaderArrayCount, MinElementSize) {
  const struct {
    int32_t count;
    size_t left;
    size_t min;
    bool ok;
  } kCases[] = {
      {3, 3, 0, true},  // 0 is treated as 1
      {4, 3, 0, false},
      {3, 12, 4, true},
      {4, 15, 4, false},
      {1, 0, 0, false},
      {1, 5, kSizeMax, false},
      // count * min wraps to 0 in 64 bits: must still fail.
      {2, 16, size_t{1} << 63, false},
      {INT32_MAX, 64, size_t{1} << 33, false},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.count << " of >= " << c.min << " in " << c.left);
    std::vector<uint8_t> in = {static_cast<uint8_t>(c.count >> 24),
                               static_cast<uint8_t>(c.count >> 16),
                               static_cast<uint8_t>(c.count >> 8), static_cast<uint8_t>(c.count)};
    in.resize(in.size() + c.left, 0);
    Reader r(in.data(), in.size(), 9);
    const int64_t got = r.ReadArrayCount(false, false, c.min);
    if (c.ok) {
      EXPECT_EQ(got, c.count);
      EXPECT_TRUE(r.ok());
      EXPECT_EQ(r.remaining(), c.left);
    } else {
      EXPECT_EQ(got, 0);
      ExpectError(r, ErrorKind::kCountTooLarge, 9);
    }
  }
  HexReader text("00 00 00 04 01 02 03");
  text.r.ReadArrayCount(false, false, 2);
  EXPECT_EQ(text.r.error().ToString(),
            "count_too_large at byte 0 (array count 4, but 3 bytes left hold at most 1 "
            "element of >= 2 bytes)");
}

TEST(ReaderArrayCount, ReservedBytesAreNotAvailableToTheCount) {
  // 3 elements of >= 2 bytes in 8 bytes left: fits, unless 3 of those bytes are reserved
  // (the enclosing arrays' elements still to come need them).
  for (size_t reserved : {size_t{0}, size_t{2}, size_t{3}, size_t{8}, size_t{9}, kSizeMax}) {
    SCOPED_TRACE(reserved);
    HexReader h("00 00 00 03 00 00 00 00 00 00 00 00", {}, 40);
    const int64_t got = h.r.ReadArrayCount(false, false, 2, reserved);
    if (reserved <= 2) {
      EXPECT_EQ(got, 3);
      EXPECT_TRUE(h.r.ok());
    } else {
      ExpectError(h.r, ErrorKind::kCountTooLarge, 40);
    }
  }
  HexReader text("03 00 00");
  text.r.ReadArrayCount(true, false, 1, 1);
  EXPECT_EQ(text.r.error().ToString(),
            "count_too_large at byte 0 (array count 2, but 1 byte left (1 more is needed "
            "by the enclosing arrays) holds at most 1 element of >= 1 byte)");
}

// Above 2 GiB of input a count can fit the bytes left and still exceed what the
// count type holds. Uses a reserved, never-touched mapping for the tail.
TEST(ReaderArrayCount, HugeInputStillCapsAtInt32Max) {
  constexpr size_t kSize = (size_t{1} << 32) + 64;
  void* p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) GTEST_SKIP() << "cannot reserve 4 GiB of address space";
  uint8_t* data = static_cast<uint8_t*>(p);
  const std::vector<uint8_t> prefix = Hex("ff ff ff ff 0f");  // compact 2^32 - 2
  std::copy(prefix.begin(), prefix.end(), data);
  {
    Reader r(data, kSize);
    EXPECT_EQ(r.ReadArrayCount(true, true, 1), 0);
    ExpectError(r, ErrorKind::kInvalidLength, 0);
  }
  {
    Reader r(data, kSize);
    EXPECT_EQ(r.ReadBytesLength(true, true), 0);
    ExpectError(r, ErrorKind::kInvalidLength, 0);
  }
  munmap(p, kSize);
}

// ---- Struct presence marker.

TEST(ReaderStructPresence, StrictAndQuirk) {
  const struct {
    const char* hex;
    bool nullable;
    uint32_t quirks;
    bool want;
    ErrorKind kind;
  } kCases[] = {
      {"01", false, 0, true, ErrorKind::kOk},
      {"01", true, 0, true, ErrorKind::kOk},
      {"ff", true, 0, false, ErrorKind::kOk},
      {"ff", false, 0, false, ErrorKind::kUnexpectedNull},
      {"00", true, 0, false, ErrorKind::kInvalidValue},
      {"02", true, 0, false, ErrorKind::kInvalidValue},
      {"80", true, 0, false, ErrorKind::kInvalidValue},
      {"7f", false, 0, false, ErrorKind::kInvalidValue},
      {"00", false, kQuirkAnyStructMarker, true, ErrorKind::kOk},
      {"02", false, kQuirkAnyStructMarker, true, ErrorKind::kOk},
      {"7f", false, kQuirkAnyStructMarker, true, ErrorKind::kOk},
      {"80", true, kQuirkAnyStructMarker, false, ErrorKind::kOk},
      {"fe", true, kQuirkAnyStructMarker, false, ErrorKind::kOk},
      {"fe", false, kQuirkAnyStructMarker, false, ErrorKind::kUnexpectedNull},
      {"", true, kQuirksJava, false, ErrorKind::kTruncated},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(::testing::Message()
                 << c.hex << " nullable=" << c.nullable << " quirks=" << c.quirks);
    HexReader h(Cat(Hex("00 00 00"), Hex(c.hex)), {c.quirks}, 7);
    h.r.Skip(3);
    EXPECT_EQ(h.r.ReadStructPresence(c.nullable), c.want);
    if (c.kind == ErrorKind::kOk) {
      EXPECT_TRUE(h.r.ok()) << h.r.error().ToString();
      EXPECT_TRUE(h.r.AtEnd());
    } else {
      ExpectError(h.r, c.kind, 10);
    }
  }
  HexReader text("02");
  text.r.ReadStructPresence(true);
  EXPECT_EQ(text.r.error().ToString(),
            "invalid_value at byte 0 (struct presence marker 2, expected 1 or -1)");
}

// ---- Tagged-field section helpers.

TEST(ReaderTaggedFields, Count) {
  HexReader zero("00");
  EXPECT_EQ(zero.r.ReadTaggedFieldCount(), 0u);
  EXPECT_TRUE(zero.r.ok());

  HexReader fits("02 00 00 01 00");
  EXPECT_EQ(fits.r.ReadTaggedFieldCount(), 2u);
  EXPECT_TRUE(fits.r.ok());
  EXPECT_EQ(fits.r.remaining(), 4u);

  for (const char* hex : {"03 00 00 01 00", "01", "ff ff ff ff 0f 00 00", "80 80 04 00 00"}) {
    SCOPED_TRACE(hex);
    HexReader h(Cat(Hex("aa"), Hex(hex)), {}, 3);
    h.r.Skip(1);
    EXPECT_EQ(h.r.ReadTaggedFieldCount(), 0u);
    ExpectError(h.r, ErrorKind::kCountTooLarge, 4);
    ExpectDrained(h.r);
  }
  HexReader text("03 00 00 01 00");
  text.r.ReadTaggedFieldCount();
  EXPECT_EQ(text.r.error().ToString(),
            "count_too_large at byte 0 (tagged field count 3, but 4 bytes left hold at most 2)");
}

TEST(ReaderTaggedFields, HeadersAscending) {
  // tag 0 size 1 "a", tag 1 size 0, tag 300 size 2 "bc", tag 2^32-1 size 0.
  HexReader h("00 01 61 01 00 ac 02 02 62 63 ff ff ff ff 0f 00");
  uint32_t tag = 0, size = 0;
  int64_t previous = -1;
  const struct {
    uint32_t tag;
    const char* payload;
  } kWant[] = {{0, "a"}, {1, ""}, {300, "bc"}, {UINT32_MAX, ""}};
  for (const auto& want : kWant) {
    ASSERT_TRUE(h.r.ReadTagHeader(previous, &tag, &size)) << h.r.error().ToString();
    EXPECT_EQ(tag, want.tag);
    EXPECT_EQ(h.r.ReadRaw(size), want.payload);
    previous = tag;
  }
  EXPECT_TRUE(h.r.AtEnd());
}

TEST(ReaderTaggedFields, HeaderOrdering) {
  const struct {
    int64_t previous;
    const char* hex;
    uint32_t quirks;
    ErrorKind kind;
  } kCases[] = {
      {-1, "00 00", 0, ErrorKind::kOk},
      {4, "05 00", 0, ErrorKind::kOk},
      {5, "05 00", 0, ErrorKind::kTagDuplicate},
      {6, "05 00", 0, ErrorKind::kTagOutOfOrder},
      {300, "00 00", 0, ErrorKind::kTagOutOfOrder},
      {300, "ac 02 00", 0, ErrorKind::kTagDuplicate},
      {5, "05 00", kQuirkUnorderedTags, ErrorKind::kOk},
      {6, "05 00", kQuirkUnorderedTags, ErrorKind::kOk},
      {-1, "00 02 61", 0, ErrorKind::kTruncated},  // size > remaining
      {-1, "00 ff ff ff ff 0f", 0, ErrorKind::kTruncated},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.previous << " then " << c.hex);
    HexReader h(Cat(Hex("aa aa"), Hex(c.hex)), {c.quirks}, 20);
    h.r.Skip(2);
    uint32_t tag = 99, size = 99;
    const bool ok = h.r.ReadTagHeader(c.previous, &tag, &size);
    EXPECT_EQ(ok, c.kind == ErrorKind::kOk);
    if (ok) {
      EXPECT_TRUE(h.r.ok());
      EXPECT_EQ(h.r.remaining(), size);
    } else {
      ExpectError(h.r, c.kind, 22);
      EXPECT_EQ(tag, 0u);  // a rejected header yields zeros
      EXPECT_EQ(size, 0u);
    }
  }
  // kQuirkKnownTagSizeIgnored (Java reads a known tag by its type): the header reads
  // whatever its size; the walker checks it with CheckTagSize only for an unknown tag.
  for (uint32_t quirks : {uint32_t{kQuirkKnownTagSizeIgnored}, kQuirksJava}) {
    HexReader h(Cat(Hex("aa aa"), Hex("00 03 61")), {quirks}, 20);
    h.r.Skip(2);
    uint32_t tag = 99, size = 99;
    ASSERT_TRUE(h.r.ReadTagHeader(-1, &tag, &size)) << h.r.error().ToString();
    EXPECT_EQ(tag, 0u);
    EXPECT_EQ(size, 3u);
    EXPECT_EQ(h.r.remaining(), 1u);
    EXPECT_TRUE(h.r.CheckTagSize(22, tag, 1));
    EXPECT_FALSE(h.r.CheckTagSize(22, tag, size));
    ExpectError(h.r, ErrorKind::kTruncated, 22);
  }
  HexReader dup("05 00");
  uint32_t tag, size;
  dup.r.ReadTagHeader(5, &tag, &size);
  EXPECT_EQ(dup.r.error().ToString(), "tag_duplicate at byte 0 (tag 5 after tag 5)");
}

// ---- Limits.

TEST(ReaderLimit, ReadsStopAtLimitAndPopRestores) {
  HexReader h("00 00 00 01 00 02 03 04 05 06", {}, 100);
  const size_t outer = h.r.PushLimit(6);
  EXPECT_EQ(h.r.remaining(), 6u);
  EXPECT_EQ(h.r.ReadInt32(), 1);
  const size_t inner = h.r.PushLimit(1);
  EXPECT_EQ(h.r.remaining(), 1u);
  EXPECT_EQ(h.r.ReadUint8(), 0);
  EXPECT_TRUE(h.r.AtEnd());
  h.r.PopLimit(inner);
  EXPECT_EQ(h.r.remaining(), 1u);
  EXPECT_EQ(h.r.ReadUint8(), 2);
  EXPECT_TRUE(h.r.AtEnd());
  h.r.PopLimit(outer);
  EXPECT_EQ(h.r.remaining(), 4u);
  EXPECT_EQ(h.r.ReadInt32(), 0x03040506);
  EXPECT_TRUE(h.r.ok());
  EXPECT_TRUE(h.r.AtEnd());
}

TEST(ReaderLimit, PopWithoutConsumingEverything) {
  HexReader h("01 02 03 04 05");
  const size_t token = h.r.PushLimit(3);
  EXPECT_EQ(h.r.ReadUint8(), 1);
  h.r.PopLimit(token);
  EXPECT_EQ(h.r.remaining(), 4u);
  EXPECT_EQ(h.r.ReadUint8(), 2);
  const size_t empty = h.r.PushLimit(0);
  EXPECT_TRUE(h.r.AtEnd());
  h.r.PopLimit(empty);
  EXPECT_EQ(h.r.remaining(), 3u);
  EXPECT_TRUE(h.r.ok());
}

TEST(ReaderLimit, CrossingTheLimitTruncates) {
  HexReader h("00 00 00 01 00 02 03 04", {}, 100);
  h.r.PushLimit(4);
  EXPECT_EQ(h.r.ReadInt16(), 0);
  EXPECT_EQ(h.r.ReadInt32(), 0);  // 2 bytes left in the limit, 6 in the input
  ExpectError(h.r, ErrorKind::kTruncated, 102);
  EXPECT_EQ(h.r.error().ToString(), "truncated at byte 102 (need 4, have 2)");
}

TEST(ReaderLimit, FailureInsideLimitStaysDrainedAfterPop) {
  HexReader h("00 00 00 01 00 02 03 04 05 06");
  const size_t outer = h.r.PushLimit(8);
  const size_t inner = h.r.PushLimit(3);
  EXPECT_EQ(h.r.ReadInt32(), 0);
  ExpectError(h.r, ErrorKind::kTruncated, 0);
  h.r.PopLimit(inner);
  EXPECT_EQ(h.r.remaining(), 0u);
  h.r.PopLimit(outer);
  EXPECT_EQ(h.r.remaining(), 0u);
  ExpectDrained(h.r);
}

TEST(ReaderLimit, LimitBeyondRemainingTruncates) {
  for (size_t n : {size_t{5}, size_t{1} << 40, kSizeMax}) {
    SCOPED_TRACE(n);
    HexReader h("01 02 03 04 05", {}, 30);
    h.r.Skip(1);
    const size_t token = h.r.PushLimit(n);
    ExpectError(h.r, ErrorKind::kTruncated, 31);
    h.r.PopLimit(token);
    ExpectDrained(h.r);
  }
  HexReader text("01 02");
  text.r.PushLimit(3);
  EXPECT_EQ(text.r.error().ToString(), "truncated at byte 0 (need 3, have 2)");
}

TEST(ReaderTagLimit, ReadingPastTheDeclaredSizeIsATagSizeMismatch) {
  // A tag header at byte 20 declaring 2 bytes, whose int32 value needs 4 that exist.
  HexReader h("00 00 00 07 ff", {}, 20);
  const Reader::TagLimit limit = h.r.PushTagLimit(2, 20);
  EXPECT_EQ(h.r.ReadInt32(), 0);
  ExpectError(h.r, ErrorKind::kTagSizeMismatch, 20);
  EXPECT_EQ(h.r.error().ToString(),
            "tag_size_mismatch at byte 20 (value runs past its declared size at byte 20: "
            "need 4, have 2)");
  h.r.PopTagLimit(limit);
  ExpectDrained(h.r);

  // Nested: the innermost tag is blamed; after popping it, the outer one again; after
  // popping both, a truncation is a truncation.
  HexReader n("01 02 03 04 05", {}, 30);
  const Reader::TagLimit outer = n.r.PushTagLimit(4, 30);
  const Reader::TagLimit inner = n.r.PushTagLimit(1, 31);
  n.r.PopTagLimit(inner);
  n.r.PopTagLimit(outer);
  n.r.Skip(5);
  n.r.ReadInt8();
  ExpectError(n.r, ErrorKind::kTruncated, 35);

  HexReader in("01 02 03 04 05", {}, 30);
  const Reader::TagLimit o = in.r.PushTagLimit(4, 30);
  const Reader::TagLimit i = in.r.PushTagLimit(1, 31);
  in.r.ReadInt16();
  ExpectError(in.r, ErrorKind::kTagSizeMismatch, 31);
  in.r.PopTagLimit(i);
  in.r.PopTagLimit(o);
  ExpectDrained(in.r);

  // A declared size beyond the bytes left is a plain truncation, blamed on no tag.
  HexReader big("01 02", {}, 50);
  big.r.PushTagLimit(3, 50);
  ExpectError(big.r, ErrorKind::kTruncated, 50);
}

// ---- Truncation at every offset of every primitive.

struct PrimitiveCase {
  const char* name;
  std::vector<uint8_t> encoding;             // one complete, valid value
  std::function<std::string(Reader&)> read;  // reads exactly that value, rendered
  std::string want;                          // rendering of the complete value
  std::string zero = "0";                    // rendering of the zero value on failure
  // Where a cut after `prefix` bytes is reported, relative to the value (default: the
  // value's first byte).
  std::function<size_t(size_t prefix)> error_at = [](size_t) { return 0; };
};

void PrintTo(const PrimitiveCase& c, std::ostream* os) { *os << c.name; }

template <typename T>
std::string Str(T v) {
  return std::to_string(v);
}

std::vector<PrimitiveCase> AllPrimitives() {
  // A length-prefixed value renders as "<length>:<body>".
  auto string_read = [](bool compact, bool nullable) {
    return [=](Reader& r) {
      const int64_t n = r.ReadStringLength(compact, nullable);
      return Str(n) + ":" + std::string(r.ReadRaw(n > 0 ? static_cast<size_t>(n) : 0));
    };
  };
  auto bytes_read = [](bool compact) {
    return [=](Reader& r) {
      const int64_t n = r.ReadBytesLength(compact, true);
      return Str(n) + ":" + std::string(r.ReadRaw(n > 0 ? static_cast<size_t>(n) : 0));
    };
  };
  return {
      {"int8", Hex("80"), [](Reader& r) { return Str(r.ReadInt8()); }, "-128"},
      {"uint8", Hex("ff"), [](Reader& r) { return Str(r.ReadUint8()); }, "255"},
      {"bool", Hex("01"), [](Reader& r) { return Str(r.ReadBool()); }, "1"},
      {"int16", Hex("80 01"), [](Reader& r) { return Str(r.ReadInt16()); }, "-32767"},
      {"uint16", Hex("ff fe"), [](Reader& r) { return Str(r.ReadUint16()); }, "65534"},
      {"int32", Hex("80 00 00 01"), [](Reader& r) { return Str(r.ReadInt32()); }, "-2147483647"},
      {"uint32", Hex("ff ff ff fe"), [](Reader& r) { return Str(r.ReadUint32()); }, "4294967294"},
      {"int64", Hex("80 00 00 00 00 00 00 01"), [](Reader& r) { return Str(r.ReadInt64()); },
       "-9223372036854775807"},
      {"float64", Hex("7f f0 00 00 00 00 00 01"),
       [](Reader& r) { return Str(std::bit_cast<uint64_t>(r.ReadFloat64())); },
       Str(uint64_t{0x7ff0000000000001})},
      {"uuid", Hex("00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"),
       [](Reader& r) { return ToHex(r.ReadUuid().bytes); },
       "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f", ToHex(Uuid{}.bytes)},
      {"uvarint", Hex("ff ff ff ff 0f"), [](Reader& r) { return Str(r.ReadUvarint()); },
       "4294967295"},
      {"varint", Hex("fe ff ff ff 0f"), [](Reader& r) { return Str(r.ReadVarint()); },
       "2147483647"},
      {"varlong", Hex("ff ff ff ff ff ff ff ff ff 01"),
       [](Reader& r) { return Str(r.ReadVarlong()); }, "-9223372036854775808"},
      {"raw", Hex("61 62 63 64 65 66"), [](Reader& r) { return std::string(r.ReadRaw(6)); },
       "abcdef", ""},
      {"string", Hex("00 03 61 62 63"), string_read(false, false), "3:abc", "0:"},
      {"compact string", CompactPrefix(131, 130), string_read(true, false),
       "130:" + std::string(130, 'x'), "0:"},
      {"null string", Hex("ff ff"), string_read(false, true), "-1:", "0:"},
      {"bytes", Hex("00 00 00 02 41 42"), bytes_read(false), "2:AB", "0:"},
      {"compact bytes", Hex("03 41 42"), bytes_read(true), "2:AB", "0:"},
      {"array count", Hex("00 00 00 00"),
       [](Reader& r) { return Str(r.ReadArrayCount(false, false, 0)); }, "0"},
      {"compact array count", Hex("00"),
       [](Reader& r) { return Str(r.ReadArrayCount(true, true, 1)); }, "-1"},
      {"struct presence", Hex("01"), [](Reader& r) { return Str(r.ReadStructPresence(false)); },
       "1"},
      {"tagged field count", Hex("00"), [](Reader& r) { return Str(r.ReadTaggedFieldCount()); },
       "0"},
      // tag 300 (2 bytes), size 3, payload. A cut inside the size uvarint is reported at
      // the size; a short payload at the header.
      {"tag header", Hex("ac 02 03 78 79 7a"),
       [](Reader& r) {
         uint32_t tag = 99, size = 99;
         const bool ok = r.ReadTagHeader(-1, &tag, &size);
         return Str(ok) + ":" + Str(tag) + ":" + Str(size) + ":" + std::string(r.ReadRaw(size));
       },
       "1:300:3:xyz", "0:0:0:", [](size_t prefix) -> size_t { return prefix == 2 ? 2 : 0; }},
  };
}

class ReaderTruncation : public ::testing::TestWithParam<PrimitiveCase> {};

TEST_P(ReaderTruncation, EveryPrefixFailsAtValueStart) {
  const PrimitiveCase& c = GetParam();
  constexpr size_t kBase = 1000;
  const std::vector<uint8_t> pad = Hex("5a 5a 5a");
  for (size_t prefix = 0; prefix < c.encoding.size(); ++prefix) {
    SCOPED_TRACE(::testing::Message() << "prefix " << prefix);
    const std::vector<uint8_t> in = Cat(pad, std::span<const uint8_t>(c.encoding.data(), prefix));
    Reader r(in.data(), in.size(), kBase);
    r.Skip(pad.size());
    EXPECT_EQ(c.read(r), c.zero);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kTruncated) << r.error().ToString();
    EXPECT_EQ(r.error().offset, kBase + pad.size() + c.error_at(prefix));
    EXPECT_FALSE(r.error().detail.empty());
    ExpectDrained(r);
  }
  // Complete, with a byte after it: reads exactly the value.
  const std::vector<uint8_t> in = Cat(Cat(pad, c.encoding), Hex("a5"));
  Reader r(in.data(), in.size(), kBase);
  r.Skip(pad.size());
  EXPECT_EQ(c.read(r), c.want);
  EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r.offset(), kBase + pad.size() + c.encoding.size());
  EXPECT_EQ(r.ReadUint8(), 0xa5);
}

INSTANTIATE_TEST_SUITE_P(AllPrimitives, ReaderTruncation, ::testing::ValuesIn(AllPrimitives()),
                         [](const ::testing::TestParamInfo<PrimitiveCase>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             if (ch == ' ') ch = '_';
                           }
                           return name;
                         });

// ---- Errors, paths, stickiness.

TEST(ReaderError, TruncatedText) {
  HexReader h("00 00 01 02 09");
  EXPECT_EQ(h.r.ReadInt32(), 258);
  EXPECT_EQ(h.r.ReadInt32(), 0);
  EXPECT_EQ(h.r.error().ToString(), "truncated at byte 4 (need 4, have 1)");
  const absl::Status s = h.r.error().ToStatus();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "truncated at byte 4 (need 4, have 1)");
  EXPECT_EQ(ErrorFromStatus(s), h.r.error());  // and the Error itself as its payload
}

TEST(ReaderError, TextWithPath) {
  std::vector<uint8_t> in(20, 0);
  Reader r(in.data(), in.size());
  const PathNode root{nullptr, "FetchRequest"};
  const PathNode topics{&root, "Topics", 0};
  const PathNode partitions{&topics, "Partitions", 2};
  const PathNode offset{&partitions, "FetchOffset"};
  r.set_path(&partitions);
  r.Skip(17);
  r.set_path(&offset);
  EXPECT_EQ(r.path(), &offset);
  EXPECT_EQ(r.ReadInt64(), 0);
  EXPECT_EQ(r.error().path, "FetchRequest.Topics[0].Partitions[2].FetchOffset");
  EXPECT_EQ(r.error().detail, "need 8, have 3");
  EXPECT_EQ(r.error().ToString(),
            "truncated at byte 17 in FetchRequest.Topics[0].Partitions[2].FetchOffset "
            "(need 8, have 3)");
}

TEST(ReaderError, FirstFailureIsSticky) {
  HexReader h("00 00 02 00", {}, 10);
  const PathNode first{nullptr, "First"};
  const PathNode second{nullptr, "Second"};
  h.r.set_path(&first);
  EXPECT_EQ(h.r.ReadInt16(), 0);
  EXPECT_FALSE(h.r.ReadBool());  // 0x02 at 12
  ExpectError(h.r, ErrorKind::kInvalidBool, 12);
  h.r.set_path(&second);
  h.r.Fail(ErrorKind::kInvalidValue, 11, "later");
  h.r.Fail(ErrorKind::kCrcMismatch);
  EXPECT_EQ(h.r.ReadInt64(), 0);  // would be kTruncated
  EXPECT_EQ(h.r.error().kind, ErrorKind::kInvalidBool);
  EXPECT_EQ(h.r.error().offset, 12u);
  EXPECT_EQ(h.r.error().path, "First");
  EXPECT_EQ(h.r.error().detail, "byte 0x02, expected 0x00 or 0x01");
  ExpectDrained(h.r);
}

TEST(ReaderError, ExplicitFail) {
  HexReader h("00 01 02 03", {}, 64);
  h.r.Skip(1);
  h.r.Fail(ErrorKind::kTrailingBytes, "3 bytes after the body");
  ExpectError(h.r, ErrorKind::kTrailingBytes, 65);
  EXPECT_EQ(h.r.error().ToString(), "trailing_bytes at byte 65 (3 bytes after the body)");
  HexReader at("00 01 02 03");
  at.r.Fail(ErrorKind::kCrcMismatch, 2);
  ExpectError(at.r, ErrorKind::kCrcMismatch, 2);
  EXPECT_EQ(at.r.error().ToString(), "crc_mismatch at byte 2");
  EXPECT_EQ(at.r.error().ToStatus().code(), absl::StatusCode::kDataLoss);
}

TEST(ReaderError, StatusCodes) {
  EXPECT_TRUE(Error{}.ok());
  EXPECT_EQ(Error{}.ToString(), "ok");
  EXPECT_TRUE(Error{}.ToStatus().ok());
  using absl::StatusCode;
  const struct {
    ErrorKind kind;
    StatusCode code;
  } kCases[] = {
      {ErrorKind::kOk, StatusCode::kOk},
      {ErrorKind::kTruncated, StatusCode::kInvalidArgument},
      {ErrorKind::kVarintTooLong, StatusCode::kInvalidArgument},
      {ErrorKind::kVarintOverflow, StatusCode::kInvalidArgument},
      {ErrorKind::kVarintNonCanonical, StatusCode::kInvalidArgument},
      {ErrorKind::kInvalidBool, StatusCode::kInvalidArgument},
      {ErrorKind::kInvalidUtf8, StatusCode::kInvalidArgument},
      {ErrorKind::kInvalidLength, StatusCode::kInvalidArgument},
      {ErrorKind::kUnexpectedNull, StatusCode::kInvalidArgument},
      {ErrorKind::kCountTooLarge, StatusCode::kInvalidArgument},
      {ErrorKind::kTagOutOfOrder, StatusCode::kInvalidArgument},
      {ErrorKind::kTagDuplicate, StatusCode::kInvalidArgument},
      {ErrorKind::kTagSizeMismatch, StatusCode::kInvalidArgument},
      {ErrorKind::kInvalidValue, StatusCode::kInvalidArgument},
      {ErrorKind::kTrailingBytes, StatusCode::kInvalidArgument},
      {ErrorKind::kUnknownApiKey, StatusCode::kUnimplemented},
      {ErrorKind::kUnsupportedVersion, StatusCode::kUnimplemented},
      {ErrorKind::kInvalidFrameSize, StatusCode::kInvalidArgument},
      {ErrorKind::kFrameTooLarge, StatusCode::kResourceExhausted},
      {ErrorKind::kStringTooLong, StatusCode::kFailedPrecondition},
      {ErrorKind::kNonDefaultField, StatusCode::kFailedPrecondition},
      {ErrorKind::kNullNotAllowed, StatusCode::kFailedPrecondition},
      {ErrorKind::kCorruptRecords, StatusCode::kInvalidArgument},
      {ErrorKind::kCrcMismatch, StatusCode::kDataLoss},
      {ErrorKind::kCompressionError, StatusCode::kInvalidArgument},
      {ErrorKind::kRecordsNotAllowed, StatusCode::kInvalidArgument},
      {ErrorKind::kAllocationBudget, StatusCode::kResourceExhausted},
  };
  std::set<std::string> names;
  for (const auto& c : kCases) {
    SCOPED_TRACE(ErrorKindName(c.kind));
    EXPECT_EQ(ErrorKindStatusCode(c.kind), c.code);
    names.insert(ErrorKindName(c.kind));
    if (c.kind == ErrorKind::kOk) continue;
    const Error e{c.kind, 5, "A.B", "d"};
    const absl::Status s = e.ToStatus();
    EXPECT_EQ(s.code(), c.code);
    EXPECT_EQ(s.message(), std::string(ErrorKindName(c.kind)) + " at byte 5 in A.B (d)");
  }
  EXPECT_EQ(names.size(), std::size(kCases)) << "ErrorKindName must be distinct";
  EXPECT_STREQ(ErrorKindName(static_cast<ErrorKind>(200)), "unknown_error");
}

TEST(ReaderError, TextWithoutPathOrDetail) {
  EXPECT_EQ((Error{ErrorKind::kInvalidValue, 3, "", ""}).ToString(), "invalid_value at byte 3");
  EXPECT_EQ((Error{ErrorKind::kInvalidValue, 3, "X.Y", ""}).ToString(),
            "invalid_value at byte 3 in X.Y");
  EXPECT_EQ((Error{ErrorKind::kFrameTooLarge, 0, "", "2000000000 > 104857600"}).ToString(),
            "frame_too_large at byte 0 (2000000000 > 104857600)");
}

TEST(RenderPath, Formats) {
  EXPECT_EQ(RenderPath(nullptr), "");
  const PathNode root{nullptr, "Produce"};
  EXPECT_EQ(RenderPath(&root), "Produce");
  const PathNode topics{&root, "TopicData", 1};
  EXPECT_EQ(RenderPath(&topics), "Produce.TopicData[1]");
  const PathNode name{&topics, "Name"};
  EXPECT_EQ(RenderPath(&name), "Produce.TopicData[1].Name");
  // Index-only nodes (nested arrays) attach to their parent; 0 is an index, -1 is not.
  const PathNode inner{&topics, nullptr, 0};
  const PathNode innermost{&inner, "", 7};
  EXPECT_EQ(RenderPath(&innermost), "Produce.TopicData[1][0][7]");
  const PathNode leaf{&innermost, "X"};
  EXPECT_EQ(RenderPath(&leaf), "Produce.TopicData[1][0][7].X");
  const PathNode anonymous_root{nullptr, nullptr, 3};
  const PathNode child{&anonymous_root, "F"};
  EXPECT_EQ(RenderPath(&child), "[3].F");
  const PathNode big{&root, "A", INT64_MAX};
  EXPECT_EQ(RenderPath(&big), "Produce.A[9223372036854775807]");
  const PathNode empty_root{nullptr, ""};
  const PathNode after_empty{&empty_root, "B"};
  EXPECT_EQ(RenderPath(&after_empty), "B");
}

TEST(ReaderError, BaseOffsetAndQuirkAccessors) {
  HexReader h("01 02", {kQuirkAnyNonZeroBool | kQuirkUnorderedTags}, 4096);
  EXPECT_EQ(h.r.offset(), 4096u);
  EXPECT_EQ(h.r.quirks(), kQuirkAnyNonZeroBool | kQuirkUnorderedTags);
  EXPECT_TRUE(h.r.has_quirk(kQuirkUnorderedTags));
  EXPECT_FALSE(h.r.has_quirk(kQuirkVarintExtraBits));
  EXPECT_EQ(h.r.ReadInt16(), 0x0102);
  EXPECT_EQ(h.r.offset(), 4098u);
  EXPECT_EQ(h.r.ReadInt8(), 0);
  ExpectError(h.r, ErrorKind::kTruncated, 4098);

  // An empty input, including a null data pointer.
  Reader empty(nullptr, 0, 12);
  EXPECT_TRUE(empty.AtEnd());
  EXPECT_EQ(empty.ReadRaw(0), "");
  EXPECT_TRUE(empty.ok());
  EXPECT_EQ(empty.ReadUvarint(), 0u);
  ExpectError(empty, ErrorKind::kTruncated, 12);
  EXPECT_EQ(empty.error().ToString(), "truncated at byte 12 (uvarint: need 1, have 0)");
}

}  // namespace
}  // namespace kwire

namespace kwire {
namespace {

// The allocation budget (DecodeOptions::max_alloc_bytes): Charge takes what fits, and
// the first charge that does not fit fails at the offset it names, taking nothing.
TEST(ReaderBudget, ChargesUntilTheBudgetIsSpentThenFailsAtTheGivenOffset) {
  const std::vector<uint8_t> bytes(8, 0);
  DecodeOptions o;
  o.max_alloc_bytes = 100;
  Reader r(bytes.data(), bytes.size(), 1000, o);
  EXPECT_EQ(r.alloc_budget_left(), 100u);
  EXPECT_TRUE(r.Charge(0, 1000));
  EXPECT_TRUE(r.Charge(60, 1000));
  EXPECT_EQ(r.alloc_budget_left(), 40u);
  EXPECT_TRUE(r.Charge(40, 1001));  // exactly what is left
  EXPECT_EQ(r.alloc_budget_left(), 0u);
  EXPECT_TRUE(r.ok());
  r.ReadInt16();
  EXPECT_FALSE(r.Charge(1, 1002));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kAllocationBudget);
  EXPECT_EQ(r.error().offset, 1002u);
  EXPECT_EQ(r.error().detail,
            "needs 1 byte of memory, 0 of the allocation budget of 100 bytes are left "
            "(DecodeOptions::max_alloc_bytes)");
  EXPECT_EQ(r.error().ToStatus().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(r.remaining(), 0u);  // drained like every failure
}

TEST(ReaderBudget, AFailedChargeTakesNothingAndLaterChargesFail) {
  const std::vector<uint8_t> bytes(4, 0);
  DecodeOptions o;
  o.max_alloc_bytes = 10;
  Reader r(bytes.data(), bytes.size(), 0, o);
  EXPECT_FALSE(r.Charge(11, 3));
  EXPECT_EQ(r.alloc_budget_left(), 10u);
  EXPECT_EQ(r.error().offset, 3u);
  EXPECT_FALSE(r.Charge(1, 0));  // after a failure nothing is charged
  EXPECT_EQ(r.alloc_budget_left(), 10u);
  EXPECT_EQ(r.error().offset, 3u);  // the first failure stays
}

TEST(ReaderBudget, DefaultIs128MiBAnEarlierFailureStaysSizeMaxIsUnlimited) {
  EXPECT_EQ(DecodeOptions{}.max_alloc_bytes, size_t{128} << 20);
  EXPECT_EQ(kDefaultMaxAllocBytes, size_t{134217728});
  const std::vector<uint8_t> bytes(1, 0);
  Reader r(bytes.data(), bytes.size());
  r.ReadInt32();  // truncated
  EXPECT_FALSE(r.Charge(1, 0));
  EXPECT_EQ(r.error().kind, ErrorKind::kTruncated);
  DecodeOptions off;
  off.max_alloc_bytes = SIZE_MAX;
  Reader unlimited(bytes.data(), bytes.size(), 0, off);
  EXPECT_TRUE(unlimited.Charge(SIZE_MAX / 2, 0));
  EXPECT_TRUE(unlimited.Charge(SIZE_MAX / 2, 0));
  EXPECT_TRUE(unlimited.ok());
}

}  // namespace
}  // namespace kwire
