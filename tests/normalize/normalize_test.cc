#include "feeddiff/normalize.h"
#include "normalize/normalize_helpers.h"

#include <catch2/catch.hpp>
#include <clocale>
#include <string>
#include <string_view>

namespace feeddiff {
using namespace test;
namespace {

bool repaired(const Document& d, std::string_view what) {
  for (const Repair& r : d.repairs)
    if (r.what.find(what) != std::string::npos) return true;
  return false;
}

std::string utf16(std::string_view ascii, bool big_endian) {
  std::string out;
  for (char c : ascii) {
    if (big_endian) out += '\0';
    out += c;
    if (!big_endian) out += '\0';
  }
  return out;
}

const char kRss[] = R"(<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:c="http://purl.org/rss/1.0/modules/content/"><channel>
<title>T</title><lastBuildDate>Mon, 01 Jan 2024 00:00:00 GMT</lastBuildDate>
<item><title>One</title><guid>g1</guid><link>http://x/1</link></item>
</channel></rss>)";

}  // namespace

TEST_CASE("the canonical form puts one element on a line, indented by two spaces", "[normalize]") {
  const Document d = must_normalize(kRss);
  CHECK(d.text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
  CHECK(has_line(d.text, "  <channel>"));
  CHECK(has_line(d.text, "    <title>T</title>"));
  CHECK(has_line(d.text, "      <guid>g1</guid>"));
  CHECK(d.text.ends_with("</rss>\n"));
  CHECK(d.text.find('\r') == std::string::npos);
  CHECK(d.feed.format == "rss2.0");
}

TEST_CASE("normalizing the canonical form changes nothing", "[normalize]") {
  const Document d = must_normalize(kRss);
  const Document again = must_normalize(d.text);
  CHECK(again.text == d.text);
  CHECK(again.repairs.empty());
}

TEST_CASE("attributes are sorted and CDATA and escaped text come out the same", "[normalize]") {
  const Document a = must_normalize(
      "<rss version=\"2.0\"><channel><title><![CDATA[A & B]]></title>"
      "<cloud port=\"80\" domain=\"d\"/></channel></rss>");
  const Document b = must_normalize(
      "<rss version=\"2.0\"><channel><title>A &amp; B</title>"
      "<cloud domain=\"d\" port=\"80\"></cloud></channel></rss>");
  CHECK(a.text == b.text);
  CHECK(has_line(a.text, "    <title>A &amp; B</title>"));
  CHECK(has_line(a.text, "    <cloud domain=\"d\" port=\"80\"/>"));
}

TEST_CASE("namespace prefixes become the conventional prefix of their URI", "[normalize]") {
  const Document d = must_normalize(
      "<rss xmlns:c=\"http://purl.org/rss/1.0/modules/content/\" "
      "xmlns:x=\"http://purl.org/dc/elements/1.1/\" xmlns:mine=\"urn:example\"><channel>"
      "<item><c:encoded>hi</c:encoded><x:creator>Ann</x:creator><mine:tag>t</mine:tag>"
      "<media:thumbnail xmlns:media=\"http://search.yahoo.com/mrss/\" url=\"u\"/></item>"
      "</channel></rss>");
  CHECK(has_line(d.text, "      <content:encoded>hi</content:encoded>"));
  CHECK(has_line(d.text, "      <dc:creator>Ann</dc:creator>"));
  CHECK(has_line(d.text, "      <mine:tag>t</mine:tag>"));
  CHECK(has_line(d.text, "      <media:thumbnail url=\"u\"/>"));
  CHECK(d.text.find("<rss xmlns:content=\"http://purl.org/rss/1.0/modules/content/\" "
                    "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" "
                    "xmlns:media=\"http://search.yahoo.com/mrss/\" "
                    "xmlns:mine=\"urn:example\">") != std::string::npos);
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].content == "hi");
  CHECK(d.feed.items[0].authors == std::vector<std::string>{"Ann"});
}

TEST_CASE("an unknown URI whose prefix is taken gets a numbered prefix", "[normalize]") {
  const Document d = must_normalize(
      "<rss xmlns:dc=\"urn:not-dublin-core\" xmlns:d=\"http://purl.org/dc/elements/1.1/\">"
      "<channel><dc:x>1</dc:x><d:creator>2</d:creator></channel></rss>");
  CHECK(has_line(d.text, "    <dc2:x>1</dc2:x>"));
  CHECK(has_line(d.text, "    <dc:creator>2</dc:creator>"));
  CHECK(must_normalize(d.text).text == d.text);
}

TEST_CASE("long embedded HTML is broken into one block per line", "[normalize]") {
  const Document d = must_normalize(
      "<rss><channel><item><description><![CDATA[<h2>Title</h2><p>First paragraph.</p>"
      "<p>Second <b>bold</b> paragraph.</p><ul><li>one</li><li>two</li></ul>"
      "text<br/>more]]></description></item></channel></rss>");
  CHECK(has_line(d.text, "      <description><![CDATA["));
  CHECK(has_line(d.text, "        <h2>Title</h2>"));
  CHECK(has_line(d.text, "        <p>First paragraph.</p>"));
  CHECK(has_line(d.text, "        <p>Second <b>bold</b> paragraph.</p>"));
  CHECK(has_line(d.text, "        <li>one</li>"));
  CHECK(has_line(d.text, "        text<br/>"));
  CHECK(has_line(d.text, "        more"));
  CHECK(has_line(d.text, "      ]]></description>"));
  CHECK(must_normalize(d.text).text == d.text);
}

TEST_CASE("a one-word edit in embedded HTML changes one canonical line", "[normalize]") {
  const std::string before =
      "<rss><channel><item><content:encoded xmlns:content="
      "\"http://purl.org/rss/1.0/modules/content/\"><![CDATA[<p>alpha beta</p><p>gamma "
      "delta</p><p>epsilon</p>]]></content:encoded></item></channel></rss>";
  std::string after = before;
  after.replace(after.find("delta"), 5, "DELTA");
  const Document a = must_normalize(before), b = must_normalize(after);
  std::size_t differing = 0;
  std::size_t pa = 0, pb = 0;
  while (pa < a.text.size() && pb < b.text.size()) {
    const std::size_t ea = a.text.find('\n', pa), eb = b.text.find('\n', pb);
    if (a.text.substr(pa, ea - pa) != b.text.substr(pb, eb - pb)) ++differing;
    pa = ea + 1;
    pb = eb + 1;
  }
  CHECK(differing == 1);
}

TEST_CASE("XHTML content is written one block per line", "[normalize]") {
  const Document d = must_normalize(
      "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>e</id><content type=\"xhtml\">"
      "<div xmlns=\"http://www.w3.org/1999/xhtml\"><p>One <em>x</em></p><p>Two</p></div>"
      "</content></entry></feed>");
  CHECK(has_line(d.text, "    <content type=\"xhtml\">"));
  CHECK(has_line(d.text, "      <div xmlns=\"http://www.w3.org/1999/xhtml\">"));
  CHECK(has_line(d.text, "      <p>One <em>x</em></p>"));
  CHECK(must_normalize(d.text).text == d.text);
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].content.find("<p>Two</p>") != std::string::npos);
}

TEST_CASE("volatile channel fields and cache comments are marked", "[normalize]") {
  const Document d = must_normalize(
      "<rss><channel><title>T</title><lastBuildDate>x</lastBuildDate>"
      "<generator>WordPress</generator><pubDate>p</pubDate></channel></rss>\n"
      "<!-- Dynamic page generated in 0.42 seconds. -->");
  CHECK(has_line(d.text, "    <lastBuildDate>x</lastBuildDate>" + std::string(kVolatileMarker)));
  CHECK(has_line(d.text, "    <generator>WordPress</generator>" + std::string(kVolatileMarker)));
  CHECK(has_line(d.text, "    <pubDate>p</pubDate>"));
  CHECK(has_line(
      d.text, "<!-- Dynamic page generated in 0.42 seconds. -->" + std::string(kVolatileMarker)));
  bool saw_build = false, saw_title = false, saw_comment = false;
  for (const Field& f : d.feed.channel) {
    if (f.name == "lastBuildDate") saw_build = f.volatile_;
    if (f.name == "title") saw_title = !f.volatile_;
    if (f.name == "comment") saw_comment = f.volatile_;
  }
  CHECK(saw_build);
  CHECK(saw_title);
  CHECK(saw_comment);
  CHECK(must_normalize(d.text).text == d.text);
}

TEST_CASE("Atom feed-level updated is volatile but entry updated is not", "[normalize]") {
  const Document d = must_normalize(
      "<feed xmlns=\"http://www.w3.org/2005/Atom\"><updated>u1</updated>"
      "<entry><id>e</id><updated>u2</updated></entry></feed>");
  CHECK(has_line(d.text, "  <updated>u1</updated>" + std::string(kVolatileMarker)));
  CHECK(has_line(d.text, "    <updated>u2</updated>"));
  CHECK(d.feed.format == "atom1.0");
}

TEST_CASE("HTML named entities in XML are replaced by their characters", "[normalize]") {
  const Document d = must_normalize(
      "<rss><channel><title>a&nbsp;b &eacute; &amp; &#233; &bogus; AT&T</title>"
      "</channel></rss>");
  CHECK(has_line(d.text, "    <title>a\u00A0b \u00E9 &amp; \u00E9 &amp;bogus; AT&amp;T</title>"));
  CHECK(repaired(d, "replaced &nbsp; with U+00A0"));
  CHECK(repaired(d, "unknown entity &bogus;"));
  CHECK(repaired(d, "'&'"));
  CHECK(d.repairs[0].line == 1);
}

TEST_CASE("control characters, junk before the root and a second declaration are repaired",
          "[normalize]") {
  const Document d = must_normalize(
      "OTC mirror fetched\n  \xEF\xBB\xBF<?xml version=\"1.0\"?>\n<?xml version=\"1.0\"?>\n"
      "<rss><channel><title>a\x01"
      "b</title></channel></rss>");
  CHECK(has_line(d.text, "    <title>ab</title>"));
  CHECK(repaired(d, "junk before the first tag"));
  CHECK(repaired(d, "second XML declaration"));
  CHECK(repaired(d, "control character U+0001"));
  bool line4 = false;
  for (const Repair& r : d.repairs)
    if (r.what.find("control") != std::string::npos) line4 = r.line == 4;
  CHECK(line4);
}

TEST_CASE("a document that does not parse fails with line, column and reason", "[normalize]") {
  const Result<Document> r = normalize("<rss>\n<channel>\n  <title>x</titel>\n</channel></rss>");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::bad_xml);
  CHECK(r.error().message.starts_with("line 3, column "));
  CHECK(r.error().message.find("mismatch") != std::string::npos);
}

TEST_CASE("error positions point into the original input, not the repaired text", "[normalize]") {
  // Repairs before the error shift the repaired text; the position must not move.
  // pugixml points at the name in the mismatched end tag: column 29 of line 2 here, as it
  // is column 14 of the same line without the entities and the junk line.
  const Result<Document> plain = normalize("<rss>   <a></b></rss>");
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.error().message.starts_with("line 1, column 14: "));
  const Result<Document> r = normalize("junk\n<rss>&nbsp;&nbsp;&nbsp;<a></b></rss>");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.starts_with("line 2, column 29: "));
}

TEST_CASE("UTF-16 with and without BOM decodes to the same canonical text", "[normalize]") {
  const std::string xml =
      "<?xml version=\"1.0\" encoding=\"utf-16\"?><rss><channel><title>Hi</title></channel></rss>";
  const Document plain = must_normalize(
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss><channel><title>Hi</title></channel></rss>");
  const Document le_bom = must_normalize("\xFF\xFE" + utf16(xml, false));
  const Document be_bom = must_normalize("\xFE\xFF" + utf16(xml, true));
  const Document le = must_normalize(utf16(xml, false));
  const Document be = must_normalize(utf16(xml, true));
  CHECK(le_bom.encoding == "utf-16le");
  CHECK(be_bom.encoding == "utf-16be");
  CHECK(le.encoding == "utf-16le");
  CHECK(be.encoding == "utf-16be");
  CHECK(le_bom.text == plain.text);
  CHECK(be_bom.text == plain.text);
  CHECK(le.text == plain.text);
  CHECK(be.text == plain.text);
}

TEST_CASE("legacy encodings named by the declaration are decoded to UTF-8", "[normalize]") {
  SECTION("ISO-8859-1 (read as windows-1252)") {
    const Document d = must_normalize(
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>caf\xE9 \x93q\x94"
        "</title></channel></rss>");
    CHECK(has_line(d.text, "    <title>caf\u00E9 \u201Cq\u201D</title>"));
    CHECK(d.encoding == "windows-1252");
    CHECK(d.text.find("encoding=\"UTF-8\"") != std::string::npos);
  }
  SECTION("GB2312") {
    const Document d = must_normalize(
        "<?xml version=\"1.0\" encoding=\"gb2312\"?><rss><channel><title>\xD6\xD0\xCE\xC4"
        "</title></channel></rss>");
    CHECK(has_line(d.text, "    <title>\u4E2D\u6587</title>"));
  }
  SECTION("Shift_JIS") {
    const Document d = must_normalize(
        "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><rss><channel><title>\x93\xFA\x96\x7B"
        "</title></channel></rss>");
    CHECK(has_line(d.text, "    <title>\u65E5\u672C</title>"));
  }
  SECTION("Big5") {
    const Document d = must_normalize(
        "<?xml version=\"1.0\" encoding=\"big5\"?><rss><channel><title>\xA4\xA4\xA4\xE5"
        "</title></channel></rss>");
    CHECK(has_line(d.text, "    <title>\u4E2D\u6587</title>"));
  }
  SECTION("EUC-KR") {
    const Document d = must_normalize(
        "<?xml version=\"1.0\" encoding=\"euc-kr\"?><rss><channel><title>\xC7\xD1\xB1\xDB"
        "</title></channel></rss>");
    CHECK(has_line(d.text, "    <title>\uD55C\uAE00</title>"));
  }
  SECTION("windows-1251") {
    const Document d = must_normalize(
        "<?xml version=\"1.0\" encoding=\"windows-1251\"?><rss><channel><title>\xCF\xF0"
        "</title></channel></rss>");
    CHECK(has_line(d.text, "    <title>\u041F\u0440</title>"));
  }
}

TEST_CASE("a Content-Type charset overrides the declaration but not a BOM", "[normalize]") {
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss><channel><title>\xE9</title></channel>"
      "</rss>";
  const Document d = must_normalize(body, "text/xml; charset=iso-8859-1");
  CHECK(has_line(d.text, "    <title>\u00E9</title>"));
  CHECK(d.encoding == "windows-1252");
  const Document bom = must_normalize(
      "\xEF\xBB\xBF<rss><channel><title>\xC3\xA9</title>"
      "</channel></rss>",
      "text/xml; charset=iso-8859-1");
  CHECK(has_line(bom.text, "    <title>\u00E9</title>"));
}

TEST_CASE("bytes invalid in the encoding become U+FFFD and are listed", "[normalize]") {
  const Document d = must_normalize(
      "<rss><channel><title>a\xFF"
      "b</title></channel></rss>");
  CHECK(has_line(d.text, "    <title>a\uFFFDb</title>"));
  CHECK(repaired(d, "invalid in UTF-8"));
}

TEST_CASE("item identity falls back from guid to link to a hash", "[normalize]") {
  const Document d = must_normalize(
      "<rss><channel>"
      "<item><guid>g</guid><link>l1</link><title>A</title></item>"
      "<item><link>l2</link><title>B</title></item>"
      "<item><title>C</title><pubDate>d</pubDate></item>"
      "<item><title>C</title><pubDate>d</pubDate><description>other</description></item>"
      "</channel></rss>");
  REQUIRE(d.feed.items.size() == 4);
  CHECK(d.feed.items[0].id == "g");
  CHECK(d.feed.items[1].id == "l2");
  CHECK(d.feed.items[2].id.starts_with("sha1:"));
  CHECK(d.feed.items[2].id.size() == 45);
  // The hash depends on title and date only.
  CHECK(d.feed.items[3].id == d.feed.items[2].id);
}

TEST_CASE("the SHA-1 of an item identity is the standard SHA-1", "[normalize]") {
  // sha1("abc\n") = 03cfd743661f07975fa2f1220c5194cbaff48451; the fallback hashes
  // title "\n" date, so a title "abc" and no date hashes "abc\n".
  const Document d =
      must_normalize("<rss><channel><item><title>abc</title></item></channel></rss>");
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].id == "sha1:03cfd743661f07975fa2f1220c5194cbaff48451");
}

TEST_CASE("RSS 1.0 items take rdf:about as identity", "[normalize]") {
  const Document d = must_normalize(
      "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
      "xmlns=\"http://purl.org/rss/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
      "<channel rdf:about=\"c\"><title>T</title><dc:date>2024</dc:date></channel>"
      "<item rdf:about=\"http://x/1\"><title>One</title><link>http://x/1b</link>"
      "<dc:date>2024-01-01</dc:date></item></rdf:RDF>");
  CHECK(d.feed.format == "rss1.0");
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].id == "http://x/1");
  CHECK(d.feed.items[0].link == "http://x/1b");
  CHECK(d.feed.items[0].published == "2024-01-01");
  CHECK(has_line(d.text, "    <dc:date>2024</dc:date>" + std::string(kVolatileMarker)));
}

TEST_CASE("Atom entries give id, link, dates, authors, categories and enclosures", "[normalize]") {
  const Document d = must_normalize(
      "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>F</title>"
      "<entry><id>urn:1</id><title type=\"html\">A &lt;b&gt;bold&lt;/b&gt; move</title>"
      "<link rel=\"alternate\" href=\"http://x/1\"/>"
      "<link rel=\"enclosure\" href=\"http://x/1.mp3\" type=\"audio/mpeg\" length=\"5\"/>"
      "<published>p</published><updated>u</updated><author><name>Ann</name></author>"
      "<category term=\"c1\"/><summary>s</summary></entry></feed>");
  REQUIRE(d.feed.items.size() == 1);
  const Item& it = d.feed.items[0];
  CHECK(it.id == "urn:1");
  CHECK(it.title == "A bold move");
  CHECK(it.link == "http://x/1");
  CHECK(it.published == "p");
  CHECK(it.updated == "u");
  CHECK(it.authors == std::vector<std::string>{"Ann"});
  CHECK(it.categories == std::vector<std::string>{"c1"});
  CHECK(it.summary == "s");
  REQUIRE(it.enclosures.size() == 1);
  CHECK(it.enclosures[0].url == "http://x/1.mp3");
  CHECK(it.enclosures[0].length == "5");
}

TEST_CASE("JSON Feed becomes sorted canonical JSON and items", "[normalize]") {
  const Document d =
      must_normalize(R"({"version":"https://jsonfeed.org/version/1.1","title":"J","items":[)"
                     R"({"title":"One","id":"1","content_html":"<p>x</p>","tags":["a"]},)"
                     R"({"url":"http://x/2","title":"Two"}]})");
  CHECK(d.feed.format == "jsonfeed1.1");
  CHECK(d.text.find("\"items\"") < d.text.find("\"title\": \"J\""));
  REQUIRE(d.feed.items.size() == 2);
  CHECK(d.feed.items[0].id == "1");
  CHECK(d.feed.items[0].content == "<p>x</p>");
  CHECK(d.feed.items[1].id == "http://x/2");
  CHECK(must_normalize(d.text).text == d.text);
}

TEST_CASE("broken JSON fails with a position", "[normalize]") {
  const Result<Document> r = normalize("{\n  \"version\": \"x\",\n  \"items\": [}\n");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::bad_xml);
  CHECK(r.error().message.starts_with("line 3, column "));
}

TEST_CASE("well-formed XML that is no feed still gets a canonical form", "[normalize]") {
  const Document d = must_normalize("<opml><body><outline text=\"x\"/></body></opml>");
  CHECK(d.feed.format == "xml");
  CHECK(d.feed.items.empty());
  CHECK(has_line(d.text, "    <outline text=\"x\"/>"));
}

TEST_CASE("normalizing does not depend on the locale", "[normalize]") {
  // What a locale could change: the case of 'I' (tolower leaves it as it is in tr_TR, so
  // the label ISO-8859-1 would no longer read as windows-1252, where 0x80 and 0x93 are the
  // euro and a quote), the decimal separator (de_DE), the class of bytes past ASCII.
  const std::string probe =
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"
      "<rss version=\"2.0\"><channel><TITLE>INFO caf\xe9</TITLE>"
      "<title>Title &#73; &#xC9;&Eacute;\xc9 1.5</title>"
      "<item><title>IDLE 2.5 IN \x80 \x93q\x94</title><pubDate>Thu, 01 Oct 2026 05:54:04 "
      "GMT</pubDate>"
      "<description>&lt;P&gt;INSIDE &amp;Iuml; 3,5&lt;/P&gt;</description>"
      "<enclosure url=\"http://x/I.mp3\" length=\"1234567\" type=\"AUDIO/MPEG\"/></item>"
      "<item><description>Icon \xc9T\xc9</description></item>"
      "</channel></rss>";
  const Document before = must_normalize(probe);
  REQUIRE(before.feed.items.size() == 2);
  CHECK(before.feed.items[0].title.find("\xe2\x82\xac") != std::string::npos);  // the euro
  const char* old = std::setlocale(LC_ALL, nullptr);
  const std::string saved = old ? old : "C";
  // C.UTF-8 comes with glibc; scripts/deps --test generates the other two (locale-gen).
  for (const char* name : {"C.UTF-8", "tr_TR.UTF-8", "de_DE.UTF-8"}) {
    INFO("in the locale " << name);
    if (!std::setlocale(LC_ALL, name)) {
      FAIL_CHECK("the locale " << name << " is missing: scripts/deps --test generates it");
      continue;
    }
    const Document after = must_normalize(probe);
    std::setlocale(LC_ALL, saved.c_str());
    CHECK(after.text == before.text);
    REQUIRE(after.feed.items.size() == before.feed.items.size());
    for (std::size_t i = 0; i < after.feed.items.size(); ++i) {
      CHECK(after.feed.items[i].id == before.feed.items[i].id);
      CHECK(after.feed.items[i].title == before.feed.items[i].title);
      CHECK(after.feed.items[i].summary == before.feed.items[i].summary);
    }
  }
  std::setlocale(LC_ALL, saved.c_str());
  CHECK(before.feed.items[1].id.starts_with("sha1:"));
}

}  // namespace feeddiff
