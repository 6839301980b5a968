// A source's complete-history feed set (RFC 5005 archived feeds, RFC 6721 tombstones) as Atom
// and as JSON Feed 1.1 pages. Pure: the site decides what each page holds and when it is
// sealed; here a page's values become its bytes, the same bytes for the same values, so a
// sealed page written again is byte-identical.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff {

namespace {

using Json = nlohmann::ordered_json;

}  // namespace

namespace {

constexpr const char* kHistoryAbout = "https://www.rfc-editor.org/rfc/rfc6721";
// Where an item of the set came from: the publisher's archive (feeddiff backfill).
constexpr const char* kBackfillScheme = "urn:feeddiff:origin";

// Text as XML 1.0 character data or a quoted attribute: markup escaped, and what XML
// forbids (C0 controls but tab and line ends, U+FFFE, U+FFFF, invalid UTF-8) as U+FFFD, so
// that no feed text can make the document ill-formed.
std::string xml_text(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Char c = decode_utf8(text, i);
    if (c.size == 0) {
      append_utf8(clean, 0xFFFD);
      ++i;
      continue;
    }
    const bool allowed = c.cp == 0x9 || c.cp == 0xA || c.cp == 0xD ||
                         (c.cp >= 0x20 && c.cp != 0xFFFE && c.cp != 0xFFFF);
    if (allowed)
      clean.append(text.substr(i, c.size));
    else
      append_utf8(clean, 0xFFFD);
    i += c.size;
  }
  std::string out;
  append_markup_escaped(out, clean, true);
  return out;
}

// A link is written only when it is http(s): a feed's "javascript:" stays out of readers.
bool web_link(std::string_view url) {
  const std::string lower = to_lower(url.substr(0, 8));
  return lower.starts_with("http://") || lower.starts_with("https://");
}

std::string atom_name(std::size_t number) {
  return number == 0 ? "current.atom" : fmt::format("archive-{}.atom", number);
}

std::string json_name(std::size_t number) {
  return number == 0 ? "current.json" : fmt::format("archive-{}.json", number);
}

std::string time_or_epoch(const std::string& iso) {
  return iso.empty() ? "1970-01-01T00:00:00Z" : iso;
}

}  // namespace

std::string render_history_atom(const HistoryFeedPage& page) {
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out +=
      "<feed xmlns=\"http://www.w3.org/2005/Atom\" "
      "xmlns:fh=\"http://purl.org/syndication/history/1.0\" "
      "xmlns:at=\"http://purl.org/atompub/tombstones/1.0\">\n";
  if (page.number) out += "  <fh:archive/>\n";
  out += fmt::format("  <id>{}</id>\n", xml_text(page.feed_id));
  out += fmt::format("  <title>{}: every item feeddiff recorded{}</title>\n", xml_text(page.source),
                     page.number ? fmt::format(" (archive page {})", page.number) : "");
  out += fmt::format("  <updated>{}</updated>\n", time_or_epoch(page.updated));
  out += "  <author><name>feeddiff</name></author>\n";
  out += "  <generator>feeddiff</generator>\n";
  out += fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"../../{}.html\"/>\n",
                     xml_text(page.source));
  out += fmt::format("  <link rel=\"current\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                     atom_name(0));
  if (page.number == 0) {
    out += "  <link rel=\"self\" type=\"application/atom+xml\" href=\"current.atom\"/>\n";
    if (page.archives)
      out +=
          fmt::format("  <link rel=\"prev-archive\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                      atom_name(page.archives));
  } else {
    out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                       atom_name(page.number));
    if (page.number > 1)
      out +=
          fmt::format("  <link rel=\"prev-archive\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                      atom_name(page.number - 1));
    out += fmt::format("  <link rel=\"next-archive\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                       atom_name(page.number + 1));
  }
  for (auto it = page.items.rbegin(); it != page.items.rend(); ++it) {
    const HistoryFeedItem& item = *it;
    const std::string change = "../../../changes/" + item.commit + ".html";
    if (item.deleted) {
      out += fmt::format("  <at:deleted-entry ref=\"{}\" when=\"{}\">\n", xml_text(item.id),
                         time_or_epoch(item.recorded_at));
      out += "    <at:by><name>feeddiff</name></at:by>\n";
      out +=
          "    <at:comment>Pulled from the feed while older items stayed (not aged "
          "out).</at:comment>\n";
      out +=
          fmt::format("    <link rel=\"via\" type=\"text/html\" href=\"{}\"/>\n", xml_text(change));
      out += "  </at:deleted-entry>\n";
      continue;
    }
    out += "  <entry>\n";
    out += fmt::format("    <id>{}</id>\n", xml_text(item.id));
    out += fmt::format("    <title type=\"text\">{}</title>\n", xml_text(item.title));
    out += fmt::format("    <updated>{}</updated>\n", time_or_epoch(item.recorded_at));
    if (!item.published.empty())
      out += fmt::format("    <published>{}</published>\n", xml_text(item.published));
    for (const std::string& name : item.authors)
      out += fmt::format("    <author><name>{}</name></author>\n", xml_text(name));
    if (web_link(item.link))
      out += fmt::format("    <link rel=\"alternate\" href=\"{}\"/>\n", xml_text(item.link));
    if (item.backfilled)
      // A category, not an extension element: every reader shows it, and feedparser lists it.
      out += fmt::format(
          "    <category scheme=\"{}\" term=\"publisher-archive\" label=\"From the publisher's "
          "archive, not observed by feeddiff\"/>\n",
          kBackfillScheme);
    else  // a backfill commit has no change page
      out +=
          fmt::format("    <link rel=\"via\" type=\"text/html\" href=\"{}\"/>\n", xml_text(change));
    if (!item.summary.empty())
      out += fmt::format("    <summary type=\"html\">{}</summary>\n", xml_text(item.summary));
    if (!item.content.empty())
      out += fmt::format("    <content type=\"html\">{}</content>\n", xml_text(item.content));
    out += "  </entry>\n";
  }
  return out + "</feed>\n";
}

std::string render_history_json(const HistoryFeedPage& page) {
  Json doc;
  doc["version"] = "https://jsonfeed.org/version/1.1";
  doc["title"] = page.source + ": every item feeddiff recorded" +
                 (page.number ? fmt::format(" (archive page {})", page.number) : "");
  // A page's successor is the next older one (JSON Feed pages run from the newest back).
  const std::size_t older = page.number == 0 ? page.archives : page.number - 1;
  if (older) doc["next_url"] = json_name(older);
  doc["_feeddiff"] = {{"about", kHistoryAbout},
                      {"id", page.feed_id},
                      {"archive", page.number != 0},
                      {"current_url", json_name(0)}};
  Json items = Json::array();
  for (auto it = page.items.rbegin(); it != page.items.rend(); ++it) {
    const HistoryFeedItem& item = *it;
    Json j;
    j["id"] = item.id;
    if (item.deleted) {
      // JSON Feed has no tombstone: the item stays, empty, and says when it was pulled.
      j["content_text"] = "";
      j["_feeddiff"] = {{"about", kHistoryAbout}, {"deleted", time_or_epoch(item.recorded_at)}};
      items.push_back(std::move(j));
      continue;
    }
    if (web_link(item.link)) j["url"] = item.link;
    if (!item.title.empty()) j["title"] = item.title;
    // JSON Feed's summary is plain text: the feed's summary (HTML) stands in for missing
    // content only.
    j["content_html"] = item.content.empty() ? item.summary : item.content;
    if (!item.published.empty()) j["date_published"] = item.published;
    j["date_modified"] = time_or_epoch(item.recorded_at);
    if (!item.authors.empty()) {
      Json authors = Json::array();
      for (const std::string& name : item.authors) authors.push_back({{"name", name}});
      j["authors"] = std::move(authors);
    }
    if (item.backfilled)
      j["_feeddiff"] = {{"about", kHistoryAbout}, {"origin", "publisher-archive"}};
    items.push_back(std::move(j));
  }
  doc["items"] = std::move(items);
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace feeddiff
