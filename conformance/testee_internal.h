// Shared by the testee runner's files (testee.cc, testee_judge.cc, testee_report.cc);
// not part of the runner's API (testee.h).
#ifndef KWIRE_CONFORMANCE_TESTEE_INTERNAL_H_
#define KWIRE_CONFORMANCE_TESTEE_INTERNAL_H_

#include <cstddef>
#include <string>

namespace kwire::conformance::testee_internal {

/// The testee protocol's operations, in protocol order.
inline constexpr const char* kOps[] = {"decode", "encode", "roundtrip", "validate"};

/// Text from the testee made safe to print and to put in XML: control characters (but
/// tab and newline) and bytes that are not well-formed UTF-8 become '?'.
std::string Clean(const std::string& s);

/// `s` cut to its first `n` bytes, "..." after a cut, then Clean (a sequence cut in two
/// shows as '?').
std::string Shorten(std::string s, size_t n = 200);

}  // namespace kwire::conformance::testee_internal

#endif  // KWIRE_CONFORMANCE_TESTEE_INTERNAL_H_
