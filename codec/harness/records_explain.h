// Records explain hook for `kwire explain` (and any dissector): renders the batches of
// a records field as a tree of labelled nodes, after decompression.
//
//   Batch[0] @61: magic 2, baseOffset 0, 3 records, zstd, crc ok
//     baseOffset: 0                      (one child per header field, with offsets)
//     ...
//     compression: zstd
//     crc: 0x1a2b3c4d (ok)               or  0x... (MISMATCH, computed 0x...)
//     Records: 3
//       Record[0] offset 0: timestamp 1700000000000
//         key: "user-1"
//         value: "{\"a\":1,..." … (2048 bytes)
//         Headers[0]: "trace" = 00 01 02 …
//   partial batch @400: 37 of 120 bytes (normal at the end of a Fetch response)
//   error: corrupt records at byte 77 in ....Batch[1] (...)
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

#include "codec/records/record_batch.h"
#include "codec/records/validate.h"

namespace kwire {

/// One line of the explanation tree.
struct ExplainNode {
  std::string name;   ///< e.g. "Batch[0]", "baseOffset", "Record[2]", "key", "Headers[0]".
  std::string type;   ///< e.g. "RecordBatch v2", "int64", "record", "bytes" (may be empty).
  std::string value;  ///< Rendered value / summary (may be empty).
  /// Absolute byte offset of the item (header fields, batches, records of uncompressed
  /// batches), or kNoOffset for items inside a decompressed payload and summaries.
  size_t offset = kNoOffset;
  size_t length = 0;  ///< Bytes on the wire (0 when offset is kNoOffset).
  std::vector<ExplainNode> children;

  static constexpr size_t kNoOffset = static_cast<size_t>(-1);
};

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
};

/// Explains the records field `field` whose first byte is at absolute offset
/// `field_offset`. Returns one node per batch, then a "partial batch" node or an
/// "error" node if iteration ended that way. `path`: the field's path for error texts.
std::vector<ExplainNode> ExplainRecords(std::span<const uint8_t> field,
                                        const ExplainOptions& options = {},
                                        size_t field_offset = 0,
                                        const PathNode* path = nullptr);

/// Renders nodes as indented text, two spaces per level: "name @offset: value" (the
/// offset when known and `with_offsets` is set; the type is not shown).
std::string RenderExplainText(const std::vector<ExplainNode>& nodes, bool with_offsets = true,
                              int indent = 0);

/// Renders bytes for display: printable ASCII (and \n, \t, \", \\ escaped) as a quoted
/// string, anything else as space-separated hex; cut to `max_bytes` with
/// " … (N bytes)" appended when longer. "null" for nullopt.
std::string AbbreviateBytes(const std::optional<std::string_view>& bytes, size_t max_bytes);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_RECORDS_EXPLAIN_H_
