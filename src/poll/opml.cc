// OPML subscription lists in and out. pugixml belongs to the normalize module, and OPML
// needs only the attributes of <outline> tags, so this is a small scanner over the text.

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "feeddiff/core.h"
#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

constexpr std::string_view kNamespace = "https://github.com/feeddiff/feeddiff/opml";

// An attribute value as XML reads it: whitespace characters become spaces, the five
// predefined entities and character references are decoded; anything else stays as written.
std::string decode_attribute(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '\t' || c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (c != '&') {
      out += c;
      continue;
    }
    if (const auto ref = parse_char_ref(raw.substr(i));
        ref && ref->value != 0 && ref->value <= 0x10FFFF &&
        !(ref->value >= 0xD800 && ref->value <= 0xDFFF)) {
      append_utf8(out, ref->value);
      i += ref->size - 1;
      continue;
    }
    // Only as far as the longest of the five names: a search to the end for each '&' made a
    // run of them quadratic.
    const auto semi = raw.substr(i, 13).find(';');
    if (semi == std::string_view::npos) {
      out += c;
      continue;
    }
    const std::string_view name = raw.substr(i + 1, semi - 1);
    static const std::map<std::string_view, char> kNamed = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    if (auto it = kNamed.find(name); it != kNamed.end()) {
      out += it->second;
      i += semi;
      continue;
    }
    out += c;  // an unknown entity, kept as written
  }
  return out;
}

std::string escape_attribute(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        // XML 1.0 allows no other controls; &, <, > and " as core escapes them.
        if (static_cast<unsigned char>(c) >= 0x20) append_markup_escaped(out, {&c, 1});
    }
  }
  return out;
}

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::size_t line_of(std::string_view text, std::size_t pos) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + pos, '\n'));
}

Error broken(std::string_view text, std::size_t pos, std::string_view what) {
  return Error{Errc::bad_xml, fmt::format("OPML line {}: {}", line_of(text, pos), what)};
}

}  // namespace

Result<std::vector<OpmlFeed>> parse_opml(std::string_view text) {
  std::vector<OpmlFeed> feeds;
  bool saw_opml = false;
  std::size_t pos = 0;
  auto skip_to = [&](std::size_t from, std::string_view end, std::string_view what) -> Status {
    const auto at = text.find(end, from);
    if (at == std::string_view::npos)
      return broken(text, from, fmt::format("unterminated {}", what));
    pos = at + end.size();
    return Ok{};
  };
  while ((pos = text.find('<', pos)) != std::string_view::npos) {
    const std::string_view rest = text.substr(pos);
    Status skipped = Ok{};
    if (rest.starts_with("<!--")) {
      skipped = skip_to(pos + 4, "-->", "comment");
    } else if (rest.starts_with("<![CDATA[")) {
      skipped = skip_to(pos + 9, "]]>", "CDATA section");
    } else if (rest.starts_with("<?")) {
      skipped = skip_to(pos + 2, "?>", "processing instruction");
    } else if (rest.starts_with("<!")) {
      // A doctype, perhaps with an internal subset in brackets: a '[' before its first '>'.
      // (Looking for '[' in the whole rest made a run of "<!>" quadratic.)
      const auto close = rest.find('>');
      const bool subset = rest.substr(0, close).find('[') != std::string_view::npos;
      skipped = subset ? skip_to(pos, "]>", "doctype") : skip_to(pos, ">", "doctype");
    } else if (rest.starts_with("</")) {
      skipped = skip_to(pos, ">", "end tag");
    } else {
      // A start tag: its name, then name="value" pairs up to > or />.
      std::size_t i = pos + 1;
      while (i < text.size() && !space(text[i]) && text[i] != '>' && text[i] != '/') ++i;
      const std::string tag = to_lower(text.substr(pos + 1, i - pos - 1));
      std::map<std::string, std::string> attrs;
      for (;;) {
        while (i < text.size() && space(text[i])) ++i;
        if (i >= text.size()) return broken(text, pos, fmt::format("unterminated <{}> tag", tag));
        if (text[i] == '>' || text.substr(i).starts_with("/>")) break;
        const std::size_t name_start = i;
        while (i < text.size() && text[i] != '=' && !space(text[i]) && text[i] != '>' &&
               text[i] != '/')
          ++i;
        const std::string name = to_lower(text.substr(name_start, i - name_start));
        while (i < text.size() && space(text[i])) ++i;
        if (name.empty() || i >= text.size() || text[i] != '=')
          return broken(text, name_start,
                        fmt::format("attribute '{}' of <{}> has no value", name, tag));
        ++i;
        while (i < text.size() && space(text[i])) ++i;
        if (i >= text.size() || (text[i] != '"' && text[i] != '\''))
          return broken(text, i, fmt::format("attribute '{}' of <{}> is not quoted", name, tag));
        const char quote = text[i];
        const auto close = text.find(quote, i + 1);
        if (close == std::string_view::npos)
          return broken(text, i, fmt::format("attribute '{}' of <{}> is not closed", name, tag));
        attrs.emplace(name, decode_attribute(text.substr(i + 1, close - i - 1)));
        i = close + 1;
      }
      pos = text.find('>', i) + 1;
      if (tag == "opml") saw_opml = true;
      if (tag != "outline") continue;
      auto get = [&](const char* key) -> std::string {
        auto it = attrs.find(key);
        return it == attrs.end() ? std::string() : std::string(trim(it->second));
      };
      OpmlFeed feed;
      feed.url = get("xmlurl");
      if (feed.url.empty()) continue;  // a folder, or a link that is no feed
      feed.title = get("text");
      if (feed.title.empty()) feed.title = get("title");
      feed.name = get("feeddiff:name");
      if (const std::string every = get("feeddiff:every"); !every.empty()) {
        auto ms = parse_duration(every);
        if (!ms)
          return broken(
              text, pos - 1,
              fmt::format("feeddiff:every=\"{}\" is no duration: {}", every, ms.error().message));
        feed.every = *ms;
      }
      const std::string ignore = get("feeddiff:ignore");
      for (std::size_t a = 0; a < ignore.size();) {
        const auto b = std::min(ignore.find(' ', a), ignore.size());
        if (b > a) feed.ignore.push_back(ignore.substr(a, b - a));
        a = b + 1;
      }
      feed.skip_cosmetic = get("feeddiff:skip-cosmetic") == "true";
      feeds.push_back(std::move(feed));
      continue;
    }
    if (!skipped) return skipped.error();
  }
  if (!saw_opml) return Error{Errc::bad_xml, "not an OPML document (no <opml> element)"};
  return feeds;
}

std::string format_opml(const Config& config) {
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<opml version=\"2.0\" xmlns:feeddiff=\"{}\">\n"
      "  <head>\n    <title>feeddiff sources</title>\n  </head>\n  <body>\n",
      kNamespace);
  for (const auto& s : config.sources) {
    const std::string name = escape_attribute(s.name);
    out += fmt::format(
        "    <outline type=\"rss\" text=\"{}\" title=\"{}\" xmlUrl=\"{}\" feeddiff:name=\"{}\" "
        "feeddiff:every=\"{}\"",
        name, name, escape_attribute(s.url), name, format_duration(s.every));
    if (!s.ignore.empty()) {
      std::string joined;
      for (const auto& path : s.ignore) joined += (joined.empty() ? "" : " ") + path;
      out += fmt::format(" feeddiff:ignore=\"{}\"", escape_attribute(joined));
    }
    if (s.skip_cosmetic) out += " feeddiff:skip-cosmetic=\"true\"";
    out += "/>\n";
  }
  out += "  </body>\n</opml>\n";
  return out;
}

std::string source_name_for(std::string_view title, std::string_view url,
                            const std::vector<std::string>& taken) {
  std::string from(trim(title));
  if (from.empty()) {
    std::string_view u = url;
    if (auto scheme = u.find("://"); scheme != std::string_view::npos) u.remove_prefix(scheme + 3);
    if (auto at = u.find('@'); at != std::string_view::npos && at < u.find('/'))
      u.remove_prefix(at + 1);
    if (u.starts_with("www.")) u.remove_prefix(4);
    from = std::string(u.substr(0, u.find_first_of("?#")));
  }
  std::string base;
  for (char c : to_lower(from)) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (keep && !(c == '.' && !base.empty() && base.back() == '.'))
      base += c;
    else if (!keep && !base.empty() && base.back() != '-')
      base += '-';
  }
  auto tidy = [](std::string& s) {
    // Erased at once: a character at a time moved the rest of a long title each time.
    std::size_t lead = 0;
    while (lead < s.size() && !std::isalnum(static_cast<unsigned char>(s[lead]))) ++lead;
    s.erase(0, lead);
    while (!s.empty() && (s.back() == '-' || s.back() == '.' || s.back() == '_')) s.pop_back();
    if (s.ends_with(".lock")) s.resize(s.size() - 5);
  };
  tidy(base);
  if (base.size() > 60) {
    base.resize(60);
    tidy(base);
  }
  if (base.empty() || !check_source_name(base)) base = "feed";
  std::string name = base;
  for (int k = 2; std::find(taken.begin(), taken.end(), name) != taken.end(); ++k)
    name = fmt::format("{}-{}", base, k);
  return name;
}

}  // namespace feeddiff
