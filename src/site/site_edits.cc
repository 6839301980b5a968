#include "site/site_edits.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <sstream>

#include "feeddiff/changes.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/render.h"
#include "site/site_files.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

namespace {

// Article versions asked of the index at first when looking for the last one listed; a
// run after a poll finds it among them.
constexpr std::size_t kFirstLook = 64;

// .feeddiff-site/edits/NAME/state: the newest article version listed and the counts.
struct EditsState {
  std::string tip;
  std::string tree;           // articles/NAME's tree at the branch tip read last
  std::size_t count = 0;      // edits listed
  std::size_t captures = 0;   // first captures seen (not edits)
  std::size_t uncertain = 0;  // uncertain versions seen (not edits)

  static EditsState load(const fs::path& path) {
    EditsState out;
    auto text = read_file(path.string());
    if (!text) return out;
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      const auto cells = split_tabs(line);
      if (cells.size() != 2) continue;
      const std::size_t n = std::strtoull(cells[1].c_str(), nullptr, 10);
      if (cells[0] == "tip" && is_commit_id(cells[1])) out.tip = cells[1];
      if (cells[0] == "tree" && is_commit_id(cells[1])) out.tree = cells[1];
      if (cells[0] == "count") out.count = n;
      if (cells[0] == "captures") out.captures = n;
      if (cells[0] == "uncertain") out.uncertain = n;
    }
    return out;
  }

  std::string text() const {
    return fmt::format("tip\t{}\ntree\t{}\ncount\t{}\ncaptures\t{}\nuncertain\t{}\n", tip, tree,
                       count, captures, uncertain);
  }
};

std::size_t pages_of(std::size_t count) {
  return (count + kEditsPageSize - 1) / kEditsPageSize;
}

std::string trailer_or_empty(const CommitInfo& c, std::string_view key) {
  const std::string* v = c.trailer(key);
  return v ? *v : std::string();
}

// One source's lists and pages, for one run.
class Corrections {
 public:
  Corrections(const Archive& archive, const fs::path& top, const fs::path& state_dir,
              const std::string& source, const WriteFile& write)
      : archive_(archive),
        top_(top),
        source_(source),
        dir_(state_dir / "edits" / source),
        pages_dir_(top / "sources" / source / "edits"),
        write_(write) {}

  fs::path state_path() const { return dir_ / "state"; }
  fs::path rows_path(std::size_t number) const { return dir_ / fmt::format("{}.tsv", number); }
  fs::path entry_path(const std::string& id) const { return dir_ / "entries" / (id + ".html"); }
  fs::path front() const { return top_ / "sources" / source_ / "edits.html"; }
  fs::path feed() const { return top_ / "sources" / source_ / "edits.atom"; }

  // Forgets what the pages listed, and the pages.
  void clear() {
    remove_tree(top_, dir_);
    remove_tree(top_, pages_dir_);
    std::error_code ec;
    for (const fs::path& p : {front(), feed()})
      if (strictly_inside(top_, p)) fs::remove(p, ec);
  }

  // The edit an article commit recorded, or nullopt for a version that is no edit (a first
  // capture, an uncertain extraction, a commit of another kind); counts those in state.
  Result<std::optional<SiteEdit>> classify(const CommitInfo& c, EditsState& state) {
    const std::string cls = trailer_or_empty(c, "Change-Class");
    if (cls == kArticleUncertainClass) {
      ++state.uncertain;
      return std::optional<SiteEdit>();
    }
    if (cls != kArticleClass) return std::optional<SiteEdit>();
    if (c.title.find(": article added: ") != std::string::npos) {
      ++state.captures;
      return std::optional<SiteEdit>();
    }
    auto edit = load_edit(c.id);
    if (!edit) return edit.error();
    if (!*edit) ++state.captures;  // no trusted text before it: a capture after all
    return std::move(*edit);
  }

  // The edit's row and its diff, saved beside the rows; nullopt when it is a first capture.
  Result<std::optional<SiteEdit>> load_edit(const std::string& id) {
    auto view = load_article_change(archive_, id);
    if (!view) return view.error();
    if (view->first || !view->uncertain.empty()) return std::optional<SiteEdit>();
    SiteEdit e;
    e.id = view->commit_id;
    e.observed_at = view->observed_at;
    e.headline = view->new_title;
    if (e.headline.empty()) {
      const std::size_t at = view->title.find(": article changed: ");
      if (at != std::string::npos) e.headline = view->title.substr(at + 19);
    }
    e.url = redact_recorded_url(view->url);
    e.diff_html = render_article_diff_html(*view);
    if (auto ok = save(entry_path(e.id), e.diff_html); !ok) return ok.error();
    return std::optional<SiteEdit>(std::move(e));
  }

  // The edits a page of rows lists, oldest first, each with its diff.
  Result<std::vector<SiteEdit>> load_page(std::size_t number) {
    std::vector<SiteEdit> out;
    auto text = read_file(rows_path(number).string());
    if (!text) return out;
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      auto cells = split_tabs(line);
      if (cells.size() != 4 || !is_commit_id(cells[0])) continue;
      SiteEdit e{cells[0], cells[1], cells[2], cells[3], {}};
      if (auto diff = read_file(entry_path(e.id).string())) {
        e.diff_html = std::move(*diff);
      } else {
        // Its diff was not kept (a state dir copied without it): made from the archive.
        auto made = load_edit(e.id);
        if (!made) return made.error();
        e.diff_html = *made ? (*made)->diff_html : std::string("<p>No diff.</p>\n");
      }
      out.push_back(std::move(e));
    }
    return out;
  }

  // The newest n edits, newest first, from the last pages.
  Result<std::vector<SiteEdit>> newest(std::size_t count, std::size_t n) {
    std::vector<SiteEdit> out;
    for (std::size_t number = pages_of(count); number >= 1 && out.size() < n; --number) {
      auto rows = load_page(number);
      if (!rows) return rows.error();
      for (auto row = rows->rbegin(); row != rows->rend() && out.size() < n; ++row)
        out.push_back(std::move(*row));
    }
    return out;
  }

  Status write_page(std::size_t number, const EditsState& state) {
    auto rows = load_page(number);
    if (!rows) return rows.error();
    SiteEditsPage page;
    page.source = source_;
    page.number = number;
    page.pages = pages_of(state.count);
    page.total = state.count;
    page.edits.assign(std::make_move_iterator(rows->rbegin()),
                      std::make_move_iterator(rows->rend()));
    return write_(pages_dir_ / fmt::format("{}.html", number), render_edits_page(page));
  }

  Status write_front(const EditsState& state, const std::string& feed_id,
                     const std::string& base_url) {
    auto edits = newest(state.count, kEditsPageSize);
    if (!edits) return edits.error();
    SiteEditsPage page;
    page.source = source_;
    page.pages = pages_of(state.count);
    page.total = state.count;
    page.captures = state.captures;
    page.uncertain = state.uncertain;
    page.edits = *edits;
    if (auto ok = write_(front(), render_edits_page(page)); !ok) return ok;
    return write_(feed(), render_edits_atom(source_, *edits, feed_id, base_url));
  }

  // A file of the state (not a page: not counted among the files written).
  static Status save(const fs::path& path, std::string_view text) {
    if (auto old = read_file(path.string()); old && *old == text) return Ok{};
    if (auto ok = make_dirs(path.parent_path()); !ok) return ok;
    return write_file_replace(path.string(), text);
  }

 private:
  const Archive& archive_;
  fs::path top_;
  std::string source_;
  fs::path dir_, pages_dir_;
  const WriteFile& write_;
};

}  // namespace

Result<SourceEdits> write_source_edits(const Archive& archive, const fs::path& top,
                                       const fs::path& state_dir, const std::string& source,
                                       const std::string& feed_id, const std::string& base_url,
                                       bool rewrite, const WriteFile& write) {
  SourceEdits out;
  Corrections lists(archive, top, state_dir, source, write);
  const std::string prefix = "articles/" + source + "/";
  // The tree of articles/NAME at the tip, a lookup by path: unchanged since the last run, no
  // article version came (each changes a page.html), and the index is not asked at all, so a
  // run costs nothing per source that captures no article (the index's look is ~1 ms).
  auto tree = archive.tree_id("HEAD", prefix.substr(0, prefix.size() - 1));
  if (!tree) return tree.error();
  EditsState state = EditsState::load(lists.state_path());
  const bool known = fs::exists(lists.state_path());
  if (!*tree && !known && !fs::exists(lists.front())) return out;  // never captured one
  const bool pages_there = fs::exists(lists.front()) && fs::exists(lists.feed());
  if (*tree && known && state.tree == **tree && pages_there && !rewrite) {
    out.captures = true;
    out.edits = state.count;
    return out;
  }
  auto newest = archive.log(prefix, 1);
  if (!newest) return newest.error();
  if (newest->empty()) {
    // No article version (any more): no page, and the source's page loses its link.
    if (fs::exists(lists.state_path()) || fs::exists(lists.front())) {
      lists.clear();
      out.changed = true;
    }
    return out;
  }
  out.captures = true;
  if (newest->front().id == state.tip && pages_there && !rewrite) {
    // The tree changed by a commit of another kind (a removal, a migration): nothing to list.
    state.tree = tree->value_or("");
    if (auto ok = Corrections::save(lists.state_path(), state.text()); !ok) return ok.error();
    out.edits = state.count;
    return out;
  }

  // The versions since the one listed last, newest first: a few looks at the index's newest.
  std::vector<CommitInfo> fresh;
  bool restart = state.tip.empty();
  for (std::size_t limit = kFirstLook; !restart; limit *= 4) {
    auto commits = archive.log(prefix, limit);
    if (!commits) return commits.error();
    auto it = std::find_if(commits->begin(), commits->end(),
                           [&](const CommitInfo& c) { return c.id == state.tip; });
    if (it != commits->end()) {
      fresh.assign(std::make_move_iterator(commits->begin()), std::make_move_iterator(it));
      break;
    }
    if (commits->size() < limit) restart = true;  // the tip left the branch: a reset
  }
  if (restart) {
    lists.clear();
    state = EditsState{};
    out.restarted = true;
    auto all = archive.log(prefix, 0);
    if (!all) return all.error();
    fresh = std::move(*all);
  }

  // Oldest first: each edit is appended to the page of its position.
  const std::size_t listed = state.count;
  std::map<std::size_t, std::string> appended;
  for (auto c = fresh.rbegin(); c != fresh.rend(); ++c) {
    ++out.read;
    auto edit = lists.classify(*c, state);
    if (!edit) return edit.error();
    if (!*edit) continue;
    const SiteEdit& e = **edit;
    appended[state.count / kEditsPageSize + 1] += fmt::format(
        "{}\t{}\t{}\t{}\n", e.id, one_cell(e.observed_at), one_cell(e.headline), one_cell(e.url));
    ++state.count;
  }
  state.tip = fresh.empty() ? state.tip : fresh.front().id;
  state.tree = tree->value_or("");
  for (const auto& [number, rows] : appended) {
    // The rows the state counts; any after them came from a run that did not finish.
    std::string text;
    if (number == listed / kEditsPageSize + 1) {
      auto old = read_file(lists.rows_path(number).string());
      std::istringstream lines(old ? *old : std::string());
      std::string line;
      for (std::size_t n = 0; n < listed % kEditsPageSize && std::getline(lines, line); ++n)
        text += line + "\n";
    }
    if (auto ok = Corrections::save(lists.rows_path(number), text + rows); !ok) return ok.error();
    if (auto ok = lists.write_page(number, state); !ok) return ok.error();
  }
  if (auto ok = lists.write_front(state, feed_id, base_url); !ok) return ok.error();
  if (auto ok = Corrections::save(lists.state_path(), state.text()); !ok) return ok.error();
  out.changed = true;
  out.edits = state.count;
  return out;
}

}  // namespace feeddiff::site
