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

ExplainNode Node(std::string name, std::string type, std::string value,
                 size_t offset = ExplainNode::kNoOffset, size_t length = 0) {
  ExplainNode n;
  n.name = std::move(name);
  n.type = std::move(type);
  n.value = std::move(value);
  n.offset = offset;
  n.length = length;
  return n;
}

void AddHeaderFields(const BatchView& b, ExplainNode* out) {
  const BatchHeader& h = b.header();
  const size_t at = b.offset();
  auto add = [&](const char* name, std::string value, size_t rel, size_t len) {
    static constexpr const char* kTypes[] = {"", "int8", "int16", "", "int32", "", "", "",
                                             "int64"};
    const char* type = len == 4 && std::string_view(name) == "crc" ? "uint32" : kTypes[len];
    out->children.push_back(Node(name, type, std::move(value), at + rel, len));
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
ExplainNode RecordNode(const BatchView& b, const Record& rec, size_t j, bool in_payload,
                       const RecordLayout* lay, const ExplainOptions& o) {
  std::string summary = absl::StrFormat("offset %d, timestamp %d", rec.offset, rec.timestamp);
  if (rec.control) {
    const ControlRecord& c = *rec.control;
    const char* type = c.type == kControlAbort    ? "ABORT"
                       : c.type == kControlCommit ? "COMMIT"
                                                  : nullptr;
    absl::StrAppend(&summary, ", control ", type ? type : absl::StrCat("type ", c.type));
    if (c.marker) absl::StrAppend(&summary, " (coordinatorEpoch ", c.marker->coordinator_epoch, ")");
  }
  ExplainNode n = Node(absl::StrFormat("Record[%d]", j), b.magic() == 2 ? "record" : "message",
                       summary, in_payload ? ExplainNode::kNoOffset : rec.wire_offset,
                       in_payload ? 0 : rec.wire_size);
  auto bytes = [&](const std::optional<std::string_view>& v) {
    return AbbreviateBytes(v, o.max_value_bytes);
  };
  auto length = [](const std::optional<std::string_view>& v) {
    return v ? absl::StrCat(v->size()) : std::string("-1");
  };
  if (lay != nullptr) {
    // Every field at its position, in wire order (protocol guide "Record"): the field
    // runs to the next one's first byte.
    auto add = [](ExplainNode& parent, const char* name, const char* type, std::string value,
                  size_t at, size_t next) {
      parent.children.push_back(Node(name, type, std::move(value), at, next - at));
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
      ExplainNode hn = Node(absl::StrFormat("Headers[%d]", k), "header",
                            absl::StrCat(bytes(h.key), " = ", bytes(h.value)), hl.key_length,
                            next - hl.key_length);
      add(hn, "headerKeyLength", "varint", absl::StrCat(h.key.size()), hl.key_length, hl.key);
      add(hn, "headerKey", "string", bytes(h.key), hl.key, hl.value_length);
      add(hn, "headerValueLength", "varint", length(h.value), hl.value_length, hl.value);
      add(hn, "value", "bytes", bytes(h.value), hl.value, next);
      n.children.push_back(std::move(hn));
    }
    return n;
  }
  if (b.magic() == 2) {  // wire order (protocol guide "Record"); no positions here
    n.children.push_back(Node("attributes", "int8", absl::StrCat(rec.attributes)));
    n.children.push_back(Node("timestampDelta", "varlong", absl::StrCat(rec.timestamp_delta)));
    n.children.push_back(Node("offsetDelta", "varint", absl::StrCat(rec.offset_delta)));
  }
  n.children.push_back(Node("key", "bytes", bytes(rec.key)));
  n.children.push_back(Node("value", "bytes", bytes(rec.value)));
  for (size_t k = 0; k < rec.headers.size(); ++k) {
    const RecordHeader& h = rec.headers[k];
    n.children.push_back(Node(absl::StrFormat("Headers[%d]", k), "header",
                              absl::StrCat(bytes(h.key), " = ", bytes(h.value))));
  }
  return n;
}

}  // namespace

std::vector<ExplainNode> ExplainRecords(std::span<const uint8_t> field, const ExplainOptions& o,
                                        size_t field_offset, const PathNode* path) {
  std::vector<ExplainNode> out;
  BatchIterator it(field, o.records, field_offset, path);
  BatchView b;
  size_t skipped = 0;
  size_t next_offset = field_offset;  // first byte not covered by a complete batch
  while (it.Next(&b)) {
    next_offset = b.offset() + b.bytes().size();
    if (out.size() >= o.max_batches) {
      ++skipped;
      continue;
    }
    const BatchHeader& h = b.header();
    const std::string crc =
        b.crc_ok() ? absl::StrFormat("0x%08x (ok)", h.crc)
                   : absl::StrFormat("0x%08x (MISMATCH, computed 0x%08x)", h.crc,
                                     b.computed_crc());
    ExplainNode n = Node(
        absl::StrFormat("Batch[%d]", b.index()),
        b.magic() == 2 ? "RecordBatch v2" : absl::StrFormat("message v%d", b.magic()),
        absl::StrFormat("magic %d, baseOffset %d, %s, %s, crc %s", b.magic(), h.base_offset,
                        h.records_count < 0 ? std::string("records in wrapper")
                                            : absl::StrFormat("%d records", h.records_count),
                        AttributeSummary(b), b.crc_ok() ? "ok" : "MISMATCH"),
        b.offset(), b.bytes().size());
    if (o.header_fields) AddHeaderFields(b, &n);
    n.children.push_back(Node("compression", "", CompressionName(h.compression())));
    n.children.push_back(Node("crcCheck", "", crc));
    if (b.magic() == 2) {
      n.children.push_back(Node(
          "producer", "", absl::StrFormat("id %d, epoch %d, baseSequence %d%s", h.producer_id,
                                      h.producer_epoch, h.base_sequence,
                                      h.is_transactional() ? ", transactional" : "")));
    }
    RecordSet set;
    Error e = o.policy != nullptr ? CheckBatchAllowed(b, path, *o.policy, o.version, o.records.quirks) : Error{};
    // Uncompressed v2 batches: the decoder reports every field's position.
    std::vector<RecordLayout> layouts;
    RecordsOptions ro = o.records;
    if (b.magic() == 2 && h.compression() == Compression::kNone) ro.layout = &layouts;
    if (e.ok()) e = b.DecodeRecords(ro, &set);
    if (!e.ok()) {
      n.children.push_back(Node("error", "", e.ToString(), e.offset));
    } else {
      const bool in_payload = h.compression() != Compression::kNone;
      ExplainNode recs = Node(
          "Records", in_payload ? "compressed records" : "records",
          in_payload ? absl::StrFormat("%d (%d bytes compressed, %d decompressed)", set.size(),
                                       b.payload().size(), set.decompressed().size())
                     : absl::StrCat(set.size()),
          b.payload_offset(), b.payload().size());
      for (size_t j = 0; j < set.size() && j < o.max_records_per_batch; ++j) {
        recs.children.push_back(
            RecordNode(b, set[j], j, in_payload, j < layouts.size() ? &layouts[j] : nullptr, o));
      }
      if (set.size() > o.max_records_per_batch) {
        recs.children.push_back(
            Node("…", "", absl::StrFormat("%d more records", set.size() - o.max_records_per_batch)));
      }
      n.children.push_back(std::move(recs));
    }
    out.push_back(std::move(n));
  }
  if (skipped > 0) out.push_back(Node("…", "", absl::StrFormat("%d more batches", skipped)));
  // The policy's verdict on how the field ends (a partial batch where none may be, no
  // batch where one is required).
  const Error end = o.policy != nullptr && it.state() != BatchIterator::kError
                        ? CheckFieldEnd(it, field_offset + field.size(), path, *o.policy,
                                        o.version)
                        : Error{};
  if (!end.ok() && it.state() != BatchIterator::kPartialBatch) {
    out.push_back(Node("error", "", end.ToString(), end.offset, 0));
  }
  switch (it.state()) {
    case BatchIterator::kPartialBatch: {
      const char* why = !end.ok()          ? "not allowed here"
                        : o.policy != nullptr ? "allowed at the end of this field"
                                              : "normal at the end of a Fetch response";
      out.push_back(Node(
          end.ok() ? "partial batch" : "error", "",
          !end.ok() ? end.ToString()
          : it.partial_need() > 0
              ? absl::StrFormat("%d of %d bytes (%s)", it.partial_have(), it.partial_need(), why)
              : absl::StrFormat("%d bytes, header incomplete (%s)", it.partial_have(), why),
          it.partial_offset(), it.partial_have()));
      break;
    }
    case BatchIterator::kError:
      // Covers the failing batch to the end of the field (the error text has the byte).
      out.push_back(Node("error", "", it.error().ToString(), next_offset,
                         field_offset + field.size() - next_offset));
      break;
    default:
      break;
  }
  return out;
}

std::string RenderExplainText(const std::vector<ExplainNode>& nodes, bool with_offsets,
                              int indent) {
  std::string out;
  for (const ExplainNode& n : nodes) {
    out.append(static_cast<size_t>(indent) * 2, ' ');
    out += n.name;
    if (with_offsets && n.offset != ExplainNode::kNoOffset) absl::StrAppend(&out, " @", n.offset);
    if (!n.value.empty()) absl::StrAppend(&out, ": ", n.value);
    out += '\n';
    out += RenderExplainText(n.children, with_offsets, indent + 1);
  }
  return out;
}

}  // namespace kwire
