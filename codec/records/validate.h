// Records validation: checks the bytes of a `records` field (Produce requests, Fetch
// and ShareFetch responses, ...) under the field's records policy, as frames are
// decoded.
//
// The policy (codec/schema/spec.h RecordsPolicy, declared per field in
// tools/generate.py RECORDS_POLICY; table and sources in codec/records/README.md) says
// how the bytes are laid out — whole batches (Produce), a partial last batch allowed
// (Fetch, ShareFetch: the broker stops at max bytes), or an unaligned byte range that is
// never parsed (FetchSnapshot) — and what they may hold by version (Produce v3+: exactly
// one batch, magic 2; zstd from v7, KIP-110).
//
// Validation walks every batch with BatchIterator and decodes its records with
// BatchView::DecodeRecords (header, CRC-32C / CRC-32, record framing, counts,
// decompression within RecordsOptions' caps), then applies the policy. It keeps nothing:
// the field's bytes stay verbatim in the message.
//
// Errors carry the absolute frame offset and the whole path, e.g.
//   corrupt_records at byte 231 in ProduceRequest.TopicData[0].PartitionData[0].Records
//     .Batch[0].Record[3].Headers[1].Key (...)
// Kinds: those of record_batch.h (kCorruptRecords, kCrcMismatch, kCompressionError,
// kInvalidLength, kVarint*, kCountTooLarge), plus kCorruptRecords for a batch cut short
// where the layout is kWholeBatches and kRecordsNotAllowed for a policy rule.
#ifndef KWIRE_CODEC_RECORDS_VALIDATE_H_
#define KWIRE_CODEC_RECORDS_VALIDATE_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/records/record_batch.h"
#include "codec/schema/decode.h"
#include "codec/schema/spec.h"
#include "codec/wire/error.h"
#include "codec/wire/reader.h"

namespace kwire {

/// Checks one records field: `bytes` (length prefix excluded) whose first byte is at
/// absolute offset `offset`, of a message at `version`, under `policy`. `path` names the
/// field (errors extend it with `.Batch[i]...`; may be null). Returns the first fault,
/// or an ok Error. kUnaligned (and kNotRecords) fields are not parsed: always ok.
Error ValidateRecordsField(std::span<const uint8_t> bytes, size_t offset, const PathNode* path,
                           const RecordsPolicy& policy, int16_t version,
                           const RecordsOptions& options = {});

/// The policy's rule for one complete batch: index `index` of the field (0-based) in a
/// message at `version`. kRecordsNotAllowed at the batch's magic byte (wrong magic) or
/// attributes (codec) or first byte (a second batch), with path `<path>.Batch[index]`.
/// `quirks` (quirks.h): kQuirkOldProduceCodecUnchecked lets a zstd batch pass below the
/// policy's one_v2_batch_from, as Java does. Shared by validation and `kwire explain`.
Error CheckBatchAllowed(const BatchView& batch, const PathNode* path, const RecordsPolicy& policy,
                        int16_t version, uint32_t quirks);

/// The policy's rule for how the field ends: `it` has stopped (kEnd or kPartialBatch,
/// after count() complete batches), the field's bytes end at absolute `end`. A partial
/// batch where the layout is not kPartialTail is kCorruptRecords at its first byte; no
/// batch at all where exactly one is required is kRecordsNotAllowed at `end`.
Error CheckFieldEnd(const BatchIterator& it, size_t end, const PathNode* path,
                    const RecordsPolicy& policy, int16_t version);

/// The RecordsValidator that frame decoding installs (RecordsDecode::validator): runs
/// ValidateRecordsField with its RecordsOptions (caps, CRC enforcement; its quirks apply
/// inside records only) plus the reader's quirks (they apply inside records too: e.g. an
/// overlong varint offsetDelta under kQuirkNonCanonicalVarint). Stateless, so one
/// instance may serve many threads, unless its options name a caller-owned
/// RecordsOptions::scratch: then one thread at a time.
class RecordsFieldValidator final : public RecordsValidator {
 public:
  explicit RecordsFieldValidator(const RecordsOptions& options = {}) : options_(options) {}
  void Validate(Reader& r, const FieldSpec& field, int16_t version,
                std::span<const uint8_t> bytes, size_t offset) const override;

 private:
  RecordsOptions options_;
};

}  // namespace kwire

#endif  // KWIRE_CODEC_RECORDS_VALIDATE_H_
