// Text from feeds is hostile until escaped: terminals obey ESC sequences, and bidi
// overrides make a line read differently from what it is.

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff {

namespace {

bool invisible_format(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) ||                    // C1 controls
         cp == 0x061C || cp == 0x200E || cp == 0x200F ||  // bidi marks
         (cp >= 0x202A && cp <= 0x202E) ||                // bidi embeddings, overrides
         (cp >= 0x2066 && cp <= 0x2069) ||                // bidi isolates
         cp == 0x2028 || cp == 0x2029 ||                  // line and paragraph separators
         cp == 0xFEFF;                                    // stray BOM / zero-width no-break
}

}  // namespace

std::string escape_terminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto [cp, n] = decode_utf8(text, i);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if ((cp < 0x20 && cp != '\t') || cp == 0x7F) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
    } else if (invisible_format(cp)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

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
