// CRC-32C (Castagnoli), the checksum of Kafka RecordBatch v2 (KIP-98; protocol guide
// "Record Batch": crc over attributes..end of the batch).
#ifndef KWIRE_CODEC_RECORDS_CRC32C_H_
#define KWIRE_CODEC_RECORDS_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace kwire {

/// CRC-32C of `n` bytes at `data`, continuing from `crc` (0 to start). Standard
/// reflected CRC-32C with initial value and final xor 0xffffffff: Crc32c("123456789")
/// == 0xe3069283. Backed by ISA-L's crc32_iscsi.
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

}  // namespace kwire

#endif  // KWIRE_CODEC_RECORDS_CRC32C_H_
