// Atom Entry Documents (RFC 4287 section 4.1.2): a document whose root is atom:entry is read
// as a feed of that one item, its channel taken from the entry's atom:source.

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/normalize.h"
#include "normalize/normalize_helpers.h"
#include "support/process.h"

namespace feeddiff {
using namespace test;
namespace {

const Field* channel_field(const Feed& feed, std::string_view name) {
  for (const Field& f : feed.channel)
    if (f.name == name) return &f;
  return nullptr;
}

std::string fixture(const std::string& name) {
  return test::slurp(test::fixture_path("normalize/" + name));
}

}  // namespace

TEST_CASE("an Atom entry document is read as a feed of one item", "[normalize]") {
  const Document d = must_normalize(fixture("atom-entry.xml"));
  CHECK(d.feed.format == "atom1.0-entry");
  REQUIRE(d.feed.items.size() == 1);
  const Item& it = d.feed.items[0];
  CHECK(it.id == "http://adam.blogs.bitscribe.net/2007/07/02/php-datetime-class/");
  CHECK(it.title == "PHP DateTime Class");
  CHECK(it.link == "http://adam.blogs.bitscribe.net/2007/07/02/php-datetime-class/");
  CHECK(it.published == "2007-07-03T02:31:58Z");
  CHECK(it.updated == "2007-07-03T02:31:58Z");
  CHECK(it.authors == std::vector<std::string>{"adam"});
  CHECK(it.categories == std::vector<std::string>{"PHP"});
  CHECK(it.summary.starts_with("With as much time as I spend talking about Rails"));
  CHECK(it.content.find("BDateTime") != std::string::npos);
}

TEST_CASE("an entry document's channel is its atom:source, updated and generator volatile",
          "[normalize]") {
  const Document d = must_normalize(fixture("atom-entry.xml"));
  const Field* title = channel_field(d.feed, "title");
  REQUIRE(title);
  CHECK(title->value == "type=\"text\" Adam @ Bitscribe");  // attributes first, as in a feed
  CHECK_FALSE(title->volatile_);
  const Field* id = channel_field(d.feed, "id");
  REQUIRE(id);
  CHECK(id->value == "http://adam.blogs.bitscribe.net/feed/atom/");
  const Field* updated = channel_field(d.feed, "updated");
  REQUIRE(updated);
  CHECK(updated->volatile_);
  const Field* generator = channel_field(d.feed, "generator");
  REQUIRE(generator);
  CHECK(generator->volatile_);
  // In the canonical text too: the source's updated is marked, the entry's own is not.
  CHECK(has_line(d.text,
                 "    <updated>2007-07-03T02:31:58Z</updated>" + std::string(kVolatileMarker)));
  CHECK(has_line(d.text, "  <updated>2007-07-03T02:31:58Z</updated>"));
}

TEST_CASE("an entry document without atom:source has no channel fields", "[normalize]") {
  const Document d = must_normalize(
      "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>tag:x,2024:1</id><title>One</title>"
      "<updated>2024-01-01T00:00:00Z</updated></entry>");
  CHECK(d.feed.format == "atom1.0-entry");
  CHECK(d.feed.channel.empty());
  REQUIRE(d.feed.items.size() == 1);
  CHECK(d.feed.items[0].id == "tag:x,2024:1");
  CHECK(d.feed.items[0].title == "One");
  CHECK(has_line(d.text, "  <updated>2024-01-01T00:00:00Z</updated>"));
}

TEST_CASE("an Atom 0.3 entry document and a prefixed atom:entry root are entry documents",
          "[normalize]") {
  const Document old_atom = must_normalize(
      "<entry xmlns=\"http://purl.org/atom/ns#\"><id>e03</id><title>Old</title></entry>");
  CHECK(old_atom.feed.format == "atom0.3-entry");
  REQUIRE(old_atom.feed.items.size() == 1);
  CHECK(old_atom.feed.items[0].title == "Old");
  const Document prefixed = must_normalize(
      "<a:entry xmlns:a=\"http://www.w3.org/2005/Atom\"><a:id>p1</a:id><a:title>P</a:title>"
      "<a:source><a:title>S</a:title></a:source></a:entry>");
  CHECK(prefixed.feed.format == "atom1.0-entry");
  REQUIRE(prefixed.feed.items.size() == 1);
  CHECK(prefixed.feed.items[0].id == "p1");
  REQUIRE(channel_field(prefixed.feed, "atom:title"));
  CHECK(channel_field(prefixed.feed, "atom:title")->value == "S");
}

TEST_CASE("an entry element outside the Atom namespace is no feed", "[normalize]") {
  const Document d = must_normalize("<entry><id>x</id><title>Not Atom</title></entry>");
  CHECK(d.feed.format == "xml");
  CHECK(d.feed.items.empty());
}

TEST_CASE("an entry document's canonical form normalizes to itself and keeps the item",
          "[normalize]") {
  const Document d = must_normalize(fixture("atom-entry.xml"));
  CHECK(d.text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<entry "));
  const Document again = must_normalize(d.text);
  CHECK(again.text == d.text);
  CHECK(again.feed.format == d.feed.format);
  REQUIRE(again.feed.items.size() == 1);
  CHECK(again.feed.items[0].id == d.feed.items[0].id);
  // The canonical form puts the HTML one block a line: the text a reader sees is the same.
  CHECK(readable_text(again.feed.items[0].content) == readable_text(d.feed.items[0].content));
}

TEST_CASE("an entry document's item is the item the same entry makes in its feed", "[normalize]") {
  const Document entry = must_normalize(fixture("atom-entry.xml"));
  const Document feed = must_normalize(fixture("wordpress-atom.xml"));
  REQUIRE(entry.feed.items.size() == 1);
  REQUIRE_FALSE(feed.feed.items.empty());
  const Item& a = entry.feed.items[0];
  const Item& b = feed.feed.items[0];
  CHECK(a.id == b.id);
  CHECK(a.title == b.title);
  CHECK(a.link == b.link);
  CHECK(a.published == b.published);
  CHECK(a.updated == b.updated);
  CHECK(a.authors == b.authors);
  CHECK(a.categories == b.categories);
  CHECK(a.summary == b.summary);
  CHECK(a.content == b.content);
}

}  // namespace feeddiff
