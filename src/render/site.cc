// The pages of the static site around the change pages: the index of sources, one page per
// source with its history, and an Atom feed of the archive's own changes. Links are
// relative, so the site works from file:// and from any static host.

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/html_page.h"
#include "render/page.h"

namespace feeddiff {

namespace {

std::string counts(const SiteChange& c) {
  return fmt::format("<span class=\"plus\">+{}</span> <span class=\"minus\">-{}</span>",
                     with_thousands(c.added), with_thousands(c.removed));
}

// The table of changes, newest first; prefix leads from the page to the site's top.
std::string changes_table(const std::vector<SiteChange>& changes, const std::string& prefix,
                          bool with_source) {
  std::string out =
      "<div class=\"scroll\"><table>\n<thead><tr><th>Observed (UTC)</th><th>Change</th>";
  if (with_source) out += "<th>Source</th>";
  out += "<th class=\"num\">Lines</th><th class=\"hide-narrow\">Items</th></tr></thead>\n<tbody>\n";
  for (const SiteChange& c : changes) {
    out += fmt::format("<tr><td class=\"mono\">{}</td><td class=\"mono\">{}</td>",
                       escape_html(html::short_time(c.observed_at)),
                       html::link(prefix + c.href, c.id.substr(0, 7)));
    if (with_source) out += fmt::format("<td>{}</td>", escape_html(c.source));
    out += fmt::format("<td class=\"num\">{}</td><td class=\"hide-narrow\">{}</td></tr>\n",
                       counts(c), escape_html(c.items));
  }
  return out + "</tbody>\n</table></div>\n";
}

std::size_t total_of(const SiteSource& s) {
  return s.total ? s.total : s.changes.size();
}

}  // namespace

std::string summarize_items(const ItemDiff& items) {
  return page::items_summary(items);
}

std::string render_site_index(const std::vector<SiteSource>& sources,
                              const std::vector<SiteChange>& recent, std::size_t history_pages) {
  std::size_t total = 0;
  for (const auto& s : sources) total += total_of(s);
  std::string out = html::head("feeddiff archive");
  out += "<header>\n<p class=\"kicker\">feeddiff archive</p>\n<h1>Sources</h1>\n";
  out += fmt::format("<p class=\"id\">{} source{} · {} change{} · {} · {}</p>\n</header>\n",
                     with_thousands(sources.size()), sources.size() == 1 ? "" : "s",
                     with_thousands(total), total == 1 ? "" : "s",
                     html::link("feed.atom", "Atom feed of the changes"),
                     html::link("search.html", "Search"));
  out +=
      "<div class=\"scroll\"><table>\n<thead><tr><th>Source</th><th>Last change (UTC)</th>"
      "<th class=\"num\">Changes</th><th>Status</th></tr></thead>\n<tbody>\n";
  for (const SiteSource& s : sources) {
    std::string last = "<span class=\"null\">none</span>";
    if (!s.changes.empty()) {
      const SiteChange& c = s.changes.front();
      last = fmt::format("<span class=\"mono\">{}</span> · {}",
                         escape_html(html::short_time(c.observed_at)),
                         html::link(c.href, c.id.substr(0, 7)));
    }
    out += fmt::format(
        "<tr><th scope=\"row\">{}</th><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
        html::link(s.href, s.name), last, with_thousands(total_of(s)),
        s.status.empty() ? "<span class=\"null\">unknown</span>" : escape_html(s.status));
  }
  out += "</tbody>\n</table></div>\n";
  if (!recent.empty()) {
    out += "<h2>Recent changes</h2>\n";
    out += changes_table(recent, "", true);
  }
  if (history_pages) {
    out += "<h2>All changes</h2>\n";
    out += html::pager(history_pages, "history/", kSitePageSize, "changes");
  }
  return out + html::tail();
}

std::string render_source_page(const SiteSource& s) {
  // Its Atom feed (sources/NAME/feed.atom): the page lives in sources/.
  const std::string feed = s.name + "/feed.atom";
  std::vector<std::pair<std::string, std::string>> more_feeds;
  if (!s.history_dir.empty())
    more_feeds.emplace_back(fmt::format("{}: every item feeddiff recorded", s.name),
                            s.history_dir + "current.atom");
  if (!s.edits_href.empty())
    more_feeds.emplace_back(fmt::format("{}: corrections and edits", s.name),
                            s.name + "/edits.atom");
  std::vector<html::HeadLink> more;
  if (!s.timemap.empty()) more.push_back({"timemap", "application/link-format", s.timemap});
  std::string out =
      html::head(fmt::format("{} · feeddiff archive", s.name), feed, more_feeds, more);
  out += html::nav({{"Archive", "../index.html"}});
  out += "<header>\n<p class=\"kicker\">Source</p>\n";
  out += fmt::format("<h1>{}</h1>\n", escape_html(s.name));
  if (!s.url.empty())
    out += fmt::format("<p class=\"path\"><code>{}</code></p>\n", html::link(s.url, s.url));
  out += fmt::format("<p class=\"id\">{} · {}</p>\n",
                     html::link(feed, "Atom feed of this source's changes"),
                     html::link("../search.html", "Search the archive"));
  if (!s.history_dir.empty())
    out += fmt::format(
        "<p class=\"id\">Every item feeddiff recorded, each in its newest version: {} · {} "
        "(an RFC 5005 archived feed; pulled items as RFC 6721 tombstones)</p>\n",
        html::link(s.history_dir + "current.atom", "Atom"),
        html::link(s.history_dir + "current.json", "JSON Feed"));
  if (!s.edits_href.empty())
    out += fmt::format("<p class=\"id\">The articles its items link to: {} · {}</p>\n",
                       html::link(s.edits_href, "Corrections and edits"),
                       html::link(s.name + "/edits.atom", "Atom feed of the edits"));
  if (!s.timemap.empty())
    out += fmt::format("<p class=\"id\">Every recorded version, as received: {} (RFC 7089)</p>\n",
                       html::link(s.timemap, "TimeMap"));
  out += "</header>\n<dl class=\"fields\">\n";
  out += fmt::format("<dt>Changes</dt><dd>{}</dd>\n", with_thousands(total_of(s)));
  out +=
      fmt::format("<dt>Status</dt><dd>{}</dd>\n",
                  s.status.empty() ? "<span class=\"null\">unknown</span>" : escape_html(s.status));
  out += "</dl>\n<h2>History</h2>\n";
  if (s.changes.empty())
    out += "<p>No recorded change.</p>\n";
  else
    out += changes_table(s.changes, "../", false);
  if (s.pages) {
    out += "<h2>History pages</h2>\n";
    out += html::pager(s.pages, s.name + "/", kSitePageSize, "changes");
  }
  if (!s.edited.empty()) {
    // Each edited item's page, with its versions and an Atom feed of its edits.
    out += "<h2>Edited items</h2>\n<ul class=\"edited\">\n";
    for (const auto& [label, href] : s.edited)
      out += "<li>" + html::link("../" + href, label) + "</li>\n";
    out += "</ul>\n";
  }
  return out + html::tail();
}

std::string render_history_page(const SiteHistoryPage& page) {
  const bool global = page.source.empty();
  const std::string top = global ? "../" : "../../";
  const std::string name = global ? std::string("All changes") : page.source;
  std::string out = html::head(fmt::format("{} · page {} · feeddiff archive", name, page.number));
  std::vector<std::pair<std::string, std::string>> nav = {{"Archive", top + "index.html"}};
  if (!global) nav.emplace_back(page.source, "../" + page.source + ".html");
  out += html::nav(nav);
  out += fmt::format("<header>\n<p class=\"kicker\">{}</p>\n<h1>{} · page {}</h1>\n",
                     global ? "History" : "Source history", escape_html(name), page.number);
  const std::size_t first = (page.number - 1) * kSitePageSize + 1;
  out += fmt::format("<p class=\"id\">changes {} to {}, newest first</p>\n</header>\n",
                     with_thousands(first), with_thousands(first + page.changes.size() - 1));
  out += changes_table(page.changes, top, global);
  if (page.number > 1)
    out += fmt::format("<p class=\"pages\">{}</p>\n",
                       html::link(fmt::format("{}.html", page.number - 1),
                                  fmt::format("Older: page {}", page.number - 1)));
  return out + html::tail();
}

std::string render_site_atom(const std::vector<SiteChange>& changes, const std::string& feed_id,
                             const std::string& base_url) {
  auto href = [&](const std::string& relative) { return escape_html(base_url + relative); };
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out += "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
  out += fmt::format("  <id>{}</id>\n", escape_html(feed_id));
  out += "  <title>feeddiff archive: changes</title>\n";
  out += fmt::format("  <updated>{}</updated>\n",
                     page::xml_time(changes.empty() ? std::string() : changes.front().observed_at));
  out += "  <author><name>feeddiff</name></author>\n";
  out += "  <generator>feeddiff</generator>\n";
  out += fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                     href("index.html"));
  if (!base_url.empty())
    out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                       href("feed.atom"));
  for (const SiteChange& c : changes) {
    out += "  <entry>\n";
    out += fmt::format("    <id>urn:feeddiff:commit:{}</id>\n", escape_html(c.id));
    out += fmt::format("    <title>{}</title>\n", escape_html(c.title));
    out += fmt::format("    <updated>{}</updated>\n", page::xml_time(c.observed_at));
    out +=
        fmt::format("    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n", href(c.href));
    out += fmt::format("    <category term=\"{}\"/>\n", escape_html(c.source));
    std::string summary = fmt::format("{}: +{} -{} lines", c.source, with_thousands(c.added),
                                      with_thousands(c.removed));
    if (!c.items.empty()) summary += "; items: " + c.items;
    out += fmt::format("    <summary>{}</summary>\n", escape_html(summary));
    out += "  </entry>\n";
  }
  return out + "</feed>\n";
}

}  // namespace feeddiff
