#include "codec/harness/print_records.h"

namespace kwire {

void AppendPrintNodes(const std::vector<ExplainNode>& nodes, int depth, const std::string& path,
                      size_t parent_offset, std::vector<PrintNode>& out) {
  for (const ExplainNode& n : nodes) {
    PrintNode p;
    const bool batch = n.name.rfind("Batch[", 0) == 0;
    p.kind = batch || n.name == "partial batch" ? PrintNode::Kind::kRecords : PrintNode::Kind::kField;
    p.depth = depth;
    const bool placed = n.offset != ExplainNode::kNoOffset;
    p.offset = placed ? n.offset : parent_offset;
    p.size = placed ? n.length : 0;
    p.path = path + "." + n.name;
    p.label = n.name;
    // A row without a wire position, type or children that is not a summary ("…"): a
    // value derived from the batch (compression, crcCheck, producer), not a wire field.
    const bool derived = !placed && n.type.empty() && n.children.empty() && n.name != "…";
    p.type = derived ? "(derived)" : n.type;
    p.value = n.value;
    // Records of a compressed batch are read from the decompressed payload: their rows
    // have no wire position (they are placed at the payload's first byte, size 0).
    if (n.type == "compressed records") {
      p.note = "in the decompressed payload: the rows below have no wire position [offset, 0B]";
    }
    p.failed = n.name == "error";
    out.push_back(std::move(p));
    AppendPrintNodes(n.children, depth + 1, path + "." + n.name, placed ? n.offset : parent_offset,
                     out);
  }
}

bool PrintRecordBatches(const RecordsPrintInput& in, std::vector<PrintNode>& out) {
  const RecordsPolicy& policy = in.field.records;
  if (policy.layout == RecordsLayout::kUnaligned) return false;
  ExplainOptions o;
  o.records.quirks = in.quirks;
  if (policy.layout != RecordsLayout::kNotRecords) o.policy = &policy;
  o.version = in.version;
  const PathNode field{nullptr, in.path.c_str(), -1};  // error texts name the field
  AppendPrintNodes(ExplainRecords(in.data, o, in.offset, &field), in.depth, in.path, in.offset,
                   out);
  return true;
}

}  // namespace kwire
