#include "codec/harness/print_records.h"

#include <iterator>

namespace kwire {

bool PrintRecordBatches(const RecordsPrintInput& in, std::vector<PrintNode>& out) {
  const RecordsPolicy& policy = in.field.records;
  if (policy.layout == RecordsLayout::kUnaligned) return false;
  ExplainOptions o;
  o.records.quirks = in.quirks;
  if (policy.layout != RecordsLayout::kNotRecords) o.policy = &policy;
  o.version = in.version;
  o.path = in.path;
  o.depth = in.depth;
  const PathNode field{nullptr, in.path.c_str(), -1};  // error texts name the field
  std::vector<PrintNode> nodes = ExplainRecords(in.data, o, in.offset, &field);
  out.insert(out.end(), std::make_move_iterator(nodes.begin()),
             std::make_move_iterator(nodes.end()));
  return true;
}

}  // namespace kwire
