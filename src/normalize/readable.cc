// What a reader sees of an item's HTML, for the word diff of its summary and content. The
// text itself is html_to_text's (tags, entities and whitespace as normalize reads titles);
// what a browser never shows as text is cut out first.

#include <string>
#include <string_view>

#include "normalize/internal.h"

namespace feeddiff {

namespace {

// True when `html` at `at` opens the tag `name` (case-insensitive), ended by '>', '/' or
// whitespace.
bool opens(std::string_view html, std::size_t at, std::string_view name) {
  if (html.size() < at + 1 + name.size() || html[at] != '<') return false;
  for (std::size_t k = 0; k < name.size(); ++k)
    if (normalize_detail::ascii_lower(html[at + 1 + k]) != name[k]) return false;
  const std::size_t after = at + 1 + name.size();
  return after == html.size() || html[after] == '>' || html[after] == '/' ||
         normalize_detail::is_html_space(html[after]);
}

// Where the end tag `</name>` starting at or after `from` ends, or npos.
std::size_t end_of_element(std::string_view html, std::size_t from, std::string_view name) {
  for (std::size_t at = html.find("</", from); at != std::string_view::npos;
       at = html.find("</", at + 2)) {
    std::size_t k = 0;
    while (k < name.size() && at + 2 + k < html.size() &&
           normalize_detail::ascii_lower(html[at + 2 + k]) == name[k])
      ++k;
    if (k < name.size()) continue;
    const std::size_t gt = html.find('>', at);
    return gt == std::string_view::npos ? std::string_view::npos : gt + 1;
  }
  return std::string_view::npos;
}

}  // namespace

std::string readable_text(std::string_view html) {
  static constexpr std::string_view kHidden[] = {"script", "style", "template", "noscript"};
  std::string shown;
  shown.reserve(html.size());
  std::size_t from = 0;
  for (std::size_t at = html.find('<'); at != std::string_view::npos; at = html.find('<', at + 1)) {
    std::size_t end = std::string_view::npos;
    bool cut = false;
    if (html.substr(at, 4) == "<!--") {
      const std::size_t close = html.find("-->", at + 4);
      end = close == std::string_view::npos ? html.size() : close + 3;
      cut = true;
    } else {
      for (std::string_view name : kHidden)
        if (opens(html, at, name)) {
          end = end_of_element(html, at + 1 + name.size(), name);
          if (end == std::string_view::npos) end = html.size();
          cut = true;
          break;
        }
    }
    if (!cut) continue;
    shown.append(html.substr(from, at - from));
    shown += ' ';  // what was cut separates the words around it, as a block does
    from = end;
    at = end - 1;
    if (end >= html.size()) break;
  }
  if (from < html.size()) shown.append(html.substr(from));
  return normalize_detail::html_to_text(shown);
}

}  // namespace feeddiff
