#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

#include "normalize/internal.h"

namespace feeddiff::normalize_detail {

void RepairLog::add(std::string_view text, std::size_t offset, std::string what) {
  offset = std::min(offset, text.size());
  if (offset < counted_to_) {  // out of order: count from the start
    counted_to_ = 0;
    line_ = 1;
  }
  line_ += static_cast<std::size_t>(
      std::count(text.begin() + static_cast<std::ptrdiff_t>(counted_to_),
                 text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  counted_to_ = offset;
  add_line(line_, std::move(what));
}

void RepairLog::add_line(std::size_t line, std::string what) {
  // While a run is open its entry's text is the repair as added: the count goes in at its close.
  if (run_count_ > 0 && line == out_.back().line && what == out_.back().what) {
    ++run_count_;
    return;
  }
  close_run();
  if (out_.size() >= kMaxListed) {
    ++dropped_;
    return;
  }
  out_.push_back(Repair{line, std::move(what)});
  run_count_ = 1;
}

void RepairLog::close_run() {
  if (run_count_ > 1) out_.back().what += " (" + std::to_string(run_count_) + " times)";
  run_count_ = 0;
}

void RepairLog::finish() {
  close_run();
  if (dropped_ == 0) return;
  out_.push_back(Repair{0, "and " + std::to_string(dropped_) + " more repairs"});
  dropped_ = 0;
}

std::size_t OffsetMap::to_input(std::size_t out) const {
  auto it = std::upper_bound(points_.begin(), points_.end(), out,
                             [](std::size_t o, const auto& p) { return o < p.first; });
  if (it == points_.begin()) return out;
  --it;
  return it->second + (out - it->first);
}

std::string line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

enum BlockKind { kNotBlock = 0, kBlock = 1, kBreakAfter = 2, kStandalone = 3 };

// kBlock: break before the opening tag, after the closing one. kBreakAfter (br): after the
// tag. kStandalone (img, hr): before and after.
// Up to 8 bytes of a name as a little-endian number, byte i in bits 8i..8i+7.
constexpr std::uint64_t pack_name(std::string_view s) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
  return v;
}

// `name` holds ASCII letters and digits only (what split_html and html_to_text pass), so
// setting bit 5 of each byte lower-cases it and leaves digits as they are; the name is then
// compared as one number.
BlockKind block_kind(std::string_view name) {
  const std::size_t size = name.size();
  if (size == 0 || size > 10) return kNotBlock;
  if (size == 10) {
    char buf[10];
    for (std::size_t i = 0; i < 10; ++i) buf[i] = static_cast<char>(name[i] | 0x20);
    const std::string_view n(buf, 10);
    return n == "blockquote" || n == "figcaption" ? kBlock : kNotBlock;
  }
  if (size == 9) return kNotBlock;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < size; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(name[i]) | 0x20u) << (8 * i);
  switch (v) {
    case pack_name("br"):
      return kBreakAfter;
    case pack_name("hr"):
    case pack_name("img"):
      return kStandalone;
    case pack_name("p"):
    case pack_name("h1"):
    case pack_name("h2"):
    case pack_name("h3"):
    case pack_name("h4"):
    case pack_name("h5"):
    case pack_name("h6"):
    case pack_name("dd"):
    case pack_name("dl"):
    case pack_name("dt"):
    case pack_name("td"):
    case pack_name("th"):
    case pack_name("tr"):
    case pack_name("li"):
    case pack_name("ol"):
    case pack_name("ul"):
    case pack_name("div"):
    case pack_name("nav"):
    case pack_name("pre"):
    case pack_name("form"):
    case pack_name("main"):
    case pack_name("aside"):
    case pack_name("audio"):
    case pack_name("style"):
    case pack_name("table"):
    case pack_name("tbody"):
    case pack_name("tfoot"):
    case pack_name("thead"):
    case pack_name("video"):
    case pack_name("center"):
    case pack_name("figure"):
    case pack_name("footer"):
    case pack_name("header"):
    case pack_name("hgroup"):
    case pack_name("iframe"):
    case pack_name("script"):
    case pack_name("address"):
    case pack_name("article"):
    case pack_name("caption"):
    case pack_name("details"):
    case pack_name("picture"):
    case pack_name("section"):
    case pack_name("summary"):
    case pack_name("fieldset"):
    case pack_name("noscript"):
      return kBlock;
    default:
      return kNotBlock;
  }
}

constexpr std::array<bool, 256> make_line_or_tag() {
  std::array<bool, 256> t{};
  t['\n'] = t['<'] = true;
  return t;
}
constexpr std::array<bool, 256> kLineOrTag = make_line_or_tag();

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

void split_html(std::string_view html, std::vector<std::string_view>& lines) {
  std::size_t start = 0;
  auto emit = [&](std::size_t end) {
    if (end > start) {
      std::string_view piece = trim_space(html.substr(start, end - start));
      if (!piece.empty()) lines.push_back(piece);
    }
    start = end;
  };
  const std::size_t n = html.size();
  std::size_t i = 0;
  while (true) {
    i = find_byte<false, '\n', '<'>(html, i, kLineOrTag);
    if (i >= n) break;
    if (html[i] == '\n') {
      emit(i);
      start = i + 1;
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    const bool closing = j < n && html[j] == '/';
    if (closing) ++j;
    const std::size_t name_start = j;
    while (j < n && is_name_char(html[j])) ++j;
    const BlockKind kind = block_kind(html.substr(name_start, j - name_start));
    // A name ends at '<' as at a space: the '<' may start a block tag this pass cuts before,
    // and the next pass then sees the line end put there. Reading both as the same keeps
    // the split a fixed point (fixtures/normalize/regressions/normalize-idempotence-1.bin).
    if (kind == kNotBlock ||
        (j < n && html[j] != '>' && html[j] != '/' && html[j] != '<' && !is_space(html[j]))) {
      i = j;  // the name holds neither '<' nor a line end
      continue;
    }
    const std::size_t gt = html.find('>', j);
    const std::size_t tag_end = gt == std::string_view::npos ? n : gt + 1;
    if (!closing && (kind == kBlock || kind == kStandalone)) emit(i);
    if (closing || kind == kBreakAfter || kind == kStandalone) {
      emit(tag_end);
    }
    i = tag_end;
  }
  emit(n);
}

bool is_volatile_comment(std::string_view comment) {
  static constexpr std::string_view kPatterns[] = {"generated in",
                                                   "generated by",
                                                   "wp super cache",
                                                   "wp-super-cache",
                                                   "w3 total cache",
                                                   "served from:",
                                                   "page caching using",
                                                   "object caching",
                                                   "database caching",
                                                   "minified using",
                                                   "cached page",
                                                   "litespeed cache",
                                                   "wp fastest cache",
                                                   "wp rocket",
                                                   "hummingbird",
                                                   "cache enabler",
                                                   "generated by wp-super-cache",
                                                   "queries in",
                                                   "dynamic page",
                                                   "page generated",
                                                   "this page was cached",
                                                   "cached on",
                                                   "served in",
                                                   "processing time",
                                                   "rendered in"};
  if (comment.size() > 2000) return false;
  std::string low(comment.size(), ' ');
  std::transform(comment.begin(), comment.end(), low.begin(), lower);
  for (std::string_view p : kPatterns)
    if (low.find(p) != std::string::npos) return true;
  return false;
}

// The longest named reference html_to_text decodes, "&" to ";" (the longest HTML 4 name has
// 8 letters). The ';' is looked for only this far: searching the rest of the text for each
// '&' made a run of '&' without one quadratic.
constexpr std::size_t kMaxEntityRef = 32;

std::string html_to_text(std::string_view html) {
  std::string out;
  out.reserve(html.size());
  for (std::size_t i = 0; i < html.size();) {
    const char c = html[i];
    if (c == '<') {
      const std::size_t gt = html.find('>', i);
      if (gt == std::string_view::npos) {
        out.append(html.substr(i));
        break;
      }
      // A block boundary reads as a space, so that breaking lines there changes nothing.
      std::size_t k = i + 1;
      if (k < gt && html[k] == '/') ++k;
      std::size_t e = k;
      while (e < gt && is_name_char(html[e])) ++e;
      if (block_kind(html.substr(k, e - k)) != kNotBlock) out += ' ';
      i = gt + 1;
      continue;
    }
    if (c == '&') {
      if (i + 1 < html.size() && html[i + 1] == '#') {
        // &#0; names no character; it stays as written.
        if (const auto ref = parse_char_ref(html.substr(i)); ref && ref->value != 0) {
          append_utf8(out, ref->value);
          i += ref->size;
          continue;
        }
      } else if (const std::size_t semi = html.substr(i, kMaxEntityRef + 1).find(';');
                 semi != std::string_view::npos) {
        // `semi` counts from the '&'.
        const std::string_view name = html.substr(i + 1, semi - 1);
        std::uint32_t cp = 0;
        if (name == "amp") {
          cp = '&';
        } else if (name == "lt") {
          cp = '<';
        } else if (name == "gt") {
          cp = '>';
        } else if (name == "quot") {
          cp = '"';
        } else if (name == "apos") {
          cp = '\'';
        } else {
          cp = html_entity(name);
        }
        if (cp != 0) {
          append_utf8(out, cp);
          i += semi + 1;
          continue;
        }
      }
    }
    out += c;
    ++i;
  }
  // Whitespace runs read as one space.
  std::string text;
  text.reserve(out.size());
  bool space = false;
  for (char ch : out) {
    if (is_space(ch)) {
      space = true;
      continue;
    }
    if (space && !text.empty()) text += ' ';
    space = false;
    text += ch;
  }
  return text;
}

bool base64_decode(std::string_view in, std::string& out) {
  std::string bytes;
  bytes.reserve(in.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  bool padded = false;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=') {
      padded = true;
      continue;
    } else if (is_space(c))
      continue;
    else
      return false;
    if (padded) return false;  // data after the padding
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  // As text: valid UTF-8, no control characters.
  out.clear();
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F ? ' ' : bytes[i];
      ++i;
      continue;
    }
    const std::size_t len = decode_utf8(bytes, i).size;
    if (len == 0) return false;  // not text: not meant as base64 (feedparser reads it so too)
    out.append(bytes, i, len);
    i += len;
  }
  return true;
}

void assign_fallback_id(Item& item) {
  if (!item.id.empty()) return;
  if (!item.link.empty()) {
    item.id = item.link;
    return;
  }
  const std::string& date = item.published.empty() ? item.updated : item.published;
  if (!item.title.empty() || !date.empty()) {
    item.id = "sha1:" + sha1_hex(item.title + "\n" + date);
    return;
  }
  // Whitespace is left out: the canonical form re-breaks HTML lines.
  std::string basis = item.summary + item.content;
  if (!item.enclosures.empty()) basis += item.enclosures[0].url;
  std::erase_if(basis, is_space);
  item.id = "sha1:" + sha1_hex(basis);
}

}  // namespace feeddiff::normalize_detail
