#pragma once
// The Atom feed of each source in `feeddiff site` (sources/NAME/feed.atom). The content of a
// change's entry (its item changes with their before and after) is saved when its change page
// is rendered, beside the site's state, so that writing a feed of the newest changes reads
// files instead of diffing every one of them again.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/render.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::site {

/// Where the entry content of the change `id` is kept, in the state directory's entries/.
std::filesystem::path feed_entry_path(const std::filesystem::path& state_dir, std::string_view id);

/// Saves the entry content of a change whose page was just rendered (unless unchanged).
Status save_feed_entry(const std::filesystem::path& state_dir, const ChangeView& view);
/// The files save_feed_entry writes, by path (the pulled items first, then the content).
std::vector<std::pair<std::filesystem::path, std::string>> feed_entry_files(
    const std::filesystem::path& state_dir, const ChangeView& view);

/// The source's Atom feed over its newest changes (newest first, at most kSourceFeedEntries):
/// each entry's content read from what save_feed_entry kept, or made again (and kept) when
/// it is missing (a site written by an older feeddiff).
Result<std::string> source_feed(const Archive& archive, const std::filesystem::path& state_dir,
                                const std::string& source, const std::vector<SiteChange>& newest,
                                const std::string& feed_id, const std::string& base_url);

/// Whether the feeds were last written with another base URL (or it is not known): then every
/// source's feed is written again, as its links change.
bool feeds_base_changed(const std::filesystem::path& state_dir, const std::string& base_url);

/// Remembers the base URL the feeds were written with, once they all were.
Status save_feeds_base(const std::filesystem::path& state_dir, const std::string& base_url);

}  // namespace feeddiff::site
