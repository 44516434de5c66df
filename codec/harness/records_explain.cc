#include "codec/harness/records_explain.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/wire/hex.h"
#include "codec/wire/utf8.h"

namespace kwire {

std::string AbbreviateBytes(const std::optional<std::string_view>& bytes, size_t max_bytes) {
  if (!bytes) return "null";
  const std::string_view b = *bytes;
  const std::string_view shown = b.substr(0, max_bytes);
  // Text if every shown byte is printable ASCII or common whitespace.
  const bool text = std::all_of(shown.begin(), shown.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return (u >= 0x20 && u < 0x7f) || c == '\n' || c == '\t' || c == '\r';
  });
  // Text (printable ASCII, \n \t \r) is escaped as every displayed string is.
  std::string out = text ? "\"" + EscapeUtf8ForDisplay(shown) + "\"" : HexString(shown, " ");
  if (b.size() > max_bytes) absl::StrAppendFormat(&out, " … (%d bytes)", b.size());
  return out;
}

namespace {

constexpr size_t kNoOffset = static_cast<size_t>(-1);

// Where new nodes go: under the node at `path` (depth `depth` for its children), whose
// offset unpositioned children take.
struct Parent {
  std::string path;
  int depth;
  size_t offset;
};

// What a row is. Add takes a node's kind, type and verdict from it, never from the row's
// name or type text.
enum class Row : uint8_t {
  kWire,     ///< A field or group read from the wire, or from a decompressed payload.
  kBatch,    ///< A batch or a partial batch: Kind::kRecords.
  kPayload,  ///< A compressed batch's records: the rows below it have no wire position.
  kDerived,  ///< A value worked out from the batch (compression, crcCheck, producer):
             ///< typed "(derived)", it is no wire field.
  kSummary,  ///< "…": rows left out.
  kError,    ///< A failure: marked failed.
};

// Appends one node under `p` and returns it as the parent of its children. A node
// without a wire position (kNoOffset: inside a decompressed payload, a summary, a derived
// value) takes its parent's offset and size 0.
Parent Add(std::vector<PrintNode>& out, const Parent& p, Row row, std::string name,
           std::string type, std::string value, size_t offset = kNoOffset, size_t length = 0) {
  PrintNode n;
  const bool placed = offset != kNoOffset;
  n.kind = row == Row::kBatch ? PrintNode::Kind::kRecords : PrintNode::Kind::kField;
  n.depth = p.depth;
  n.offset = placed ? offset : p.offset;
  n.size = placed ? length : 0;
  n.path = absl::StrCat(p.path, ".", name);
  n.type = row == Row::kDerived ? "(derived)" : std::move(type);
  // Records of a compressed batch are read from the decompressed payload: their rows
  // have no wire position (they are placed at the payload's first byte, size 0).
  if (row == Row::kPayload) {
    n.note = "in the decompressed payload: the rows below have no wire position [offset, 0B]";
  }
  n.failed = row == Row::kError;
  n.label = std::move(name);
  n.value = std::move(value);
  Parent child{n.path, p.depth + 1, n.offset};
  out.push_back(std::move(n));
  return child;
}

void AddHeaderFields(const BatchView& b, const Parent& batch, std::vector<PrintNode>& out) {
  const BatchHeader& h = b.header();
  const size_t at = b.offset();
  auto add = [&](const char* name, std::string value, size_t rel, size_t len) {
    static constexpr const char* kTypes[] = {"", "int8", "int16", "", "int32", "", "", "",
                                             "int64"};
    const char* type = len == 4 && std::string_view(name) == "crc" ? "uint32" : kTypes[len];
    Add(out, batch, Row::kWire, name, type, std::move(value), at + rel, len);
  };
  add("baseOffset", absl::StrCat(h.base_offset), 0, 8);
  add(b.magic() == 2 ? "batchLength" : "messageSize", absl::StrCat(h.batch_length), 8, 4);
  if (b.magic() == 2) {
    add("partitionLeaderEpoch", absl::StrCat(h.partition_leader_epoch), 12, 4);
    add("magic", "2", 16, 1);
    add("crc", absl::StrFormat("0x%08x", h.crc), 17, 4);
    add("attributes", absl::StrFormat("0x%04x", static_cast<uint16_t>(h.attributes)), 21, 2);
    add("lastOffsetDelta", absl::StrCat(h.last_offset_delta), 23, 4);
    add("baseTimestamp", absl::StrCat(h.base_timestamp), 27, 8);
    add("maxTimestamp", absl::StrCat(h.max_timestamp), 35, 8);
    add("producerId", absl::StrCat(h.producer_id), 43, 8);
    add("producerEpoch", absl::StrCat(h.producer_epoch), 51, 2);
    add("baseSequence", absl::StrCat(h.base_sequence), 53, 4);
    add("recordsCount", absl::StrCat(h.records_count), 57, 4);
  } else {
    add("crc", absl::StrFormat("0x%08x", h.crc), 12, 4);
    add("magic", absl::StrCat(b.magic()), 16, 1);
    add("attributes", absl::StrFormat("0x%02x", static_cast<uint8_t>(h.attributes)), 17, 1);
    if (b.magic() == 1) add("timestamp", absl::StrCat(h.base_timestamp), 18, 8);
  }
}

std::string AttributeSummary(const BatchView& b) {
  const BatchHeader& h = b.header();
  std::string s = CompressionName(h.compression());
  if (b.magic() >= 1) s += h.log_append_time() ? ", LogAppendTime" : ", CreateTime";
  if (b.magic() == 2) {
    if (h.is_transactional()) s += ", transactional";
    if (h.is_control()) s += ", control";
    if (h.attributes & kAttrDeleteHorizon) s += ", deleteHorizon";
  }
  return s;
}

// `lay`: the positions of the record's fields (uncompressed v2 batches), or null.
void AddRecord(const BatchView& b, const Record& rec, size_t j, bool in_payload,
               const RecordLayout* lay, const ExplainOptions& o, const Parent& records,
               std::vector<PrintNode>& out) {
  std::string summary = absl::StrFormat("offset %d, timestamp %d", rec.offset, rec.timestamp);
  if (rec.control) {
    const ControlRecord& c = *rec.control;
    const char* type = c.type == kControlAbort    ? "ABORT"
                       : c.type == kControlCommit ? "COMMIT"
                                                  : nullptr;
    absl::StrAppend(&summary, ", control ", type ? type : absl::StrCat("type ", c.type));
    if (c.marker) absl::StrAppend(&summary, " (coordinatorEpoch ", c.marker->coordinator_epoch, ")");
  }
  const Parent n = Add(out, records, Row::kWire, absl::StrFormat("Record[%d]", j),
                       b.magic() == 2 ? "record" : "message", summary,
                       in_payload ? kNoOffset : rec.wire_offset, in_payload ? 0 : rec.wire_size);
  auto bytes = [&](const std::optional<std::string_view>& v) {
    return AbbreviateBytes(v, o.max_value_bytes);
  };
  auto length = [](const std::optional<std::string_view>& v) {
    return v ? absl::StrCat(v->size()) : std::string("-1");
  };
  if (lay != nullptr) {
    // Every field at its position, in wire order (protocol guide "Record"): the field
    // runs to the next one's first byte.
    auto add = [&out](const Parent& parent, const char* name, const char* type,
                      std::string value, size_t at, size_t next) {
      Add(out, parent, Row::kWire, name, type, std::move(value), at, next - at);
    };
    const size_t headers_end = lay->headers.empty() ? lay->end : lay->headers[0].key_length;
    add(n, "length", "varint", absl::StrCat(lay->end - lay->attributes), lay->length,
        lay->attributes);
    add(n, "attributes", "int8", absl::StrCat(rec.attributes), lay->attributes,
        lay->timestamp_delta);
    add(n, "timestampDelta", "varlong", absl::StrCat(rec.timestamp_delta), lay->timestamp_delta,
        lay->offset_delta);
    add(n, "offsetDelta", "varint", absl::StrCat(rec.offset_delta), lay->offset_delta,
        lay->key_length);
    add(n, "keyLength", "varint", length(rec.key), lay->key_length, lay->key);
    add(n, "key", "bytes", bytes(rec.key), lay->key, lay->value_length);
    add(n, "valueLen", "varint", length(rec.value), lay->value_length, lay->value);
    add(n, "value", "bytes", bytes(rec.value), lay->value, lay->header_count);
    add(n, "headersCount", "varint", absl::StrCat(rec.headers.size()), lay->header_count,
        headers_end);
    for (size_t k = 0; k < rec.headers.size() && k < lay->headers.size(); ++k) {
      const RecordHeader& h = rec.headers[k];
      const RecordLayout::Header& hl = lay->headers[k];
      const size_t next = k + 1 < lay->headers.size() ? lay->headers[k + 1].key_length : lay->end;
      const Parent hn = Add(out, n, Row::kWire, absl::StrFormat("Headers[%d]", k), "header",
                            absl::StrCat(bytes(h.key), " = ", bytes(h.value)), hl.key_length,
                            next - hl.key_length);
      add(hn, "headerKeyLength", "varint", absl::StrCat(h.key.size()), hl.key_length, hl.key);
      add(hn, "headerKey", "string", bytes(h.key), hl.key, hl.value_length);
      add(hn, "headerValueLength", "varint", length(h.value), hl.value_length, hl.value);
      add(hn, "value", "bytes", bytes(h.value), hl.value, next);
    }
    return;
  }
  if (b.magic() == 2) {  // wire order (protocol guide "Record"); no positions here
    Add(out, n, Row::kWire, "attributes", "int8", absl::StrCat(rec.attributes));
    Add(out, n, Row::kWire, "timestampDelta", "varlong", absl::StrCat(rec.timestamp_delta));
    Add(out, n, Row::kWire, "offsetDelta", "varint", absl::StrCat(rec.offset_delta));
  }
  Add(out, n, Row::kWire, "key", "bytes", bytes(rec.key));
  Add(out, n, Row::kWire, "value", "bytes", bytes(rec.value));
  for (size_t k = 0; k < rec.headers.size(); ++k) {
    const RecordHeader& h = rec.headers[k];
    Add(out, n, Row::kWire, absl::StrFormat("Headers[%d]", k), "header",
        absl::StrCat(bytes(h.key), " = ", bytes(h.value)));
  }
}

}  // namespace

std::vector<PrintNode> ExplainRecords(std::span<const uint8_t> field, const ExplainOptions& o,
                                      size_t field_offset, const PathNode* path) {
  std::vector<PrintNode> out;
  const Parent top{o.path, o.depth, field_offset};
  BatchIterator it(field, o.records, field_offset, path);
  BatchView b;
  size_t shown = 0, skipped = 0;
  size_t next_offset = field_offset;  // first byte not covered by a complete batch
  while (it.Next(&b)) {
    next_offset = b.offset() + b.bytes().size();
    if (shown >= o.max_batches) {
      ++skipped;
      continue;
    }
    ++shown;
    const BatchHeader& h = b.header();
    const std::string crc =
        b.crc_ok() ? absl::StrFormat("0x%08x (ok)", h.crc)
                   : absl::StrFormat("0x%08x (MISMATCH, computed 0x%08x)", h.crc,
                                     b.computed_crc());
    const Parent n = Add(
        out, top, Row::kBatch, absl::StrFormat("Batch[%d]", b.index()),
        b.magic() == 2 ? "RecordBatch v2" : absl::StrFormat("message v%d", b.magic()),
        absl::StrFormat("magic %d, baseOffset %d, %s, %s, crc %s", b.magic(), h.base_offset,
                        h.records_count < 0 ? std::string("records in wrapper")
                                            : absl::StrFormat("%d records", h.records_count),
                        AttributeSummary(b), b.crc_ok() ? "ok" : "MISMATCH"),
        b.offset(), b.bytes().size());
    if (o.header_fields) AddHeaderFields(b, n, out);
    Add(out, n, Row::kDerived, "compression", "", CompressionName(h.compression()));
    Add(out, n, Row::kDerived, "crcCheck", "", crc);
    if (b.magic() == 2) {
      Add(out, n, Row::kDerived, "producer", "",
          absl::StrFormat("id %d, epoch %d, baseSequence %d%s", h.producer_id, h.producer_epoch,
                          h.base_sequence, h.is_transactional() ? ", transactional" : ""));
    }
    RecordSet set;
    Error e = o.policy != nullptr ? CheckBatchAllowed(b, path, *o.policy, o.version, o.records.quirks) : Error{};
    // Uncompressed v2 batches: the decoder reports every field's position.
    std::vector<RecordLayout> layouts;
    RecordsOptions ro = o.records;
    if (b.magic() == 2 && h.compression() == Compression::kNone) ro.layout = &layouts;
    if (e.ok()) e = b.DecodeRecords(ro, &set);
    if (!e.ok()) {
      Add(out, n, Row::kError, "error", "", e.ToString(), e.offset);
      continue;
    }
    const bool in_payload = h.compression() != Compression::kNone;
    const Parent recs = Add(
        out, n, in_payload ? Row::kPayload : Row::kWire, "Records",
        in_payload ? "compressed records" : "records",
        in_payload ? absl::StrFormat("%d (%d bytes compressed, %d decompressed)", set.size(),
                                     b.payload().size(), set.decompressed().size())
                   : absl::StrCat(set.size()),
        b.payload_offset(), b.payload().size());
    for (size_t j = 0; j < set.size() && j < o.max_records_per_batch; ++j) {
      AddRecord(b, set[j], j, in_payload, j < layouts.size() ? &layouts[j] : nullptr, o, recs,
                out);
    }
    if (set.size() > o.max_records_per_batch) {
      Add(out, recs, Row::kSummary, "…", "",
          absl::StrFormat("%d more records", set.size() - o.max_records_per_batch));
    }
  }
  if (skipped > 0) {
    Add(out, top, Row::kSummary, "…", "", absl::StrFormat("%d more batches", skipped));
  }
  // The policy's verdict on how the field ends (a partial batch where none may be, no
  // batch where one is required).
  const Error end = o.policy != nullptr && it.state() != BatchIterator::kError
                        ? CheckFieldEnd(it, field_offset + field.size(), path, *o.policy,
                                        o.version)
                        : Error{};
  if (!end.ok() && it.state() != BatchIterator::kPartialBatch) {
    Add(out, top, Row::kError, "error", "", end.ToString(), end.offset, 0);
  }
  switch (it.state()) {
    case BatchIterator::kPartialBatch: {
      const char* why = !end.ok()          ? "not allowed here"
                        : o.policy != nullptr ? "allowed at the end of this field"
                                              : "normal at the end of a Fetch response";
      Add(out, top, end.ok() ? Row::kBatch : Row::kError, end.ok() ? "partial batch" : "error",
          "",
          !end.ok() ? end.ToString()
          : it.partial_need() > 0
              ? absl::StrFormat("%d of %d bytes (%s)", it.partial_have(), it.partial_need(), why)
              : absl::StrFormat("%d bytes, header incomplete (%s)", it.partial_have(), why),
          it.partial_offset(), it.partial_have());
      break;
    }
    case BatchIterator::kError:
      // Covers the failing batch to the end of the field (the error text has the byte).
      Add(out, top, Row::kError, "error", "", it.error().ToString(), next_offset,
          field_offset + field.size() - next_offset);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace kwire
