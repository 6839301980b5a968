#pragma once
// Memento (RFC 7089) on the static site: each source's TimeMap, sources/NAME/timemap.link,
// lists every recorded version (a memento: its raw copy, the bytes as received) with the
// time feeddiff observed it, paged so that a run after a poll appends to a page of bounded
// size and sealed pages are never written again; and the Memento links of a change page.
// What the TimeMap holds is kept beside the site's state (.feeddiff-site/memento/NAME/).

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"
#include "site/site_items.h"

namespace feeddiff::site {

/// What bringing one source's TimeMap up to date did.
struct TimeMapReport {
  std::size_t added = 0;     ///< mementos added (versions recorded since the last run)
  std::size_t sealed = 0;    ///< pages sealed (or written again for a new base URL)
  std::size_t mementos = 0;  ///< mementos the TimeMap lists
  bool restarted = false;    ///< made anew: first run, or its last version left the branch
};

/// The source's TimeMap, relative to the site's top.
std::string timemap_file(const std::string& source);

/// Whether the source's TimeMap has been written (its state is kept).
bool has_timemap(const std::filesystem::path& state_dir, const std::string& source);

/// Brings the TimeMap of the source up to date: appends the versions of `history` after the
/// one it was last brought to (all of them when it is new or that version left the history),
/// seals every full page of page_size mementos, and writes the entry page. Without a history
/// only the entry page is written again (the feed's URL changed). original is the feed's URL
/// as the site shows it (redacted); base the site's URL ("" for links relative to the page).
/// A version without a raw copy on the site (the source removed, a name feeddiff never
/// writes) is no memento.
Result<TimeMapReport> write_timemap(const std::filesystem::path& top,
                                    const std::filesystem::path& state_dir,
                                    const std::string& source, const std::string& original,
                                    const std::string& base, const SourceHistory* history,
                                    std::size_t page_size, const WriteFile& write);

/// Each configured source's feed URL at the branch's head, redacted as commits record URLs:
/// what the site shows as a memento's rel="original".
std::map<std::string, std::string> configured_urls(const Archive& archive);

/// The Memento links of the change page of commit (which lives in changes/): rel (original,
/// timemap, first memento, prev memento) and href, from what the site knows when it writes
/// the page. No next or last memento: a change page is written once, before those exist.
/// queued, when given, says whether a file is on its way to the site (written by a thread
/// that has not reached it yet): such a raw copy counts as there.
std::vector<std::pair<std::string, std::string>> memento_links(
    const std::filesystem::path& top, const std::string& source, const std::string& original,
    const SourceVersions& versions, const std::string& commit,
    const std::function<bool(const std::filesystem::path&)>& queued = {});

}  // namespace feeddiff::site
