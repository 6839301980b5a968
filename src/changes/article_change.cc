// Article versions (docs/articles.md) as show and log read them: the commit's trailers, the
// article.txt it wrote and the one its parent held (the last text a reader could trust).

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/changes.h"

namespace feeddiff {

namespace {

std::string trailer_or_empty(const CommitInfo& c, std::string_view key) {
  const std::string* v = c.trailer(key);
  return v ? *v : std::string();
}

}  // namespace

bool is_article_commit(const CommitInfo& commit) {
  const std::string* cls = commit.trailer("Change-Class");
  return cls && (*cls == kArticleClass || *cls == kArticleUncertainClass);
}

Result<ArticleView> load_article_change(const Archive& archive, std::string_view revision) {
  auto commit = archive.resolve(revision);
  if (!commit) return commit.error();
  if (!is_article_commit(*commit))
    return Error{Errc::not_found,
                 fmt::format("commit {} records no article version", commit->short_id())};
  auto changes = archive.changes(commit->id, "articles/");
  if (!changes) return changes.error();
  std::string dir;
  for (const PathChange& c : *changes)
    if (c.path.ends_with("/page.html")) dir = c.path.substr(0, c.path.size() - 9);
  if (dir.empty())
    return Error{Errc::not_found,
                 fmt::format("commit {} changes no article page", commit->short_id())};

  ArticleView v;
  v.commit_id = commit->id;
  v.title = commit->title;
  v.source = trailer_or_empty(*commit, "Source");
  v.url = trailer_or_empty(*commit, "Article-URL");
  v.item_id = trailer_or_empty(*commit, "Item-Id");
  v.status = trailer_or_empty(*commit, "Status");
  v.observed_at = trailer_or_empty(*commit, "Observed-At");
  v.uncertain = trailer_or_empty(*commit, "Extraction-Uncertain");
  if (v.uncertain.empty() && *commit->trailer("Change-Class") == kArticleUncertainClass)
    v.uncertain = "not recorded why";
  v.path = dir + "page.html";

  std::optional<ArticleFile> before, after;
  if (!commit->parents.empty()) {
    auto old_text = archive.read(commit->parents.front(), dir + "article.txt");
    if (!old_text) return old_text.error();
    if (*old_text) before = parse_article_file(**old_text);
  }
  auto new_text = archive.read(commit->id, dir + "article.txt");
  if (!new_text) return new_text.error();
  if (*new_text) after = parse_article_file(**new_text);
  if (!v.uncertain.empty()) {
    // Not an edit: the last trusted text on both sides.
    if (before) v.old_title = v.new_title = before->title;
    return v;
  }
  if (!after) return Error{Errc::not_found, "the article version has no article.txt"};
  v.first = !before;
  const ArticleFile old_side = before.value_or(ArticleFile{});
  v.old_title = old_side.title;
  v.new_title = after->title;
  v.old_byline = old_side.byline;
  v.new_byline = after->byline;
  v.old_published = old_side.published;
  v.new_published = after->published;
  v.words = count_words(after->body);
  if (before && before->body != after->body) {
    v.body_changed = true;
    std::size_t not_compared = 0;
    const auto runs = diff_words(before->body, after->body, &not_compared);
    v.body = excerpt_words(runs, 200, 6000, 80);
    v.body.not_compared_chars = not_compared;
  }
  return v;
}

Result<std::vector<CommitInfo>> with_article_commits(const Archive& archive,
                                                     std::string_view source,
                                                     std::vector<CommitInfo> commits,
                                                     std::size_t limit) {
  // From the source index, which keeps each source's article versions beside its feed
  // versions (docs/index.md): a source without articles costs a look at an index file.
  auto articles = archive.log(fmt::format("articles/{}/", source), limit);
  if (!articles) return articles.error();
  if (articles->empty()) return commits;
  // Both lists are newest first along the branch; a commit's time (the poll's clock) orders
  // them. A poll's article commits come after its feed commits with the same time: on a
  // tie the article goes first (std::merge takes from its first range on a tie).
  std::vector<CommitInfo> out;
  out.reserve(commits.size() + articles->size());
  std::merge(std::make_move_iterator(articles->begin()), std::make_move_iterator(articles->end()),
             std::make_move_iterator(commits.begin()), std::make_move_iterator(commits.end()),
             std::back_inserter(out), [](const CommitInfo& a, const CommitInfo& b) {
               return a.commit_time > b.commit_time;
             });
  if (limit && out.size() > limit) out.resize(limit);
  return out;
}

Result<std::vector<HistoryArticle>> item_articles(const Archive& archive, std::string_view source,
                                                  std::string_view item_id) {
  auto commits = archive.log(fmt::format("articles/{}/", source), 0);
  if (!commits) return commits.error();
  // As poll records the id (articles.cc).
  const std::string recorded = trailer_value(item_id, 300);
  std::vector<HistoryArticle> out;
  for (auto it = commits->rbegin(); it != commits->rend(); ++it) {
    const CommitInfo& c = *it;
    if (!is_article_commit(c) || trailer_or_empty(c, "Item-Id") != recorded) continue;
    HistoryArticle a;
    a.commit = c.id;
    a.observed_at = trailer_or_empty(c, "Observed-At");
    a.url = trailer_or_empty(c, "Article-URL");
    const std::string uncertain = trailer_or_empty(c, "Extraction-Uncertain");
    a.result = !uncertain.empty()                                       ? "uncertain"
               : c.title.find(": article added: ") != std::string::npos ? "added"
                                                                        : "changed";
    a.summary = uncertain.empty() ? trailer_or_empty(c, "Article-Summary") : uncertain;
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace feeddiff
