// feeddiff site DIR: a static HTML site of the archive, built so that a run costs what is new
// since the last one, whatever the archive's age. Change pages are immutable (a commit never
// changes). Histories are cut into pages of kSitePageSize changes numbered from the oldest,
// so a new change rewrites only the newest page of its source's history and of the archive's;
// older pages never change. The site remembers the branch tip it was rendered at: a run walks
// back from HEAD to that tip only, and rebuilds everything when the tip left the branch (a
// reset or rebase), re-using the pages of the commits both histories share. What the pages
// list lives beside them in .feeddiff-site/, one small file per page; the commits to render
// and the rows rendered wait in files of the run's own (site_work.h), and change pages are
// rendered a round of commits at a time, source by source: memory is bounded by a round, the
// number of sources and the longest history of one source, not by the archive's.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "cli/change.h"
#include "cli/change_class.h"
#include "cli/command.h"
#include "cli/oid.h"
#include "cli/site_feed.h"
#include "cli/site_items.h"
#include "cli/site_work.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

namespace fs = std::filesystem;

// Bumped when the pages' layout changes, so that old pages get rendered again. 3: raw copies
// are published as NAME.txt (a first run after the bump rebuilds every change page, which
// removes the raw copies under their old names).
constexpr int kSiteLayout = 3;
// What the pages list: state (the render key, the tip, counts per source) and one file of
// rows per history page, history/N.tsv and sources/NAME/N.tsv.
constexpr const char* kStateDir = ".feeddiff-site";
// Layout 1 kept every rendered change in this one file; read once to remove stale pages.
constexpr const char* kOldManifest = ".feeddiff-site.tsv";
// A run's working files (site_work.h), removed when it ends.
constexpr const char* kWorkDir = ".feeddiff-site.work";
// Held (flock) for the whole run, so that two runs never write one site at once; it names the
// holder's pid. Never removed: removing a lock file that another run is about to lock would
// let a third one lock a new file of the same name.
constexpr const char* kLockFile = ".feeddiff-site.lock";
// Commits rendered per round at most: a round's memory is 32 bytes per commit (its id, where
// its row is, its place in its source's list). Also the ids checked at once for pages gone.
constexpr std::size_t kDefaultRound = 100'000;
// Rows of unfinished pages held in memory at most before they go to their files (a first
// build over 10,000 sources fills 10,000 pages at once).
constexpr std::size_t kOpenRowsCap = 20'000;

struct SiteOptions {
  std::string dir;
  std::string base_url;
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 300;
  std::size_t feed_entries = 500;
  std::size_t round = kDefaultRound;
};

// What a run did, for the summary line and the tests.
struct Writes {
  std::size_t written = 0;
  std::size_t unchanged = 0;
  std::size_t removed = 0;
  std::size_t rendered = 0;   // change pages rendered (each a diff of two versions)
  std::size_t ignored = 0;    // rows of the state files that were not the site's own
  std::size_t refused = 0;    // raw artifacts not published: names feeddiff never writes
  std::string first_refused;  // the first of them, "PATH in commit ID"
};

// Tabs and line ends would break the rows.
std::string one_cell(std::string text) {
  for (char& c : text)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return text;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    cells.push_back(line.substr(start, tab - start));
  cells.push_back(line.substr(start));
  return cells;
}

// A commit id as the archive writes them (libgit2's SHA-1 hex). The rows' ids name files
// the site writes and removes: anything else in that column is not the site's own.
bool is_commit_id(std::string_view id) {
  return parse_oid(id).has_value();
}

// A row without its line end.
std::string row_line(const SiteChange& c) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}", c.id, one_cell(c.source),
                     one_cell(c.observed_at), c.added, c.removed, one_cell(c.title),
                     one_cell(c.items));
}

std::string row_text(const SiteChange& c) {
  return row_line(c) + '\n';
}

std::optional<SiteChange> parse_row(const std::string& line) {
  std::vector<std::string> cells = split_tabs(line);
  if (cells.size() != 7 || !is_commit_id(cells[0])) return std::nullopt;
  SiteChange c;
  c.id = cells[0];
  c.source = cells[1];
  c.observed_at = cells[2];
  c.added = std::strtoull(cells[3].c_str(), nullptr, 10);
  c.removed = std::strtoull(cells[4].c_str(), nullptr, 10);
  c.title = cells[5];
  c.items = cells[6];
  c.href = "changes/" + c.id + ".html";
  return c;
}

// The rows of a file of rows, oldest first; malformed rows are counted and skipped.
std::vector<SiteChange> load_rows(const fs::path& path, Writes& writes) {
  std::vector<SiteChange> rows;
  auto text = read_file(path.string());
  if (!text) return rows;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (auto row = parse_row(line))
      rows.push_back(std::move(*row));
    else
      ++writes.ignored;
  }
  return rows;
}

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

  static SiteState load(const fs::path& path) {
    SiteState st;
    auto text = read_file(path.string());
    if (!text) return st;
    std::istringstream lines(*text);
    std::getline(lines, st.key);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> cells = split_tabs(line);
      if (cells.size() == 2 && cells[0] == "tip" && is_commit_id(cells[1])) st.tip = cells[1];
      if (cells.size() == 2 && cells[0] == "root" && is_commit_id(cells[1])) st.root = cells[1];
      if (cells.size() == 2 && cells[0] == "changes")
        st.changes = std::strtoull(cells[1].c_str(), nullptr, 10);
      if (cells.size() == 7 && cells[0] == "source") {
        SourceRow& s = st.sources[cells[1]];
        s.count = std::strtoull(cells[2].c_str(), nullptr, 10);
        s.last_id = is_commit_id(cells[3]) ? cells[3] : "";
        s.last_observed = cells[4];
        s.url = cells[5];
        s.status = cells[6];
      }
    }
    // Without a tip the rows cannot be trusted: the next run starts over.
    if (st.tip.empty()) st = SiteState{};
    return st;
  }

  std::string text() const {
    std::string out = key + "\n";
    out += fmt::format("tip\t{}\nroot\t{}\nchanges\t{}\n", tip, root, changes);
    for (const auto& [name, s] : sources)
      out += fmt::format("source\t{}\t{}\t{}\t{}\t{}\t{}\n", one_cell(name), s.count, s.last_id,
                         one_cell(s.last_observed), one_cell(s.url), one_cell(s.status));
    return out;
  }
};

// Whether path lies strictly inside top once symlinks above it are resolved: the site removes
// nothing that is not its own, whatever the manifest or a link in DIR says. (The last
// component is not resolved: removing a link removes the link, not what it points to.)
bool strictly_inside(const fs::path& top, const fs::path& path) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(top, ec);
  if (ec) return false;
  const fs::path lexical = path.lexically_normal();
  if (!lexical.has_filename()) return false;
  const fs::path parent = fs::weakly_canonical(lexical.parent_path(), ec);
  if (ec) return false;
  const fs::path rel = (parent / lexical.filename()).lexically_relative(base);
  return !rel.empty() && *rel.begin() != "." && *rel.begin() != "..";
}

Status make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Error{Errc::io,
                 fmt::format("cannot create directory {}: {}", dir.string(), ec.message())};
  return Ok{};
}

// Writes the file unless it already holds exactly these bytes.
Status write_if_changed(const fs::path& path, std::string_view content, Writes& writes) {
  if (auto old = read_file(path.string()); old && *old == content) {
    ++writes.unchanged;
    return Ok{};
  }
  if (auto ok = make_dirs(path.parent_path()); !ok) return ok;
  if (auto ok = write_file_replace(path.string(), content); !ok) return ok;
  ++writes.written;
  return Ok{};
}

std::string observed_at(const CommitInfo& commit) {
  if (const std::string* observed = commit.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) return format_iso8601_ms(*t);
  return format_iso8601_ms(commit.commit_time);
}

// The name of an artifact's raw copy on the site, nullopt for a name that feeddiff never
// writes (a commit pushed by hand or by someone else): only response.xml, response.json and
// not-a-feed (poll's paths), published as response.xml.txt, response.json.txt and
// not-a-feed.txt. Every static
// host serves .txt as text/plain, so no browser renders a body as a page from the site's
// origin: an XHTML body served as application/xml, or an artifact named x.html, would run its
// scripts there (the pages' CSP covers the pages only).
std::optional<std::string> raw_copy_name(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  if (name != "response.xml" && name != "response.json" && name != kNotAFeedFile)
    return std::nullopt;
  return name + ".txt";
}

// Removes what raw/ID/ holds besides `keep` ("" for nothing): raw copies that an older site
// published under their own names, or that a crafted commit named.
void remove_other_raw(const fs::path& top, const std::string& id, const std::string& keep) {
  const fs::path dir = top / "raw" / id;
  std::error_code ec;
  if (!strictly_inside(top, dir) || !fs::is_directory(fs::symlink_status(dir, ec))) return;
  std::vector<fs::path> others;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename() != keep) others.push_back(entry.path());
  for (const fs::path& other : others)
    if (strictly_inside(top, other)) fs::remove_all(other, ec);
}

// Text that may name URLs (a poll's last error), with each URL as commits record it: the
// site shows what the trailers show, never a ?token=... that feeddiff.toml or an error holds.
std::string redact_urls_in(std::string_view text) {
  const std::string lower = to_lower(text);
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = std::min(lower.find("http://", at), lower.find("https://", at));
    if (start == std::string::npos) break;
    std::size_t end = text.find_first_of(" \t\r\n\"'<>", start);
    if (end == std::string_view::npos) end = text.size();
    // Punctuation that ends a sentence or a "URL: reason" is not part of the URL.
    std::size_t url_end = end;
    while (url_end > start &&
           std::string_view(":,.;)]").find(text[url_end - 1]) != std::string_view::npos)
      --url_end;
    out += text.substr(at, start - at);
    out += redact_recorded_url(text.substr(start, url_end - start));
    out += text.substr(url_end, end - url_end);
    at = end;
  }
  if (at < text.size()) out += text.substr(at);
  return out;
}

// Holds DIR's lock file (kLockFile) until destroyed: a second run, from cron or by hand,
// stops at once with the holder's pid instead of deleting the first one's work files and
// interleaving its rows (the next cron run continues where the first left off).
class SiteLock {
 public:
  static Result<SiteLock> take(const fs::path& top) {
    const std::string path = (top / kLockFile).string();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      return Error{Errc::io, fmt::format("cannot open {}: {}", path, std::strerror(errno))};
    SiteLock lock(fd);
    int rc;
    while ((rc = ::flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      if (errno != EWOULDBLOCK)
        return Error{Errc::io, fmt::format("cannot lock {}: {}", path, std::strerror(errno))};
      auto held_by = read_file(path);
      std::string pid = held_by ? one_cell(*held_by) : std::string();
      while (!pid.empty() && pid.back() == ' ') pid.pop_back();
      if (pid.empty() || pid.size() > 20 ||
          pid.find_first_not_of("0123456789") != std::string::npos)
        pid = "unknown";
      return Error{Errc::locked,
                   fmt::format("site {} is being built by another feeddiff (pid {}); run it "
                               "again when that one has finished",
                               top.string(), pid)};
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0)
      return Error{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(errno))};
    return Result<SiteLock>(std::move(lock));
  }
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

std::string poll_status(const SourceState& s) {
  if (s.disabled) return "disabled: " + redact_urls_in(s.disabled_reason);
  if (s.last_result == "failed")
    return fmt::format("failing ({} in a row): {}", s.consecutive_failures,
                       redact_urls_in(s.last_error));
  std::string out = s.last_result;
  if (s.last_attempt) out += " at " + format_iso8601_ms(s.last_attempt).substr(0, 16) + "Z";
  if (s.last_status) out += fmt::format(" (HTTP {})", s.last_status);
  return out;
}

// Renders one change page (and copies the raw artifact beside it); fills in what the pages
// list about it.
// versions, when given, is the source's (else its versions are read for this change).
Result<SiteChange> render_change(const Archive& archive, const std::string& id,
                                 const SiteOptions& options, const fs::path& top, Writes& writes,
                                 SourceVersions* versions) {
  SiteChange out;
  // A layout migration (`migrate`) moved every source and changed none: no page.
  if (auto commit = archive.resolve(id);
      commit && commit->trailer("Layout") && !commit->trailer("Source"))
    return out;
  auto loaded = load_change(archive, id, "", false, true, versions);
  if (!loaded) return loaded.error();
  const CommitInfo& commit = (*loaded)->commit;
  const ChangeView& view = (*loaded)->view;
  out.id = commit.id;
  out.title = commit.title;
  out.source = view.source;
  out.observed_at = observed_at(commit);
  out.added = view.diff.added;
  out.removed = view.diff.removed;
  out.items = site_items_label(commit, view.items);  // marked with its class (minor, not a feed)
  out.href = "changes/" + commit.id + ".html";

  const std::optional<std::string> raw_name = raw_copy_name(view.path);
  HtmlLinks links;
  links.nav = {{"Archive", "../index.html"}};
  if (check_source_name(view.source)) {
    links.nav.emplace_back(view.source, "../sources/" + view.source + ".html");
    // An item this change edited has a page of its own, written in the same run.
    links.item = [source = view.source](const ItemChange& item) {
      return item.kind == ItemChange::Kind::changed
                 ? "../items/" + source + "/" + item_key(item.id) + ".html"
                 : std::string();
    };
  }
  if (view.path_status != "deleted" && raw_name) {
    links.raw = "../raw/" + commit.id + "/" + *raw_name;
    // A raw/ID that is a link (out of the site, say) is the site's own name for something
    // else: the link goes, not what it leads to, and the copy gets a directory of its own.
    const fs::path raw_dir = top / "raw" / commit.id;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(raw_dir, ec)) && strictly_inside(top, raw_dir))
      fs::remove(raw_dir, ec);
    if (!strictly_inside(top, raw_dir / *raw_name))
      return Error{Errc::io, fmt::format("{} leads out of {}: the raw copy is not written there",
                                         raw_dir.string(), top.string())};
    if (auto ok = write_if_changed(raw_dir / *raw_name, (*loaded)->new_body, writes); !ok)
      return ok.error();
  } else if (view.path_status != "deleted" && writes.refused++ == 0) {
    writes.first_refused = fmt::format("{} in commit {}", view.path, commit.id.substr(0, 12));
  }
  remove_other_raw(top, commit.id, raw_name.value_or(""));
  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  if (auto ok = write_if_changed(top / out.href, render_html(view, render, links), writes); !ok)
    return ok.error();
  if (auto ok = save_feed_entry(top / kStateDir, view); !ok) return ok.error();
  ++writes.rendered;
  return out;
}

// The history lists: the archive's ("") and each source's, cut into pages. A change goes to
// a position of a list; the page it lands on is kept in memory until it is full (then its
// HTML is written, once) or the run ends; rows beyond kOpenRowsCap go to their files early.
class Histories {
 public:
  Histories(fs::path top, Writes& writes) : top_(std::move(top)), writes_(writes) {}

  // Appends the change at position (0 for a list's first change) of the list.
  Status append(const std::string& list, std::size_t position, const SiteChange& change) {
    const std::size_t number = position / kSitePageSize + 1;
    auto it = open_.find(list);
    if (it != open_.end() && it->second.number != number) {
      if (auto ok = spill(list, it->second); !ok) return ok;
      open_rows_ -= it->second.rows.size();
      open_.erase(it);
      it = open_.end();
    }
    if (it == open_.end()) {
      Page page{number, load_rows(rows_path(list, number), writes_)};
      // Rows at or beyond this position came from a run that did not finish.
      if (page.rows.size() > position % kSitePageSize) page.rows.resize(position % kSitePageSize);
      open_rows_ += page.rows.size();
      it = open_.emplace(list, std::move(page)).first;
    }
    it->second.rows.push_back(change);
    ++open_rows_;
    if (it->second.rows.size() == kSitePageSize) {
      if (auto ok = write(list, it->second); !ok) return ok;
      pending_.erase({list, number});
      open_rows_ -= it->second.rows.size();
      open_.erase(it);
    } else if (open_rows_ > kOpenRowsCap) {
      for (auto& [name, page] : open_)
        if (auto ok = spill(name, page); !ok) return ok;
      open_.clear();
      open_rows_ = 0;
    }
    return Ok{};
  }

  // Writes every page not yet full that this run changed.
  Status finish() {
    for (auto& [list, page] : open_) {
      if (auto ok = write(list, page); !ok) return ok;
      pending_.erase({list, page.number});
    }
    open_.clear();
    open_rows_ = 0;
    for (const auto& [list, number] : pending_) {
      Page page{number, load_rows(rows_path(list, number), writes_)};
      if (auto ok = write(list, page); !ok) return ok;
    }
    pending_.clear();
    return Ok{};
  }

  // The newest n changes of a list of count changes, newest first (after finish).
  std::vector<SiteChange> newest(const std::string& list, std::size_t count, std::size_t n) {
    std::vector<SiteChange> out;
    for (std::size_t number = pages(count); number >= 1 && out.size() < n; --number) {
      std::vector<SiteChange> rows = load_rows(rows_path(list, number), writes_);
      for (auto row = rows.rbegin(); row != rows.rend() && out.size() < n; ++row)
        out.push_back(std::move(*row));
    }
    return out;
  }

  static std::size_t pages(std::size_t count) {
    return (count + kSitePageSize - 1) / kSitePageSize;
  }

  fs::path rows_path(const std::string& list, std::size_t number) const {
    const fs::path dir =
        list.empty() ? top_ / kStateDir / "history" : top_ / kStateDir / "sources" / list;
    return dir / fmt::format("{}.tsv", number);
  }

 private:
  struct Page {
    std::size_t number = 1;
    std::vector<SiteChange> rows;  // oldest first
  };

  // The page's rows to their file; its HTML waits for the end of the run.
  Status spill(const std::string& list, const Page& page) {
    pending_.insert({list, page.number});
    return write_rows(list, page);
  }

  Status write_rows(const std::string& list, const Page& page) {
    std::string text;
    for (const SiteChange& c : page.rows) text += row_text(c);
    Writes not_counted;
    return write_if_changed(rows_path(list, page.number), text, not_counted);
  }

  Status write(const std::string& list, const Page& page) {
    if (auto ok = write_rows(list, page); !ok) return ok;
    SiteHistoryPage html;
    html.source = list;
    html.number = page.number;
    html.changes.assign(page.rows.rbegin(), page.rows.rend());
    const fs::path path = list.empty()
                              ? top_ / "history" / fmt::format("{}.html", page.number)
                              : top_ / "sources" / list / fmt::format("{}.html", page.number);
    return write_if_changed(path, render_history_page(html), writes_);
  }

  fs::path top_;
  Writes& writes_;
  std::map<std::string, Page> open_;
  std::size_t open_rows_ = 0;
  std::set<std::pair<std::string, std::size_t>> pending_;  // spilled, HTML not yet written
};

// Reads the rows a previous build listed, oldest first, one page file at a time: a rebuild
// re-uses the change pages of the commits at the start of both histories.
class OldRows {
 public:
  OldRows(fs::path dir, Writes& writes) : dir_(std::move(dir)), writes_(writes) {}

  // The next row, or nullopt at the end.
  std::optional<SiteChange> next() {
    while (at_ >= rows_.size()) {
      const fs::path file = dir_ / fmt::format("{}.tsv", ++page_);
      if (!fs::exists(file)) return std::nullopt;
      rows_ = load_rows(file, writes_);
      at_ = 0;
    }
    return rows_[at_++];
  }

 private:
  fs::path dir_;
  Writes& writes_;
  std::size_t page_ = 0;
  std::vector<SiteChange> rows_;
  std::size_t at_ = 0;
};

// Removes a change's page and artifact, if they are inside the site.
void remove_change(const fs::path& top, const std::string& id, Writes& writes) {
  if (!is_commit_id(id)) return;
  std::error_code ec;
  bool any = false;
  if (const fs::path page = top / "changes" / (id + ".html"); strictly_inside(top, page))
    any |= fs::remove(page, ec);
  if (const fs::path raw = top / "raw" / id; strictly_inside(top, raw))
    any |= fs::remove_all(raw, ec) > 0;
  if (const fs::path entry = feed_entry_path(top / kStateDir, id); strictly_inside(top, entry))
    fs::remove(entry, ec);
  writes.removed += any;
}

void remove_tree(const fs::path& top, const fs::path& path) {
  std::error_code ec;
  if (strictly_inside(top, path)) fs::remove_all(path, ec);
}

// Removes the pages of the ids next() gives that the new history (fresh) lacks: a chunk of
// ids at a time, each chunk checked against the whole spool read once, so that memory is a
// chunk's whatever the history's length.
Status remove_gone(const fs::path& top, CommitSpool& fresh, std::size_t chunk_size,
                   const std::function<std::optional<std::string>()>& next, Writes& writes) {
  for (bool more = true; more;) {
    std::vector<Oid> chunk;
    while (chunk.size() < chunk_size) {
      auto id = next();
      if (!id) {
        more = false;
        break;
      }
      chunk.push_back(to_oid(*id));
    }
    std::sort(chunk.begin(), chunk.end());
    chunk.erase(std::unique(chunk.begin(), chunk.end()), chunk.end());
    if (chunk.empty()) continue;
    std::vector<bool> kept(chunk.size());
    auto read = fresh.each([&](const Oid& id) {
      const auto it = std::lower_bound(chunk.begin(), chunk.end(), id);
      if (it != chunk.end() && *it == id) kept[static_cast<std::size_t>(it - chunk.begin())] = true;
    });
    if (!read) return read;
    for (std::size_t i = 0; i < chunk.size(); ++i)
      if (!kept[i]) remove_change(top, to_hex(chunk[i]), writes);
  }
  return Ok{};
}

Result<int> site(const Globals& globals, const SiteOptions& options) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  const fs::path top = options.dir;
  if (auto ok = make_dirs(top); !ok) return ok.error();
  auto lock = SiteLock::take(top);
  if (!lock) return lock.error();
  const fs::path state_path = top / kStateDir / "state";
  const std::string key =
      fmt::format("feeddiff-site {} {} lines={} chars={} origin={} page={}", kSiteLayout, version(),
                  options.max_lines, options.max_line_chars,
                  one_cell(archive->origin_url().value_or("")), kSitePageSize);
  SiteState state = SiteState::load(state_path);
  bool rebuild = state.key != key;

  // The commits that recorded a change since the tip rendered last (all of them when the tip
  // is no longer on the branch), to a file: newest first as walked, read back oldest first.
  const fs::path work = top / kWorkDir;
  remove_tree(top, work);
  if (auto ok = make_dirs(work); !ok) return ok.error();
  auto fresh = CommitSpool::create((work / "commits").string());
  if (!fresh) return fresh.error();
  std::string head, root;
  bool reached_tip = false;
  Status spooled = Ok{};
  auto walked = archive->walk_first_parent("raw/", [&](const std::string& id, bool touched) {
    if (head.empty()) head = id;
    if (!rebuild && id == state.tip) {
      reached_tip = true;
      return false;
    }
    if (touched) spooled = fresh->push(to_oid(id));
    root = id;
    return bool(spooled);
  });
  if (!walked) return walked.error();
  if (!spooled) return spooled.error();
  if (!rebuild && !reached_tip) rebuild = true;

  Writes writes;
  const fs::path old_state = top / (std::string(kStateDir) + ".old");
  const bool reuse_pages = state.key == key;
  if (rebuild) {
    // Start the lists over; the old rows stay aside to re-use their pages and to find the
    // pages of commits that left the history.
    remove_tree(top, old_state);
    std::error_code ec;
    if (fs::exists(top / kStateDir / "history", ec) && strictly_inside(top, old_state))
      fs::rename(top / kStateDir, old_state, ec);
    remove_tree(top, top / kStateDir);
    remove_tree(top, top / "history");
    remove_tree(top, top / "sources");
    // The feed entries of re-used change pages are re-used with them.
    if (reuse_pages && make_dirs(top / kStateDir))
      fs::rename(old_state / "entries", top / kStateDir / "entries", ec);
    state = SiteState{};
    state.key = key;
    state.root = root;
  }

  Histories histories(top, writes);
  // Each source with new changes, and the oldest of them.
  std::map<std::string, std::string> touched_sources;
  Writes read_twice;  // the stale pass below counts the old rows that are not the site's own
  OldRows old_rows(old_state / "history", read_twice);
  bool reusing = rebuild && reuse_pages;
  auto rows = RowSpool::create((work / "rows").string());
  if (!rows) return rows.error();
  // In rounds of options.round commits, oldest first. A round's change pages are rendered
  // source by source, each source's versions read once and dropped after (holding every
  // source's for the whole run was most of a first build's memory: 500 MB at 1M changes);
  // its rows wait in the row spool, then go to the lists in the history's order.
  const std::size_t round = std::min(options.round, std::max<std::size_t>(fresh->size(), 1));
  for (std::size_t begin = 0; begin < fresh->size(); begin += round) {
    auto ids = fresh->oldest(begin, begin + round);
    if (!ids) return ids.error();
    if (auto ok = rows->clear(); !ok) return ok.error();
    // Per commit of the round: where its row is in the spool, or that it is rendered below.
    constexpr std::uint64_t kInOrder = ~std::uint64_t{0};
    std::vector<std::uint64_t> at(ids->size(), kInOrder);
    std::map<std::string, std::vector<std::uint32_t>> by_source;
    for (std::size_t i = 0; i < ids->size(); ++i) {
      const std::string id = to_hex((*ids)[i]);
      if (reusing) {
        auto old = old_rows.next();
        if (old && old->id == id && fs::exists(top / old->href)) {
          auto put = rows->put(row_line(*old));
          if (!put) return put.error();
          at[i] = *put;
          continue;
        }
        reusing = false;
      }
      // A poll's commit names its source; any other (made by hand, a migration) is rendered
      // in order, reading its source's versions as it comes.
      auto commit = archive->resolve(id);
      if (!commit) return commit.error();
      if (const std::string* source = commit->trailer("Source");
          source && check_source_name(*source))
        by_source[*source].push_back(static_cast<std::uint32_t>(i));
    }
    for (const auto& [source, positions] : by_source) {
      auto versions = SourceVersions::load(*archive, source);
      for (const std::uint32_t i : positions) {
        auto rendered = render_change(*archive, to_hex((*ids)[i]), options, top, writes,
                                      versions ? &*versions : nullptr);
        if (!rendered) return rendered.error();
        if (rendered->id.empty()) continue;
        auto put = rows->put(row_line(*rendered));
        if (!put) return put.error();
        at[i] = *put;
      }
      // What this round learnt is where the next round's reading starts.
      if (versions) versions->save();
    }
    for (std::size_t i = 0; i < ids->size(); ++i) {
      std::optional<SiteChange> change;
      if (at[i] == kInOrder) {
        auto rendered = render_change(*archive, to_hex((*ids)[i]), options, top, writes, nullptr);
        if (!rendered) return rendered.error();
        if (rendered->id.empty()) continue;  // a migration
        change = std::move(*rendered);
      } else {
        auto line = rows->get(at[i]);
        if (!line) return line.error();
        change = parse_row(*line);
        if (!change)
          return Error{Errc::io, fmt::format("a row in {} does not read back", work.string())};
      }
      if (auto ok = histories.append("", state.changes++, *change); !ok) return ok.error();
      SourceRow& source = state.sources[change->source];
      if (check_source_name(change->source)) {
        if (auto ok = histories.append(change->source, source.count, *change); !ok)
          return ok.error();
        touched_sources.emplace(change->source, change->id);
      }
      ++source.count;
      source.last_id = change->id;
      source.last_observed = change->observed_at;
    }
  }
  if (auto ok = histories.finish(); !ok) return ok.error();
  state.tip = head;

  if (rebuild) {
    // Pages of commits that left the history (a reset or a rebased branch) go: the ids the
    // old lists name, checked against the new history a chunk at a time.
    OldRows stale(old_state / "history", writes);
    std::ifstream manifest(top / kOldManifest);
    std::string line;
    std::getline(manifest, line);  // its key
    auto next_old = [&]() -> std::optional<std::string> {
      if (auto row = stale.next()) return row->id;
      while (std::getline(manifest, line)) {
        std::string id = line.substr(0, line.find('\t'));
        if (is_commit_id(id)) return id;
        ++writes.ignored;
      }
      return std::nullopt;
    };
    if (auto ok = remove_gone(top, *fresh, options.round, next_old, writes); !ok) return ok.error();
    manifest.close();
    std::error_code ec;
    fs::remove(top / kOldManifest, ec);
    remove_tree(top, old_state);
  }
  remove_tree(top, work);

  // Sources: those configured now, and every one that recorded a change. A source's page
  // is written when it had new changes or its URL or poll status changed.
  std::map<std::string, std::string> configured;
  if (auto toml = archive->read_head("feeddiff.toml"); toml && *toml)
    if (auto config = parse_config(**toml))
      for (const auto& s : config->sources) configured[s.name] = redact_recorded_url(s.url);
  for (const auto& [name, url] : configured) state.sources[name];
  State poll_state;
  if (auto loaded = load_state(*archive)) poll_state = std::move(*loaded);
  const std::string feed_id =
      state.root.empty() ? "urn:feeddiff:archive" : "urn:feeddiff:archive:" + state.root;
  std::string base = options.base_url;
  if (!base.empty() && !base.ends_with('/')) base += '/';
  const bool new_feed_base = feeds_base_changed(top / kStateDir, base);
  const WriteFile write = [&](const fs::path& path, std::string_view content) {
    return write_if_changed(path, content, writes);
  };
  std::vector<SiteSource> listed;
  for (auto it = state.sources.begin(); it != state.sources.end();) {
    auto& [name, row] = *it;
    auto url = configured.find(name);
    if (row.count == 0 && url == configured.end()) {
      it = state.sources.erase(it);
      continue;
    }
    SiteSource s;
    s.name = name;
    s.url = url == configured.end() ? "" : url->second;
    if (auto st = poll_state.sources.find(name); st != poll_state.sources.end())
      s.status = poll_status(st->second);
    s.total = row.count;
    s.pages = Histories::pages(row.count);
    s.href = "sources/" + name + ".html";
    // Its edited items' pages and feeds change only with its changes (and a feed's links
    // with the base URL): only then is its history read again.
    const auto touched = touched_sources.find(name);
    if (check_source_name(name) && row.count &&
        (touched != touched_sources.end() || new_feed_base)) {
      // Every item page when the feeds' links change; else those of items with new events.
      const std::string since =
          new_feed_base || touched == touched_sources.end() ? "" : touched->second;
      auto items = write_item_pages(*archive, top, top / kStateDir, name, base, since, write);
      if (!items) return items.error();
    }
    // A name that is not safe as a file name gets no page (it cannot come from `add`).
    if (!check_source_name(name)) {
      s.href.clear();
    } else if (touched_sources.count(name) || s.url != row.url || s.status != row.status ||
               !fs::exists(top / s.href)) {
      SiteSource page = s;
      page.changes = histories.newest(name, row.count, kSitePageSize);
      page.edited = edited_items(top / kStateDir, name);
      if (auto ok = write_if_changed(top / s.href, render_source_page(page), writes); !ok)
        return ok.error();
    }
    // Its feed changes only with its changes (a feed's bytes name no poll status).
    const fs::path feed = top / "sources" / name / "feed.atom";
    if (check_source_name(name) &&
        (new_feed_base || touched_sources.count(name) || !fs::exists(feed))) {
      auto atom = source_feed(*archive, top / kStateDir, name,
                              histories.newest(name, row.count, kSourceFeedEntries),
                              feed_id + ":source:" + name, base);
      if (!atom) return atom.error();
      if (auto ok = write_if_changed(feed, *atom, writes); !ok) return ok.error();
    }
    row.url = s.url;
    row.status = s.status;
    if (row.count) {
      SiteChange last;
      last.id = row.last_id;
      last.observed_at = row.last_observed;
      last.href = "changes/" + row.last_id + ".html";
      s.changes.push_back(std::move(last));
    }
    listed.push_back(std::move(s));
    ++it;
  }
  if (new_feed_base)
    if (auto ok = save_feeds_base(top / kStateDir, base); !ok) return ok.error();

  const std::vector<SiteChange> newest = histories.newest(
      "", state.changes, std::max<std::size_t>(kSitePageSize, options.feed_entries));
  std::vector<SiteChange> recent(newest.begin(),
                                 newest.begin() + std::min(newest.size(), kSitePageSize));
  if (auto ok = write_if_changed(top / "index.html",
                                 render_site_index(listed, recent, Histories::pages(state.changes)),
                                 writes);
      !ok)
    return ok.error();
  std::vector<SiteChange> entries(newest.begin(),
                                  newest.begin() + std::min(newest.size(), options.feed_entries));
  if (auto ok =
          write_if_changed(top / "feed.atom", render_site_atom(entries, feed_id, base), writes);
      !ok)
    return ok.error();
  // Last: a run that stops before this leaves the old tip, and the next one redoes its work.
  // The pages were written without an fsync each; one flush of the file system puts them on
  // disk before the state that says they are there.
  if (auto ok = sync_filesystem(top.string()); !ok) return ok.error();
  if (auto old = read_file(state_path.string()); !old || *old != state.text())
    if (auto ok = write_file_atomic(state_path.string(), state.text()); !ok) return ok.error();

  if (writes.refused)
    write_out(fmt::format(
        "site: did not publish {} raw artifact{} whose name feeddiff never writes (only "
        "response.xml and response.json are published), first {}\n",
        writes.refused, writes.refused == 1 ? "" : "s", writes.first_refused));
  if (writes.ignored)
    write_out(fmt::format("site: ignored {} malformed row{} in {}\n", writes.ignored,
                          writes.ignored == 1 ? "" : "s", (top / kStateDir).string()));
  write_out(
      fmt::format("site: {} change{}, {} source{}; rendered {} change{}{}; wrote {} file{}, {} "
                  "unchanged{} ({})\n",
                  with_thousands(state.changes), state.changes == 1 ? "" : "s",
                  with_thousands(listed.size()), listed.size() == 1 ? "" : "s",
                  with_thousands(writes.rendered), writes.rendered == 1 ? "" : "s",
                  rebuild ? " (full build)" : "", with_thousands(writes.written),
                  writes.written == 1 ? "" : "s", with_thousands(writes.unchanged),
                  writes.removed ? fmt::format(", {} removed", writes.removed) : "",
                  (top / "index.html").string()));
  return 0;
}

}  // namespace

Command site_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("site", "Write a static HTML site of the archive");
  auto options = std::make_shared<SiteOptions>();
  app->add_option("DIR", options->dir, "Where to write it (made if missing)")->required();
  app->add_option("--base-url", options->base_url,
                  "Where the site will be served, to make the Atom feed's links absolute");
  app->add_option("--max-lines", options->max_lines,
                  "Diff lines shown per change at most (default 400)")
      ->check(CLI::PositiveNumber);
  app->add_option("--max-line-chars", options->max_line_chars,
                  "Characters of one diff line shown at most (default 300)")
      ->check(CLI::PositiveNumber);
  app->add_option("--feed-entries", options->feed_entries,
                  "Newest changes in the Atom feed (default 500)")
      ->check(CLI::PositiveNumber);
  // For the tests: rounds of a few commits give the pages that one round gives.
  app->add_option("--round", options->round, "Commits rendered per round")
      ->check(CLI::PositiveNumber)
      ->group("");
  app->footer(R"(DIR gets index.html (the sources with their last change and count of changes,
the 50 newest changes, links to the history pages), history/N.html (every change, 50 a page,
page 1 the oldest), sources/NAME.html (a source's 50 newest changes and its pages),
sources/NAME/N.html (its history, 50 a page), changes/ID.html (one page per change, as
`show --format html`), raw/ID/response.xml.txt or response.json.txt (the raw artifact at that
commit, as plain text so that no browser renders it as a page), feed.atom (the newest
changes) and sources/NAME/feed.atom (a source's 50 newest changes, each entry listing the
item changes with their before and after, for a feed reader), items/NAME/KEY.html and
items/NAME/KEY.atom (a page and an Atom feed per item ever edited: its versions, each edit's
fields before and after; KEY a hash of the item's id). Each history page links to
the older one, so every change is reachable from the index; only the newest page of a
history changes, older pages are written once. Links are relative: open DIR/index.html from
disk or serve DIR from any static host. A run renders the changes since the tip it last
rendered (kept in DIR/.feeddiff-site/) and writes only files whose bytes differ; after a
reset or rebase it rebuilds the lists and removes the pages of commits that left the branch.
A run holds DIR/.feeddiff-site.lock: a second run on the same DIR stops at once with an
error naming the first one's pid.

Examples:
  feeddiff site public/
  feeddiff site public/ --base-url https://example.org/feeds/)");
  return {app, [options, &globals] { return site(globals, *options); }};
}

}  // namespace feeddiff::cli
