#include "site/site_feed.h"

#include <algorithm>

#include "feeddiff/changes.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

namespace {

// The entry content holds the item section only: what is shown around it (title, counts,
// links) comes from the history rows, so one saved file serves any --base-url.
std::string entry_content(const ChangeView& view) {
  return render_items_html(view, RenderOptions{});
}

}  // namespace

fs::path feed_entry_path(const fs::path& state_dir, std::string_view id) {
  return state_dir / "entries" / (std::string(id) + ".html");
}

Status save_feed_entry(const fs::path& state_dir, const ChangeView& view) {
  const fs::path path = feed_entry_path(state_dir, view.commit_id);
  const std::string content = entry_content(view);
  if (auto old = read_file(path.string()); old && *old == content) return Ok{};
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  return write_file_replace(path.string(), content);
}

Result<std::string> source_feed(const Archive& archive, const fs::path& state_dir,
                                const std::string& source, const std::vector<SiteChange>& newest,
                                const std::string& feed_id, const std::string& base_url) {
  std::vector<SiteFeedEntry> entries;
  entries.reserve(std::min(newest.size(), kSourceFeedEntries));
  for (const SiteChange& change : newest) {
    if (entries.size() == kSourceFeedEntries) break;
    SiteFeedEntry entry{change, {}};
    if (auto saved = read_file(feed_entry_path(state_dir, change.id).string())) {
      entry.items_html = std::move(*saved);
    } else {
      auto loaded = load_change(archive, {.revision = change.id, .source = source});
      if (!loaded) return loaded.error();
      entry.items_html = entry_content((*loaded)->view);
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
