#include "tools/html/schema.h"

#include "absl/strings/str_format.h"

namespace kwire::html {

std::vector<SchemaRow> SchemaOf(const MessageSpec* spec) {
  std::vector<SchemaRow> rows;
  if (const SchemaOps* ops = FindSchemaOps(spec); ops != nullptr) ops->rows(rows);
  return rows;
}

std::string RangeText(VersionRange r) {
  if (r.empty()) return "none";
  if (r.hi == kMaxVersion) return absl::StrFormat("%d+", r.lo);
  if (r.lo == r.hi) return absl::StrFormat("%d", r.lo);
  return absl::StrFormat("%d-%d", r.lo, r.hi);
}

}  // namespace kwire::html
