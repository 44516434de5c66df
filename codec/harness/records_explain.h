// Records explain hook for `kwire explain` (and any dissector): the batches of a records
// field as nodes of the explanation tree (PrintNode), after decompression:
//
//   Batch[0]            RecordBatch v2  = magic 2, baseOffset 0, 3 records, zstd, ...
//     baseOffset        int64           = 0         (one row per header field)
//     ...
//     compression       (derived)       = zstd
//     crcCheck          (derived)       = 0x1a2b3c4d (ok)  or  0x... (MISMATCH, computed 0x...)
//     Records           compressed records = 3 (...)
//       Record[0]       record          = offset 0, timestamp 1700000000000
//         key           bytes           = "user-1"
//         value         bytes           = "{\"a\":1,..." … (2048 bytes)
//         Headers[0]    header          = "trace" = 00 01 02 …
//   partial batch                       = 37 of 120 bytes (normal at the end of a Fetch response)
//   error                               = corrupt_records at byte 77 in ....Batch[1] (...)
//
// Never fails: decoding errors become "error" nodes and stop at that batch (the
// iterator's error) or at that batch's records (records errors; iteration continues).
#ifndef KWIRE_CODEC_HARNESS_RECORDS_EXPLAIN_H_
#define KWIRE_CODEC_HARNESS_RECORDS_EXPLAIN_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/harness/print.h"
#include "codec/records/record_batch.h"
#include "codec/records/validate.h"

namespace kwire {

/// Options for ExplainRecords.
struct ExplainOptions {
  /// Decode options. Defaults differ from RecordsOptions: CRC mismatches are shown,
  /// not enforced, so a corrupt CRC still shows the records.
  RecordsOptions records = [] {
    RecordsOptions o;
    o.enforce_crc = false;
    return o;
  }();
  /// Keys, values and header values longer than this are cut and marked "… (N bytes)".
  size_t max_value_bytes = 64;
  /// Records shown per batch; the rest are summarized in one node.
  size_t max_records_per_batch = 100;
  /// Batches shown; the rest are summarized in one node.
  size_t max_batches = 1000;
  /// Include one child node per header field (baseOffset, batchLength, ...).
  bool header_fields = true;
  /// The field's records policy (validate.h), or null: any batches, a partial last batch
  /// shown as such. With a policy, what it forbids is shown as "error" nodes (a partial
  /// batch where the layout is not kPartialTail, a second batch or a wrong magic or codec
  /// for `version`).
  const RecordsPolicy* policy = nullptr;
  int16_t version = 0;  ///< The message version, for the policy's rules.
  /// Where the nodes stand in the tree they join: paths under `path`
  /// ("<path>.Batch[0].baseOffset"), the top-level nodes at `depth`.
  std::string path = "records";
  int depth = 0;
};

/// Explains the records field `field` whose first byte is at absolute offset
/// `field_offset`, as PrintNodes (codec/harness/print.h, the one node model of every
/// explanation; render with RenderObjectTree) in pre-order: per batch a Kind::kRecords
/// node, its header fields, the rows derived from it (type "(derived)": compression,
/// crcCheck, producer) and "Records" with one node per record and its fields; then a
/// "partial batch" (Kind::kRecords) or an "error" node (failed) if iteration ended that
/// way. The top-level nodes tile the field. A node without a wire position (inside a
/// decompressed payload, a summary "…", a derived row) takes its parent's offset and size
/// 0. `path`: the field's path for error texts.
std::vector<PrintNode> ExplainRecords(std::span<const uint8_t> field,
                                      const ExplainOptions& options = {},
                                      size_t field_offset = 0, const PathNode* path = nullptr);

/// Renders bytes for display: printable ASCII (and \n, \t, \", \\ escaped) as a quoted
/// string, anything else as space-separated hex; cut to `max_bytes` with
/// " … (N bytes)" appended when longer. "null" for nullopt.
std::string AbbreviateBytes(const std::optional<std::string_view>& bytes, size_t max_bytes);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_RECORDS_EXPLAIN_H_
