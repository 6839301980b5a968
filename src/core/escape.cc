// Escaping text for where it is printed: markup (HTML, XML, OPML) and terminals. Text from
// feeds is hostile until escaped: terminals obey ESC sequences, and bidi overrides make a
// line read differently from what it is.

#include <fmt/format.h>

#include "feeddiff/core.h"

namespace feeddiff {

void append_markup_escaped(std::string& out, std::string_view text, bool apostrophe) {
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        if (apostrophe)
          out += "&#39;";
        else
          out += ch;
        break;
      default:
        out += ch;
    }
  }
}

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

}  // namespace feeddiff
