// Counts in messages (error details, explain notes) with their noun's number:
// "1 byte", "0 bytes", "3 elements".
#ifndef KWIRE_CODEC_WIRE_PLURAL_H_
#define KWIRE_CODEC_WIRE_PLURAL_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace kwire {

/// `n` and `noun` ("byte", "element"), the noun plural ("s" appended) unless n is 1.
inline std::string CountOf(uint64_t n, std::string_view noun) {
  std::string out = std::to_string(n);
  out += ' ';
  out.append(noun);
  if (n != 1) out += 's';
  return out;
}

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_PLURAL_H_
