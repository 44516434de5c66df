#include "codec/protocol/refusal.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "codec/records/record_batch.h"
#include "codec/records/validate.h"
#include "codec/wire/reader.h"

namespace kwire {
namespace {

// kwire's own limits (RecordsOptions' caps, the allocation budget): not a fault of the
// bytes, so never a refusal; the decode fails as it would without ReadRequestAsBroker.
bool IsDecoderLimit(const Error& e) {
  return e.kind == ErrorKind::kAllocationBudget ||
         absl::StrContains(e.detail, "output exceeds the cap of") ||
         absl::StrContains(e.detail, "RecordsOptions::max_records");
}

// ---- What Apache Kafka 4.4's broker answers a faulty Produce partition.
//
// Mirrors the broker's sequence over the field's bytes (file:line in the 4.4.0 jars and a
// real broker's answers: conformance/testees/apache-kafka/FAILURES.md, "Refusals"):
//  1. KafkaApis.handleProduceRequest probes the first batch of every partition
//     (RequestUtils.hasTransactionalRecords) through ByteBufferLogInputStream.nextBatch;
//  2. per partition, ProduceRequest.validateRecords (from v3);
//  3. per partition, ReplicaManager.handleProduceAppend reads each batch's producerId
//     (getLong(43)), then UnifiedLog.analyzeAndValidateRecords (isValid: at least 61
//     bytes and the CRC; the codec id), then LogValidator reads the records.

// One step of ByteBufferLogInputStream.nextBatch (MemoryRecords, no size limit).
struct JavaBatch {
  size_t start = 0, end = 0;
  int magic = 0;
  int codec = 0;  // attributes & 7 (v2: byte 22; magic 0/1: byte 17)
};
struct JavaWalk {
  std::vector<JavaBatch> complete;
  // Where nextBatchSize throws CorruptRecordException (batchLength below 14, magic not
  // 0-2; also for a batch cut short), or SIZE_MAX.
  size_t corrupt_at = SIZE_MAX;
};

JavaWalk WalkLikeJava(std::span<const uint8_t> b) {
  JavaWalk w;
  size_t pos = 0;
  while (b.size() - pos >= kLogOverhead) {
    const size_t rem = b.size() - pos;
    Reader batch_length(b.subspan(pos + 8, 4));
    const int32_t length = batch_length.ReadInt32();
    if (length < 14) {
      w.corrupt_at = pos;
      break;
    }
    if (rem < 17) break;  // nextBatch: null, the end of the records
    const int magic = static_cast<int8_t>(b[pos + 16]);
    if (magic < 0 || magic > 2) {
      w.corrupt_at = pos;
      break;
    }
    if (static_cast<size_t>(length) > rem - kLogOverhead) break;  // cut short: the end
    JavaBatch batch{pos, pos + kLogOverhead + static_cast<size_t>(length), magic, 0};
    const size_t codec_at = pos + (magic == 2 ? 22 : 17);
    if (codec_at < batch.end) batch.codec = b[codec_at] & 7;
    w.complete.push_back(batch);
    pos = batch.end;
  }
  return w;
}

struct Answer {
  int16_t code = 0;
  const char* name = "";
  bool whole_request = false;
  bool kafka_appends = false;
  const char* source = "";
};

constexpr int16_t kUnknownServerError = -1, kCorruptMessage = 2, kUnsupportedCompression = 76,
                  kInvalidRecord = 87;

Answer Code(int16_t code, const char* source, bool whole_request = false,
            bool kafka_appends = false) {
  const char* name = code == kInvalidRecord            ? "INVALID_RECORD"
                     : code == kCorruptMessage         ? "CORRUPT_MESSAGE"
                     : code == kUnsupportedCompression ? "UNSUPPORTED_COMPRESSION_TYPE"
                                                       : "UNKNOWN_SERVER_ERROR";
  return Answer{code, name, whole_request, kafka_appends, source};
}

// Faults Kafka's record reader takes: ByteUtils reads a varint of at most 5 (10) bytes
// in any form; Utils.readBytes takes a negative key or value length as null; a header
// key is decoded with `new String(bytes, UTF_8)`, ill-formed UTF-8 as U+FFFD.
bool KafkaReaderTakes(const Error& fault) {
  if (fault.kind == ErrorKind::kVarintNonCanonical || fault.kind == ErrorKind::kInvalidUtf8) {
    return true;
  }
  return fault.kind == ErrorKind::kInvalidLength && !absl::StrContains(fault.path, ".Headers") &&
         (absl::EndsWith(fault.path, ".Key") || absl::EndsWith(fault.path, ".Value"));
}

// The index of the batch a fault of the records field `part` is in ("<part>.Batch[i]..."),
// or SIZE_MAX when it names none (no batch at all).
size_t BatchIndex(const Error& fault, const std::string& part) {
  absl::string_view rest(fault.path);
  if (!absl::ConsumePrefix(&rest, part) || !absl::ConsumePrefix(&rest, ".Batch[")) return SIZE_MAX;
  size_t i = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), i);
  return ec == std::errc() && end != rest.data() ? i : SIZE_MAX;
}

Answer BrokerAnswer(const Error& fault, const std::string& part, std::span<const uint8_t> field,
                    const RecordsPolicy& policy, int16_t version) {
  const JavaWalk w = WalkLikeJava(field);
  // kwire's and Java's walks agree on complete batches: the fault's batch index is the
  // same in both.
  const size_t index = BatchIndex(fault, part);
  // 1. The first batch's header, probed for every partition before any is looked at.
  if (w.corrupt_at == 0) {
    return Code(kCorruptMessage,
                "ByteBufferLogInputStream.nextBatchSize (batchLength below 14 or magic not "
                "0-2), thrown from RequestUtils.hasTransactionalRecords in "
                "KafkaApis.handleProduceRequest",
                /*whole_request=*/true);
  }
  // 2. ProduceRequest.validateRecords.
  if (version >= policy.one_v2_batch_from) {
    constexpr const char* kValidate = "ProduceRequest.validateRecords (InvalidRecordException)";
    if (w.complete.empty()) return Code(kInvalidRecord, kValidate);
    const JavaBatch& first = w.complete[0];
    if (first.magic != 2) return Code(kInvalidRecord, kValidate);
    if (version < policy.zstd_from && first.codec == 4) {
      return Code(kUnsupportedCompression,
                  "ProduceRequest.validateRecords (UnsupportedCompressionTypeException)");
    }
    if (version < policy.zstd_from && first.codec >= 5) {
      return Code(kUnknownServerError,
                  "ProduceRequest.validateRecords: CompressionType.forId throws "
                  "IllegalArgumentException, which escapes handleProduceRequest",
                  /*whole_request=*/true);
    }
    if (w.complete.size() >= 2) return Code(kInvalidRecord, kValidate);
    if (w.corrupt_at != SIZE_MAX) {
      return Code(kCorruptMessage,
                  "ProduceRequest.validateRecords: ByteBufferLogInputStream.nextBatchSize on "
                  "the bytes after the first batch (CorruptRecordException)");
    }
  } else if (fault.kind == ErrorKind::kRecordsNotAllowed) {
    // Below v3 the policy's only rule is the codec's (CheckBatchAllowed: zstd before v7,
    // KIP-110), which Java does not check there: validateRecords looks at batches only
    // from v3 on, and Kafka 3.9, the last release with Produce v0-v2 (4.0 removed them),
    // appends the batch (its LogValidator refuses zstd only below
    // inter.broker.protocol.version 2.1). kwire refuses it with the code KIP-110 names;
    // kQuirkOldProduceCodecUnchecked reads it as Java does.
    return Code(kUnsupportedCompression,
                "KIP-110 (zstd from Produce v7); ProduceRequest.validateRecords checks the "
                "codec only from v3",
                false, /*kafka_appends=*/true);
  }
  // 3. The append: the batches before the fault's read whole for kwire, and so for the
  // broker; then the fault's.
  if (index < w.complete.size()) {
    const JavaBatch& b = w.complete[index];
    if (b.magic == 2 && b.end - b.start < 51) {
      return Code(kUnknownServerError,
                  "ReplicaManager.handleProduceAppend: producerId() reads byte 43 of a batch "
                  "under 51 bytes (IndexOutOfBoundsException)",
                  /*whole_request=*/true);
    }
    if (fault.kind == ErrorKind::kCrcMismatch || (b.magic == 2 && b.end - b.start < 61)) {
      return Code(kCorruptMessage,
                  "UnifiedLog.analyzeAndValidateRecords: !batch.isValid() (CorruptRecordException)");
    }
    if (b.codec >= 5) {
      return Code(kUnknownServerError,
                  "UnifiedLog.analyzeAndValidateRecords: CompressionType.forId "
                  "(IllegalArgumentException)");
    }
    if (fault.kind == ErrorKind::kCompressionError) {
      return Code(kUnknownServerError,
                  "LogValidator: the decompressor's exception wrapped in KafkaException");
    }
    // In a compressed batch LogValidator reads records in place (skipKeyValueIterator,
    // DefaultRecord.readPartiallyFrom): a record's length is never compared with its
    // fields. (A records count above the records present still fails there: premature EOF.)
    const size_t last = fault.path.rfind('.');
    const bool in_place_takes = b.magic == 2 && b.codec != 0 &&
                                fault.kind == ErrorKind::kCorruptRecords &&
                                last != std::string::npos &&
                                fault.path.compare(last, 8, ".Record[") == 0 &&
                                !absl::StrContains(fault.detail, "records count");
    if (KafkaReaderTakes(fault)) {
      return Code(kInvalidRecord,
                  "Kafka's record reader takes it (ByteUtils reads a non-canonical varint, "
                  "Utils.readBytes a key or value length below -1 as null, a header key's "
                  "ill-formed UTF-8 as U+FFFD)",
                  false, /*kafka_appends=*/true);
    }
    if (in_place_takes) {
      return Code(kInvalidRecord,
                  "a compressed batch is read in place (DefaultRecord.readPartiallyFrom), "
                  "where a record's length is never compared with its fields",
                  false, /*kafka_appends=*/true);
    }
    return Code(kInvalidRecord, "LogValidator: the records do not read (InvalidRecordException)");
  }
  // After the complete batches: a corrupt header, or a batch cut short.
  if (w.corrupt_at != SIZE_MAX) {
    return Code(kCorruptMessage,
                "UnifiedLog.analyzeAndValidateRecords: ByteBufferLogInputStream.nextBatchSize "
                "(CorruptRecordException)");
  }
  return Code(kCorruptMessage,
              "the batch iterator stops at a batch cut short, and UnifiedLog.trimInvalidBytes "
              "drops it",
              false, /*kafka_appends=*/true);
}

// Validates records fields as RecordsFieldValidator does; a fault in a field a broker
// reads past (kWholeBatches) is kept as a Refusal instead of failing the reader. One per
// decode (it collects).
class RefusalCollector final : public RecordsValidator {
 public:
  explicit RefusalCollector(const RecordsOptions& options) : options_(options) {}

  void Validate(Reader& r, const FieldSpec& field, int16_t version,
                std::span<const uint8_t> bytes, size_t offset) const override {
    RecordsOptions options = options_;
    options.quirks |= r.quirks();
    options.max_alloc_bytes = std::min(options.max_alloc_bytes, r.alloc_budget_left());
    Error e = ValidateRecordsField(bytes, offset, r.path(), field.records, version, options);
    if (e.ok()) return;
    if (field.records.layout != RecordsLayout::kWholeBatches || IsDecoderLimit(e)) {
      r.Fail(e);
      return;
    }
    std::string part = RenderPath(r.path());
    // What a refusal keeps is charged to the decode's allocation budget: a frame of a
    // million refused partitions fails as a limit (kAllocationBudget), never grows memory
    // without bound.
    if (!r.Charge(sizeof(Refusal) + part.size() + e.path.size() + e.detail.size(), offset)) {
      return;
    }
    const Answer a = BrokerAnswer(e, part, bytes, field.records, version);
    refusals_.push_back(Refusal{std::move(part), std::move(e), a.code, a.name, a.whole_request,
                                a.kafka_appends, a.source});
  }

  std::vector<Refusal> Take() const { return std::move(refusals_); }

 private:
  RecordsOptions options_;
  mutable std::vector<Refusal> refusals_;
};

}  // namespace

std::string Refusal::ToString() const {
  std::string s =
      absl::StrFormat("%s: %s (%d): %s", part, error_name, error_code, fault.ToString());
  if (whole_request) absl::StrAppend(&s, " (the broker answers every partition of the request so)");
  if (kafka_appends) absl::StrAppend(&s, " (Kafka 4.4 appends it: ", source, ")");
  return s;
}

const Refusal* BrokerRead::WholeRequest() const {
  const Refusal* first = nullptr;
  for (const Refusal& r : refusals) {
    if (!r.whole_request) continue;
    if (r.error_code == kCorruptMessage) return &r;  // the first-batch probe runs first
    if (first == nullptr) first = &r;
  }
  return first;
}

absl::StatusOr<BrokerRead> ReadRequestAsBroker(std::span<const uint8_t> frame,
                                               const FrameOptions& options) {
  if (options.records_mode != RecordsMode::kValidate) {
    auto decoded = DecodeRequestFrame(frame, options);
    if (!decoded.ok()) return decoded.status();
    return BrokerRead{*std::move(decoded), {}};
  }
  const RefusalCollector collector(options.records);
  int16_t header_version = 1;
  RequestHeader header;
  std::optional<AnyMessage> body;
  const absl::Status s = frame_internal::DecodeRequestFrameInto(
      frame, options, &header_version, &header,
      [&](const MessageOps& ops) { return body.emplace(ops).raw(); }, nullptr, &collector);
  if (!s.ok()) return s;
  return BrokerRead{RequestFrame{header_version, std::move(header), std::move(*body)},
                    collector.Take()};
}

}  // namespace kwire
