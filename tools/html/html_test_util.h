// Helpers shared by the tests of tools/html (html_test.cc, report_test.cc).
#ifndef KWIRE_TOOLS_HTML_HTML_TEST_UTIL_H_
#define KWIRE_TOOLS_HTML_HTML_TEST_UTIL_H_

#include <cstddef>
#include <string_view>

namespace kwire::html::test_util {

/// How many times `needle` occurs in `hay`, without overlap.
inline size_t Count(std::string_view hay, std::string_view needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string_view::npos;
       at = hay.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

}  // namespace kwire::html::test_util

#endif  // KWIRE_TOOLS_HTML_HTML_TEST_UTIL_H_
