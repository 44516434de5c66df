#include "codec/schema/spec.h"

#include <cstring>

#include "codec/records/crc32c.h"
#include "codec/schema/fill.h"

namespace kwire {

const char* FieldTypeName(FieldType t) {
  switch (t) {
    case FieldType::kInt8: return "int8";
    case FieldType::kInt16: return "int16";
    case FieldType::kUint16: return "uint16";
    case FieldType::kInt32: return "int32";
    case FieldType::kInt64: return "int64";
    case FieldType::kFloat64: return "float64";
    case FieldType::kBool: return "bool";
    case FieldType::kUuid: return "uuid";
    case FieldType::kString: return "string";
    case FieldType::kBytes: return "bytes";
    case FieldType::kRecords: return "records";
    case FieldType::kStruct: return "struct";
    case FieldType::kArray: return "array";
  }
  return "?";
}

const std::string& EmptyRecordBatch() {
  static const std::string batch = [] {
    // RecordBatch v2 header (protocol guide "Record Batch"), zero records.
    uint8_t b[61] = {};
    b[11] = 49;      // batchLength: bytes after the length field (61 - 12)
    b[16] = 2;       // magic
    // crc (bytes 17..20) covers attributes (byte 21) .. end.
    const uint32_t crc = Crc32c(b + 21, sizeof b - 21);
    b[17] = static_cast<uint8_t>(crc >> 24);
    b[18] = static_cast<uint8_t>(crc >> 16);
    b[19] = static_cast<uint8_t>(crc >> 8);
    b[20] = static_cast<uint8_t>(crc);
    return std::string(reinterpret_cast<const char*>(b), sizeof b);
  }();
  return batch;
}

}  // namespace kwire
