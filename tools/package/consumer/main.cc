// kwire_consumer: a program built against an installed kwire (find_package(kwire) or
// pkg-config), as the package tests build it. It
//   1. decodes a real request frame (`kwire minimal 41 3 request`) and re-encodes it
//      byte for byte;
//   2. reads the Error behind a failed decode (kwire::ErrorFromStatus);
//   3. builds a Fetch v12 response holding one record batch per codec (none, gzip,
//      snappy, lz4, zstd: every compression library the static kwire links), encodes the
//      frame, decodes it (which validates every batch: CRC-32C, decompression) and reads
//      the records back;
//   4. corrupts one byte of a batch and expects kCrcMismatch in that batch;
//   5. caps the allocation budget and expects kAllocationBudget.
// Step 3 uses the typed calls (AppendResponseFrame / DecodeResponseFrameAs).
// Prints one line per step; exits 1 on the first mismatch.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <kwire/kwire.h>  // the core, as the README's snippets include it (kwire::kwire)

namespace {

int Fail(const char* what, int line) {
  std::fprintf(stderr, "kwire_consumer: line %d: %s\n", line, what);
  return 1;
}
#define EXPECT(cond)                                     \
  do {                                                   \
    if (!(cond)) return Fail("expected " #cond, __LINE__); \
  } while (0)

// The library's hex helpers (codec/wire/hex.h); a test literal that does not parse stops
// the program rather than shortening a frame.
std::vector<uint8_t> FromHex(std::string_view hex) {
  std::vector<uint8_t> out;
  if (!kwire::ParseHex(hex, out)) std::abort();
  return out;
}

std::string ToHex(std::span<const uint8_t> bytes) { return kwire::HexString(bytes); }

constexpr kwire::Compression kCodecs[] = {kwire::Compression::kNone, kwire::Compression::kGzip,
                                          kwire::Compression::kSnappy, kwire::Compression::kLz4,
                                          kwire::Compression::kZstd};
constexpr int kRecordsPerBatch = 3;

// The value of record j of the batch compressed with `codec` (repetitive, so that every
// codec really compresses it).
std::string ValueOf(kwire::Compression codec, int j) {
  std::string v = std::string(kwire::CompressionName(codec)) + " record " + std::to_string(j);
  while (v.size() < 200) v += " payload";
  return v;
}

}  // namespace

int main() {
  // ---- 1. A real request frame: DescribeDelegationToken v3, header v2, one owner.
  const std::string hex = "0000001000290003000000000000000201010000";
  const std::vector<uint8_t> bytes = FromHex(hex);
  auto request = kwire::DecodeRequestFrame(bytes);
  if (!request.ok()) {
    std::fprintf(stderr, "decode failed: %s\n", std::string(request.status().message()).c_str());
    return 1;
  }
  EXPECT(request->api_key() == 41);
  EXPECT(request->api_version() == 3);
  EXPECT(request->header_version == 2);
  EXPECT(request->header.correlation_id == 0);
  const auto* owners_request = request->body.get<kwire::DescribeDelegationTokenRequest>();
  EXPECT(owners_request != nullptr);
  EXPECT(owners_request->owners.has_value() && owners_request->owners->size() == 1);
  EXPECT((*owners_request->owners)[0].principal_type.empty());
  auto again = kwire::EncodeRequestFrame(request->header, request->body);
  EXPECT(again.ok());
  EXPECT(ToHex(*again) == hex);
  std::printf("decoded and re-encoded DescribeDelegationTokenRequest v3 (%zu bytes)\n",
              bytes.size());

  // ---- 2. Errors as data: the frame cut one byte short (size prefix adjusted).
  auto cut = kwire::DecodeRequestFrame(FromHex("0000000f002900030000000000000002010100"));
  EXPECT(!cut.ok());
  const std::optional<kwire::Error> error = kwire::ErrorFromStatus(cut.status());
  EXPECT(error.has_value());
  EXPECT(error->kind == kwire::ErrorKind::kTruncated);
  EXPECT(error->offset == 19);  // the frame's end: the owner's tagged-field count
  std::printf("truncated frame: %s\n", error->ToString().c_str());

  // ---- 3. Build a Fetch v12 response with one batch per codec, encode, decode.
  std::string batches;
  for (size_t i = 0; i < std::size(kCodecs); ++i) {
    kwire::BatchHeader header;
    header.base_offset = static_cast<int64_t>(100 * i);
    header.attributes = static_cast<int16_t>(kCodecs[i]);
    header.last_offset_delta = kRecordsPerBatch - 1;
    std::vector<std::string> values;
    for (int j = 0; j < kRecordsPerBatch; ++j) values.push_back(ValueOf(kCodecs[i], j));
    std::vector<kwire::Record> records(kRecordsPerBatch);
    for (int j = 0; j < kRecordsPerBatch; ++j) {
      records[j].offset_delta = j;
      records[j].key = "key";
      records[j].value = values[j];
    }
    auto batch = kwire::EncodeRecordBatch(header, records);
    EXPECT(batch.ok());
    batches += *batch;
  }
  kwire::FetchResponse fetch;
  auto& topic = fetch.responses.emplace_back();
  topic.topic = "events";
  auto& partition = topic.partitions.emplace_back();
  partition.high_watermark = 500;
  partition.records = kwire::Records{batches};
  constexpr int16_t kFetch = 1, kVersion = 12;
  kwire::ResponseHeader response_header;
  response_header.correlation_id = 7;
  // Typed: the message is encoded where it is (no AnyMessage, no copy).
  kwire::Writer writer;
  EXPECT(kwire::AppendResponseFrame(response_header, kVersion, fetch, &writer).ok());
  const std::vector<uint8_t> encoded(writer.bytes().begin(), writer.bytes().end());

  // Typed decode, straight into a FetchResponse; and the run-time-typed one agrees.
  auto decoded = kwire::DecodeResponseFrameAs<kwire::FetchResponse>(encoded, kVersion);
  if (!decoded.ok()) {
    std::fprintf(stderr, "decode failed: %s\n", std::string(decoded.status().message()).c_str());
    return 1;
  }
  EXPECT(decoded->header.correlation_id == 7);
  const kwire::FetchResponse* got = &decoded->body;
  EXPECT(*got == fetch);
  auto erased = kwire::DecodeResponseFrame(encoded, kFetch, kVersion);
  EXPECT(erased.ok() && *erased->body.get<kwire::FetchResponse>() == fetch);
  const auto& got_records = got->responses[0].partitions[0].records;
  EXPECT(got_records.has_value());
  kwire::BatchIterator it = kwire::Batches(*got_records);
  size_t batch_index = 0;
  for (const kwire::BatchView& batch : it) {
    EXPECT(batch_index < std::size(kCodecs));
    EXPECT(batch.compression() == kCodecs[batch_index]);
    EXPECT(batch.crc_ok());
    auto set = batch.records();
    EXPECT(set.ok());
    EXPECT(set->size() == kRecordsPerBatch);
    for (int j = 0; j < kRecordsPerBatch; ++j) {
      EXPECT((*set)[j].offset == static_cast<int64_t>(100 * batch_index) + j);
      EXPECT((*set)[j].value == ValueOf(kCodecs[batch_index], j));
    }
    ++batch_index;
  }
  EXPECT(it.state() == kwire::BatchIterator::kEnd);
  EXPECT(batch_index == std::size(kCodecs));
  std::printf("Fetch v12 response: %zu bytes, %zu batches (none, gzip, snappy, lz4, zstd)\n",
              encoded.size(), batch_index);

  // ---- 4. One flipped byte in the last batch's records: a CRC mismatch in batch 4.
  std::vector<uint8_t> corrupt = encoded;
  corrupt[corrupt.size() - 8] ^= 0x01;
  auto bad = kwire::DecodeResponseFrame(corrupt, kFetch, kVersion);
  const std::optional<kwire::Error> crc = kwire::ErrorFromStatus(bad.status());
  EXPECT(crc.has_value());
  EXPECT(crc->kind == kwire::ErrorKind::kCrcMismatch);
  EXPECT(crc->path == "FetchResponse.Responses[0].Partitions[0].Records.Batch[4]");
  std::printf("corrupted batch: %s\n", crc->ToString().c_str());

  // ---- 5. The allocation budget: DescribeDelegationToken v3 with 100,000 owners of
  // empty strings (3 bytes each on the wire, ~100 bytes each in memory) under a 1 MiB
  // budget fails before allocating, at the Owners count (byte 15).
  std::vector<uint8_t> many = FromHex("000000000029000300000000000000");
  many.insert(many.end(), {0xa1, 0x8d, 0x06});  // uvarint 100,001: 100,000 owners
  for (int i = 0; i < 100000; ++i) many.insert(many.end(), {0x01, 0x01, 0x00});
  many.push_back(0x00);
  const uint32_t size = static_cast<uint32_t>(many.size() - 4);
  for (int i = 0; i < 4; ++i) many[i] = static_cast<uint8_t>(size >> (24 - 8 * i));
  kwire::FrameOptions budget;
  budget.max_alloc_bytes = 1 << 20;
  auto over = kwire::DecodeRequestFrame(many, budget);
  const std::optional<kwire::Error> spent = kwire::ErrorFromStatus(over.status());
  EXPECT(spent.has_value() && spent->kind == kwire::ErrorKind::kAllocationBudget);
  EXPECT(spent->offset == 15 && spent->path == "DescribeDelegationTokenRequest.Owners");
  EXPECT(kwire::DecodeRequestFrame(many).ok());  // the default budget (128 MiB) holds it
  std::printf("allocation budget: %s\n", spent->ToString().c_str());
  std::printf("kwire_consumer: all checks passed\n");
  return 0;
}
