// Repairs that keep the document's meaning, made on the decoded text before parsing. Each
// is logged with its line; offsets are mapped so parse errors point into the input.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "normalize/internal.h"

namespace feeddiff::normalize_detail {
namespace {

constexpr bool is_control(unsigned char c) {
  return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

bool is_xml_char(std::uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string hex_code(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// Bytes the main loop must look at; everything else is copied as is.
constexpr std::array<bool, 256> make_special() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = is_control(static_cast<unsigned char>(c));
  t['&'] = true;
  t['<'] = true;
  t[0xEF] = true;  // U+FFFE and U+FFFF start with EF BF
  return t;
}
constexpr std::array<bool, 256> kSpecial = make_special();

constexpr std::array<bool, 256> make_control() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = is_control(static_cast<unsigned char>(c));
  return t;
}
constexpr std::array<bool, 256> kControl = make_control();

// The character after '<' that makes it a start or end tag.
bool starts_tag(char c) {
  return is_alpha(c) || c == '/' || c == '_' || c == ':' || static_cast<unsigned char>(c) >= 0x80;
}

class Repairer {
 public:
  Repairer(std::string_view in, RepairLog& log) : in_(in), log_(log) {}

  Repaired run() {
    reserve_large(out_.text, in_.size() + 64);
    std::size_t i = skip_leading();
    first_tag_ = copied_ = i;
    const std::size_t n = in_.size();
    while (i < n) {
      const std::size_t j = find_byte<true, '&', '<', 0xEF>(in_, i, kSpecial);
      if (j >= n) break;
      // A start or end tag, the common case, needs nothing (see markup()).
      if (in_[j] == '<' && j + 1 < n && starts_tag(in_[j + 1])) {
        i = j + 1;
        continue;
      }
      i = step(j);
    }
    flush(n);
    close_last_tag();
    return std::move(out_);
  }

 private:
  // The input is copied lazily: what needs no repair is appended in one piece when a repair
  // (or the end) comes. flush(to) appends the input up to `to`; edit_done(from) says that the
  // input from `from` on follows what is written now.
  void flush(std::size_t to) {
    out_.text.append(in_.data() + copied_, to - copied_);
    copied_ = to;
  }
  void edit_done(std::size_t in_pos) {
    copied_ = in_pos;
    out_.map.mark(out_.text.size(), in_pos);
  }

  // Whitespace, BOMs and junk before the first '<' go.
  std::size_t skip_leading() {
    const std::size_t lt = in_.find('<');
    if (lt == std::string_view::npos || lt == 0) return lt == 0 ? 0 : 0;
    const std::string_view prefix = in_.substr(0, lt);
    bool junk = false, bom = false;
    for (std::size_t k = 0; k < prefix.size(); ++k) {
      if (prefix.substr(k).starts_with("\xEF\xBB\xBF")) {
        bom = true;
        k += 2;
      } else if (!is_space(prefix[k])) {
        junk = true;
      }
    }
    if (junk)
      log_.add(in_, 0, "removed " + std::to_string(lt) + " bytes of junk before the first tag");
    else if (bom)
      log_.add(in_, 0, "removed a byte order mark after leading whitespace");
    else if (in_.substr(lt).starts_with("<?xml"))
      log_.add(in_, 0, "removed whitespace before the XML declaration");
    edit_done(lt);
    return lt;
  }

  // An input that ends inside its last end tag ("...</rss") lost only the '>'.
  void close_last_tag() {
    std::string& t = out_.text;
    std::size_t end = t.size();
    while (end > 0 && is_space(t[end - 1])) --end;
    std::size_t k = end;
    while (k > 0 && (is_alpha(t[k - 1]) || is_digit(t[k - 1]) || t[k - 1] == ':' ||
                     t[k - 1] == '_' || t[k - 1] == '-' || t[k - 1] == '.'))
      --k;
    if (k == end || k < 2 || t[k - 1] != '/' || t[k - 2] != '<') return;
    log_.add(in_, in_.size(), "closed the last end tag, which the input cut short");
    t.resize(end);
    t += '>';
  }

  // Copies [a, b) without the control characters XML forbids.
  void copy_clean(std::size_t a, std::size_t b) {
    std::size_t from = a;
    const std::string_view range = in_.substr(0, b);
    for (std::size_t k = find_byte<true>(range, a, kControl); k < b;
         k = find_byte<true>(range, k + 1, kControl)) {
      flush(k);
      log_.add(in_, k, "removed control character " + hex_code(static_cast<unsigned char>(in_[k])));
      from = k + 1;
      edit_done(from);
    }
  }

  // Handles the special byte at j; returns where to go on.
  std::size_t step(std::size_t j) {
    const unsigned char c = static_cast<unsigned char>(in_[j]);
    if (c == '<') return markup(j);
    if (c == '&') return ampersand(j);
    if (c == 0xEF) {
      if (j + 2 < in_.size() && static_cast<unsigned char>(in_[j + 1]) == 0xBF &&
          (static_cast<unsigned char>(in_[j + 2]) == 0xBE ||
           static_cast<unsigned char>(in_[j + 2]) == 0xBF)) {
        flush(j);
        log_.add(in_, j, "removed a non-character (U+FFFE or U+FFFF)");
        edit_done(j + 3);
        return j + 3;
      }
      return j + 1;
    }
    flush(j);
    log_.add(in_, j, "removed control character " + hex_code(c));
    edit_done(j + 1);
    return j + 1;
  }

  // Just past the first `end` from `from` as it reads once copy_clean has removed the control
  // characters: "--\0>" closes a comment in the repaired text, and markup taken to run on to a
  // later "-->" would leave what follows it unrepaired (the fuzz gate's crash of stop 48: a
  // reference to U+0014 came through, to be repaired only by a second pass).
  std::size_t skip_to(std::size_t from, std::string_view end) {
    const std::size_t e = in_.find(end, from);
    const std::size_t plain = e == std::string_view::npos ? in_.size() : e + end.size();
    if (find_byte<true>(in_.substr(0, plain), from, kControl) >= plain) return plain;
    // end is "-->", "]]>" or "?>": a run of one character, then '>'.
    const std::size_t run = end.size() - 1;
    std::size_t matched = 0;
    for (std::size_t k = from; k < in_.size(); ++k) {
      const auto c = static_cast<unsigned char>(in_[k]);
      if (kControl[c]) continue;
      if (in_[k] == end[matched]) {
        if (++matched == end.size()) return k + 1;
      } else {
        matched = in_[k] == end[0] ? run : 0;
      }
    }
    return in_.size();
  }

  std::size_t markup(std::size_t j) {
    const std::string_view rest = in_.substr(j);
    std::size_t end;
    if (rest.starts_with("<!--")) {
      end = skip_to(j + 4, "-->");
    } else if (rest.starts_with("<![CDATA[")) {
      end = skip_to(j + 9, "]]>");
    } else if (rest.starts_with("<!")) {
      // DOCTYPE and other declarations: to the '>' outside any internal subset.
      int depth = 0;
      end = in_.size();
      for (std::size_t k = j + 2; k < in_.size(); ++k) {
        const char ch = in_[k];
        if (ch == '[')
          ++depth;
        else if (ch == ']')
          --depth;
        else if (ch == '>' && depth <= 0) {
          end = k + 1;
          break;
        }
      }
      if (rest.starts_with("<!DOCTYPE")) declare_entities(in_.substr(j, end - j));
    } else if (rest.starts_with("<?")) {
      end = skip_to(j + 2, "?>");
      std::size_t t = j + 2;
      while (t < in_.size() && !is_space(in_[t]) && in_[t] != '?') ++t;
      const std::string_view target = in_.substr(j + 2, t - j - 2);
      const bool is_decl = target.size() == 3 && (target[0] | 0x20) == 'x' &&
                           (target[1] | 0x20) == 'm' && (target[2] | 0x20) == 'l';
      if (is_decl && j != first_tag_) {
        flush(j);
        log_.add(in_, j, "removed a second XML declaration");
        edit_done(end);
        return end;
      }
    } else if (rest.size() > 1 && starts_tag(rest[1])) {
      return j + 1;
    } else {
      flush(j);
      log_.add(in_, j, "escaped a '<' that starts no tag");
      out_.text += "&lt;";
      edit_done(j + 1);
      return j + 1;
    }
    copy_clean(j, end);
    return end;
  }

  std::size_t ampersand(std::size_t j) {
    const std::size_t n = in_.size();
    // The five XML entities, by far the most common, stay as they are.
    const std::string_view ref = in_.substr(j + 1, 5);
    for (std::string_view xml : {"amp;", "lt;", "gt;", "quot;", "apos;"})
      if (ref.starts_with(xml)) return j + 1 + xml.size();
    std::size_t k = j + 1;
    if (k < n && in_[k] == '#') {
      if (const auto char_ref = parse_char_ref(in_.substr(j))) {
        const std::size_t after = j + char_ref->size;
        if (!is_xml_char(char_ref->value)) {
          flush(j);
          // Any number of digits is a reference: the log shows at most 24 bytes of it.
          const std::string shown = char_ref->size <= 24
                                        ? std::string(in_.substr(j, char_ref->size))
                                        : std::string(in_.substr(j, 20)) + "...;";
          log_.add(in_, j,
                   "replaced the reference " + shown + " to a character XML forbids with U+FFFD");
          out_.text += "&#xFFFD;";
          edit_done(after);
        }
        return after;
      }
    } else if (k < n && is_alpha(in_[k])) {
      while (k < n && k - j <= 33 && (is_alpha(in_[k]) || is_digit(in_[k]))) ++k;
      if (k < n && in_[k] == ';') {
        const std::string_view name = in_.substr(j + 1, k - j - 1);
        if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos")
          return k + 1;
        flush(j);
        if (const std::string* value = declared(name);
            value && expanded_ + value->size() <= kMaxExpansion + in_.size()) {
          // Declared in the internal subset: pugixml does not expand those, so it is done here
          // (not a repair: it is what XML means).
          out_.text += *value;
          expanded_ += value->size();
          edit_done(k + 1);
          return k + 1;
        }
        if (const std::uint32_t cp = html_entity(name)) {
          log_.add(in_, j, "replaced &" + std::string(name) + "; with " + hex_code(cp));
          append_utf8(out_.text, cp);
        } else {
          log_.add(in_, j, "unknown entity &" + std::string(name) + "; kept as text");
          out_.text += "&amp;";
          out_.text.append(name);
          out_.text += ';';
        }
        edit_done(k + 1);
        return k + 1;
      }
    }
    flush(j);
    log_.add(in_, j, "escaped a '&' that starts no reference");
    out_.text += "&amp;";
    edit_done(j + 1);
    return j + 1;
  }

  // Internal general entities of the DOCTYPE whose value is plain text (no '&', '<', '%' or
  // control character; at most kMaxEntityValue bytes): their values, escaped for anywhere.
  // Parameter entities, external entities and values with markup or references are left out,
  // and their references are kept as text like any unknown entity.
  void declare_entities(std::string_view decl) {
    std::size_t p = 0;
    while ((p = decl.find("<!ENTITY", p)) != std::string_view::npos) {
      p += 8;
      std::size_t k = p;
      while (k < decl.size() && is_space(decl[k])) ++k;
      if (k == p || k >= decl.size() || decl[k] == '%') continue;
      const std::size_t name_start = k;
      while (k < decl.size() && !is_space(decl[k]) && decl[k] != '"' && decl[k] != '\'' &&
             decl[k] != '>')
        ++k;
      const std::string_view name = decl.substr(name_start, k - name_start);
      while (k < decl.size() && is_space(decl[k])) ++k;
      if (k >= decl.size() || (decl[k] != '"' && decl[k] != '\'')) continue;
      const char quote = decl[k++];
      const std::size_t close = decl.find(quote, k);
      if (close == std::string_view::npos) break;
      const std::string_view value = decl.substr(k, close - k);
      p = close + 1;
      const bool plain =
          value.size() <= kMaxEntityValue && std::none_of(value.begin(), value.end(), [](char c) {
            return c == '&' || c == '<' || c == '%' || is_control(static_cast<unsigned char>(c));
          });
      // The first declaration of a name binds (XML 1.0, 4.2).
      if (name.empty() || !plain || entities_.size() >= kMaxEntities) continue;
      if (!by_name_.try_emplace(name, entities_.size()).second) continue;
      std::string escaped;
      for (char c : value) {
        if (c == '"')
          escaped += "&quot;";
        else if (c == '\'')
          escaped += "&apos;";
        else if (c == '>')
          escaped += "&gt;";
        else
          escaped += c;
      }
      entities_.emplace_back(name, std::move(escaped));
    }
  }

  // Looked up by name, not along the list: a document may declare kMaxEntities names and
  // refer to them (or to names like them) millions of times.
  const std::string* declared(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &entities_[it->second].second;
  }

  static constexpr std::size_t kMaxEntityValue = 4096;
  static constexpr std::size_t kMaxEntities = 1000;
  // Bytes that expansions may add beyond the input's size (no "billion laughs").
  static constexpr std::size_t kMaxExpansion = std::size_t{1} << 20;

  std::vector<std::pair<std::string_view, std::string>> entities_;
  std::map<std::string_view, std::size_t> by_name_;  // name -> its place in entities_
  std::size_t expanded_ = 0;
  std::string_view in_;
  RepairLog& log_;
  Repaired out_;
  std::size_t first_tag_ = 0;
  std::size_t copied_ = 0;  // the input before this is in out_.text (or was left out)
};

}  // namespace

Repaired repair_xml(std::string_view decoded, RepairLog& log) {
  return Repairer(decoded, log).run();
}

}  // namespace feeddiff::normalize_detail
