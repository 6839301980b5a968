// A backfill commit (docs/backfill.md) as show reads it: its trailers say which pages were
// walked, the items file at the commit what was found.

#include <fmt/format.h>
#include <charconv>

#include "feeddiff/changes.h"

namespace feeddiff {

bool is_backfill_commit(const CommitInfo& commit) {
  const std::string* cls = commit.trailer("Change-Class");
  return cls && *cls == kBackfillClass;
}

Result<BackfillView> load_backfill_change(const Archive& archive, std::string_view revision) {
  auto commit = archive.resolve(revision);
  if (!commit) return commit.error();
  if (!is_backfill_commit(*commit))
    return Error{Errc::not_found, fmt::format("commit {} records no backfill", commit->short_id())};
  BackfillView v;
  v.commit_id = commit->id;
  v.title = commit->title;
  auto value = [&](std::string_view key) {
    const std::string* found = commit->trailer(key);
    return found ? *found : std::string();
  };
  v.source = value("Source");
  v.observed_at = value("Observed-At");
  v.summary = value("Backfill-Summary");
  v.stop = value("Backfill-Stop");
  for (const Trailer& t : commit->trailers) {
    if (t.key != "Backfill-Page") continue;
    // "N RESULT VIA URL"
    BackfillPageView page;
    std::string_view rest = t.value;
    auto word = [&rest]() {
      const std::size_t space = rest.find(' ');
      const std::string_view w = rest.substr(0, space);
      rest.remove_prefix(space == std::string_view::npos ? rest.size() : space + 1);
      return w;
    };
    const std::string_view number = word();
    std::from_chars(number.data(), number.data() + number.size(), page.number);
    page.result = std::string(word());
    page.via = std::string(word());
    page.url = std::string(rest);
    v.pages.push_back(std::move(page));
  }
  if (check_source_name(v.source).ok()) {
    auto text = archive.read(commit->id, fmt::format("backfill/{}/items", v.source));
    if (!text) return text.error();
    if (*text) {
      const std::vector<BackfillItem> items = parse_backfill_items(**text);
      v.items = items.size();
      for (const BackfillItem& item : items) {
        if (item.date.empty()) continue;
        if (v.newest.empty() || item.date > v.newest) v.newest = item.date;
        if (v.oldest.empty() || item.date < v.oldest) v.oldest = item.date;
      }
    }
  }
  return v;
}

}  // namespace feeddiff
