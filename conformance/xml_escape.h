// Text for a JUnit XML report (the conformance runners' --junit output): XML 1.0 has no
// way to write most C0 control characters, even as references, so they are shown as their
// Unicode control pictures (U+2400 + c, e.g. U+2401 for 0x01); tab and newline are kept.
#ifndef KWIRE_CONFORMANCE_XML_ESCAPE_H_
#define KWIRE_CONFORMANCE_XML_ESCAPE_H_

#include <string>
#include <string_view>

#include "absl/strings/str_format.h"

namespace kwire::conformance {

/// `s` escaped for an XML attribute value or element text: & < > " ' as entities, C0
/// controls other than tab and newline as character references to their control pictures.
/// Bytes >= 0x80 pass through (the caller passes UTF-8).
inline std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += absl::StrFormat("&#x%x;", static_cast<unsigned char>(c) + 0x2400);
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

}  // namespace kwire::conformance

#endif  // KWIRE_CONFORMANCE_XML_ESCAPE_H_
