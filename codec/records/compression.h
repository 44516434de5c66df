// Record batch compression codecs (protocol guide "Record Batch", attributes bits 0–2;
// KIP-110 for zstd), in the framings Apache Kafka's Java client writes:
//
//   gzip    RFC 1952 gzip stream (zlib; concatenated members accepted on decode).
//   snappy  xerial framing as written by snappy-java's SnappyOutputStream: magic
//           `82 53 4E 41 50 50 59 00`, int32 version, int32 compatible version, then
//           chunks of big-endian int32 length + raw snappy block. Decode also accepts a
//           single raw snappy block (no magic), as librdkafka and the broker do.
//   lz4     LZ4 frame format (lz4frame.h), independent 64 KiB blocks, no content size
//           (Kafka's KafkaLZ4BlockOutputStream). Magic-0 message sets carry Kafka's old
//           broken header checksum (computed over the magic too); decode repairs it when
//           DecompressOptions::lz4_kafka_legacy_checksum is set.
//   zstd    zstd frames, decoded with the streaming API (ZSTD_decompressStream);
//           concatenated and skippable frames accepted.
//
// Every decompressor writes into a buffer that grows geometrically and never beyond
// DecompressOptions::max_output (+1 byte used to detect overflow): a declared content
// size (zstd/LZ4 frame header, gzip ISIZE, snappy preamble) is never used to size an
// allocation, except that a snappy block's declared length is used only after
// snappy::IsValidCompressedBuffer has proved the block produces exactly that many bytes
// and the length has been checked against the cap. zstd's window is limited to the
// smallest power of two ≥ max_output (at least 1 KiB, at most 2 GiB), so the decoder's
// own memory is bounded by the cap as well.
#ifndef KWIRE_CODEC_RECORDS_COMPRESSION_H_
#define KWIRE_CODEC_RECORDS_COMPRESSION_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/wire/error.h"

namespace kwire {

/// Compression codec: RecordBatch attributes bits 0–2 (legacy message attributes bits
/// 0–2 for magic 0/1, where zstd is not allowed). Values 5–7 are invalid on the wire.
enum class Compression : uint8_t {
  kNone = 0,
  kGzip = 1,
  kSnappy = 2,
  kLz4 = 3,
  kZstd = 4,  ///< KIP-110; magic 2 only.
};

/// "none", "gzip", "snappy", "lz4", "zstd"; "invalid" for values 5–255.
const char* CompressionName(Compression codec);

/// Default hard cap on the decompressed size of one batch (or legacy wrapper): 64 MiB.
/// Kafka's default max.message.bytes is ~1 MiB and fetch.max.bytes 50 MiB, so a
/// legitimate batch decompressing beyond 64 MiB is unusual; raise it per call through
/// RecordsOptions::max_decompressed_bytes / DecompressOptions::max_output.
inline constexpr size_t kDefaultMaxDecompressedBytes = size_t{64} << 20;

/// Options for Decompress.
struct DecompressOptions {
  /// Hard cap on the output, in bytes. Exceeding it fails `cap_kind`.
  size_t max_output = kDefaultMaxDecompressedBytes;
  /// The error when the output would exceed max_output, and what the cap is named in its
  /// detail. The records decoder reports kAllocationBudget when the decode's allocation
  /// budget (DecodeOptions::max_alloc_bytes), not RecordsOptions, set the cap.
  ErrorKind cap_kind = ErrorKind::kCompressionError;
  const char* cap_name = "RecordsOptions::max_decompressed_bytes";
  /// LZ4 only: accept the header checksum Kafka wrote in magic-0 message sets
  /// (xxhash32 over the frame magic and descriptor instead of the descriptor only).
  bool lz4_kafka_legacy_checksum = false;
};

/// Decompresses `input` (one payload in `codec`'s Kafka framing, see the file comment)
/// into `*out` (replaced). On failure returns kCompressionError with the byte offset
/// within `input` where it was detected (0 when the library cannot tell) and a detail
/// that starts with the codec name, e.g. "zstd: output exceeds the cap of 67108864
/// bytes"; `*out` then holds whatever was produced. kNone copies the input (subject to
/// the cap). Invalid codecs (5–7) fail kCompressionError.
Error Decompress(Compression codec, std::span<const uint8_t> input,
                 const DecompressOptions& options, std::vector<uint8_t>* out);

/// Compression level meaning "the library's default" (gzip 6, lz4 fast/0, zstd 3).
inline constexpr int kDefaultCompressionLevel = INT_MIN;

/// Compresses `input` with `codec` in the framing Kafka's Java client writes and
/// appends the result to `*out`. `level` is passed to zlib / LZ4F / zstd (ignored by
/// snappy). Fails kCompressionError if a library reports an error or for an invalid
/// codec; kNone appends the input unchanged.
Error Compress(Compression codec, std::span<const uint8_t> input, std::vector<uint8_t>* out,
               int level = kDefaultCompressionLevel);

namespace compression_internal {
/// xxHash32 of `n` bytes with `seed` (used to repair Kafka's legacy LZ4 header checksum;
/// exposed for tests).
uint32_t XxHash32(const uint8_t* data, size_t n, uint32_t seed);
}  // namespace compression_internal

}  // namespace kwire

#endif  // KWIRE_CODEC_RECORDS_COMPRESSION_H_
