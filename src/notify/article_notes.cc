// Article edits (docs/articles.md) for the hooks and the digest, by the rules item changes
// follow: an edit is a `changed` item change of the item that links to the article, whose
// fields are `title` (the headline), `authors` (the byline), `published` and `content` (the
// body). A first capture and an uncertain extraction are no edit: they notify nothing.

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "feeddiff/changes.h"
#include "feeddiff/message.h"
#include "feeddiff/render.h"
#include "notify/internal.h"

namespace feeddiff::notify_detail {

namespace {

// Characters of one value, and article edits of one source, the digest shows.
constexpr std::size_t kArticleDigestChars = 120;
constexpr std::size_t kArticleDigestEdits = 20;

// The words `kinds` and `fields` know, for the parts of an article's text.
constexpr const char* kHeadline = "title";
constexpr const char* kByline = "authors";
constexpr const char* kPublished = "published";
constexpr const char* kBody = "content";

bool in_list(const std::vector<std::string>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// An ASCII-caseless substring test, linear in the text (a page chooses the text).
bool contains_caseless(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
  std::vector<std::size_t> fail(needle.size(), 0);
  for (std::size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k > 0 && lower(needle[i]) != lower(needle[k])) k = fail[k - 1];
    if (lower(needle[i]) == lower(needle[k])) ++k;
    fail[i] = k;
  }
  std::size_t k = 0;
  for (const char c : text) {
    while (k > 0 && lower(c) != lower(needle[k])) k = fail[k - 1];
    if (lower(c) == lower(needle[k]) && ++k == needle.size()) return true;
  }
  return false;
}

// The article's text (article.txt) at a revision, beside the page the view names.
Result<std::optional<ArticleFile>> text_at(const Archive& archive, std::string_view revision,
                                           const ArticleView& v) {
  const std::string dir = v.path.substr(0, v.path.size() - std::string_view("page.html").size());
  auto text = archive.read(revision, dir + "article.txt");
  if (!text) return text.error();
  if (!*text) return std::optional<ArticleFile>();
  return std::optional<ArticleFile>(parse_article_file(**text));
}

// The parts of the text that differ, as field names.
std::vector<std::string> differing(const ArticleFile& a, const ArticleFile& b) {
  std::vector<std::string> out;
  if (a.title != b.title) out.push_back(kHeadline);
  if (a.byline != b.byline) out.push_back(kByline);
  if (a.published != b.published) out.push_back(kPublished);
  if (a.body != b.body) out.push_back(kBody);
  return out;
}

// The fields of an edit the rules select (none: it does not notify). `after` is the text the
// edit made, in which `match` looks (headline and body).
std::vector<std::string> selected_fields(const std::vector<std::string>& changed,
                                         const ArticleFile& after, const NotifySettings& settings) {
  // `fields` alone asks about edits, as for items; an article edit is a `changed` item.
  if (!settings.kinds.empty() && !in_list(settings.kinds, "changed")) return {};
  std::vector<std::string> out;
  for (const std::string& f : changed)
    if (settings.fields.empty() || in_list(settings.fields, f)) out.push_back(f);
  if (out.empty() || settings.match.empty()) return out;
  for (const std::string& m : settings.match)
    if (contains_caseless(after.title, m) || contains_caseless(after.body, m)) return out;
  return {};
}

Result<std::pair<ArticleFile, ArticleFile>> before_and_after(const Archive& archive,
                                                             const ArticleView& v) {
  auto commit = archive.resolve(v.commit_id);
  if (!commit) return commit.error();
  std::optional<ArticleFile> before;
  if (!commit->parents.empty()) {
    auto old_text = text_at(archive, commit->parents.front(), v);
    if (!old_text) return old_text.error();
    before = std::move(*old_text);
  }
  auto new_text = text_at(archive, v.commit_id, v);
  if (!new_text) return new_text.error();
  return std::pair{before.value_or(ArticleFile{}), new_text->value_or(ArticleFile{})};
}

// The edit's selected fields; none for a version that is no edit.
Result<std::vector<std::string>> judge_article(const Archive& archive, const ArticleView& v,
                                               const NotifySettings& settings) {
  if (!v.uncertain.empty() || v.first) return std::vector<std::string>();
  auto texts = before_and_after(archive, v);
  if (!texts) return texts.error();
  return selected_fields(differing(texts->first, texts->second), texts->second, settings);
}

std::string cut_line(std::string_view text) {
  bool cut = false;
  std::string out = escape_terminal(cut_chars(text, kArticleDigestChars, &cut));
  if (cut) out += "...";
  return out;
}

std::string value_or_none(const std::string& text) {
  return text.empty() ? std::string("(none)") : cut_line(text);
}

// One edit in the digest: its headline, URL, what changed in the headline, byline and time,
// and the first words of the body's word diff ([-removed-]{+added+}, as without colour).
std::string digest_edit(const ArticleView& v) {
  std::string out = fmt::format("  edited   {}\n           url: {}\n", value_or_none(v.new_title),
                                value_or_none(v.url));
  const std::pair<const char*, std::pair<const std::string*, const std::string*>> parts[] = {
      {"headline", {&v.old_title, &v.new_title}},
      {"byline", {&v.old_byline, &v.new_byline}},
      {"published", {&v.old_published, &v.new_published}}};
  for (const auto& [label, values] : parts)
    if (*values.first != *values.second)
      out += fmt::format("           {}: {} -> {}\n", label, value_or_none(*values.first),
                         value_or_none(*values.second));
  if (v.body_changed) {
    const std::string words = plain_words(v.body.runs);
    // One line: the paragraphs' breaks, and the runs of spaces they leave, as one space.
    std::string line;
    for (const char c : words) {
      const char ch = c == '\n' || c == '\r' ? ' ' : c;
      if (ch != ' ' || line.empty() || line.back() != ' ') line += ch;
    }
    out += fmt::format("           body: {}\n", cut_line(line));
  }
  return out;
}

}  // namespace

bool is_article_version(const Archive& archive, const std::string& commit) {
  auto c = archive.resolve(commit);
  return c && is_article_commit(*c);
}

Result<Rendered> render_article_change(const Archive& archive, const std::string& commit,
                                       const NotifySettings& settings) {
  auto view = load_article_change(archive, commit);
  if (!view) return view.error();
  auto selected = judge_article(archive, *view, settings);
  if (!selected) return selected.error();
  Rendered out;
  out.kind = "article";
  out.notify = !selected->empty();
  out.json = render_article_json(*view);
  return out;
}

Result<Still> article_still_there(const Archive& archive, const std::string& commit,
                                  const NotifySettings& settings) {
  auto view = load_article_change(archive, commit);
  if (!view) return view.error();
  auto selected = judge_article(archive, *view, settings);
  if (!selected) return selected.error();
  auto then = text_at(archive, commit, *view);
  if (!then) return then.error();
  auto now = text_at(archive, "HEAD", *view);
  if (!now) return now.error();
  if (!*then || !*now) return Still::unknown;
  // A selected part that reads otherwise now was changed back or changed again (a newer
  // edit is held on its own).
  const std::vector<std::string> since = differing(**then, **now);
  for (const std::string& f : *selected)
    if (in_list(since, f)) return Still::gone;
  return Still::there;
}

Result<bool> article_undoes(const Archive& archive, const std::string& held,
                            const std::string& fresh, const NotifySettings& settings) {
  auto held_view = load_article_change(archive, held);
  if (!held_view) return held_view.error();
  auto fresh_view = load_article_change(archive, fresh);
  if (!fresh_view) return fresh_view.error();
  if (!fresh_view->uncertain.empty()) return false;
  auto held_texts = before_and_after(archive, *held_view);
  if (!held_texts) return held_texts.error();
  auto fresh_texts = before_and_after(archive, *fresh_view);
  if (!fresh_texts) return fresh_texts.error();
  // Measured from the text before the held edit: nothing the rules select is news.
  return selected_fields(differing(held_texts->first, fresh_texts->second), fresh_texts->second,
                         settings)
      .empty();
}

Result<std::optional<std::string>> article_item_id(const Archive& archive,
                                                   const std::string& commit) {
  auto c = archive.resolve(commit);
  if (!c) return c.error();
  if (!is_article_commit(*c)) return std::optional<std::string>();
  const std::string* id = c->trailer("Item-Id");
  return std::optional<std::string>(id ? *id : std::string());
}

std::vector<std::string> article_digest(const Archive& archive, const PollReport& report) {
  std::map<std::string, std::vector<const ArticleOutcome*>> by_source;
  std::vector<std::string> order;
  for (const ArticleOutcome& a : report.articles) {
    if (a.result != "changed" || a.commit.empty()) continue;
    auto& list = by_source[a.source];
    if (list.empty()) order.push_back(a.source);
    list.push_back(&a);
  }
  std::vector<std::string> out;
  for (const std::string& source : order) {
    const auto& edits = by_source[source];
    // Source names are safe path components (check_source_name): no escaping needed.
    std::string section = fmt::format("{} (articles): {} edited\n", source, edits.size());
    std::size_t shown = 0;
    for (const ArticleOutcome* a : edits) {
      if (shown++ == kArticleDigestEdits) {
        section += fmt::format("  ... and {} more\n", edits.size() - kArticleDigestEdits);
        break;
      }
      auto view = load_article_change(archive, a->commit);
      if (!view) {
        section += fmt::format("  edited   {}: {}\n", value_or_none(a->url),
                               cut_line(view.error().message));
        continue;
      }
      section += digest_edit(*view);
    }
    out.push_back(std::move(section));
  }
  return out;
}

}  // namespace feeddiff::notify_detail
