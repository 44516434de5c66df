#include "codec/wire/hex.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kwire {
namespace {

TEST(Hex, LowercaseTwoDigitsAByte) {
  EXPECT_EQ(HexString(std::string_view("\x00\x0a\xff", 3)), "000aff");
  EXPECT_EQ(HexString(std::vector<uint8_t>{0x12, 0xab}), "12ab");
  EXPECT_EQ(HexString(std::vector<uint8_t>{0x12, 0xab, 0x01}, " "), "12 ab 01");
  EXPECT_EQ(HexString(std::string_view()), "");
  EXPECT_EQ(HexString(std::string_view("A"), " "), "41");
}

TEST(Hex, ParsesEitherCaseStrictly) {
  std::vector<uint8_t> v;
  ASSERT_TRUE(ParseHex("00aBfF", v));
  EXPECT_EQ(v, (std::vector<uint8_t>{0x00, 0xab, 0xff}));
  std::string s;
  ASSERT_TRUE(ParseHex("4142", s));
  EXPECT_EQ(s, "AB");
  ASSERT_TRUE(ParseHex("", s));
  EXPECT_EQ(s, "");
  // Odd length, a non-digit, a separator: false, `out` unchanged.
  v = {7};
  EXPECT_FALSE(ParseHex("abc", v));
  EXPECT_FALSE(ParseHex("0g", v));
  EXPECT_FALSE(ParseHex("00 11", v));
  EXPECT_EQ(v, std::vector<uint8_t>{7});
}

}  // namespace
}  // namespace kwire
