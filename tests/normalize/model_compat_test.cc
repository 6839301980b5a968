// Item model details checked against what python3-feedparser reads (tools/compare_feedparser.py):
// base64 text constructs, entities declared in the internal DTD subset, Atom links without
// href. The canonical text keeps what the document says; the item model reads it.

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "feeddiff/normalize.h"
#include "normalize/normalize_helpers.h"

namespace feeddiff {
using namespace test;
namespace {

std::string atom_entry(std::string_view body, std::string_view ns = "http://www.w3.org/2005/Atom") {
  return "<feed xmlns=\"" + std::string(ns) + "\"><entry>" + std::string(body) + "</entry></feed>";
}

}  // namespace

TEST_CASE("Atom 0.3 mode=base64 titles and content are decoded in the model", "[normalize]") {
  // "Example <b>Atom</b>"
  const Document d = must_normalize(atom_entry(
      "<title type=\"text/html\" mode=\"base64\">\n  RXhhbXBsZSA8Yj5BdG9tPC9iPg==\n</title>"
      "<content type=\"text/html\" mode=\"base64\">RXhhbXBsZSA8Yj5BdG9tPC9iPg==</content>",
      "http://purl.org/atom/ns#"));
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].title == "Example Atom");
  CHECK(d.feed.items[0].content == "Example <b>Atom</b>");
  // The canonical document keeps the base64 as written.
  CHECK(d.text.find("RXhhbXBsZSA8Yj5BdG9tPC9iPg==") != std::string::npos);
  CHECK(must_normalize(d.text).text == d.text);
}

TEST_CASE("an Atom title of a binary type is base64, unless it does not decode to text",
          "[normalize]") {
  const Document binary = must_normalize(
      atom_entry("<title type=\"application/octet-stream\">PHA+RW50cnkgVGl0bGU8L3A+</title>"));
  REQUIRE(binary.feed.items.size() == 1);
  CHECK(binary.feed.items[0].title == "<p>Entry Title</p>");
  // "test" is valid base64 but decodes to no UTF-8: it is the title as written.
  const Document custom =
      must_normalize(atom_entry("<title type=\"application/x-custom\">test</title>"));
  REQUIRE(custom.feed.items.size() == 1);
  CHECK(custom.feed.items[0].title == "test");
  // Content of a binary type stays as written (it is no text).
  const Document content = must_normalize(
      atom_entry("<id>x</id><content type=\"image/png\">PHA+RW50cnkgVGl0bGU8L3A+</content>"));
  CHECK(content.feed.items[0].content == "PHA+RW50cnkgVGl0bGU8L3A+");
}

TEST_CASE("entities declared in the internal DTD subset are expanded", "[normalize]") {
  const std::string feed =
      "<!DOCTYPE rss [\n  <!ENTITY id \"tag:example.com,\">\n  <!ENTITY q 'say \"hi\"'>\n"
      "  <!ENTITY markup \"<b>x</b>\">\n  <!ENTITY % param \"p\">\n]>\n"
      "<rss version=\"2.0\"><channel><item><guid isPermaLink='false'>&id;2006-05-04:/blog/</guid>"
      "<title a=\"&q;\">&q; &markup;</title></item></channel></rss>";
  const Document d = must_normalize(feed);
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].id == "tag:example.com,2006-05-04:/blog/");
  // A value with markup is not expanded: its reference is kept as text, like any unknown one.
  CHECK(d.feed.items[0].title == "say \"hi\" &markup;");
  CHECK(d.text.find("a=\"say &quot;hi&quot;\"") != std::string::npos);
  bool listed = false;
  for (const Repair& r : d.repairs) {
    CHECK(r.what.find("&id;") == std::string::npos);  // expanding is no repair
    listed = listed || r.what.find("&markup;") != std::string::npos;
  }
  CHECK(listed);
  CHECK(must_normalize(d.text).text == d.text);
}

TEST_CASE("expanding declared entities is bounded", "[normalize]") {
  std::string feed = "<!DOCTYPE rss [<!ENTITY big \"" + std::string(4000, 'x') +
                     "\">]><rss version=\"2.0\"><channel><item><title>";
  for (int i = 0; i < 1000; ++i) feed += "&big;";
  feed += "</title></item></channel></rss>";
  const Document d = must_normalize(feed);
  REQUIRE(d.feed.items.size() == 1);
  // 1000 x 4000 bytes would be 4 MB; expansion stops at 1 MiB beyond the input's size.
  CHECK(d.feed.items[0].title.size() < (std::size_t{2} << 20));
  CHECK(d.feed.items[0].title.find("&big;") != std::string::npos);
}

TEST_CASE("an Atom link without href takes its text", "[normalize]") {
  const Document d = must_normalize(atom_entry(
      "<link rel=\"alternate\" type=\"text/html\">http://www.example.com/</link>"
      "<link rel=\"enclosure\" type=\"audio/mpeg\">http://www.example.com/a.mp3</link>"));
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].link == "http://www.example.com/");
  CHECK(d.feed.items[0].id == "http://www.example.com/");
  REQUIRE(d.feed.items[0].enclosures.size() == 1);
  CHECK(d.feed.items[0].enclosures[0].url == "http://www.example.com/a.mp3");
  // An empty href is still the href.
  const Document empty = must_normalize(
      atom_entry("<id>e</id><link href=\"\" rel=\"alternate\">http://www.example.com/</link>"));
  CHECK(empty.feed.items[0].link.empty());
}

}  // namespace feeddiff
