// Reading a request the way a broker does: a frame that can be read, but that the broker
// answers in part with an error code instead of doing what it asks.
//
// Two different verdicts hide behind "this Produce request is bad":
//  * the frame cannot be read (a truncated header, an array count beyond the bytes, a
//    bad varint in the body): DecodeRequestFrame fails, and a broker closes the
//    connection (Kafka's RequestContext.parseRequest throws InvalidRequestException);
//  * the frame reads, but a partition's `Records` bytes are faulty (no batch, two
//    batches, a CRC mismatch, a corrupt record): the request parser keeps records as
//    opaque bytes (Java `Readable.readRecords`), and the broker answers *that partition*
//    with an error code (KafkaApis.handleProduceRequest → ProduceRequest.validateRecords,
//    then UnifiedLog.append → LogValidator) while the other partitions are appended.
// ReadRequestAsBroker tells them apart: the first is an error Status, the second a
// decoded frame with one Refusal per refused partition.
//
// Only the fields a broker reads past are refused (RecordsLayout::kWholeBatches: Produce
// requests' records, codec/records/README.md); a fault anywhere else still fails the
// decode. Response records (Fetch, ShareFetch) are not a broker's to refuse: they fail the
// decode as in DecodeResponseFrame (a consumer raises CorruptRecordException).
#ifndef KWIRE_CODEC_PROTOCOL_REFUSAL_H_
#define KWIRE_CODEC_PROTOCOL_REFUSAL_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codec/protocol/frame.h"
#include "codec/wire/error.h"

namespace kwire {

/// One part of a readable request that a broker refuses: a Produce partition.
struct Refusal {
  /// The records field refused, e.g. "ProduceRequest.TopicData[0].PartitionData[1].Records"
  /// (the broker's answer is per partition: that partition's response carries the code).
  std::string part;
  /// The first fault kwire finds in it: kind (kRecordsNotAllowed, kCorruptRecords,
  /// kCrcMismatch, kCompressionError, kInvalidLength, kVarint*, kCountTooLarge,
  /// kInvalidUtf8), absolute offset in the frame, path below `part` (".Batch[1]...").
  Error fault;
  /// The Kafka error code Apache Kafka 4.4's broker answers the partition with
  /// (Errors.java), e.g. 87 INVALID_RECORD, and its name. By the broker's own sequence
  /// (KafkaApis.handleProduceRequest, ProduceRequest.validateRecords,
  /// ReplicaManager.appendToLocalLog, UnifiedLog.analyzeAndValidateRecords, LogValidator;
  /// Errors.forException of what they throw):
  ///   87 INVALID_RECORD     no complete batch, two batches or magic 0/1 from v3; a records
  ///                         count or a record that does not read (InvalidRecordException)
  ///   76 UNSUPPORTED_COMPRESSION_TYPE  zstd below v7 (KIP-110)
  ///    2 CORRUPT_MESSAGE    a batch's CRC, a batchLength below 14 or a magic above 2
  ///                         (CorruptRecordException), a v2 batch of 51-60 bytes
  ///   -1 UNKNOWN_SERVER_ERROR  a corrupt compressed stream (KafkaException), codec id
  ///                         5-7 (IllegalArgumentException), a v2 batch under 51 bytes
  ///                         (IndexOutOfBoundsException in ReplicaManager.handleProduceAppend)
  int16_t error_code = 0;
  const char* error_name = "";
  /// The broker answers every partition of the request with error_code, not only this one
  /// (and appends none): a fault in a first batch's header, which KafkaApis probes for
  /// every partition first (RequestUtils.hasTransactionalRecords), or an exception that
  /// escapes handleProduceRequest (codec id 5-7 below v7, a v2 batch under 51 bytes).
  bool whole_request = false;
  /// Apache Kafka 4.4 appends this partition all the same; kwire refuses it on purpose
  /// (codec/records/README.md), with the code of the nearest broker check: the broker
  /// drops a partial last batch after complete ones (UnifiedLog.trimInvalidBytes), or its
  /// record reader takes the fault (a non-canonical varint, a key or value length below
  /// -1 read as null: ByteUtils, Utils.readBytes; a compressed batch's record lengths are
  /// never compared with the record's fields: DefaultRecord.readPartiallyFrom).
  bool kafka_appends = false;
  /// The Kafka code path that gives error_code.
  const char* source = "";

  /// "ProduceRequest.TopicData[0].PartitionData[0].Records: INVALID_RECORD (87): <fault>",
  /// then " (the broker answers every partition of the request so)" or " (Kafka 4.4
  /// appends it: <why>)" as they apply.
  std::string ToString() const;
};

/// A request frame as a broker reads it.
struct BrokerRead {
  RequestFrame frame;              ///< Decoded whole; records bytes kept verbatim.
  std::vector<Refusal> refusals;   ///< The parts the broker refuses, in frame order.
  bool refused() const { return !refusals.empty(); }
  /// The refusal whose code the broker answers every partition with, or null: the
  /// first-batch probe's (CORRUPT_MESSAGE, it runs before anything else) if any, else the
  /// first whole_request refusal in frame order.
  const Refusal* WholeRequest() const;
};

/// Decodes a request frame like DecodeRequestFrame (same options, errors and offsets),
/// except that a fault in a Produce request's records field does not fail the decode:
/// the field is kept verbatim, the decode goes on, and the partition is listed in
/// `refusals` with the broker's error code. With options.records_mode kOpaque nothing is
/// looked at and nothing is refused. Decoding's own limits still fail the decode, also
/// inside records (kAllocationBudget, also for what the refusals keep; a batch past
/// RecordsOptions' max_decompressed_bytes or max_records). Null records (length -1) are
/// not refused: the schema allows them (a Kafka 4.4 broker does not answer such a
/// request at all: conformance/testees/apache-kafka/FAILURES.md, B1). Threads: as
/// DecodeRequestFrame (the refusals are per call).
[[nodiscard]] absl::StatusOr<BrokerRead> ReadRequestAsBroker(std::span<const uint8_t> frame,
                                               const FrameOptions& options = {});

}  // namespace kwire

#endif  // KWIRE_CODEC_PROTOCOL_REFUSAL_H_
