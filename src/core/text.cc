#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "feeddiff/core.h"

namespace feeddiff {

std::string with_thousands(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", with_thousands(n), n == 1 ? one : many);
}

std::string_view version() {
  return FEEDDIFF_VERSION;
}

std::string_view project_url() {
  return "https://github.com/feeddiff/feeddiff";
}

Status check_source_name(std::string_view name) {
  auto bad = [&](std::string_view why) {
    return Error{Errc::bad_name, "source name '" + std::string(name.substr(0, 100)) + "' " +
                                     std::string(why) +
                                     " (use letters, digits, '.', '_' and '-', starting with a "
                                     "letter or digit)"};
  };
  if (name.empty()) return bad("is empty");
  if (name.size() > 100) return bad("is longer than 100 characters");
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return bad("must start with a letter or digit");
  for (char c : name)
    if (!alnum(c) && c != '.' && c != '_' && c != '-')
      return bad("has a character that is not allowed");
  if (name.find("..") != std::string_view::npos) return bad("contains '..'");
  if (name.ends_with(".lock") || name.ends_with(".")) return bad("ends with '.' or '.lock'");
  return Ok{};
}

std::string_view trim(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

Utf8Char decode_utf8(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return {b, 1};
  std::size_t n;
  char32_t cp;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    cp = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    cp = b & 0x07;
  } else {
    return {};  // a continuation byte, or a lead byte no valid sequence starts with
  }
  if (s.size() - i < n) return {};
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char c = byte(i + k);
    if ((c & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {cp, n};
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::optional<CharRef> parse_char_ref(std::string_view s) {
  if (s.size() < 4 || s[0] != '&' || s[1] != '#') return std::nullopt;
  const bool hex = s[2] == 'x' || s[2] == 'X';
  const std::size_t digits = hex ? 3 : 2;
  std::size_t k = digits;
  char32_t value = 0;
  for (; k < s.size(); ++k) {
    const char d = s[k];
    char32_t digit;
    if (d >= '0' && d <= '9')
      digit = static_cast<char32_t>(d - '0');
    else if (hex && d >= 'a' && d <= 'f')
      digit = static_cast<char32_t>(d - 'a' + 10);
    else if (hex && d >= 'A' && d <= 'F')
      digit = static_cast<char32_t>(d - 'A' + 10);
    else
      break;
    // Saturates: once past U+10FFFF, more digits cannot bring the number back.
    value = std::min<char32_t>(value * (hex ? 16 : 10) + digit, kCharRefTooLarge);
  }
  if (k == digits || k == s.size() || s[k] != ';') return std::nullopt;
  return CharRef{value, k + 1};
}

void append_tab_field(std::string& out, std::string_view field) {
  out += '\t';
  for (char c : field) {
    if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\\')
      out += "\\\\";
    else
      out += c;
  }
}

bool split_tab_fields(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  fields.emplace_back();
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\t') {
      fields.emplace_back();
    } else if (c == '\\') {
      if (++i == line.size()) return false;
      const char e = line[i];
      if (e == 't')
        fields.back() += '\t';
      else if (e == 'n')
        fields.back() += '\n';
      else if (e == '\\')
        fields.back() += '\\';
      else
        return false;
    } else {
      fields.back() += c;
    }
  }
  return true;
}

std::size_t count_words(std::string_view text) {
  std::size_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

Result<std::size_t> parse_size(std::string_view text) {
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end == text.data())
    return Error{Errc::usage, fmt::format("bad size '{}' (use e.g. 50MiB, 512KiB, 1000000)", text)};
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit.empty() || unit == "B") return n;
  if (unit == "KiB" || unit == "K") return n << 10;
  if (unit == "MiB" || unit == "M") return n << 20;
  if (unit == "GiB" || unit == "G") return n << 30;
  if (unit == "KB") return n * 1000;
  if (unit == "MB") return n * 1000 * 1000;
  return Error{Errc::usage, fmt::format("bad size unit in '{}' (B, KiB, MiB, GiB, KB, MB)", text)};
}

// Hand-written: CLI11 suggests nothing, and dtl's edit distance counts insertions and
// deletions only, so a swap or a wrong letter would cost two.
std::size_t typo_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string_view> nearest_words(std::string_view word,
                                            const std::vector<std::string_view>& candidates,
                                            bool prefixes) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::size_t best = limit + 1;
  std::vector<std::string_view> nearest;
  for (std::string_view candidate : candidates) {
    std::size_t d = typo_distance(word, candidate);
    if (prefixes && word.size() >= 2 && candidate.starts_with(word)) d = std::min(d, limit);
    if (d > limit || d > best) continue;
    if (d < best) nearest.clear();
    best = d;
    nearest.push_back(candidate);
  }
  return nearest;
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

std::string one_line(std::string_view text, std::size_t max_chars) {
  std::string flat(text);
  for (char& c : flat)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (max_chars == 0) return flat;
  bool cut = false;
  std::string out(cut_chars(flat, max_chars, &cut));
  if (cut) out += "…";
  return out;
}

std::string trailer_value(std::string_view text, std::size_t max_bytes) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  out = std::string(trim(out));
  if (out.size() > max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

bool looks_like_json(std::string_view body) {
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  body = trim(body);
  return !body.empty() && (body.front() == '{' || body.front() == '[');
}

}  // namespace feeddiff
