// A source's Atom feed in the static site (sources/NAME/feed.atom): one entry per change of
// that source, whose content is the change page's item section, so a feed reader shows each
// item change with its before and after without opening the site.

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/html_page.h"
#include "render/page.h"

namespace feeddiff {

namespace {}  // namespace

std::string render_source_atom(const std::string& source, const std::vector<SiteFeedEntry>& entries,
                               const std::string& feed_id, const std::string& base_url) {
  // Relative links resolve against the feed's own URL, two directories below the top.
  const std::string top = base_url.empty() ? "../../" : base_url;
  auto href = [&](const std::string& relative) {
    return html::safe_href(top + relative).value_or("");
  };
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  const bool tombstones = std::any_of(entries.begin(), entries.end(),
                                      [](const SiteFeedEntry& e) { return !e.pulled.empty(); });
  out += tombstones ? "<feed xmlns=\"http://www.w3.org/2005/Atom\" "
                      "xmlns:at=\"http://purl.org/atompub/tombstones/1.0\">\n"
                    : "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
  out += fmt::format("  <id>{}</id>\n", escape_html(feed_id));
  out += fmt::format("  <title>feeddiff archive: {}</title>\n", escape_html(source));
  out += fmt::format(
      "  <updated>{}</updated>\n",
      page::xml_time(entries.empty() ? std::string() : entries.front().change.observed_at));
  out += "  <author><name>feeddiff</name></author>\n";
  out += "  <generator>feeddiff</generator>\n";
  out += fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                     href("sources/" + source + ".html"));
  if (!base_url.empty())
    out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                       href("sources/" + source + "/feed.atom"));
  for (const SiteFeedEntry& e : entries) {
    const SiteChange& c = e.change;
    const std::string page = href(c.href);
    out += "  <entry>\n";
    out += fmt::format("    <id>urn:feeddiff:commit:{}</id>\n", escape_html(c.id));
    out += fmt::format("    <title>{}</title>\n", escape_html(c.title));
    out += fmt::format("    <updated>{}</updated>\n", page::xml_time(c.observed_at));
    out += fmt::format("    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n", page);
    std::string summary =
        fmt::format("+{} -{} lines", with_thousands(c.added), with_thousands(c.removed));
    if (!c.items.empty()) summary += "; items: " + c.items;
    out += fmt::format("    <summary>{}</summary>\n", escape_html(summary));
    // The HTML is escaped once here, as the text of a type="html" content element.
    std::string html = fmt::format(
        "<p><a href=\"{}\">Change {}</a> · observed {} UTC · <span class=\"plus\">+{}</span> "
        "<span class=\"minus\">-{}</span> lines</p>\n",
        page, escape_html(c.id.substr(0, 7)), escape_html(html::short_time(c.observed_at)),
        with_thousands(c.added), with_thousands(c.removed));
    html += e.items_html.empty() ? "<p>No item summary for this change.</p>\n" : e.items_html;
    out += fmt::format("    <content type=\"html\">{}</content>\n", html::escape_markup(html));
    out += "  </entry>\n";
    for (const std::string& id : e.pulled)
      out += fmt::format(
          "  <at:deleted-entry ref=\"{}\" when=\"{}\">\n    <link rel=\"via\" "
          "type=\"text/html\" href=\"{}\"/>\n  </at:deleted-entry>\n",
          escape_html(id), page::xml_time(c.observed_at), page);
  }
  return out + "</feed>\n";
}

std::string render_item_atom(const HistoryView& view, const std::string& key,
                             const std::string& base_url) {
  // Relative links resolve against the feed's own URL, two directories below the top.
  const std::string top = base_url.empty() ? "../../" : base_url;
  auto href = [&](const std::string& relative) {
    return html::safe_href(top + relative).value_or("");
  };
  auto observed = [&](std::size_t version) {
    return version < view.versions.size() ? view.versions[version].observed_at : std::string();
  };
  auto commit = [&](std::size_t version) {
    return version < view.versions.size() ? view.versions[version].commit : std::string();
  };
  const ItemLife* life = view.items.empty() ? nullptr : &view.items.front();
  std::vector<const ItemEvent*> edits;
  if (life)
    for (auto e = life->events.rbegin(); e != life->events.rend(); ++e)
      if (e->kind == ItemEvent::Kind::changed && edits.size() < kItemFeedEntries)
        edits.push_back(&*e);
  const std::string label = life ? (life->title.empty() ? life->id : life->title) : "";
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out += "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
  out += fmt::format("  <id>urn:feeddiff:item:{}</id>\n", escape_html(key));
  out += fmt::format("  <title>feeddiff archive: {}: {}</title>\n", escape_html(view.source),
                     escape_html(label));
  out +=
      fmt::format("  <updated>{}</updated>\n",
                  page::xml_time(edits.empty() ? std::string() : observed(edits.front()->version)));
  out += "  <author><name>feeddiff</name></author>\n";
  out += "  <generator>feeddiff</generator>\n";
  out += fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                     href("items/" + view.source + "/" + key + ".html"));
  if (!base_url.empty())
    out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                       href("items/" + view.source + "/" + key + ".atom"));
  for (const ItemEvent* e : edits) {
    const std::string id = commit(e->version);
    const std::string page = href("changes/" + id + ".html");
    std::string fields;
    for (const auto& f : e->change.fields) fields += (fields.empty() ? "" : ", ") + f;
    out += "  <entry>\n";
    out += fmt::format("    <id>urn:feeddiff:item:{}:{}</id>\n", escape_html(key), escape_html(id));
    out += fmt::format("    <title>{} changed: {}</title>\n",
                       escape_html(e->change.title.empty() ? label : e->change.title),
                       escape_html(fields.empty() ? "only ignored fields" : fields));
    out += fmt::format("    <updated>{}</updated>\n", page::xml_time(observed(e->version)));
    out += fmt::format("    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n", page);
    // The HTML is escaped once here, as the text of a type="html" content element.
    std::string html = fmt::format("<p><a href=\"{}\">Change {}</a> · observed {} UTC</p>\n", page,
                                   escape_html(id.substr(0, 7)),
                                   escape_html(html::short_time(observed(e->version))));
    html += page::html_field_changes(e->change);
    out += fmt::format("    <content type=\"html\">{}</content>\n", html::escape_markup(html));
    out += "  </entry>\n";
  }
  return out + "</feed>\n";
}

}  // namespace feeddiff
