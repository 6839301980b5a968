// The site's rows, state, lock and guarded file operations (site_files.h).

#include "site/site_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <utility>

#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/poll.h"
#include "site/site_feed.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

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

std::vector<SiteChange> load_rows(const fs::path& path, Writes& writes) {
  auto text = read_file(path.string());
  if (!text) return {};
  return parse_rows(*text, writes);
}

std::vector<SiteChange> parse_rows(std::string_view text, Writes& writes) {
  std::vector<SiteChange> rows;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string line(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (auto row = parse_row(line))
      rows.push_back(std::move(*row));
    else
      ++writes.ignored;
  }
  return rows;
}

SiteState SiteState::load(const fs::path& path) {
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

std::string SiteState::text() const {
  std::string out = key + "\n";
  out += fmt::format("tip\t{}\nroot\t{}\nchanges\t{}\n", tip, root, changes);
  for (const auto& [name, s] : sources)
    out += fmt::format("source\t{}\t{}\t{}\t{}\t{}\t{}\n", one_cell(name), s.count, s.last_id,
                       one_cell(s.last_observed), one_cell(s.url), one_cell(s.status));
  return out;
}

// Whether path lies strictly inside top once symlinks above it are resolved: the site removes
// nothing that is not its own, whatever the manifest or a link in DIR says. (The last
// component is not resolved: removing a link removes the link, not what it points to.)
namespace {

// top resolved, kept for the thread's next call: a run asks about one top for every file it
// writes or removes, and resolving it reads every link from / down (a readlink each).
const fs::path& resolved_top(const fs::path& top, std::error_code& ec) {
  thread_local fs::path asked, resolved;
  if (asked.empty() || asked != top) {
    asked.clear();
    resolved = fs::weakly_canonical(top, ec);
    if (!ec) asked = top;
  }
  return resolved;
}

// Whether the directories between top and path's file are real directories (or missing):
// then path resolves to itself below top, and nothing else needs reading.
bool plainly_inside(const fs::path& base, const fs::path& top, const fs::path& lexical) {
  const fs::path below = lexical.lexically_relative(top.lexically_normal());
  if (below.empty() || *below.begin() == "." || *below.begin() == "..") return false;
  fs::path at = base;
  for (auto it = below.begin(); std::next(it) != below.end(); ++it) {
    if (it->empty() || *it == "." || *it == "..") return false;
    at /= *it;
    std::error_code ec;
    const fs::file_type type = fs::symlink_status(at, ec).type();
    if (type == fs::file_type::not_found) return true;  // nor is anything below it
    if (type != fs::file_type::directory) return false;
  }
  return true;
}

}  // namespace

bool strictly_inside(const fs::path& top, const fs::path& path) {
  std::error_code ec;
  const fs::path& base = resolved_top(top, ec);
  if (ec) return false;
  const fs::path lexical = path.lexically_normal();
  if (!lexical.has_filename()) return false;
  if (plainly_inside(base, top, lexical)) return true;
  const fs::path parent = fs::weakly_canonical(lexical.parent_path(), ec);
  if (ec) return false;
  const fs::path rel = (parent / lexical.filename()).lexically_relative(base);
  return !rel.empty() && *rel.begin() != "." && *rel.begin() != "..";
}

Status make_dirs(const fs::path& dir) {
  // Most calls make one directory whose parent exists: mkdir first, create_directories (a
  // stat of every component) only when that fails.
  if (!dir.empty() && ::mkdir(dir.c_str(), 0777) == 0) return Ok{};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Error{Errc::io,
                 fmt::format("cannot create directory {}: {}", dir.string(), ec.message())};
  return Ok{};
}

std::optional<SiteChange> OldRows::next() {
  while (at_ >= rows_.size()) {
    const fs::path file = dir_ / fmt::format("{}.tsv", ++page_);
    if (!fs::exists(file)) return std::nullopt;
    rows_ = load_rows(file, writes_);
    at_ = 0;
  }
  return rows_[at_++];
}

Status write_if_changed(const fs::path& path, std::string_view content, Writes& writes) {
  // A page that is not there yet (most of a first build's) is written in place: no reader
  // links it before this run's lists do, and a run killed before its state is saved writes
  // it again. Creating it is the first try (one open, no read, no stat); its directory is
  // made only when the file cannot be.
  auto made = write_file_new(path.string(), content);
  if (!made && made.error().code == Errc::not_found) {
    if (auto ok = make_dirs(path.parent_path()); !ok) return ok;
    made = write_file_new(path.string(), content);
  }
  if (made) {
    ++writes.written;
    return Ok{};
  }
  if (made.error().code == Errc::exists)
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

namespace {

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

}  // namespace

Result<SiteLock> SiteLock::take(const fs::path& top) {
  const std::string path = (top / kLockFile).string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Error{Errc::io, fmt::format("cannot open {}: {}", path, std::strerror(errno))};
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
    if (pid.empty() || pid.size() > 20 || pid.find_first_not_of("0123456789") != std::string::npos)
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

std::string writes_text(const Writes& w) {
  return fmt::format("{} {} {} {} {} {} {} {}\n", w.written, w.unchanged, w.removed, w.rendered,
                     w.ignored, w.refused, w.sealed, w.mementos);
}

std::optional<Writes> parse_writes(const std::string& text) {
  Writes w;
  std::size_t* fields[] = {&w.written, &w.unchanged, &w.removed, &w.rendered,
                           &w.ignored, &w.refused,   &w.sealed,  &w.mementos};
  std::string_view rest = text;
  for (std::size_t* field : fields) {
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), *field);
    if (ec != std::errc() || end == rest.data() || end == rest.data() + rest.size()) return {};
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()) + 1);
  }
  if (!rest.empty()) return std::nullopt;
  return w;
}

void add_writes(Writes& to, const Writes& w) {
  to.written += w.written;
  to.unchanged += w.unchanged;
  to.removed += w.removed;
  to.rendered += w.rendered;
  to.ignored += w.ignored;
  to.refused += w.refused;
  to.sealed += w.sealed;
  to.mementos += w.mementos;
}

}  // namespace feeddiff::site
