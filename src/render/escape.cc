// Text from feeds is hostile until escaped: terminals obey ESC sequences, and bidi
// overrides make a line read differently from what it is.

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff {

std::string_view cut_chars(std::string_view text, std::size_t max_chars, bool* cut) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (chars == max_chars) {
      if (cut) *cut = true;
      return text.substr(0, i);
    }
    const std::size_t n = decode_utf8(text, i).size;
    i += n ? n : 1;
    ++chars;
  }
  if (cut) *cut = false;
  return text;
}

}  // namespace feeddiff
