// Text from feeds is hostile until escaped: terminals obey ESC sequences, and bidi
// overrides make a line read differently from what it is.

#include <fmt/format.h>

#include "feeddiff/render.h"

namespace feeddiff {

namespace {

// Decodes one UTF-8 sequence at s[i]; returns its length, or 0 when invalid.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n;
  if (b < 0x80) {
    cp = b;
    return 1;
  } else if ((b & 0xE0) == 0xC0) {
    n = 2;
    cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3;
    cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

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
    char32_t cp = 0;
    std::size_t n = decode(text, i, cp);
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
    char32_t cp = 0;
    std::size_t n = decode(text, i, cp);
    i += n ? n : 1;
    ++chars;
  }
  if (cut) *cut = false;
  return text;
}

}  // namespace feeddiff
