// The fast varint tails (varint_decode.h) against the byte-at-a-time strict decoder:
// for every input they either agree exactly (value and length) or decline (return 0),
// and they decline exactly the inputs the strict decoder rejects. Bytes after the
// encoding never change the result.
#include "codec/wire/varint_decode.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "codec/wire/test_util.h"

namespace kwire::varint_internal {
namespace {

using wire_testing::RefLeb128;

// Checks one input (first byte ≥ 0x80; at least 16 bytes, the tail is garbage).
void Check32(const std::array<uint8_t, 16>& in) {
  ASSERT_GE(in[0], 0x80);
  const Leb128Result ref = DecodeLeb128(in.data(), in.data() + in.size(), 5, 4, false, false);
  uint32_t v = 0xdeadbeef;
  const size_t n = DecodeUvarint32Tail(in.data(), &v);
  if (ref.status == Leb128Status::kOk) {
    ASSERT_EQ(n, ref.length);
    ASSERT_EQ(v, ref.value);
  } else {
    ASSERT_EQ(n, 0u) << "status " << static_cast<int>(ref.status);
    ASSERT_EQ(v, 0xdeadbeef);
  }
}

void Check64(const std::array<uint8_t, 16>& in) {
  ASSERT_GE(in[0], 0x80);
  const Leb128Result ref = DecodeLeb128(in.data(), in.data() + in.size(), 10, 1, false, false);
  uint64_t v = 0xdeadbeef;
  const size_t n = DecodeUvarint64Tail(in.data(), &v);
  if (ref.status == Leb128Status::kOk) {
    ASSERT_EQ(n, ref.length);
    ASSERT_EQ(v, ref.value);
  } else {
    ASSERT_EQ(n, 0u) << "status " << static_cast<int>(ref.status);
    ASSERT_EQ(v, 0xdeadbeefu);
  }
}

// Random bytes shaped like varints: each byte has its continuation bit with probability
// 3/4 (so every length and the too-long case occur), and its payload is often 0, 1 or
// all ones (so overlong and overflow encodings occur).
std::array<uint8_t, 16> RandomInput(std::mt19937_64& rng) {
  std::array<uint8_t, 16> in{};
  for (auto& b : in) {
    const uint64_t r = rng();
    uint8_t payload = static_cast<uint8_t>(r & 0x7f);
    switch ((r >> 8) % 5) {
      case 0: payload = 0; break;
      case 1: payload = 1; break;
      case 2: payload = 0x7f; break;
      default: break;
    }
    b = static_cast<uint8_t>(payload | (((r >> 16) % 4 != 0) ? 0x80 : 0));
  }
  in[0] |= 0x80;
  return in;
}

TEST(VarintDecodeTail, RandomInputsMatchStrictDecoder) {
  std::mt19937_64 rng(0x7461696c);
  for (int i = 0; i < 2000000; ++i) {
    const std::array<uint8_t, 16> in = RandomInput(rng);
    Check32(in);
    Check64(in);
    if (HasFatalFailure()) return;
  }
}

TEST(VarintDecodeTail, EveryTwoAndThreeBytePrefix) {
  // All first/second bytes, with third bytes covering terminator, zero and continuation.
  for (int b0 = 0x80; b0 <= 0xff; ++b0) {
    for (int b1 = 0; b1 <= 0xff; ++b1) {
      for (int b2 : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
        std::array<uint8_t, 16> in{};
        in.fill(0xaa);
        in[0] = static_cast<uint8_t>(b0);
        in[1] = static_cast<uint8_t>(b1);
        in[2] = static_cast<uint8_t>(b2);
        Check32(in);
        Check64(in);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(VarintDecodeTail, LastByteOfLongestEncodings) {
  // Byte 5 of a uvarint and byte 10 of a varlong: every value of the final byte.
  for (int last = 0; last <= 0xff; ++last) {
    for (uint8_t fill : {uint8_t{0x80}, uint8_t{0xff}}) {
      std::array<uint8_t, 16> in{};
      in.fill(0x55);
      for (int i = 0; i < 4; ++i) in[i] = fill;
      in[4] = static_cast<uint8_t>(last);
      Check32(in);
      for (int i = 0; i < 9; ++i) in[i] = fill;
      in[9] = static_cast<uint8_t>(last);
      Check64(in);
      // 9-byte varlongs: byte 8 is the last.
      in[8] = static_cast<uint8_t>(last);
      Check64(in);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(VarintDecodeTail, CanonicalEncodingsOfEveryBitLength) {
  std::mt19937_64 rng(0x626974);
  for (int bits = 8; bits <= 64; ++bits) {
    for (int k = 0; k < 2000; ++k) {
      const uint64_t v = (rng() >> (64 - bits)) | (uint64_t{1} << (bits - 1));
      const std::vector<uint8_t> enc = RefLeb128(v);
      std::array<uint8_t, 16> in{};
      for (auto& b : in) b = static_cast<uint8_t>(rng());  // garbage after the value
      std::copy(enc.begin(), enc.end(), in.begin());
      uint64_t got = 0;
      ASSERT_EQ(DecodeUvarint64Tail(in.data(), &got), enc.size()) << v;
      ASSERT_EQ(got, v);
      uint32_t got32 = 0;
      if (bits <= 32) {
        ASSERT_EQ(DecodeUvarint32Tail(in.data(), &got32), enc.size()) << v;
        ASSERT_EQ(got32, v);
      } else {
        ASSERT_EQ(DecodeUvarint32Tail(in.data(), &got32), 0u) << v;
      }
    }
  }
}

TEST(VarintDecodeTail, Gather7MatchesBitLoop) {
  std::mt19937_64 rng(0x67617468);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = rng();
    uint64_t want8 = 0, want5 = 0;
    for (int b = 0; b < 8; ++b) {
      want8 |= ((x >> (8 * b)) & 0x7f) << (7 * b);
      if (b < 5) want5 |= ((x >> (8 * b)) & 0x7f) << (7 * b);
    }
    ASSERT_EQ(Gather7x8(x), want8);
    ASSERT_EQ(Gather7x5(x), want5);
  }
}

}  // namespace
}  // namespace kwire::varint_internal
