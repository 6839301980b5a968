#include "site/site_items.h"

#include <fmt/format.h>
#include <algorithm>
#include <sstream>

#include "feeddiff/changes.h"
#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kLabelChars = 100;

fs::path list_path(const fs::path& state_dir, const std::string& source) {
  return state_dir / "items" / (source + ".tsv");
}

bool is_key(std::string_view key) {
  return key.size() == 16 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A title as one cell of a row, cut: tabs and line ends would break the rows.
std::string label_cell(const ItemLife& life) {
  std::string text = life.title.empty() ? life.id : life.title;
  for (char& c : text)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  bool cut = false;
  std::string out(cut_chars(text, kLabelChars, &cut));
  if (cut) out += "…";
  return out;
}

}  // namespace

std::string item_key(std::string_view item_id) {
  return sha1_hex(item_id).substr(0, 16);
}

Result<std::size_t> write_item_pages(SourceHistory source_history, const fs::path& top,
                                     const fs::path& state_dir, const std::string& source,
                                     const std::string& base_url, const std::string& since,
                                     const WriteFile& write) {
  SourceHistory* history = &source_history;
  std::size_t first_new = 0;
  for (std::size_t k = history->versions.size(); !since.empty() && k-- > 0;)
    if (history->versions[k].commit == since) {
      first_new = k;
      break;
    }
  HistoryView view;
  view.source = source;
  view.single = true;
  view.versions = std::move(history->versions);
  for (HistoryVersion& v : view.versions) v.href = "../../changes/" + v.commit + ".html";
  view.items.resize(1);

  // The edited items, newest edit first; ties (one commit edited several) in feed order.
  std::vector<const ItemLife*> edited;
  for (const ItemLife& life : history->items.lives())
    if (life.edits) edited.push_back(&life);
  std::stable_sort(edited.begin(), edited.end(), [](const ItemLife* a, const ItemLife* b) {
    return *a->last_changed > *b->last_changed;
  });

  std::string list;
  const fs::path dir = top / "items" / source;
  for (const ItemLife* life : edited) {
    const std::string key = item_key(life->id);
    list += key + "\t" + label_cell(*life) + "\n";
    const bool touched = first_new == 0 || life->events.back().version >= first_new;
    if (!touched && fs::exists(dir / (key + ".html")) && fs::exists(dir / (key + ".atom")))
      continue;
    view.items.front() = *life;
    HtmlLinks links;
    links.nav = {{"Archive", "../../index.html"}, {source, "../../sources/" + source + ".html"}};
    links.atom = key + ".atom";
    if (auto ok = write(dir / (key + ".html"), render_history_html(view, links)); !ok)
      return ok.error();
    if (auto ok = write(dir / (key + ".atom"), render_item_atom(view, key, base_url)); !ok)
      return ok.error();
  }
  // The list is the site's state, not a page: not counted among the files written.
  const fs::path path = list_path(state_dir, source);
  if (auto old = read_file(path.string()); !old || *old != list) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (auto ok = write_file_replace(path.string(), list); !ok) return ok.error();
  }
  return edited.size();
}

std::vector<std::pair<std::string, std::string>> edited_items(const fs::path& state_dir,
                                                              const std::string& source) {
  std::vector<std::pair<std::string, std::string>> out;
  auto text = read_file(list_path(state_dir, source).string());
  if (!text) return out;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line) && out.size() < kSourceEditedItems;) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos || !is_key(std::string_view(line).substr(0, tab))) continue;
    out.emplace_back(line.substr(tab + 1), "items/" + source + "/" + line.substr(0, tab) + ".html");
  }
  return out;
}

}  // namespace feeddiff::site
