// CRC-32C: known vectors (RFC 3720 appendix B.4), the empty RecordBatch's CRC, and
// parity of the configured backend with the Boost.CRC implementation. Built twice: as
// crc32c_test (KWIRE_CRC32C_BACKEND) and crc32c_boost_test (Boost backend).
#include "codec/records/crc32c.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kwire {
namespace {

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xe3069283u);
  EXPECT_EQ(Crc32c("", 0), 0u);
  uint8_t b[32];
  std::memset(b, 0, sizeof b);
  EXPECT_EQ(Crc32c(b, 32), 0x8a9136aau);
  std::memset(b, 0xff, sizeof b);
  EXPECT_EQ(Crc32c(b, 32), 0x62a8ab43u);
  for (int i = 0; i < 32; ++i) b[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(Crc32c(b, 32), 0x46dd794eu);
  for (int i = 0; i < 32; ++i) b[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(Crc32c(b, 32), 0x113fdb5cu);
}

TEST(Crc32c, EmptyRecordBatchCrc) {
  // Bytes 21..60 of the empty RecordBatch v2 are all zero (attributes .. records count).
  const uint8_t zeros[40] = {};
  EXPECT_EQ(Crc32c(zeros, sizeof zeros), 0x595fb7ddu);
}

TEST(Crc32c, Continuation) {
  const char* s = "123456789";
  for (size_t split = 0; split <= 9; ++split) {
    EXPECT_EQ(Crc32c(s + split, 9 - split, Crc32c(s, split)), 0xe3069283u) << split;
    EXPECT_EQ(crc32c_internal::Crc32cBoost(s + split, 9 - split,
                                           crc32c_internal::Crc32cBoost(s, split)),
              0xe3069283u)
        << split;
  }
}

TEST(Crc32c, BackendMatchesBoostOnRandomInput) {
  std::mt19937 rng(42);
  std::vector<uint8_t> buf(70000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  std::uniform_int_distribution<size_t> len(0, 4096), off(0, 15);
  for (int i = 0; i < 300; ++i) {
    const size_t o = off(rng), n = i == 0 ? buf.size() - 16 : len(rng);
    const uint32_t seed = i % 3 == 0 ? 0 : static_cast<uint32_t>(rng());
    ASSERT_EQ(Crc32c(buf.data() + o, n, seed),
              crc32c_internal::Crc32cBoost(buf.data() + o, n, seed))
        << "offset " << o << " length " << n;
  }
}

TEST(Crc32c, BackendName) {
  const std::string name = Crc32cBackendName();
  EXPECT_TRUE(name == "isal" || name == "boost") << name;
}

}  // namespace
}  // namespace kwire
