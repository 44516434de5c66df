// Out-of-line parts of the fillers (fill.h): the empty RecordBatch of minimal
// instances and the run-time dispatch over the generated FillOps table.
#include "codec/harness/fill.h"

#include <cstring>

#include "codec/records/crc32c.h"

namespace kwire {

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

// Every request, response and header type has an entry (the table and the registry come
// from the same definitions); a message of any other type is left as it is.
void FillMinimal(int16_t version, AnyMessage& m) {
  if (const FillOps* ops = FindFillOps(&m.spec())) ops->fill_minimal(version, m.raw());
}

void FillRandom(std::mt19937_64& rng, int16_t version, AnyMessage& m) {
  if (const FillOps* ops = FindFillOps(&m.spec())) ops->fill_random(rng, version, m.raw());
}

}  // namespace kwire
