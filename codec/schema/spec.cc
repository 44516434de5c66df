#include "codec/schema/spec.h"

#include <cstring>


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

}  // namespace kwire
