#include "site/site_feed.h"

#include <algorithm>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/core.h"
#include "site/site_files.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

namespace {

// The entry content holds the item section only: what is shown around it (title, counts,
// links) comes from the history rows, so one saved file serves any --base-url.
std::string entry_content(const ChangeView& view) {
  return render_items_html(view, RenderOptions{});
}

// The items a change pulled from the feed (removed, not aged out): the tombstones after its
// entry, one line each, kept beside the entry's content.
std::string pulled_lines(const ChangeView& view) {
  std::string out;
  if (!view.items) return out;
  for (const ItemChange& c : view.items->items)
    if (c.kind == ItemChange::Kind::removed && !c.aged_out) {
      out += "pulled";
      append_tab_field(out, c.id);
      out += '\n';
    }
  return out;
}

fs::path pulled_path(const fs::path& state_dir, std::string_view id) {
  return state_dir / "entries" / (std::string(id) + ".pulled");
}

std::vector<std::string> parse_pulled(const std::string& text) {
  std::vector<std::string> out, fields;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (split_tab_fields(std::string_view(text).substr(at, end - at), fields) &&
        fields.size() == 2 && fields[0] == "pulled")
      out.push_back(fields[1]);
    at = end + 1;
  }
  return out;
}

// As a page is: a new one written in place (a killed run's successor writes it again, its
// state not saved), a changed one replaced.
Status save_if_changed(const fs::path& path, const std::string& content) {
  Writes not_counted;
  return write_if_changed(path, content, not_counted);
}

}  // namespace

fs::path feed_entry_path(const fs::path& state_dir, std::string_view id) {
  return state_dir / "entries" / (std::string(id) + ".html");
}

std::vector<std::pair<fs::path, std::string>> feed_entry_files(const fs::path& state_dir,
                                                               const ChangeView& view) {
  std::vector<std::pair<fs::path, std::string>> out;
  out.emplace_back(pulled_path(state_dir, view.commit_id), pulled_lines(view));
  out.emplace_back(feed_entry_path(state_dir, view.commit_id), entry_content(view));
  return out;
}

Status save_feed_entry(const fs::path& state_dir, const ChangeView& view) {
  for (const auto& [path, content] : feed_entry_files(state_dir, view))
    if (auto ok = save_if_changed(path, content); !ok) return ok;
  return Ok{};
}

Result<std::string> source_feed(const Archive& archive, const fs::path& state_dir,
                                const std::string& source, const std::vector<SiteChange>& newest,
                                const std::string& feed_id, const std::string& base_url) {
  std::vector<SiteFeedEntry> entries;
  entries.reserve(std::min(newest.size(), kSourceFeedEntries));
  for (const SiteChange& change : newest) {
    if (entries.size() == kSourceFeedEntries) break;
    SiteFeedEntry entry{change, {}, {}};
    auto saved = read_file(feed_entry_path(state_dir, change.id).string());
    // The pulled items were kept beside the content since tombstones came; a site written
    // before has the content only, and gets both from the archive once.
    auto pulled = read_file(pulled_path(state_dir, change.id).string());
    if (saved && pulled) {
      entry.items_html = std::move(*saved);
      entry.pulled = parse_pulled(*pulled);
    } else {
      auto loaded = load_change(archive, {.revision = change.id, .source = source});
      if (!loaded) return loaded.error();
      entry.items_html = entry_content((*loaded)->view);
      entry.pulled = parse_pulled(pulled_lines((*loaded)->view));
      if (auto ok = save_feed_entry(state_dir, (*loaded)->view); !ok) return ok.error();
    }
    entries.push_back(std::move(entry));
  }
  return render_source_atom(source, entries, feed_id, base_url);
}

bool feeds_base_changed(const fs::path& state_dir, const std::string& base_url) {
  auto saved = read_file((state_dir / "feeds-base").string());
  return !saved || *saved != base_url + "\n";
}

Status save_feeds_base(const fs::path& state_dir, const std::string& base_url) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  return write_file_replace((state_dir / "feeds-base").string(), base_url + "\n");
}

}  // namespace feeddiff::site
