#include "codec/records/validate.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace kwire {
namespace {

// Absolute offsets of batch header fields (record_batch.h's layout).
constexpr size_t kMagicAt = 16;
constexpr size_t kAttributesAt = 21;

bool OneV2Batch(const RecordsPolicy& policy, int16_t version) {
  return version >= policy.one_v2_batch_from;
}

// The calling thread's records scratch (RecordsOptions::scratch unset).
RecordSet& ThreadScratch() {
  thread_local RecordSet scratch;
  return scratch;
}

}  // namespace

Error CheckBatchAllowed(const BatchView& batch, const PathNode* path, const RecordsPolicy& policy,
                        int16_t version, uint32_t quirks) {
  const PathNode node{path, "Batch", static_cast<int64_t>(batch.index())};
  if (OneV2Batch(policy, version)) {
    if (batch.index() > 0) {
      return MakeError(ErrorKind::kRecordsNotAllowed, batch.offset(), &node,
                       absl::StrFormat("a second record batch; version %d allows exactly one "
                                       "per partition; source: %s",
                                       version, policy.source));
    }
    if (batch.magic() != 2) {
      return MakeError(ErrorKind::kRecordsNotAllowed, batch.offset() + kMagicAt, &node,
                       absl::StrFormat("magic %d; version %d allows only magic 2 batches; source: %s",
                                       batch.magic(), version, policy.source));
    }
  }
  if (batch.compression() == Compression::kZstd && version < policy.zstd_from &&
      !((quirks & kQuirkOldProduceCodecUnchecked) && !OneV2Batch(policy, version))) {
    return MakeError(ErrorKind::kRecordsNotAllowed,
                     batch.offset() + (batch.magic() == 2 ? kAttributesAt : kMagicAt + 1), &node,
                     absl::StrFormat("zstd batch in version %d; zstd needs version %d or later "
                                     "(KIP-110)",
                                     version, policy.zstd_from));
  }
  return Error{};
}

Error CheckFieldEnd(const BatchIterator& it, size_t end, const PathNode* path,
                    const RecordsPolicy& policy, int16_t version) {
  if (it.state() == BatchIterator::kPartialBatch && policy.layout != RecordsLayout::kPartialTail) {
    const PathNode node{path, "Batch", static_cast<int64_t>(it.count())};
    return MakeError(
        ErrorKind::kCorruptRecords, it.partial_offset(), &node,
        it.partial_need() > 0
            ? absl::StrFormat("batch cut short: batchLength says %d bytes, %d are left; only "
                              "Fetch and ShareFetch responses may end with a partial batch",
                              it.partial_need(), it.partial_have())
            : absl::StrFormat("%d bytes left, fewer than a batch header; only Fetch and "
                              "ShareFetch responses may end with a partial batch",
                              it.partial_have()));
  }
  if (it.count() == 0 && OneV2Batch(policy, version)) {
    return MakeError(ErrorKind::kRecordsNotAllowed, end, path,
                     absl::StrFormat("no complete record batch; version %d needs exactly one per "
                                     "partition; source: %s",
                                     version, policy.source));
  }
  return Error{};
}

Error ValidateRecordsField(std::span<const uint8_t> bytes, size_t offset, const PathNode* path,
                           const RecordsPolicy& policy, int16_t version,
                           const RecordsOptions& options) {
  if (policy.layout == RecordsLayout::kNotRecords || policy.layout == RecordsLayout::kUnaligned) {
    return Error{};
  }
  BatchIterator it(bytes, options, offset, path);
  BatchView batch;
  // One record and a decompressed payload, reused across the batches and across calls:
  // the caller's (RecordsOptions::scratch), or this thread's, trimmed on the way out so
  // that a thread keeps at most 1 MiB of it. Validation is not re-entered on one thread
  // (no callback runs inside it).
  RecordSet& scratch = options.scratch != nullptr ? *options.scratch : ThreadScratch();
  struct TrimOnExit {
    RecordSet* own;
    ~TrimOnExit() {
      if (own != nullptr) own->Trim(size_t{1} << 20);
    }
  } trim{options.scratch != nullptr ? nullptr : &scratch};
  while (it.Next(&batch)) {
    if (Error e = CheckBatchAllowed(batch, path, policy, version, options.quirks);
        !e.ok()) {
      return e;
    }
    if (Error e = batch.CheckRecords(options, &scratch); !e.ok()) return e;
  }
  if (it.state() == BatchIterator::kError) return it.error();
  return CheckFieldEnd(it, offset + bytes.size(), path, policy, version);
}

void RecordsFieldValidator::Validate(Reader& r, const FieldSpec& field, int16_t version,
                                     std::span<const uint8_t> bytes, size_t offset) const {
  RecordsOptions options = options_;
  options.quirks |= r.quirks();
  // Validation's memory (decompressed bytes, Record objects) is freed before it returns:
  // it runs within what is left of the decode's allocation budget.
  options.max_alloc_bytes = std::min(options.max_alloc_bytes, r.alloc_budget_left());
  Error e = ValidateRecordsField(bytes, offset, r.path(), field.records, version, options);
  if (e.ok()) return;
  r.Fail(e);
}

}  // namespace kwire
