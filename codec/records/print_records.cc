#include "codec/records/print_records.h"

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
    p.type = n.type;
    p.value = n.value;
    p.failed = n.name == "error";
    out.push_back(std::move(p));
    AppendPrintNodes(n.children, depth + 1, path + "." + n.name, placed ? n.offset : parent_offset,
                     out);
  }
}

bool PrintRecordBatches(std::span<const uint8_t> data, size_t offset, int depth,
                        const std::string& path, std::vector<PrintNode>& out) {
  AppendPrintNodes(ExplainRecords(data, ExplainOptions{}, offset), depth, path, offset, out);
  return true;
}

}  // namespace kwire
