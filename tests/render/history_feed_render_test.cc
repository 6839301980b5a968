// The complete-history documents as values in, bytes out: feed text that XML forbids or
// that is markup never breaks a document, and a link that is no web link is left out.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/render.h"

using namespace feeddiff;

namespace {

HistoryFeedPage hostile_page() {
  HistoryFeedPage page;
  page.source = "blog";
  page.feed_id = "urn:feeddiff:archive:x:source:blog:history";
  page.number = 2;
  page.archives = 2;
  page.updated = "2026-01-01T00:00:00.000Z";
  HistoryFeedItem item;
  item.id = "id\x01<\"&>";
  item.recorded_at = "2026-01-01T00:00:00.000Z";
  item.commit = "0123456789abcdef0123456789abcdef01234567";
  item.title = "Bell\x07 and \xff bytes </title><script>";
  item.link = "javascript:alert(1)";
  item.content = "<p>ok</p>]]>";
  page.items.push_back(item);
  HistoryFeedItem gone;
  gone.id = "gone";
  gone.deleted = true;
  gone.recorded_at = "2026-01-02T00:00:00.000Z";
  gone.commit = item.commit;
  page.items.push_back(gone);
  return page;
}

}  // namespace

TEST_CASE("A complete-history Atom page escapes feed text and drops what XML forbids", "[render]") {
  const std::string atom = render_history_atom(hostile_page());
  CHECK(atom.find('\x01') == std::string::npos);
  CHECK(atom.find('\x07') == std::string::npos);
  CHECK(atom.find('\xff') == std::string::npos);
  CHECK(atom.find("<id>id\xef\xbf\xbd&lt;&quot;&amp;&gt;</id>") != std::string::npos);
  CHECK(atom.find("Bell\xef\xbf\xbd and \xef\xbf\xbd bytes &lt;/title&gt;&lt;script&gt;") !=
        std::string::npos);
  CHECK(atom.find("javascript:") == std::string::npos);
  CHECK(atom.find("<content type=\"html\">&lt;p&gt;ok&lt;/p&gt;]]&gt;</content>") !=
        std::string::npos);
  CHECK(atom.find("<at:deleted-entry ref=\"gone\" when=\"2026-01-02T00:00:00.000Z\">") !=
        std::string::npos);
  // Newest first: the tombstone (entered last) comes before the entry.
  CHECK(atom.find("<at:deleted-entry") < atom.find("<entry>"));
  CHECK(atom.find("<fh:archive/>") != std::string::npos);
}

TEST_CASE("A complete-history JSON Feed page marks a pulled item with its extension", "[render]") {
  const std::string json = render_history_json(hostile_page());
  CHECK(json.find("\"version\": \"https://jsonfeed.org/version/1.1\"") != std::string::npos);
  CHECK(json.find("\"next_url\": \"archive-1.json\"") != std::string::npos);
  CHECK(json.find("\"deleted\": \"2026-01-02T00:00:00.000Z\"") != std::string::npos);
  CHECK(json.find("javascript:") == std::string::npos);
  CHECK(json.find('\x07') == std::string::npos);  // written as \u0007
}
