#pragma once
// site: a static HTML site of the archive (`feeddiff site DIR`), built so that a run costs
// what is new since the last one, whatever the archive's age. render writes each page; this
// module decides which pages a run writes, keeps what they list beside them (DIR/.feeddiff-site/)
// and never writes a file whose bytes did not change.

#include <cstddef>
#include <string>

#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// How a site is built (`feeddiff site`'s options).
struct SiteOptions {
  std::string dir;                   ///< where the site goes (made if missing)
  std::string base_url;              ///< where it is served, for the Atom feeds' absolute links
  std::size_t max_lines = 400;       ///< diff lines shown per change at most
  std::size_t max_line_chars = 300;  ///< characters of one diff line shown at most
  std::size_t feed_entries = 500;    ///< newest changes in the site's Atom feed
  /// Commits rendered per round at most: a round's memory is 32 bytes per commit (its id,
  /// where its row is, its place in its source's list). Also the ids checked at once for
  /// pages gone. Tests make it small: rounds of a few commits give the pages one round gives.
  std::size_t round = 100'000;
  /// Items an archive page of a source's complete-history set holds (RFC 5005 archived
  /// feeds: sources/NAME/history/). Tests make it small.
  std::size_t history_page = 100;
  /// Mementos a sealed page of a source's TimeMap holds (RFC 7089 paged TimeMaps:
  /// sources/NAME/timemap-N.link). Tests make it small.
  std::size_t timemap_page = 1000;
  /// Documents (an item in a change) after which the search index's newest segment is
  /// sealed, never to be written again (DIR/search/). Tests make it small.
  std::size_t search_segment = 5000;
};

/// What a build did: the counts `feeddiff site` prints.
struct SiteReport {
  std::size_t changes = 0;    ///< changes the site lists
  std::size_t sources = 0;    ///< sources it lists
  bool full_build = false;    ///< the lists were built anew (first run, new layout, a reset)
  std::size_t written = 0;    ///< files written
  std::size_t unchanged = 0;  ///< files that already held the bytes
  std::size_t removed = 0;    ///< change pages removed (commits that left the branch)
  std::size_t rendered = 0;   ///< change pages rendered (each a diff of two versions)
  std::size_t ignored = 0;    ///< rows of the state files that were not the site's own
  std::size_t refused = 0;    ///< raw artifacts not published: names feeddiff never writes
  std::size_t sealed = 0;     ///< complete-history archive pages sealed by this run
  std::size_t mementos = 0;   ///< mementos added to the sources' TimeMaps by this run
  std::size_t indexed = 0;    ///< documents (an item in a change) added to the search index
  std::string first_refused;  ///< the first of them, "PATH in commit ID"
  std::string state_dir;      ///< DIR/.feeddiff-site, where the lists are kept
  std::string index;          ///< DIR/index.html
};

/// Builds or updates the site in options.dir from the archive's branch: renders the changes
/// recorded since the tip the site was last built at (every change when that tip left the
/// branch, re-using the pages of the commits both histories share), their sources' pages,
/// item pages and feeds, the history pages and the index. Holds DIR/.feeddiff-site.lock for
/// the run: Errc::locked when another run holds it.
Result<SiteReport> build_site(const Archive& archive, const SiteOptions& options);

/// What a build did, as `feeddiff site` prints it: a line for artifacts not published and for
/// rows ignored when there were any, then the counts (changes, sources, pages rendered,
/// files written and unchanged, pages removed, search documents added) and the index page.
std::string site_text(const SiteReport& report);

}  // namespace feeddiff
