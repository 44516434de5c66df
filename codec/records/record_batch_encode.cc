// The RecordBatch v2 encoder (protocol guide, "Record Batch"; Kafka's
// DefaultRecordBatch.writeHeader and DefaultRecord.writeTo): AppendRecordBatch and
// EncodeRecordBatch, declared in record_batch.h. The decoder is record_batch.cc.
#include <climits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_format.h"
#include "codec/records/compression.h"
#include "codec/records/crc32c.h"
#include "codec/records/record_batch.h"
#include "codec/wire/varint.h"
#include "codec/wire/writer.h"

namespace kwire {

namespace {

size_t VarBytesSize(const std::optional<std::string_view>& b) {
  return b ? VarintSize(static_cast<int32_t>(b->size())) + b->size() : 1;
}

bool CheckLength(Writer* w, size_t n, const char* what) {
  if (n <= static_cast<size_t>(INT32_MAX)) return true;
  w->Fail(ErrorKind::kStringTooLong, absl::StrFormat("%s of %d bytes (max %d)", what, n,
                                                     INT32_MAX));
  return false;
}

void WriteVarBytes(Writer* w, const std::optional<std::string_view>& b) {
  if (!b) {
    w->WriteVarint(-1);
    return;
  }
  w->WriteVarint(static_cast<int32_t>(b->size()));
  w->WriteRaw(*b);
}

void WriteRecord(Writer* w, const Record& rec) {
  if (rec.key && !CheckLength(w, rec.key->size(), "record key")) return;
  if (rec.value && !CheckLength(w, rec.value->size(), "record value")) return;
  if (!CheckLength(w, rec.headers.size(), "header count")) return;
  size_t body = 1 + VarlongSize(rec.timestamp_delta) + VarintSize(rec.offset_delta) +
                VarBytesSize(rec.key) + VarBytesSize(rec.value) +
                VarintSize(static_cast<int32_t>(rec.headers.size()));
  for (const RecordHeader& h : rec.headers) {
    if (!CheckLength(w, h.key.size(), "header key")) return;
    if (!w->CheckUtf8(h.key)) return;  // keys are strings
    if (h.value && !CheckLength(w, h.value->size(), "header value")) return;
    body += VarintSize(static_cast<int32_t>(h.key.size())) + h.key.size() + VarBytesSize(h.value);
  }
  if (!CheckLength(w, body, "record")) return;
  w->WriteVarint(static_cast<int32_t>(body));
  w->WriteInt8(rec.attributes);
  w->WriteVarlong(rec.timestamp_delta);
  w->WriteVarint(rec.offset_delta);
  WriteVarBytes(w, rec.key);
  WriteVarBytes(w, rec.value);
  w->WriteVarint(static_cast<int32_t>(rec.headers.size()));
  for (const RecordHeader& h : rec.headers) {
    w->WriteVarint(static_cast<int32_t>(h.key.size()));
    w->WriteRaw(h.key);
    WriteVarBytes(w, h.value);
  }
}

}  // namespace

Error AppendRecordBatch(const BatchHeader& header, std::span<const Record> records, Writer* w,
                        const EncodeBatchOptions& options) {
  if (!w->ok()) return w->error();
  if (header.magic != 2) {
    w->Fail(ErrorKind::kInvalidValue,
            absl::StrFormat("magic %d: only RecordBatch v2 (magic 2) is encoded", header.magic));
    return w->error();
  }
  const Compression codec = header.compression();
  if (static_cast<int>(codec) > static_cast<int>(Compression::kZstd)) {
    w->Fail(ErrorKind::kInvalidValue,
            absl::StrFormat("invalid compression codec %d", static_cast<int>(codec)));
    return w->error();
  }
  if (!CheckLength(w, records.size(), "records count")) return w->error();
  const size_t start = w->size();
  w->WriteInt64(header.base_offset);
  const size_t length_at = w->ReserveInt32();
  w->WriteInt32(header.partition_leader_epoch);
  w->WriteInt8(2);
  const size_t crc_at = w->ReserveInt32();
  w->WriteInt16(header.attributes);
  w->WriteInt32(header.last_offset_delta);
  w->WriteInt64(header.base_timestamp);
  w->WriteInt64(header.max_timestamp);
  w->WriteInt64(header.producer_id);
  w->WriteInt16(header.producer_epoch);
  w->WriteInt32(header.base_sequence);
  w->WriteInt32(static_cast<int32_t>(records.size()));
  if (codec == Compression::kNone) {
    for (const Record& rec : records) WriteRecord(w, rec);
  } else {
    Writer plain;
    plain.set_options(w->options());
    for (const Record& rec : records) WriteRecord(&plain, rec);
    if (!plain.ok()) {
      w->Fail(plain.error().kind, plain.error().detail);
      return w->error();
    }
    std::vector<uint8_t> compressed;
    if (Error e = Compress(codec, plain.bytes(), &compressed, options.compression_level);
        !e.ok()) {
      w->Fail(e.kind, e.detail);
      return w->error();
    }
    w->WriteRaw(compressed.data(), compressed.size());
  }
  if (!w->ok()) return w->error();
  const size_t length = w->size() - start - kLogOverhead;
  if (!CheckLength(w, length, "batch")) return w->error();
  w->PatchInt32(length_at, static_cast<int32_t>(length));
  const uint32_t crc =
      Crc32c(w->data() + start + kRecordBatchCrcStart, w->size() - start - kRecordBatchCrcStart);
  w->PatchInt32(crc_at, static_cast<int32_t>(crc));
  return {};
}

absl::StatusOr<std::string> EncodeRecordBatch(const BatchHeader& header,
                                              std::span<const Record> records,
                                              const EncodeBatchOptions& options) {
  Writer w;
  w.set_options(options.encode);
  if (Error e = AppendRecordBatch(header, records, &w, options); !e.ok()) return e.ToStatus();
  return std::string(reinterpret_cast<const char*>(w.data()), w.size());
}

}  // namespace kwire
