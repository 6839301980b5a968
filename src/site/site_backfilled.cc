#include "site/site_backfilled.h"

#include <algorithm>
#include <set>

namespace feeddiff::site {

std::string backfill_source(const CommitInfo& commit) {
  const std::string* change_class = commit.trailer("Change-Class");
  const std::string* source = commit.trailer("Source");
  return change_class && source && *change_class == "backfill" ? *source : std::string();
}

Result<std::vector<BackfillEvent>> backfill_events(const Archive& archive,
                                                   const std::string& source) {
  std::vector<BackfillEvent> out;
  const std::string items_path = "backfill/" + source + "/items";
  auto head = archive.read_head(items_path);
  if (!head) return head.error();
  if (!*head) return out;
  auto commits = archive.log("backfill/" + source + "/", 0);
  if (!commits) return commits.error();
  std::set<std::string> seen;  // ids an earlier backfill commit recorded (the file is cumulative)
  for (auto it = commits->rbegin(); it != commits->rend(); ++it) {
    if (backfill_source(*it) != source) continue;
    auto files = archive.files_under(it->id, "backfill/" + source);
    if (!files) return files.error();
    const auto file = std::find_if(files->begin(), files->end(),
                                   [&](const PathChange& f) { return f.path == items_path; });
    if (file == files->end()) continue;
    auto blob = archive.read_blob(file->new_blob);
    if (!blob) return blob.error();
    BackfillEvent event;
    event.commit = it->id;
    const std::string* observed = it->trailer("Observed-At");
    event.observed_at = observed ? *observed : format_iso8601_ms(it->commit_time);
    for (BackfillItem& item : parse_backfill_items(blob->view()))
      if (seen.insert(item.id).second) event.items.push_back(std::move(item));
    // The file lists the newest first; the set takes them in oldest first.
    std::reverse(event.items.begin(), event.items.end());
    if (!event.items.empty()) out.push_back(std::move(event));
  }
  return out;
}

}  // namespace feeddiff::site
