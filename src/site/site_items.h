#pragma once
// The pages of edited items in `feeddiff site`: items/SOURCE/KEY.html (the item's versions,
// each edit's fields before and after) and items/SOURCE/KEY.atom (one entry per edit), KEY
// the first 16 hex digits of the SHA-1 of the item's id (an id is feed text: it never names
// a file). The source page's list of edited items is kept beside the site's state.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::site {

/// Edited items a source page lists at most (the newest edits first).
inline constexpr std::size_t kSourceEditedItems = 100;

/// The file name stem of an item's page and feed: 16 hex digits of the SHA-1 of its id.
std::string item_key(std::string_view item_id);

/// Writes a file unless it holds these bytes (the site's own writer, which counts).
using WriteFile = std::function<Status(const std::filesystem::path&, std::string_view)>;

/// Given the source's history, writes the page and feed of each item edited at least once
/// (through write, so unchanged files are not rewritten), then saves the list of its edited
/// items, newest edit first, in state_dir. Returns the count of edited items. `since` is the
/// oldest of the source's versions this run added: a page depends only on its item's events
/// and the versions they name, so an item with no event from that version on keeps the page
/// and feed it has. Empty (or not a version of the source): every page is rendered.
Result<std::size_t> write_item_pages(SourceHistory history, const std::filesystem::path& top,
                                     const std::filesystem::path& state_dir,
                                     const std::string& source, const std::string& base_url,
                                     const std::string& since, const WriteFile& write);

/// The source's edited items as the last write_item_pages saved them, at most
/// kSourceEditedItems: label and href relative to the site's top.
std::vector<std::pair<std::string, std::string>> edited_items(
    const std::filesystem::path& state_dir, const std::string& source);

}  // namespace feeddiff::site
