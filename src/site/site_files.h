#pragma once
// What the site's build keeps beside its pages, and the file operations it allows itself:
// the rows the history pages list (one tab-separated line per change), the state of the last
// build, the lock of a run, and writes and removals that never leave the site's directory.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/poll.h"
#include "feeddiff/render.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"
#include "site/site_work.h"

namespace feeddiff::site {

// Bumped when the pages' layout changes, so that old pages get rendered again. 3: raw copies
// are published as NAME.txt (a first run after the bump rebuilds every change page, which
// removes the raw copies under their old names).
inline constexpr int kSiteLayout = 3;
// What the pages list: state (the render key, the tip, counts per source) and one file of
// rows per history page, history/N.tsv and sources/NAME/N.tsv.
inline constexpr const char* kStateDir = ".feeddiff-site";
// Layout 1 kept every rendered change in this one file; read once to remove stale pages.
inline constexpr const char* kOldManifest = ".feeddiff-site.tsv";
// A run's working files (site_work.h), removed when it ends.
inline constexpr const char* kWorkDir = ".feeddiff-site.work";
// Held (flock) for the whole run, so that two runs never write one site at once; it names the
// holder's pid. Never removed: removing a lock file that another run is about to lock would
// let a third one lock a new file of the same name.
inline constexpr const char* kLockFile = ".feeddiff-site.lock";
// Rows of unfinished pages held in memory at most before they go to their files (a first
// build over 10,000 sources fills 10,000 pages at once). Past it every open page is written
// out and read back at its next row: at 20,000 a first build over 1,000 sources (50,050 open
// rows at most) did that for about every change, 15% of its time at 100,000 changes. Held as
// their text, 60,000 rows are some 10 MB (25 MB as SiteChange values). Tests make it small.
inline std::size_t open_rows_cap = 60'000;

// What a run did, for the summary line and the tests.
struct Writes {
  std::size_t written = 0;
  std::size_t unchanged = 0;
  std::size_t removed = 0;
  std::size_t rendered = 0;   // change pages rendered (each a diff of two versions)
  std::size_t ignored = 0;    // rows of the state files that were not the site's own
  std::size_t refused = 0;    // raw artifacts not published: names feeddiff never writes
  std::string first_refused;  // the first of them, "PATH in commit ID"
  std::size_t sealed = 0;     // complete-history archive pages sealed
  std::size_t mementos = 0;   // mementos added to the TimeMaps
};

/// Tabs and line ends would break the rows: each becomes a space.
std::string one_cell(std::string text);
/// The cells of a row.
std::vector<std::string> split_tabs(const std::string& line);
/// A commit id as the archive writes them (libgit2's SHA-1 hex). The rows' ids name files
/// the site writes and removes: anything else in that column is not the site's own.
bool is_commit_id(std::string_view id);
/// A row without its line end.
std::string row_line(const SiteChange& c);
/// A row with its line end.
std::string row_text(const SiteChange& c);
/// The change a row lists; nullopt for a line that is not a row of the site's.
std::optional<SiteChange> parse_row(const std::string& line);
/// The rows of a file of rows, oldest first; malformed rows are counted and skipped.
std::vector<SiteChange> load_rows(const std::filesystem::path& path, Writes& writes);
/// The rows of a text of rows (what a file of rows holds), as load_rows reads them.
std::vector<SiteChange> parse_rows(std::string_view text, Writes& writes);

/// Reads the rows a previous build listed, oldest first, one page file at a time: a rebuild
/// re-uses the change pages of the commits at the start of both histories.
class OldRows {
 public:
  OldRows(std::filesystem::path dir, Writes& writes) : dir_(std::move(dir)), writes_(writes) {}

  /// The next row, or nullopt at the end.
  std::optional<SiteChange> next();

 private:
  std::filesystem::path dir_;
  Writes& writes_;
  std::size_t page_ = 0;
  std::vector<SiteChange> rows_;
  std::size_t at_ = 0;
};

// What a forked child wrote, as it answers it (numbers only), read back, and added to the
// run's.
std::string writes_text(const Writes& w);
std::optional<Writes> parse_writes(const std::string& text);
void add_writes(Writes& to, const Writes& w);

// One source as the state remembers it.
struct SourceRow {
  std::size_t count = 0;  // changes recorded
  std::string last_id, last_observed, url, status;
};

// .feeddiff-site/state: the render key (pages made with other limits or another layout are
// rendered again), the tip rendered, the root commit (the Atom feed's id), the count of
// changes and one row per source. Its size grows with the sources, not with the history.
struct SiteState {
  std::string key, tip, root;
  std::size_t changes = 0;
  std::map<std::string, SourceRow> sources;

  /// Reads the state file at path (an empty state when it is missing or has no tip).
  static SiteState load(const std::filesystem::path& path);
  /// The state file's bytes.
  std::string text() const;
};

/// Whether path lies strictly inside top once symlinks above it are resolved: the site removes
/// nothing that is not its own, whatever the manifest or a link in DIR says. (The last
/// component is not resolved: removing a link removes the link, not what it points to.)
bool strictly_inside(const std::filesystem::path& top, const std::filesystem::path& path);
/// Makes a directory and its parents; Errc::io naming it when that fails.
Status make_dirs(const std::filesystem::path& dir);
/// Writes the file unless it already holds exactly these bytes.
Status write_if_changed(const std::filesystem::path& path, std::string_view content,
                        Writes& writes);
/// observed_at of a commit as the pages show it: its Observed-At trailer, else its commit
/// time, ISO-8601 UTC.
std::string observed_at(const CommitInfo& commit);
/// The name of an artifact's raw copy on the site, nullopt for a name that feeddiff never
/// writes (see site_files.cc).
std::optional<std::string> raw_copy_name(const std::string& path);
/// Removes what raw/ID/ holds besides `keep` ("" for nothing): raw copies that an older site
/// published under their own names, or that a crafted commit named.
void remove_other_raw(const std::filesystem::path& top, const std::string& id,
                      const std::string& keep);
/// A source's poll status as its page shows it, URLs redacted as commits record them.
std::string poll_status(const SourceState& s);

// Holds DIR's lock file (kLockFile) until destroyed: a second run, from cron or by hand,
// stops at once with the holder's pid instead of deleting the first one's work files and
// interleaving its rows (the next cron run continues where the first left off).
class SiteLock {
 public:
  /// Takes the lock of the site at top; Errc::locked naming the holder's pid when another
  /// run holds it.
  static Result<SiteLock> take(const std::filesystem::path& top);
  SiteLock(SiteLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  SiteLock(const SiteLock&) = delete;
  SiteLock& operator=(const SiteLock&) = delete;
  SiteLock& operator=(SiteLock&&) = delete;
  ~SiteLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
  }

 private:
  explicit SiteLock(int fd) : fd_(fd) {}
  int fd_;
};

/// Removes a change's page and artifact, if they are inside the site.
void remove_change(const std::filesystem::path& top, const std::string& id, Writes& writes);
/// Removes a tree of the site's, if it is inside the site.
void remove_tree(const std::filesystem::path& top, const std::filesystem::path& path);
/// Removes the pages of the ids next() gives that the new history (fresh) lacks: a chunk of
/// ids at a time, each chunk checked against the whole spool read once, so that memory is a
/// chunk's whatever the history's length.
Status remove_gone(const std::filesystem::path& top, CommitSpool& fresh, std::size_t chunk_size,
                   const std::function<std::optional<std::string>()>& next, Writes& writes);

}  // namespace feeddiff::site
