#include "codec/wire/byte_diff.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace kwire {

size_t FirstDifference(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first -
                             a.begin());
}

std::string DescribeFrameDifference(std::span<const uint8_t> expected,
                                    std::span<const uint8_t> got, std::string_view got_name) {
  constexpr size_t kSizePrefix = 4;
  size_t at = FirstDifference(expected, got);
  if (at == expected.size() && at == got.size()) return "";
  std::string out;
  if (expected.size() != got.size()) {
    out = absl::StrFormat("%d bytes expected, %d %s", expected.size(), got.size(), got_name);
    if (at < kSizePrefix && expected.size() >= kSizePrefix && got.size() >= kSizePrefix) {
      // Only the prefix so far: look past it.
      out += ": the size prefix differs; after it, ";
      at = kSizePrefix + FirstDifference(expected.subspan(kSizePrefix), got.subspan(kSizePrefix));
    } else {
      out += "; ";
    }
  }
  if (at < expected.size() && at < got.size()) {
    absl::StrAppendFormat(&out, "first difference at byte %d (expected %02x, %s %02x)", at,
                          expected[at], got_name, got[at]);
  } else {
    absl::StrAppendFormat(&out, "the bytes agree until byte %d, where the %s frame ends", at,
                          at == got.size() ? std::string(got_name) : std::string("expected"));
  }
  return out;
}

}  // namespace kwire
