// feeddiff site DIR: a static HTML site of the archive. Change pages are immutable (a
// commit never changes), so a run renders only the commits it has not rendered before, and
// writes a file only when its bytes differ from what is there: a second run after one more
// change rewrites that change's page, its source's page, the index and the Atom feed.

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "cli/change.h"
#include "cli/command.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

namespace fs = std::filesystem;

// Bumped when the change pages' layout changes, so that old pages get rendered again.
constexpr int kSiteLayout = 1;
constexpr const char* kManifest = ".feeddiff-site.tsv";

struct SiteOptions {
  std::string dir;
  std::string base_url;
  std::size_t max_lines = 400;
  std::size_t max_line_chars = 300;
  std::size_t feed_entries = 500;
};

// What a run did, for the summary line and the tests.
struct Writes {
  std::size_t written = 0;
  std::size_t unchanged = 0;
  std::size_t removed = 0;
};

// Tabs and line ends would break the manifest's rows.
std::string one_cell(std::string text) {
  for (char& c : text)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return text;
}

// A commit id as the archive writes them (libgit2's SHA-1 hex). The manifest's ids name files
// the site writes and removes: anything else in that column is not the site's own.
bool is_commit_id(std::string_view id) {
  return id.size() == 40 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// The manifest remembers, per rendered commit, what the index and source pages list, so a
// later run needs no diff of a commit it has rendered. Its first line is the render key:
// pages made with other limits or another layout are rendered again.
struct Manifest {
  std::string key;
  std::map<std::string, SiteChange> changes;  // by commit id
  std::size_t ignored = 0;                    // rows that were not the site's own

  static Manifest load(const std::string& path) {
    Manifest m;
    auto text = read_file(path);
    if (!text) return m;
    std::istringstream lines(*text);
    std::string line;
    std::getline(lines, m.key);
    while (std::getline(lines, line)) {
      std::vector<std::string> cells;
      std::size_t start = 0;
      for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
        cells.push_back(line.substr(start, tab - start));
      cells.push_back(line.substr(start));
      if (cells.size() != 7 || !is_commit_id(cells[0])) {
        ++m.ignored;
        continue;
      }
      SiteChange c;
      c.id = cells[0];
      c.source = cells[1];
      c.observed_at = cells[2];
      c.added = std::strtoull(cells[3].c_str(), nullptr, 10);
      c.removed = std::strtoull(cells[4].c_str(), nullptr, 10);
      c.title = cells[5];
      c.items = cells[6];
      c.href = "changes/" + c.id + ".html";
      m.changes.emplace(c.id, std::move(c));
    }
    return m;
  }

  std::string text() const {
    std::string out = key + "\n";
    for (const auto& [id, c] : changes)
      out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", id, one_cell(c.source),
                         one_cell(c.observed_at), c.added, c.removed, one_cell(c.title),
                         one_cell(c.items));
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
  if (auto ok = write_file_atomic(path.string(), content); !ok) return ok;
  ++writes.written;
  return Ok{};
}

std::string observed_at(const CommitInfo& commit) {
  if (const std::string* observed = commit.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) return format_iso8601_ms(*t);
  return format_iso8601_ms(commit.commit_time);
}

// A file name that is safe to write under the site: the artifact's own name when it is one.
std::string artifact_name(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);
  if (!check_source_name(name)) name = "artifact";
  return name;
}

std::string poll_status(const SourceState& s) {
  if (s.disabled) return "disabled: " + s.disabled_reason;
  if (s.last_result == "failed")
    return fmt::format("failing ({} in a row): {}", s.consecutive_failures, s.last_error);
  std::string out = s.last_result;
  if (s.last_attempt) out += " at " + format_iso8601_ms(s.last_attempt).substr(0, 16) + "Z";
  if (s.last_status) out += fmt::format(" (HTTP {})", s.last_status);
  return out;
}

// Renders one change page (and copies the raw artifact beside it); fills in what the index
// lists about it.
Result<SiteChange> render_change(const Archive& archive, const CommitInfo& commit,
                                 const SiteOptions& options, const fs::path& top, Writes& writes) {
  auto loaded = load_change(archive, commit.id, "");
  if (!loaded) return loaded.error();
  const ChangeView& view = (*loaded)->view;
  SiteChange out;
  out.id = commit.id;
  out.title = commit.title;
  out.source = view.source;
  out.observed_at = observed_at(commit);
  out.added = view.diff.added;
  out.removed = view.diff.removed;
  if (view.items) out.items = summarize_items(*view.items);
  out.href = "changes/" + commit.id + ".html";

  const std::string raw_name = artifact_name(view.path);
  HtmlLinks links;
  links.nav = {{"Archive", "../index.html"}};
  if (check_source_name(view.source))
    links.nav.emplace_back(view.source, "../sources/" + view.source + ".html");
  if (view.path_status != "deleted") {
    links.raw = "../raw/" + commit.id + "/" + raw_name;
    if (auto ok = write_if_changed(top / "raw" / commit.id / raw_name, (*loaded)->new_body, writes);
        !ok)
      return ok.error();
  }
  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  if (auto ok = write_if_changed(top / out.href, render_html(view, render, links), writes); !ok)
    return ok.error();
  return out;
}

Result<int> site(const Globals& globals, const SiteOptions& options) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  const fs::path top = options.dir;
  if (auto ok = make_dirs(top); !ok) return ok.error();

  auto commits = archive->log("raw/", 0);
  if (!commits) return commits.error();
  auto all = archive->log("", 0);
  if (!all) return all.error();
  const std::string feed_id =
      all->empty() ? "urn:feeddiff:archive" : "urn:feeddiff:archive:" + all->back().id;

  Manifest manifest = Manifest::load((top / kManifest).string());
  const std::string key = fmt::format(
      "feeddiff-site {} {} lines={} chars={} origin={}", kSiteLayout, version(), options.max_lines,
      options.max_line_chars, one_cell(archive->origin_url().value_or("")));
  if (manifest.key != key) manifest.changes.clear();
  manifest.key = key;

  Writes writes;
  std::vector<SiteChange> changes;  // newest first
  std::set<std::string> current;
  for (const CommitInfo& commit : *commits) {
    current.insert(commit.id);
    auto known = manifest.changes.find(commit.id);
    if (known != manifest.changes.end() && fs::exists(top / known->second.href)) {
      changes.push_back(known->second);
      continue;
    }
    auto change = render_change(*archive, commit, options, top, writes);
    if (!change) return change.error();
    manifest.changes[commit.id] = *change;
    changes.push_back(std::move(*change));
  }
  // Pages of commits that left the history (a rewritten branch) go too.
  for (auto it = manifest.changes.begin(); it != manifest.changes.end();) {
    if (current.count(it->first)) {
      ++it;
      continue;
    }
    std::error_code ec;
    if (const fs::path page = top / it->second.href; strictly_inside(top, page))
      fs::remove(page, ec);
    if (const fs::path raw = top / "raw" / it->first; strictly_inside(top, raw))
      fs::remove_all(raw, ec);
    ++writes.removed;
    it = manifest.changes.erase(it);
  }

  // Sources: those configured now, and every one that recorded a change.
  std::map<std::string, SiteSource> sources;
  if (auto toml = archive->read_head("feeddiff.toml"); toml && *toml)
    if (auto config = parse_config(**toml))
      for (const auto& s : config->sources) sources[s.name].url = s.url;
  for (const SiteChange& c : changes) sources[c.source].changes.push_back(c);
  State state;
  if (auto loaded = load_state(*archive)) state = std::move(*loaded);
  std::vector<SiteSource> listed;
  for (auto& [name, s] : sources) {
    s.name = name;
    s.href = "sources/" + name + ".html";
    if (auto st = state.sources.find(name); st != state.sources.end())
      s.status = poll_status(st->second);
    // A name that is not safe as a file name gets no page (it cannot come from `add`).
    if (check_source_name(name)) {
      if (auto ok = write_if_changed(top / s.href, render_source_page(s), writes); !ok)
        return ok.error();
    } else {
      s.href.clear();
    }
    listed.push_back(s);
  }

  std::vector<SiteChange> recent(changes.begin(),
                                 changes.begin() + std::min<std::size_t>(changes.size(), 50));
  if (auto ok = write_if_changed(top / "index.html", render_site_index(listed, recent), writes);
      !ok)
    return ok.error();
  std::vector<SiteChange> entries(changes.begin(),
                                  changes.begin() + std::min(changes.size(), options.feed_entries));
  std::string base = options.base_url;
  if (!base.empty() && !base.ends_with('/')) base += '/';
  if (auto ok =
          write_if_changed(top / "feed.atom", render_site_atom(entries, feed_id, base), writes);
      !ok)
    return ok.error();
  Writes not_counted;
  if (auto ok = write_if_changed(top / kManifest, manifest.text(), not_counted); !ok)
    return ok.error();

  if (manifest.ignored)
    write_out(fmt::format("site: ignored {} malformed row{} of {}\n", manifest.ignored,
                          manifest.ignored == 1 ? "" : "s", (top / kManifest).string()));
  write_out(fmt::format("site: {} change{}, {} source{}; wrote {} file{}, {} unchanged{} ({})\n",
                        with_thousands(changes.size()), changes.size() == 1 ? "" : "s",
                        with_thousands(listed.size()), listed.size() == 1 ? "" : "s",
                        with_thousands(writes.written), writes.written == 1 ? "" : "s",
                        with_thousands(writes.unchanged),
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
  app->footer(R"(DIR gets index.html (the sources, their last change and count of changes),
sources/NAME.html (a source's history), changes/ID.html (one page per change, as
`show --format html`), raw/ID/ (the raw artifact at that commit) and feed.atom (one entry
per change). Links are relative: open DIR/index.html from disk or serve DIR from any static
host. A second run renders only new changes and writes only files whose bytes differ.

Examples:
  feeddiff site public/
  feeddiff site public/ --base-url https://example.org/feeds/)");
  return {app, [options, &globals] { return site(globals, *options); }};
}

}  // namespace feeddiff::cli
