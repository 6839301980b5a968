// Two versions of an Atom Entry Document compare item-wise, as a feed of one item does.

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"

namespace feeddiff {
namespace {

Feed model(std::string_view bytes) {
  Result<Document> r = normalize(bytes);
  INFO(r.description());
  REQUIRE(r.ok());
  return std::move(r).value().feed;
}

std::string entry(std::string_view title, std::string_view content, std::string_view updated) {
  return "<?xml version=\"1.0\"?>\n<entry xmlns=\"http://www.w3.org/2005/Atom\">\n"
         "<source><id>tag:example.org,2024:feed</id><title>Example</title><updated>" +
         std::string(updated) +
         "</updated></source>\n<id>tag:example.org,2024:post-1</id>\n<title>" + std::string(title) +
         "</title>\n<updated>2024-01-01T00:00:00Z</updated>\n" + "<content type=\"html\">" +
         std::string(content) + "</content>\n</entry>\n";
}

}  // namespace

TEST_CASE("an edited entry document is one changed item with its before and after", "[diff]") {
  const Feed before = model(entry("First title", "&lt;p&gt;one two three&lt;/p&gt;", "u1"));
  const Feed after = model(entry("Second title", "&lt;p&gt;one four three&lt;/p&gt;", "u2"));
  const ItemDiff d = diff_items(before, after);
  REQUIRE(d.items.size() == 1);
  const ItemChange& c = d.items[0];
  CHECK(c.kind == ItemChange::Kind::changed);
  CHECK(c.id == "tag:example.org,2024:post-1");
  CHECK(c.fields == std::vector<std::string>{"title", "content"});
  REQUIRE(c.changes.size() == 2);
  CHECK(c.changes[0].old_value == "First title");
  CHECK(c.changes[0].new_value == "Second title");
  // The source's updated is the channel's, and volatile.
  CHECK(d.channel_fields == std::vector<std::string>{"updated"});
  CHECK_FALSE(d.cosmetic_only);
}

TEST_CASE("an entry document whose source was only rebuilt is a cosmetic change", "[diff]") {
  const Feed before = model(entry("Same", "text", "2024-01-01T00:00:00Z"));
  const Feed after = model(entry("Same", "text", "2024-01-02T00:00:00Z"));
  const ItemDiff d = diff_items(before, after);
  CHECK(d.items.empty());
  CHECK(d.cosmetic_only);
}

}  // namespace feeddiff
