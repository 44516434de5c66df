// Adapter from the records explain hook (explain.h) to the message printer's
// RecordsPrinter (codec/harness/print.h), so `kwire explain` shows the batches of every
// records field: set PrintOptions::records = &PrintRecordBatches.
//
// Library kwire_records_print (kwire_records + kwire_codec); kwire_records itself does
// not depend on the message code.
#ifndef KWIRE_CODEC_HARNESS_PRINT_RECORDS_H_
#define KWIRE_CODEC_HARNESS_PRINT_RECORDS_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "codec/harness/print.h"
#include "codec/harness/records_explain.h"

namespace kwire {

/// RecordsPrinter: explains the batches of a records payload (`in.data`, whose first
/// byte is at absolute `in.offset`) with ExplainRecords (CRCs shown, not enforced; values
/// cut at 64 bytes; the field's records policy and the quirks in force) and appends them
/// at `in.depth`, paths under `in.path` (e.g. "<path>.Batch[0].baseOffset").
/// The top-level nodes (batches, then a partial batch or an error) tile the payload;
/// batches are Kind::kRecords, error nodes are marked failed. Items inside a
/// decompressed payload have no wire position: they take the payload's offset with size
/// 0. Returns true, except for an unaligned field (FetchSnapshot), which stays opaque.
bool PrintRecordBatches(const RecordsPrintInput& in, std::vector<PrintNode>& out);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_PRINT_RECORDS_H_
