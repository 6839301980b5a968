// build_site: a static HTML site of the archive, built so that a run costs what is new
// since the last one, whatever the archive's age. Change pages are immutable (a commit never
// changes). Histories are cut into pages of kSitePageSize changes numbered from the oldest,
// so a new change rewrites only the newest page of its source's history and of the archive's;
// older pages never change. The site remembers the branch tip it was rendered at: a run walks
// back from HEAD to that tip only, and rebuilds everything when the tip left the branch (a
// reset or rebase), re-using the pages of the commits both histories share. What the pages
// list lives beside them in .feeddiff-site/, one small file per page; the commits to render
// and the rows rendered wait in files of the run's own (site_work.h), and change pages are
// rendered a round of commits at a time, source by source: memory is bounded by a round, the
// number of sources and the longest history of one source, not by the archive's. Both cores
// work: the change pages' files are written by a thread (site_writer.h) while the next ones
// are read and rendered, and half the source pages by a forked child (site_fork.h).

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "feeddiff/changes.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"
#include "feeddiff/site.h"
#include "site/site_backfilled.h"
#include "site/site_edits.h"
#include "site/site_feed.h"
#include "site/site_files.h"
#include "site/site_fork.h"
#include "site/site_histories.h"
#include "site/site_history.h"
#include "site/site_items.h"
#include "site/site_memento.h"
#include "site/site_search.h"
#include "site/site_work.h"
#include "site/site_writer.h"

namespace feeddiff {

namespace fs = std::filesystem;

namespace site {
namespace {

// Renders one change page (and copies the raw artifact beside it); fills in what the pages
// list about it. The files go to pages, which writes them on its own thread.
// versions, when given, is the source's (else its versions are read for this change).
// feed_entry: whether to keep its entry for the source's feed (not for a change that 50 later
// ones of its source push out of the feed before it is written; source_feed makes a missing
// one from the archive, should a reset bring it back).
Result<SiteChange> render_change(const Archive& archive, const std::string& id,
                                 const SiteOptions& options, const fs::path& top, Writes& writes,
                                 PageWriter& pages, SourceVersions* versions,
                                 const std::map<std::string, std::string>& urls, SiteSearch& search,
                                 bool raw_new, bool feed_entry = true) {
  SiteChange out;
  // A layout migration (`migrate`) moved every source and changed none: no page.
  auto resolved = archive.resolve(id);
  if (resolved && resolved->trailer("Layout") && !resolved->trailer("Source")) return out;
  auto loaded = load_change(
      archive,
      {.revision = id, .known_versions = versions, .resolved = resolved ? &*resolved : nullptr});
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
  search.collect(**loaded, out.observed_at);  // its documents, for the caller to place

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
  const fs::path raw_dir = top / "raw" / commit.id;
  std::error_code ec;
  // In a raw/ this run made, nothing is there but what it wrote: no look (a lookup that
  // missed waited for the writer thread's lock on the directory: the second most frequent
  // wait of the main thread in an off-CPU profile of a first build).
  const fs::file_status raw_status =
      raw_new ? fs::file_status(fs::file_type::not_found) : fs::symlink_status(raw_dir, ec);
  if (view.path_status != "deleted" && raw_name) {
    links.raw = "../raw/" + commit.id + "/" + *raw_name;
    // A raw/ID that is a link (out of the site, say) is the site's own name for something
    // else: the link goes, not what it leads to, and the copy gets a directory of its own.
    if (fs::is_symlink(raw_status) && strictly_inside(top, raw_dir)) fs::remove(raw_dir, ec);
    if (!raw_new && !strictly_inside(top, raw_dir / *raw_name))
      return Error{Errc::io, fmt::format("{} leads out of {}: the raw copy is not written there",
                                         raw_dir.string(), top.string())};
    pages.write(raw_dir / *raw_name, std::string((*loaded)->new_body));
  } else if (view.path_status != "deleted" && writes.refused++ == 0) {
    writes.first_refused = fmt::format("{} in commit {}", view.path, commit.id.substr(0, 12));
  }
  // A raw/ID made just now holds nothing else (a first build makes them all).
  if (raw_status.type() != fs::file_type::not_found)
    remove_other_raw(top, commit.id, raw_name.value_or(""));
  if (versions && check_source_name(view.source)) {
    const auto url = urls.find(view.source);
    links.memento =
        memento_links(top, view.source, url == urls.end() ? "" : url->second, *versions, commit.id,
                      [&pages](const fs::path& path) { return pages.queued(path); });
  }
  RenderOptions render;
  render.max_lines = options.max_lines;
  render.max_line_chars = options.max_line_chars;
  pages.write(top / out.href, render_html(view, render, links));
  if (feed_entry)
    for (auto& [path, content] : feed_entry_files(top / kStateDir, view))
      pages.write(std::move(path), std::move(content), false);
  ++writes.rendered;
  return out;
}

// Commits whose source directories are read ahead in one call (their ids held meanwhile).
constexpr std::size_t kAheadBatch = 16'384;

// Per commit of a round: rendered in order, not from the row spool.
constexpr std::uint64_t kInOrder = ~std::uint64_t{0};
// Per commit of a round: the search index kept its documents from the last build.
constexpr std::uint64_t kIndexed = kInOrder - 1;

// One run of build_site: its steps share the site's state, what the run wrote and the
// history lists.
class SiteBuild {
 public:
  SiteBuild(const Archive& archive, const SiteOptions& options)
      : archive_(archive), options_(options), top_(options.dir), histories_(top_, writes_) {}

  Result<SiteReport> run();

 private:
  Status walk(CommitSpool& fresh);
  void start_over();
  Status render_rounds(CommitSpool& fresh, const fs::path& work);
  Status render_round(const std::vector<Oid>& ids, std::size_t first, RowSpool& rows,
                      OldRows& old_rows, bool& reusing, const fs::path& work);
  Status list_round(const std::vector<Oid>& ids, RowSpool& rows,
                    const std::vector<std::uint64_t>& at, const std::vector<std::uint64_t>& found,
                    const fs::path& work);
  Status remove_stale(CommitSpool& fresh);
  Status write_sources(std::vector<SiteSource>& listed, const std::string& feed_id,
                       const std::string& base);
  Status write_source_pages(const Archive& archive, const SiteSource& s, const SourceRow& row,
                            const std::string& feed_id, const std::string& base,
                            bool new_feed_base);
  std::optional<ForkedPart> fork_sources(
      const std::set<std::string>& theirs,
      const std::function<SiteSource(const std::string&, const SourceRow&)>& describe,
      const std::string& feed_id, const std::string& base, bool new_feed_base);
  Status write_front(const std::vector<SiteSource>& listed, const std::string& feed_id,
                     const std::string& base);
  SiteReport report(std::size_t sources) const;

  const Archive& archive_;
  const SiteOptions& options_;
  const fs::path top_;
  Writes writes_;
  Histories histories_;  // writes to writes_
  PageWriter pages_;     // change pages, raw copies and feed entries; finished with the rounds
  std::string key_;
  SiteState state_;
  bool rebuild_ = false;
  bool reuse_pages_ = false;
  std::string head_, root_;
  fs::path old_state_;
  // Each source with new changes, and the oldest of them.
  std::map<std::string, std::string> touched_sources_;
  // Each source with a new backfill commit (its complete-history set takes the items in).
  std::set<std::string> backfilled_;
  // Each configured source's feed URL, redacted: the change pages' rel="original".
  std::map<std::string, std::string> urls_;
  std::optional<SiteSearch> search_;  // the search index (site_search.h)
  std::size_t covered_ = 0;           // commits of the walk, oldest first, it holds already
  bool raw_new_ = false;              // DIR/raw did not exist when the run began
};

Result<SiteReport> SiteBuild::run() {
  if (auto ok = make_dirs(top_); !ok) return ok.error();
  auto lock = SiteLock::take(top_);
  if (!lock) return lock.error();
  const fs::path state_path = top_ / kStateDir / "state";
  key_ = fmt::format("feeddiff-site {} {} lines={} chars={} origin={} page={}", kSiteLayout,
                     version(), options_.max_lines, options_.max_line_chars,
                     one_cell(archive_.origin_url().value_or("")), kSitePageSize);
  state_ = SiteState::load(state_path);
  // An index that does not cover the tip (none yet, a run cut short) is rebuilt with the lists.
  rebuild_ = state_.key != key_ || !SiteSearch::current(top_, state_.tip);

  // The commits that recorded a change since the tip rendered last (all of them when the tip
  // is no longer on the branch), to a file: newest first as walked, read back oldest first.
  const fs::path work = top_ / kWorkDir;
  remove_tree(top_, work);
  if (auto ok = make_dirs(work); !ok) return ok.error();
  auto fresh = CommitSpool::create((work / "commits").string());
  if (!fresh) return fresh.error();
  if (auto ok = walk(*fresh); !ok) return ok.error();

  old_state_ = top_ / (std::string(kStateDir) + ".old");
  reuse_pages_ = state_.key == key_;
  if (rebuild_) start_over();
  urls_ = configured_urls(archive_);
  auto search = SiteSearch::open(top_, work, options_.search_segment, rebuild_, writes_);
  if (!search) return search.error();
  search_.emplace(std::move(*search));
  if (rebuild_ && reuse_pages_) {
    auto kept = search_->keep_shared(old_state_, *fresh);
    if (!kept) return kept.error();
    covered_ = *kept;
  }
  std::error_code ec;
  raw_new_ = fs::symlink_status(top_ / "raw", ec).type() == fs::file_type::not_found;
  if (auto ok = render_rounds(*fresh, work); !ok) return ok.error();
  state_.tip = head_;
  if (rebuild_)
    if (auto ok = remove_stale(*fresh); !ok) return ok.error();
  remove_tree(top_, work);

  const std::string feed_id =
      state_.root.empty() ? "urn:feeddiff:archive" : "urn:feeddiff:archive:" + state_.root;
  std::string base = options_.base_url;
  if (!base.empty() && !base.ends_with('/')) base += '/';
  std::vector<SiteSource> listed;
  if (auto ok = write_sources(listed, feed_id, base); !ok) return ok.error();
  if (auto ok = write_front(listed, feed_id, base); !ok) return ok.error();
  if (auto ok = search_->write(); !ok) return ok.error();
  // Last: a run that stops before this leaves the old tip, and the next one redoes its work.
  // The pages were written without an fsync each; one flush of the file system puts them on
  // disk before the state that says they are there.
  if (auto ok = sync_filesystem(top_.string()); !ok) return ok.error();
  if (auto ok = search_->save(head_); !ok) return ok.error();
  if (auto old = read_file(state_path.string()); !old || *old != state_.text())
    if (auto ok = write_file_atomic(state_path.string(), state_.text()); !ok) return ok.error();
  search_->remove_dropped();
  return report(listed.size());
}

// Spools the commits since the tip rendered last; a tip no longer on the branch means a
// rebuild.
Status SiteBuild::walk(CommitSpool& fresh) {
  bool reached_tip = false;
  Status spooled = Ok{};
  auto walked = archive_.walk_first_parent("raw/", [&](const std::string& id, bool touched) {
    if (head_.empty()) head_ = id;
    if (!rebuild_ && id == state_.tip) {
      reached_tip = true;
      return false;
    }
    if (touched) spooled = fresh.push(to_oid(id));
    // A backfill commit changes no source's versions, but its complete-history set.
    if (auto commit = touched ? std::nullopt : std::optional(archive_.resolve(id));
        commit && *commit)
      if (std::string source = backfill_source(**commit); !source.empty())
        backfilled_.insert(std::move(source));
    root_ = id;
    return bool(spooled);
  });
  if (!walked) return walked.error();
  if (!spooled) return spooled.error();
  if (!rebuild_ && !reached_tip) rebuild_ = true;
  return Ok{};
}

// Starts the lists over; the old rows stay aside to re-use their pages and to find the pages
// of commits that left the history.
void SiteBuild::start_over() {
  remove_tree(top_, old_state_);
  std::error_code ec;
  if (fs::exists(top_ / kStateDir / "history", ec) && strictly_inside(top_, old_state_))
    fs::rename(top_ / kStateDir, old_state_, ec);
  remove_tree(top_, top_ / kStateDir);
  remove_tree(top_, top_ / "history");
  remove_tree(top_, top_ / "sources");
  // The feed entries of re-used change pages are re-used with them.
  if (reuse_pages_ && make_dirs(top_ / kStateDir))
    fs::rename(old_state_ / "entries", top_ / kStateDir / "entries", ec);
  state_ = SiteState{};
  state_.key = key_;
  state_.root = root_;
}

// In rounds of options.round commits, oldest first. A round's change pages are rendered
// source by source, each source's versions read once and dropped after (holding every
// source's for the whole run was most of a first build's memory: 500 MB at 1M changes);
// its rows wait in the row spool, then go to the lists in the history's order.
Status SiteBuild::render_rounds(CommitSpool& fresh, const fs::path& work) {
  Writes read_twice;  // the stale pass counts the old rows that are not the site's own
  OldRows old_rows(old_state_ / "history", read_twice);
  bool reusing = rebuild_ && reuse_pages_;
  auto rows = RowSpool::create((work / "rows").string());
  if (!rows) return rows.error();
  const std::size_t round = std::min(options_.round, std::max<std::size_t>(fresh.size(), 1));
  // Each change page writes cache entries (its item summary); a thread writes them, until
  // the rounds are over (before anything forks).
  archive_.write_cache_behind(fresh.size() > 1);
  struct Stop {
    const Archive& archive;
    ~Stop() { archive.write_cache_behind(false); }
  } stop{archive_};
  for (std::size_t begin = 0; begin < fresh.size(); begin += round) {
    auto ids = fresh.oldest(begin, begin + round);
    if (!ids) return ids.error();
    if (auto ok = render_round(*ids, begin, *rows, old_rows, reusing, work); !ok) return ok;
  }
  archive_.write_cache_behind(false);
  // Before the source feeds read the entries, and before anything forks.
  if (auto ok = pages_.finish(writes_); !ok) return ok;
  return histories_.finish();
}

// Renders a round's change pages (or re-uses those of the old rows), source by source.
Status SiteBuild::render_round(const std::vector<Oid>& ids, std::size_t first, RowSpool& rows,
                               OldRows& old_rows, bool& reusing, const fs::path& work) {
  if (auto ok = rows.clear(); !ok) return ok.error();
  // Per commit of the round: where its row is in the spool, or that it is rendered below.
  std::vector<std::uint64_t> at(ids.size(), kInOrder), found(ids.size(), kInOrder);
  std::map<std::string, std::vector<std::uint32_t>> by_source;
  std::vector<std::pair<std::string, std::string>> ahead;  // commit and source, oldest first
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string id = to_hex(ids[i]);
    if (first + i < covered_) found[i] = kIndexed;
    if (reusing) {
      auto old = old_rows.next();
      if (old && old->id == id && fs::exists(top_ / old->href)) {
        auto put = rows.put(row_line(*old));
        if (!put) return put.error();
        at[i] = *put;
        // Its page stays; its documents are read with its source's unless the index kept them.
        if (check_source_name(old->source) && found[i] != kIndexed)
          by_source[old->source].push_back(i);
        continue;
      }
      reusing = false;
    }
    // A poll's commit names its source; any other (made by hand, a migration) is rendered
    // in order, reading its source's versions as it comes.
    auto commit = archive_.resolve(id);
    if (!commit) return commit.error();
    if (const std::string* source = commit->trailer("Source");
        source && check_source_name(*source)) {
      by_source[*source].push_back(static_cast<std::uint32_t>(i));
      // Rendered source by source below, and read again for the source pages: their
      // directories are read here, in the history's order, a few thousand at a time, and
      // kept for the rest of the run (the newest in memory, all on disk: ahead_dirs.h).
      ahead.emplace_back(id, *source);
      if (ahead.size() == kAheadBatch) {
        if (auto ok = archive_.read_source_dirs_ahead(ahead); !ok) return ok;
        ahead.clear();
      }
    }
  }
  if (auto ok = archive_.read_source_dirs_ahead(ahead); !ok) return ok;
  for (const auto& [source, positions] : by_source) {
    auto versions = SourceVersions::load(archive_, source);
    for (std::size_t n = 0; n < positions.size(); ++n) {
      const std::uint32_t i = positions[n];
      if (at[i] != kInOrder) {
        if (auto ok =
                search_->collect_commit(archive_, to_hex(ids[i]), versions ? &*versions : nullptr);
            !ok)
          return ok;
      } else {
        auto rendered = render_change(archive_, to_hex(ids[i]), options_, top_, writes_, pages_,
                                      versions ? &*versions : nullptr, urls_, *search_, raw_new_,
                                      positions.size() - n <= kSourceFeedEntries);
        if (!rendered) return rendered.error();
        if (rendered->id.empty()) continue;
        auto put = rows.put(row_line(*rendered));
        if (!put) return put.error();
        at[i] = *put;
      }
      if (found[i] == kIndexed) continue;
      auto spooled = search_->spool();
      if (!spooled) return spooled.error();
      found[i] = *spooled;
    }
    // What this round learnt is where the next round's reading starts.
    if (versions) versions->save();
  }
  return list_round(ids, rows, at, found, work);
}

// Appends a round's changes to the lists, in the history's order.
Status SiteBuild::list_round(const std::vector<Oid>& ids, RowSpool& rows,
                             const std::vector<std::uint64_t>& at,
                             const std::vector<std::uint64_t>& found, const fs::path& work) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::optional<SiteChange> change;
    if (at[i] == kInOrder) {
      auto rendered = render_change(archive_, to_hex(ids[i]), options_, top_, writes_, pages_,
                                    nullptr, urls_, *search_, raw_new_);
      if (!rendered) return rendered.error();
      if (rendered->id.empty()) continue;  // a migration
      change = std::move(*rendered);
    } else {
      auto line = rows.get(at[i]);
      if (!line) return line.error();
      change = parse_row(*line);
      if (!change)
        return Error{Errc::io, fmt::format("a row in {} does not read back", work.string())};
      // A re-used page of a source name no file may have: its documents read here.
      if (found[i] == kInOrder)
        if (auto ok = search_->collect_commit(archive_, change->id, nullptr); !ok) return ok;
    }
    auto indexed = found[i] == kIndexed   ? Status(Ok{})
                   : found[i] == kInOrder ? search_->index_last()
                                          : search_->index(found[i]);
    if (!indexed) return indexed;
    if (auto ok = histories_.append("", state_.changes++, *change); !ok) return ok.error();
    SourceRow& source = state_.sources[change->source];
    if (check_source_name(change->source)) {
      if (auto ok = histories_.append(change->source, source.count, *change); !ok)
        return ok.error();
      touched_sources_.emplace(change->source, change->id);
    }
    ++source.count;
    source.last_id = change->id;
    source.last_observed = change->observed_at;
  }
  return Ok{};
}

// Pages of commits that left the history (a reset or a rebased branch) go: the ids the old
// lists name, checked against the new history a chunk at a time.
Status SiteBuild::remove_stale(CommitSpool& fresh) {
  OldRows stale(old_state_ / "history", writes_);
  std::ifstream manifest(top_ / kOldManifest);
  std::string line;
  std::getline(manifest, line);  // its key
  auto next_old = [&]() -> std::optional<std::string> {
    if (auto row = stale.next()) return row->id;
    while (std::getline(manifest, line)) {
      std::string id = line.substr(0, line.find('\t'));
      if (is_commit_id(id)) return id;
      ++writes_.ignored;
    }
    return std::nullopt;
  };
  if (auto ok = remove_gone(top_, fresh, options_.round, next_old, writes_); !ok) return ok.error();
  manifest.close();
  std::error_code ec;
  fs::remove(top_ / kOldManifest, ec);
  remove_tree(top_, old_state_);
  return Ok{};
}

// Sources: those configured now, and every one that recorded a change. A source's page
// is written when it had new changes or its URL or poll status changed. Every second source
// with new changes is written by a forked child (site_fork.h) when there are many.
Status SiteBuild::write_sources(std::vector<SiteSource>& listed, const std::string& feed_id,
                                const std::string& base) {
  std::map<std::string, std::string> configured;
  if (auto toml = archive_.read_head("feeddiff.toml"); toml && *toml)
    if (auto config = parse_config(**toml))
      for (const auto& s : config->sources) configured[s.name] = redact_recorded_url(s.url);
  for (const auto& [name, url] : configured) state_.sources[name];
  State poll_state;
  if (auto loaded = load_state(archive_)) poll_state = std::move(*loaded);
  const bool new_feed_base = feeds_base_changed(top_ / kStateDir, base);
  const auto describe = [&](const std::string& name, const SourceRow& row) {
    SiteSource s;
    s.name = name;
    auto url = configured.find(name);
    s.url = url == configured.end() ? "" : url->second;
    if (auto st = poll_state.sources.find(name); st != poll_state.sources.end())
      s.status = poll_status(st->second);
    s.total = row.count;
    s.pages = Histories::pages(row.count);
    s.href = "sources/" + name + ".html";
    return s;
  };
  std::set<std::string> theirs;
  for (const auto& [name, row] : state_.sources)
    if (row.count && touched_sources_.count(name) && check_source_name(name)) theirs.insert(name);
  const bool split = theirs.size() >= std::max<std::size_t>(fork_min_sources, 2);
  bool mine = true;  // every second one stays here
  for (auto it = theirs.begin(); it != theirs.end(); mine = !mine)
    it = mine || !split ? theirs.erase(it) : std::next(it);
  std::optional<ForkedPart> child =
      split ? fork_sources(theirs, describe, feed_id, base, new_feed_base) : std::nullopt;
  if (!child) theirs.clear();
  // The child's sources as they were before this loop updated their rows: written here
  // should the child fail.
  std::vector<std::pair<SiteSource, SourceRow>> deferred;
  for (auto it = state_.sources.begin(); it != state_.sources.end();) {
    auto& [name, row] = *it;
    if (row.count == 0 && !configured.count(name)) {
      it = state_.sources.erase(it);
      continue;
    }
    SiteSource s = describe(name, row);
    if (theirs.count(name)) {
      deferred.emplace_back(s, row);
    } else if (auto ok = write_source_pages(archive_, s, row, feed_id, base, new_feed_base); !ok) {
      return ok;
    }
    // A name that is not safe as a file name gets no page (it cannot come from `add`).
    if (!check_source_name(name)) s.href.clear();
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
  if (child) {
    std::optional<Writes> done;
    if (auto answer = child->finish()) done = parse_writes(*answer);
    if (done) {
      add_writes(writes_, *done);
    } else {
      for (const auto& [s, row] : deferred)
        if (auto ok = write_source_pages(archive_, s, row, feed_id, base, new_feed_base); !ok)
          return ok;
    }
  }
  if (new_feed_base)
    if (auto ok = save_feeds_base(top_ / kStateDir, base); !ok) return ok.error();
  return Ok{};
}

// Forks the child that writes the pages of the sources theirs names (nullopt: none started).
// It reads through an archive of its own and answers with what it wrote.
std::optional<ForkedPart> SiteBuild::fork_sources(
    const std::set<std::string>& theirs,
    const std::function<SiteSource(const std::string&, const SourceRow&)>& describe,
    const std::string& feed_id, const std::string& base, bool new_feed_base) {
  archive_.release_cache();  // the child opens the cache's database on its own
  return ForkedPart::start([&]() -> std::optional<std::string> {
    auto own = Archive::open(archive_.work_dir());
    if (!own) return std::nullopt;
    own->keep_source_dirs_of(archive_);
    writes_ = Writes{};  // the child's copy: what it answers
    for (const auto& [name, row] : state_.sources)
      if (theirs.count(name) &&
          !write_source_pages(*own, describe(name, row), row, feed_id, base, new_feed_base))
        return std::nullopt;
    return writes_text(writes_);
  });
}

// A source's item pages, its page and its feed, each when what it shows changed.
Status SiteBuild::write_source_pages(const Archive& archive, const SiteSource& s,
                                     const SourceRow& row, const std::string& feed_id,
                                     const std::string& base, bool new_feed_base) {
  const std::string& name = s.name;
  // Its edited items' pages and feeds change only with its changes (and a feed's links
  // with the base URL): only then is its history read again. Its complete-history set
  // changes with its changes only (its links are relative), and is made once for a source
  // that has none yet (a site written before the sets were).
  const auto touched = touched_sources_.find(name);
  const bool is_touched = touched != touched_sources_.end();
  const bool new_history =
      check_source_name(name) && row.count && !has_history_feeds(top_ / kStateDir, name);
  const bool new_timemap =
      check_source_name(name) && row.count && !has_timemap(top_ / kStateDir, name);
  const WriteFile write = [&](const fs::path& path, std::string_view content) {
    return write_if_changed(path, content, writes_);
  };
  const bool new_backfill = backfilled_.count(name) > 0;
  if (check_source_name(name) && row.count &&
      (is_touched || new_feed_base || new_history || new_timemap || new_backfill)) {
    auto history = read_source_history(archive, name);
    if (!history) return history.error();
    if (is_touched || new_feed_base || new_timemap) {
      auto timemap = write_timemap(top_, top_ / kStateDir, name, s.url, base, &*history,
                                   options_.timemap_page, write);
      if (!timemap) return timemap.error();
      writes_.mementos += timemap->added;
    }
    if (is_touched || new_history || new_backfill) {
      auto feeds = write_history_feeds(archive, top_, top_ / kStateDir, name,
                                       feed_id + ":source:" + name + ":history", *history,
                                       options_.history_page, write, new_backfill);
      if (!feeds) return feeds.error();
      writes_.sealed += feeds->sealed;
    }
    if (is_touched || new_feed_base) {
      // Every item page when the feeds' links change; else those of items with new events.
      const std::string since = new_feed_base || !is_touched ? "" : touched->second;
      auto items =
          write_item_pages(std::move(*history), top_, top_ / kStateDir, name, base, since, write);
      if (!items) return items.error();
    }
  }
  // Its corrections (article edits): their own commits, not in the walk above.
  SourceEdits edits;
  if (check_source_name(name)) {
    auto made =
        write_source_edits(archive, top_, top_ / kStateDir, name,
                           feed_id + ":source:" + name + ":edits", base, new_feed_base, write);
    if (!made) return made.error();
    edits = *made;
  }
  if (check_source_name(name) &&
      (is_touched || new_history || new_timemap || edits.changed || s.url != row.url ||
       s.status != row.status || !fs::exists(top_ / s.href))) {
    SiteSource page = s;
    if (edits.captures) page.edits_href = name + "/edits.html";
    if (row.count) page.history_dir = name + "/history/";
    page.changes = histories_.newest(name, row.count, kSitePageSize);
    page.edited = edited_items(top_ / kStateDir, name);
    if (row.count) page.timemap = name + "/timemap.link";
    if (auto ok = write_if_changed(top_ / s.href, render_source_page(page), writes_); !ok)
      return ok.error();
  }
  // Its TimeMap's rel="original" follows the feed's URL.
  if (check_source_name(name) && row.count && !is_touched && s.url != row.url &&
      has_timemap(top_ / kStateDir, name))
    if (auto ok = write_timemap(top_, top_ / kStateDir, name, s.url, base, nullptr,
                                options_.timemap_page, write);
        !ok)
      return ok.error();
  // Its feed changes only with its changes (a feed's bytes name no poll status).
  const fs::path feed = top_ / "sources" / name / "feed.atom";
  if (check_source_name(name) &&
      (new_feed_base || touched_sources_.count(name) || !fs::exists(feed))) {
    auto atom = source_feed(archive, top_ / kStateDir, name,
                            histories_.newest(name, row.count, kSourceFeedEntries),
                            feed_id + ":source:" + name, base);
    if (!atom) return atom.error();
    if (auto ok = write_if_changed(feed, *atom, writes_); !ok) return ok.error();
  }
  return Ok{};
}

// The index (the sources, the newest changes) and the archive's feed.
Status SiteBuild::write_front(const std::vector<SiteSource>& listed, const std::string& feed_id,
                              const std::string& base) {
  const std::vector<SiteChange> newest = histories_.newest(
      "", state_.changes, std::max<std::size_t>(kSitePageSize, options_.feed_entries));
  std::vector<SiteChange> recent(newest.begin(),
                                 newest.begin() + std::min(newest.size(), kSitePageSize));
  if (auto ok = write_if_changed(
          top_ / "index.html", render_site_index(listed, recent, Histories::pages(state_.changes)),
          writes_);
      !ok)
    return ok.error();
  std::vector<SiteChange> entries(newest.begin(),
                                  newest.begin() + std::min(newest.size(), options_.feed_entries));
  return write_if_changed(top_ / "feed.atom", render_site_atom(entries, feed_id, base), writes_);
}

SiteReport SiteBuild::report(std::size_t sources) const {
  SiteReport out;
  out.changes = state_.changes;
  out.sources = sources;
  out.full_build = rebuild_;
  out.written = writes_.written;
  out.unchanged = writes_.unchanged;
  out.removed = writes_.removed;
  out.rendered = writes_.rendered;
  out.ignored = writes_.ignored;
  out.refused = writes_.refused;
  out.first_refused = writes_.first_refused;
  out.sealed = writes_.sealed;
  out.mementos = writes_.mementos;
  out.indexed = search_ ? search_->added() : 0;
  out.state_dir = (top_ / kStateDir).string();
  out.index = (top_ / "index.html").string();
  return out;
}

}  // namespace
}  // namespace site

Result<SiteReport> build_site(const Archive& archive, const SiteOptions& options) {
  auto report = site::SiteBuild(archive, options).run();
  archive.forget_source_dirs();  // what the run read ahead is of no use after it
  return report;
}

}  // namespace feeddiff
