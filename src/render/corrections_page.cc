// A source's "Corrections and edits" in the static site, as NewsDiffs lists an outlet's
// changed articles: each edit of an article a reader reads (headline, byline, published time,
// body) with its diff, newest first, in pages of a fixed size, and the same edits as an Atom
// feed. The diff is render_article_diff_html's, the one `show --format html` gives; every
// value from a page is escaped there or here, and a URL is linked only when it is http(s).

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/html_page.h"
#include "render/page.h"

namespace feeddiff {

namespace {

// Only a web address is a link: a recorded URL is the feed's word.
bool is_web_address(std::string_view url) {
  return url.starts_with("http://") || url.starts_with("https://");
}

std::string edit_url_html(const std::string& url) {
  if (url.empty()) return "<span class=\"null\">(no URL)</span>";
  return is_web_address(url) ? html::link(url, url) : escape_html(url);
}

std::string one_edit_html(const SiteEdit& e) {
  std::string out = "<article class=\"edit\">\n";
  out +=
      fmt::format("<h2>{}</h2>\n", e.headline.empty() ? "<span class=\"null\">(no headline)</span>"
                                                      : escape_html(e.headline));
  out += fmt::format(
      "<p class=\"id\">observed <span class=\"mono\">{}</span> UTC · <code>{}</code> · {}</p>\n",
      escape_html(html::short_time(e.observed_at)), escape_html(e.id.substr(0, 7)),
      edit_url_html(e.url));
  return out + e.diff_html + "</article>\n";
}

}  // namespace

std::string render_edits_page(const SiteEditsPage& p) {
  const bool front = p.number == 0;
  // The front page is sources/NAME/edits.html, a numbered one sources/NAME/edits/N.html.
  const std::string up = front ? "../" : "../../";
  const std::string feed = front ? "edits.atom" : "../edits.atom";
  std::string out =
      front
          ? html::head(fmt::format("{} · corrections and edits · feeddiff archive", p.source), feed)
          : html::head(fmt::format("{} · corrections and edits · page {} · feeddiff archive",
                                   p.source, p.number));
  std::vector<std::pair<std::string, std::string>> nav = {{"Archive", up + "../index.html"},
                                                          {p.source, up + p.source + ".html"}};
  if (!front) nav.emplace_back("Corrections and edits", "../edits.html");
  out += html::nav(nav);
  out += "<header>\n<p class=\"kicker\">Corrections and edits</p>\n";
  out += front ? fmt::format("<h1>{}</h1>\n", escape_html(p.source))
               : fmt::format("<h1>{} · page {}</h1>\n", escape_html(p.source), p.number);
  if (front) {
    out += fmt::format("<p class=\"id\">{} edit{} of the articles this source links to · {}</p>\n",
                       with_thousands(p.total), p.total == 1 ? "" : "s",
                       html::link(feed, "Atom feed of the edits"));
    out += fmt::format(
        "<p>An edit is a version of an article whose text a reader reads changed: its headline, "
        "byline, published time or body, shown as the change page shows it ({} article{} first "
        "captured and {} version{} whose extraction was uncertain, such as an error page, a "
        "wall or a text that shrank by more than half, are archived but are not edits, so they "
        "are not listed; <code>feeddiff history {} ITEM</code> lists every version).</p>\n",
        with_thousands(p.captures), p.captures == 1 ? "" : "s", with_thousands(p.uncertain),
        p.uncertain == 1 ? "" : "s", escape_html(p.source));
  } else {
    const std::size_t first = (p.number - 1) * kEditsPageSize + 1;
    out += fmt::format("<p class=\"id\">edits {} to {}, newest first</p>\n", with_thousands(first),
                       with_thousands(first + p.edits.size() - 1));
  }
  out += "</header>\n";
  if (p.edits.empty()) out += "<p>No article edit recorded yet.</p>\n";
  for (const SiteEdit& e : p.edits) out += one_edit_html(e);
  if (front && p.pages) {
    out += "<h2>All edits</h2>\n";
    out += html::pager(p.pages, "edits/", kEditsPageSize, "edits");
  }
  if (!front && p.number > 1)
    out += fmt::format("<p class=\"pages\">{}</p>\n",
                       html::link(fmt::format("{}.html", p.number - 1),
                                  fmt::format("Older: page {}", p.number - 1)));
  return out + html::tail();
}

std::string render_edits_atom(const std::string& source, const std::vector<SiteEdit>& edits,
                              const std::string& feed_id, const std::string& base_url) {
  // Relative links resolve against the feed's own URL, two directories below the top.
  const std::string top = base_url.empty() ? "../../" : base_url;
  auto href = [&](const std::string& relative) {
    return html::safe_href(top + relative).value_or("");
  };
  const std::string edits_page = href("sources/" + source + "/edits.html");
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out += "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
  out += fmt::format("  <id>{}</id>\n", escape_html(feed_id));
  out += fmt::format("  <title>feeddiff archive: {}: corrections and edits</title>\n",
                     escape_html(source));
  out += fmt::format("  <updated>{}</updated>\n",
                     page::xml_time(edits.empty() ? std::string() : edits.front().observed_at));
  out += "  <author><name>feeddiff</name></author>\n";
  out += "  <generator>feeddiff</generator>\n";
  out += fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n", edits_page);
  if (!base_url.empty())
    out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                       href("sources/" + source + "/edits.atom"));
  for (const SiteEdit& e : edits) {
    out += "  <entry>\n";
    out += fmt::format("    <id>urn:feeddiff:commit:{}</id>\n", escape_html(e.id));
    out += fmt::format("    <title>Edited: {}</title>\n",
                       escape_html(e.headline.empty() ? e.url : e.headline));
    out += fmt::format("    <updated>{}</updated>\n", page::xml_time(e.observed_at));
    // The article itself when its URL is a web address; the corrections page otherwise.
    out += fmt::format(
        "    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
        is_web_address(e.url) ? html::safe_href(e.url).value_or(edits_page) : edits_page);
    out += fmt::format("    <link rel=\"related\" type=\"text/html\" href=\"{}\"/>\n", edits_page);
    // The HTML is escaped once here, as the text of a type="html" content element.
    const std::string html = fmt::format("<p>Observed {} UTC · <code>{}</code> · {}</p>\n",
                                         escape_html(html::short_time(e.observed_at)),
                                         escape_html(e.id.substr(0, 7)), edit_url_html(e.url)) +
                             e.diff_html;
    out += fmt::format("    <content type=\"html\">{}</content>\n", html::escape_markup(html));
    out += "  </entry>\n";
  }
  return out + "</feed>\n";
}

}  // namespace feeddiff
