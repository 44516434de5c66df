// Helpers shared by the records tests: batch and legacy-message builders written
// independently of the encoder under test, and decode shortcuts.
#ifndef KWIRE_CODEC_RECORDS_RECORDS_TEST_UTIL_H_
#define KWIRE_CODEC_RECORDS_RECORDS_TEST_UTIL_H_

#include <zlib.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/records/crc32c.h"
#include "codec/records/record_batch.h"
#include "codec/wire/test_util.h"
#include "gtest/gtest.h"

namespace kwire {
namespace records_testing {

using wire_testing::Cat;
using wire_testing::Hex;
using wire_testing::ToHex;

inline std::span<const uint8_t> Span(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::vector<uint8_t> Vec(const std::string& s) { return {s.begin(), s.end()}; }

// ---- Builders independent of the encoder under test (the wire layout by hand).

inline void Put(std::vector<uint8_t>& b, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void SetBe32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}
// Recomputes batchLength (from the size) and the CRC-32C of the v2 batch at `at`.
inline void FixV2(std::vector<uint8_t>& b, size_t at = 0, size_t end = 0) {
  if (end == 0) end = b.size();
  SetBe32(b, at + 8, static_cast<uint32_t>(end - at - 12));
  SetBe32(b, at + 17, Crc32c(b.data() + at + 21, end - at - 21));
}
// A v2 batch with header fields and a raw records section (count as given).
inline std::vector<uint8_t> RawV2(std::span<const uint8_t> section, int32_t count, int16_t attributes = 0,
                           int64_t base_offset = 0) {
  std::vector<uint8_t> b;
  Put(b, static_cast<uint64_t>(base_offset), 8);
  Put(b, 0, 4);           // batchLength (fixed below)
  Put(b, 0, 4);           // partitionLeaderEpoch
  b.push_back(2);         // magic
  Put(b, 0, 4);           // crc (fixed below)
  Put(b, static_cast<uint16_t>(attributes), 2);
  Put(b, count > 0 ? static_cast<uint32_t>(count - 1) : 0, 4);  // lastOffsetDelta
  Put(b, 1000, 8);        // baseTimestamp
  Put(b, 2000, 8);        // maxTimestamp
  Put(b, static_cast<uint64_t>(-1), 8);  // producerId
  Put(b, 0xffff, 2);      // producerEpoch
  Put(b, 0xffffffff, 4);  // baseSequence
  Put(b, static_cast<uint32_t>(count), 4);
  b.insert(b.end(), section.begin(), section.end());
  FixV2(b);
  return b;
}
// One legacy message (magic 0/1) with CRC-32.
inline std::vector<uint8_t> Legacy(int8_t magic, int64_t offset, int8_t attributes, int64_t timestamp,
                            std::optional<std::string_view> key,
                            std::optional<std::span<const uint8_t>> value) {
  std::vector<uint8_t> body;
  body.push_back(static_cast<uint8_t>(magic));
  body.push_back(static_cast<uint8_t>(attributes));
  if (magic == 1) Put(body, static_cast<uint64_t>(timestamp), 8);
  if (key) {
    Put(body, key->size(), 4);
    body.insert(body.end(), key->begin(), key->end());
  } else {
    Put(body, 0xffffffff, 4);
  }
  if (value) {
    Put(body, value->size(), 4);
    body.insert(body.end(), value->begin(), value->end());
  } else {
    Put(body, 0xffffffff, 4);
  }
  std::vector<uint8_t> m;
  Put(m, static_cast<uint64_t>(offset), 8);
  Put(m, body.size() + 4, 4);
  Put(m, crc32(0, body.data(), static_cast<uInt>(body.size())), 4);
  m.insert(m.end(), body.begin(), body.end());
  return m;
}
inline std::vector<uint8_t> LegacyText(int8_t magic, int64_t offset, int64_t timestamp,
                                std::optional<std::string_view> key, std::string_view value) {
  return Legacy(magic, offset, 0, timestamp, key,
                std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(value.data()),
                                         value.size()));
}

// A magic-1 gzip wrapper of `messages` inner messages (relative offsets 0..n-1, null
// keys, value `value`), the wrapper at offset n-1 (KIP-31). `inner_size` (optional)
// receives the uncompressed inner message set's size.
inline std::vector<uint8_t> GzipWrapper(int messages, std::string_view value,
                                        size_t* inner_size = nullptr) {
  std::vector<uint8_t> inner;
  for (int i = 0; i < messages; ++i) {
    const std::vector<uint8_t> m = LegacyText(1, i, 1700000000000, std::nullopt, value);
    inner.insert(inner.end(), m.begin(), m.end());
  }
  if (inner_size != nullptr) *inner_size = inner.size();
  std::vector<uint8_t> gz;
  EXPECT_TRUE(Compress(Compression::kGzip, inner, &gz).ok());
  return Legacy(1, messages - 1, static_cast<int8_t>(Compression::kGzip), 1700000000000,
                std::nullopt, std::span<const uint8_t>(gz));
}

// ---- Helpers over the API under test.

inline Record Rec(std::optional<std::string_view> key, std::optional<std::string_view> value,
           int32_t offset_delta = 0, int64_t timestamp_delta = 0,
           std::vector<RecordHeader> headers = {}) {
  Record r;
  r.key = key;
  r.value = value;
  r.offset_delta = offset_delta;
  r.timestamp_delta = timestamp_delta;
  r.headers = std::move(headers);
  return r;
}

inline BatchHeader Header(Compression c = Compression::kNone, int64_t base_offset = 100) {
  BatchHeader h;
  h.base_offset = base_offset;
  h.partition_leader_epoch = 5;
  h.attributes = static_cast<int16_t>(c);
  h.base_timestamp = 1700000000000;
  h.max_timestamp = 1700000000009;
  h.producer_id = 4242;
  h.producer_epoch = 3;
  h.base_sequence = 17;
  return h;
}

inline std::vector<uint8_t> Encode(BatchHeader h, const std::vector<Record>& recs) {
  h.last_offset_delta = recs.empty() ? 0 : recs.back().offset_delta;
  absl::StatusOr<std::string> s = EncodeRecordBatch(h, recs);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? Vec(*s) : std::vector<uint8_t>{};
}

// Iterates `field` expecting exactly one batch; returns it (state kEnd checked).
struct One {
  BatchView view;
  Error error;  // of DecodeRecords
  RecordSet set;
};
inline One DecodeOne(std::span<const uint8_t> field, const RecordsOptions& o = {}) {
  One r;
  BatchIterator it(field, o);
  EXPECT_TRUE(it.Next(&r.view)) << it.error().ToString();
  EXPECT_FALSE(it.Next(&r.view));
  EXPECT_EQ(it.state(), BatchIterator::kEnd) << it.error().ToString();
  r.error = r.view.DecodeRecords(o, &r.set);
  return r;
}
// Iteration error of `field` (expects kError).
inline Error IterError(std::span<const uint8_t> field, const RecordsOptions& o = {}) {
  BatchIterator it(field, o);
  BatchView v;
  while (it.Next(&v)) {
  }
  EXPECT_EQ(it.state(), BatchIterator::kError);
  return it.error();
}
// DecodeRecords error of the single batch in `field`.
inline Error RecordsError(std::span<const uint8_t> field, const RecordsOptions& o = {}) {
  One r = DecodeOne(field, o);
  EXPECT_FALSE(r.error.ok());
  return r.error;
}
#define EXPECT_DETAIL(e, text) \
  EXPECT_NE((e).detail.find(text), std::string::npos) << (e).ToString()

inline std::vector<Record> SampleRecords() {
  static const std::string big(3000, 'x');
  return {
      Rec("key-0", "value-0", 0, 0),
      Rec(std::nullopt, "null key", 1, 5),
      Rec("tombstone", std::nullopt, 2, 9),
      Rec("", "", 3, -4),  // empty, not null
      Rec("h", big, 4, 1, {{"trace", "abc"}, {"null-value", std::nullopt}, {"", ""}}),
      Rec(std::nullopt, std::nullopt, 300, 123456789012),
  };
}

inline void ExpectSameRecords(const RecordSet& got, const std::vector<Record>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "record " << i;
}

/// A BatchHeader with its −1 defaults (leader epoch, producer id and epoch, base sequence)
/// set to 0: with no records it encodes to EmptyBatchBytes().
inline BatchHeader ZeroHeader() {
  BatchHeader h;
  h.partition_leader_epoch = 0;
  h.producer_id = 0;
  h.producer_epoch = 0;
  h.base_sequence = 0;
  return h;
}
/// The 61-byte empty RecordBatch v2 (all fields 0, CRC 0x595fb7dd), written out.
inline std::vector<uint8_t> EmptyBatchBytes() {
  return wire_testing::Hex(
      "0000000000000000"  // baseOffset 0
      "00000031"          // batchLength 49
      "00000000"          // partitionLeaderEpoch 0
      "02"                // magic 2
      "595fb7dd"          // crc
      "0000"              // attributes
      "00000000"          // lastOffsetDelta
      "0000000000000000"  // baseTimestamp
      "0000000000000000"  // maxTimestamp
      "0000000000000000"  // producerId
      "0000"              // producerEpoch
      "00000000"          // baseSequence
      "00000000");        // records count
}

}  // namespace records_testing
}  // namespace kwire

#endif  // KWIRE_CODEC_RECORDS_RECORDS_TEST_UTIL_H_
