#include "codec/wire/byte_diff.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "codec/wire/hex.h"

namespace kwire {
namespace {

std::vector<uint8_t> B(std::string_view hex) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(ParseHex(hex, out)) << hex;
  return out;
}

TEST(FirstDifference, IndexOrTheShorterSize) {
  EXPECT_EQ(FirstDifference(B("0102"), B("0102")), 2u);
  EXPECT_EQ(FirstDifference(B("0102"), B("0103")), 1u);
  EXPECT_EQ(FirstDifference(B("0102"), B("010203")), 2u);
  EXPECT_EQ(FirstDifference(B(""), B("01")), 0u);
}

TEST(DescribeFrameDifference, SameSizeNamesTheByte) {
  EXPECT_EQ(DescribeFrameDifference(B("00000002aabb"), B("00000002aabb")), "");
  EXPECT_EQ(DescribeFrameDifference(B("00000002aabb"), B("00000002aacc"), "answered"),
            "first difference at byte 5 (expected bb, answered cc)");
}

// A length change always changes the size prefix (byte 3 here); the cause is after it.
TEST(DescribeFrameDifference, OtherSizeLooksPastThePrefix) {
  EXPECT_EQ(DescribeFrameDifference(B("00000003aabbcc"), B("00000002aacc"), "re-encoded"),
            "7 bytes expected, 6 re-encoded: the size prefix differs; after it, first "
            "difference at byte 5 (expected bb, re-encoded cc)");
  EXPECT_EQ(DescribeFrameDifference(B("00000003aabbcc"), B("00000002aabb"), "answered"),
            "7 bytes expected, 6 answered: the size prefix differs; after it, the bytes agree "
            "until byte 6, where the answered frame ends");
  EXPECT_EQ(DescribeFrameDifference(B("00000002aabb"), B("00000003aabbcc")),
            "6 bytes expected, 7 actual: the size prefix differs; after it, the bytes agree until "
            "byte 6, where the expected frame ends");
  // Same prefix, other length (a frame that is not self-consistent): no prefix sentence.
  EXPECT_EQ(DescribeFrameDifference(B("00000002aabb"), B("00000002aa")),
            "6 bytes expected, 5 actual; the bytes agree until byte 5, where the actual frame "
            "ends");
  // Shorter than a prefix.
  EXPECT_EQ(DescribeFrameDifference(B("00000002aabb"), B("0000")),
            "6 bytes expected, 2 actual; the bytes agree until byte 2, where the actual frame "
            "ends");
}

}  // namespace
}  // namespace kwire
