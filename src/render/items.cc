// A feed's items, for `feeddiff items`.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "feeddiff/render.h"

namespace feeddiff {

namespace {

// One line, cut, escaped for a terminal.
std::string flat(std::string_view text, std::size_t max_chars) {
  return escape_terminal(one_line(text, max_chars));
}

}  // namespace

std::string render_items_text(const Feed& feed) {
  std::string out = fmt::format("{} items ({})\n", feed.items.size(), feed.format);
  std::size_t n = 0;
  for (const Item& item : feed.items) {
    const std::string& date = item.published.empty() ? item.updated : item.published;
    out += fmt::format("{:>4}  {}\n      {}{}\n", ++n,
                       flat(item.title.empty() ? "(untitled)" : item.title, 120),
                       flat(item.id, 200), date.empty() ? "" : "  " + flat(date, 40));
  }
  return out;
}

std::string render_items_json(const Feed& feed, const std::string& encoding) {
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const Item& item : feed.items) {
    nlohmann::ordered_json enclosures = nlohmann::ordered_json::array();
    for (const auto& e : item.enclosures)
      enclosures.push_back({{"url", e.url}, {"type", e.type}, {"length", e.length}});
    items.push_back({{"id", item.id},
                     {"title", item.title},
                     {"link", item.link},
                     {"published", item.published},
                     {"updated", item.updated},
                     {"authors", item.authors},
                     {"categories", item.categories},
                     {"enclosures", std::move(enclosures)}});
  }
  nlohmann::ordered_json doc = {{"schema", "feeddiff.items/1"},
                                {"format", feed.format},
                                {"encoding", encoding},
                                {"count", feed.items.size()},
                                {"items", std::move(items)}};
  // ASCII only: control, bidi and every other character from the feed travels as \\uXXXX,
  // safe on a terminal; invalid UTF-8 is replaced, never passed on.
  return doc.dump(2, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace feeddiff
