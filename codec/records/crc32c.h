// CRC-32C (Castagnoli), the checksum of Kafka RecordBatch v2 (KIP-98; protocol guide
// "Record Batch": crc over attributes..end of the batch).
//
// Two backends, chosen at build time with the CMake cache variable
// KWIRE_CRC32C_BACKEND:
//   isal  (default) ISA-L's crc32_iscsi: hand-written assembly, ~25 GB/s.
//   boost           Boost.CRC's table-driven crc_optimal: portable C++, slow
//                   (~0.2 GB/s) but fully visible to MemorySanitizer.
// Both compute the same function; codec/records/crc32c_test.cc checks them against each
// other and against known vectors.
#ifndef KWIRE_CODEC_RECORDS_CRC32C_H_
#define KWIRE_CODEC_RECORDS_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace kwire {

/// CRC-32C of `n` bytes at `data`, continuing from `crc` (0 to start). Standard
/// reflected CRC-32C with initial value and final xor 0xffffffff: Crc32c("123456789")
/// == 0xe3069283. Crc32c(b, n1 + n2) == Crc32c(b + n1, n2, Crc32c(b, n1)).
/// Backed by the build's KWIRE_CRC32C_BACKEND (see the file comment).
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

/// Name of the compiled-in backend: "isal" or "boost".
const char* Crc32cBackendName();

namespace crc32c_internal {
/// The Boost.CRC implementation, always compiled (header-only); same contract as
/// Crc32c. Exposed so tests and the throughput program can compare backends.
uint32_t Crc32cBoost(const void* data, size_t n, uint32_t crc = 0);
}  // namespace crc32c_internal

}  // namespace kwire

#endif  // KWIRE_CODEC_RECORDS_CRC32C_H_
