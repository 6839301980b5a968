#pragma once
// A source's "Corrections and edits" in `feeddiff site` (docs/site.md): every edit of an
// article its items link to (docs/articles.md), newest first, on sources/NAME/edits.html
// and in pages of a fixed size (sources/NAME/edits/N.html, 1 the oldest), and the newest as
// an Atom feed (sources/NAME/edits.atom). Article commits change articles/NAME/ and never
// raw/, so the site's walk does not see them: the source index lists them, and what the
// pages list is kept in .feeddiff-site/edits/NAME/ so that a run reads only the article
// versions recorded since the last one.

#include <cstddef>
#include <filesystem>
#include <string>

#include "feeddiff/result.h"
#include "feeddiff/store.h"
#include "site/site_items.h"

namespace feeddiff::site {

/// What bringing one source's corrections up to date did.
struct SourceEdits {
  bool captures = false;   ///< the source has article versions: its page links the edits
  bool changed = false;    ///< the edits' pages were (re)written or removed this run
  std::size_t read = 0;    ///< article versions read (those recorded since the last run)
  std::size_t edits = 0;   ///< edits the source has
  bool restarted = false;  ///< listed anew (first run, or the tip it knew left the branch)
};

/// Reads the source's article versions recorded since the newest one the pages list (from
/// the source index, newest first, until that one), renders the edits among them and writes
/// the pages they land on, the front page and the feed, then the state. Nothing is read but
/// the source's newest article commit when there is nothing new. `rewrite` (the feeds' base
/// URL changed) writes the front page and the feed again even so. A source whose article
/// versions all left the branch loses its pages.
Result<SourceEdits> write_source_edits(const Archive& archive, const std::filesystem::path& top,
                                       const std::filesystem::path& state_dir,
                                       const std::string& source, const std::string& feed_id,
                                       const std::string& base_url, bool rewrite,
                                       const WriteFile& write);

}  // namespace feeddiff::site
