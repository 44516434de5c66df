// `kwire testee`: kwire itself as a conformance testee (testee protocol version 1,
// conformance/README.md "Testing another implementation"), for
// `kwire conformance --testee 'kwire testee'`.
#ifndef KWIRE_TOOLS_KWIRE_TESTEE_H_
#define KWIRE_TOOLS_KWIRE_TESTEE_H_

#include <cstdint>
#include <iosfwd>

#include "codec/protocol/frame.h"

namespace kwire::cli {

/// Answers the testee protocol on `in` / `out` until `in` ends: the hello (operations
/// decode, encode, roundtrip, validate), then one answer line per request line, flushed.
/// decode / roundtrip / validate decode strictly (or under `quirks`) with records
/// validated as `records` says; rejections carry the codec's error text and its kind
/// (FORMAT.md names), offset and path. encode reads the JSON mapping (FrameFromJson).
/// A request line that is not a protocol request gets {"type":"error","error":...}.
/// Returns 0.
int ServeTestee(std::istream& in, std::ostream& out, uint32_t quirks, RecordsMode records);

}  // namespace kwire::cli

#endif  // KWIRE_TOOLS_KWIRE_TESTEE_H_
