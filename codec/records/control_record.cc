// Control records (KIP-98): the key (version, type) and the EndTxnMarker value
// (version, coordinator epoch) of a control batch's one record; Kafka's ControlRecordType
// and EndTransactionMarker. Declared in record_batch.h.
#include <string>

#include "absl/strings/str_format.h"
#include "codec/records/record_batch.h"
#include "codec/wire/reader.h"
#include "codec/wire/writer.h"

namespace kwire {

Error DecodeControlRecord(const Record& record, ControlRecord* out) {
  *out = ControlRecord{};
  if (!record.key) {
    return MakeError(ErrorKind::kCorruptRecords, 0, nullptr, "control record with a null key");
  }
  Reader k(reinterpret_cast<const uint8_t*>(record.key->data()), record.key->size());
  out->version = k.ReadInt16();
  out->type = k.ReadInt16();
  if (!k.ok()) {
    return MakeError(ErrorKind::kCorruptRecords, 0, nullptr,
                     absl::StrFormat("control record key of %d bytes (need 4)",
                                     record.key->size()));
  }
  // Like Java's ControlRecordType.parse: a negative version is corruption (higher ones
  // are future versions, read as far as version 0 goes).
  if (out->version < 0) {
    return MakeError(ErrorKind::kCorruptRecords, 0, nullptr,
                     absl::StrFormat("control record key version %d (negative)", out->version));
  }
  if (out->version == 0 && !k.AtEnd()) {
    return MakeError(ErrorKind::kCorruptRecords, 4, nullptr,
                     absl::StrFormat("control record key version 0 of %d bytes (expected 4)",
                                     record.key->size()));
  }
  if (out->type != kControlAbort && out->type != kControlCommit) return {};
  if (!record.value) {
    return MakeError(ErrorKind::kCorruptRecords, 0, nullptr,
                     "transaction marker with a null value");
  }
  Reader v(reinterpret_cast<const uint8_t*>(record.value->data()), record.value->size());
  EndTxnMarker m;
  m.version = v.ReadInt16();
  m.coordinator_epoch = v.ReadInt32();
  if (!v.ok()) {
    return MakeError(ErrorKind::kCorruptRecords, 0, nullptr,
                     absl::StrFormat("transaction marker value of %d bytes (need 6)",
                                     record.value->size()));
  }
  if (m.version < 0) {  // as Java's EndTransactionMarker.deserialize
    return MakeError(ErrorKind::kCorruptRecords, 0, nullptr,
                     absl::StrFormat("transaction marker version %d (negative)", m.version));
  }
  if (m.version == 0 && !v.AtEnd()) {
    return MakeError(ErrorKind::kCorruptRecords, 6, nullptr,
                     absl::StrFormat("transaction marker version 0 of %d bytes (expected 6)",
                                     record.value->size()));
  }
  out->marker = m;
  return {};
}

std::string ControlRecordKey(int16_t type, int16_t version) {
  Writer w;
  w.WriteInt16(version);
  w.WriteInt16(type);
  return std::string(reinterpret_cast<const char*>(w.data()), w.size());
}

std::string EndTxnMarkerValue(int32_t coordinator_epoch, int16_t version) {
  Writer w;
  w.WriteInt16(version);
  w.WriteInt32(coordinator_epoch);
  return std::string(reinterpret_cast<const char*>(w.data()), w.size());
}

}  // namespace kwire
