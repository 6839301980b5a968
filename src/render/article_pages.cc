// An article version (docs/articles.md) as markdown and as a standalone HTML page, in the
// order of the text page: the fields, what changed in the headline, byline and published
// time, then the body's word diff. Every value came from a page: markdown escapes it inline,
// HTML through escape_html, and links only http(s).

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/html_page.h"
#include "render/page.h"

namespace feeddiff {

namespace {

// The fields every face shows first.
std::vector<std::pair<std::string, std::string>> article_fields(const ArticleView& v) {
  return {{"Source", v.source},
          {"URL", v.url},
          {"Item", v.item_id},
          {"Observed", fmt::format("{} (HTTP {})", v.observed_at, v.status)},
          {"Page", v.path}};
}

// Headline, byline and published time: before and after, each marked when it changed.
struct MetaChange {
  const char* label;
  const std::string& before;
  const std::string& after;
  bool changed;
};

std::vector<MetaChange> meta_changes(const ArticleView& v) {
  const auto changed = [&](const std::string& a, const std::string& b) {
    return !v.first && a != b;
  };
  return {
      {"Headline", v.old_title, v.new_title, changed(v.old_title, v.new_title)},
      {"Byline", v.old_byline, v.new_byline, changed(v.old_byline, v.new_byline)},
      {"Published", v.old_published, v.new_published, changed(v.old_published, v.new_published)}};
}

// Headline, byline and published time (<del>/<ins> when changed), then the body's word diff.
// On show's page the body is a section of its own (id "body", h2); in a list of edits (the
// site's corrections page holds many) it is an h3 without an id.
std::string diff_part(const ArticleView& v, bool in_list) {
  const auto text = [](const std::string& value) {
    return value.empty() ? std::string("<span class=\"null\">(none)</span>") : escape_html(value);
  };
  std::string out = "<dl class=\"changes\">\n";
  for (const MetaChange& m : meta_changes(v))
    out += m.changed ? fmt::format("<dt>{}</dt><dd><del>{}</del> → <ins>{}</ins></dd>\n", m.label,
                                   text(m.before), text(m.after))
                     : fmt::format("<dt>{}</dt><dd>{}</dd>\n", m.label, text(m.after));
  out += "</dl>\n";
  const int level = in_list ? 3 : 2;
  if (v.first)
    out += fmt::format("<p>First capture: {} words of text.</p>\n", with_thousands(v.words));
  else if (!v.body_changed)
    out += "<p>Body: the text reads the same.</p>\n";
  else
    out += fmt::format("<section {}>\n<h{}>Body ({} words now)</h{}>\n<p>{}</p>\n</section>\n",
                       in_list ? "class=\"body\"" : "id=\"body\"", level, with_thousands(v.words),
                       level, page::html_words(v.body));
  return out;
}

constexpr const char* kUncertain =
    "The page is archived as it came; this version is not an edit, and the next one is "
    "compared with the last text before it.";

}  // namespace

std::string render_article_markdown(const ArticleView& v) {
  const auto md = [](std::string_view text) {
    return text.empty() ? std::string("(none)") : page::markdown_inline(text);
  };
  std::string out = fmt::format("# Article\n\n**{}**\n\n`{}`\n\n## {}\n\n",
                                v.commit_id.substr(0, 7), v.commit_id, md(v.title));
  for (const auto& [label, value] : article_fields(v))
    out += fmt::format("- **{}**: {}\n", label, md(value));
  if (!v.uncertain.empty())
    return out + fmt::format("\n**Extraction uncertain**: {}. {}\n", md(v.uncertain), kUncertain);
  out += '\n';
  for (const MetaChange& m : meta_changes(v))
    out += m.changed ? fmt::format("- **{}**: ~~{}~~ -> **{}** (changed)\n", m.label, md(m.before),
                                   md(m.after))
                     : fmt::format("- **{}**: {}\n", m.label, md(m.after));
  if (v.first)
    return out + fmt::format("\nFirst capture: {} words of text.\n", with_thousands(v.words));
  if (!v.body_changed) return out + "\nBody: the text reads the same.\n";
  return out + fmt::format("\n### Body ({} words now)\n\n{}\n", with_thousands(v.words),
                           page::markdown_words(v.body));
}

std::string render_article_html(const ArticleView& v) {
  const auto text = [](const std::string& value) {
    return value.empty() ? std::string("<span class=\"null\">(none)</span>") : escape_html(value);
  };
  const std::string short_id = v.commit_id.substr(0, 7);
  std::string out = html::head(fmt::format("Article {} · {}", short_id, v.title));
  out += "<header>\n<p class=\"kicker\">Article</p>\n";
  out += fmt::format("<h1 class=\"mono\">{}</h1>\n", escape_html(short_id));
  out += fmt::format("<p class=\"id\"><code>{}</code></p>\n", escape_html(v.commit_id));
  out += fmt::format("<p class=\"title\">{}</p>\n</header>\n", escape_html(v.title));
  out += "<dl class=\"fields\">\n";
  for (const auto& [label, value] : article_fields(v))
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", escape_html(label),
                       label == "URL" ? html::link(value, value) : text(value));
  out += "</dl>\n";
  if (!v.uncertain.empty())
    return out +
           fmt::format("<p><strong>Extraction uncertain</strong>: {}. {}</p>\n",
                       escape_html(v.uncertain), kUncertain) +
           html::tail();
  return out + diff_part(v, /*in_list=*/false) + html::tail();
}

std::string render_article_diff_html(const ArticleView& v) {
  return diff_part(v, /*in_list=*/true);
}

}  // namespace feeddiff
