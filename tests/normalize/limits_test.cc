// The normalizer's limits: what a hostile publisher can serve gets a clear error, never a crash
// or gigabytes of memory, and documents just inside each limit still normalize.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/normalize.h"
#include "support/process.h"

namespace feeddiff {
namespace {

using test::repeat;

constexpr std::string_view kJsonFeed = R"({"version":"https://jsonfeed.org/version/1.1","items":)";
constexpr std::string_view kRssHead = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel>";
constexpr std::string_view kRssTail = "</channel></rss>";

// The error of normalizing with the model and the text, and again with each alone.
std::string error_of(const std::string& body) {
  auto both = normalize(body);
  REQUIRE_FALSE(both);
  CHECK(both.error().code == Errc::unsupported);
  auto model_only = normalize(body, NormalizeOptions{{}, true, false});
  REQUIRE_FALSE(model_only);
  CHECK(model_only.error().message == both.error().message);
  return both.error().message;
}

TEST_CASE("JSON arrays nested 100,000 deep are refused, not a crash", "[normalize]") {
  const std::string body =
      std::string(kJsonFeed) + "[" + repeat("[", 100000) + repeat("]", 100000) + "]}";
  CHECK(error_of(body) == "JSON nested deeper than 256 levels");
  // Without the model (feeddiff normalize) too.
  auto text_only = normalize(body, NormalizeOptions{{}, false, true});
  REQUIRE_FALSE(text_only);
  CHECK(text_only.error().message == "JSON nested deeper than 256 levels");
}

TEST_CASE("JSON objects nested 100,000 deep inside an item are refused", "[normalize]") {
  const std::string body = std::string(kJsonFeed) + R"([{"title":)" + repeat(R"({"a":)", 100000) +
                           "1" + repeat("}", 100000) + "}]}";
  CHECK(error_of(body) == "JSON nested deeper than 256 levels");
}

TEST_CASE("JSON nested 200 deep still normalizes, one value a line", "[normalize]") {
  const std::string body =
      std::string(kJsonFeed) + R"([{"id":"a","x":)" + repeat("[", 200) + repeat("]", 200) + "}]}";
  auto doc = normalize(body);
  REQUIRE(doc);
  CHECK(doc->feed.format == "jsonfeed1.1");
  REQUIRE(doc->feed.items.size() == 1);
  CHECK(doc->feed.items[0].id == "a");
  // "x": [ is indented 6 (root, items, item), each array two more: the 200th, empty, at 404.
  CHECK(doc->text.find("\n" + std::string(404, ' ') + "[]\n") != std::string::npos);
  CHECK(doc->text.find("\n" + std::string(406, ' ') + "[") == std::string::npos);
}

TEST_CASE("JSON whose indentation would multiply it is refused by its canonical size",
          "[normalize]") {
  // 400 runs of 250 nested arrays: 200 KB that would indent to ~50 MB.
  std::string runs;
  for (int i = 0; i < 400; ++i) runs += (i ? "," : "") + repeat("[", 250) + repeat("]", 250);
  const std::string body = std::string(kJsonFeed) + "[],\"x\":[" + runs + "]}";
  CHECK(error_of(body) == "JSON whose canonical form would exceed 2 MiB (8 times the input)");
}

TEST_CASE("a JSON Feed of more than 100,000 items has no model, with a reason", "[normalize]") {
  std::string items;
  for (int i = 0; i <= 100000; ++i)
    items += (i ? ",{\"id\":\"" : "{\"id\":\"") + std::to_string(i) + "\"}";
  const std::string body = std::string(kJsonFeed) + "[" + items + "]}";
  CHECK(error_of(body) == "a feed of more than 100000 items (100001)");
  // The canonical text alone has no item limit.
  auto text_only = normalize(body, NormalizeOptions{{}, false, true});
  REQUIRE(text_only);
  CHECK(text_only->text.find("\"100000\"") != std::string::npos);
}

TEST_CASE("a JSON number too large for a double is an error that says so", "[normalize]") {
  auto doc = normalize(std::string(kJsonFeed) + R"([{"id":1e999999}]})");
  REQUIRE_FALSE(doc);
  CHECK(doc.error().message.find("number overflow parsing '1e999999'") != std::string::npos);
}

TEST_CASE("JSON syntax errors still say where they are", "[normalize]") {
  auto doc = normalize("{\n  \"a\": [1, 2,, 3]\n}");
  REQUIRE_FALSE(doc);
  CHECK(doc.error().code == Errc::bad_xml);
  CHECK(doc.error().message.starts_with("line 2, column "));
  CHECK(doc.error().message.find(": JSON syntax error") != std::string::npos);
}

TEST_CASE("an XML element with 200,000 attributes is refused", "[normalize]") {
  std::string attrs;
  for (int i = 0; i < 200000; ++i) attrs += " a" + std::to_string(i) + "=\"v\"";
  const std::string body =
      std::string(kRssHead) + "<item" + attrs + "><title>x</title></item>" + std::string(kRssTail);
  CHECK(error_of(body) == "a document with an element with more than 4096 attributes");
}

TEST_CASE("100,000 prefixes used without a declaration are refused", "[normalize]") {
  std::string body(kRssHead);
  for (int i = 0; i < 100000; ++i) body += "<q" + std::to_string(i) + ":x/>";
  body += kRssTail;
  CHECK(error_of(body) == "a document with more than 1024 namespaces");
}

TEST_CASE("XML nested 100,000 deep is refused", "[normalize]") {
  const std::string body = std::string(kRssHead) + "<item>" + repeat("<a>", 100000) +
                           repeat("</a>", 100000) + "</item>" + std::string(kRssTail);
  CHECK(error_of(body) == "a document with elements nested deeper than 1000 levels");
}

TEST_CASE("XML whose indentation would multiply it is refused by its canonical size",
          "[normalize]") {
  const std::string body = std::string(kRssHead) + "<item>" +
                           repeat(repeat("<a>", 990) + repeat("</a>", 990), 60) + "</item>" +
                           std::string(kRssTail);
  CHECK(error_of(body) == "a document with a canonical form over 4 MiB (8 times the input)");
}

TEST_CASE("an RSS feed of more than 100,000 items has no model, with a reason", "[normalize]") {
  std::string body(kRssHead);
  for (int i = 0; i <= 100000; ++i) body += "<item><guid>" + std::to_string(i) + "</guid></item>";
  body += kRssTail;
  CHECK(error_of(body) == "a feed of more than 100000 items");
  auto text_only = normalize(body, NormalizeOptions{{}, false, true});
  REQUIRE(text_only);
  CHECK(text_only->text.find("<guid>100000</guid>") != std::string::npos);
}

TEST_CASE("HTML nested 100,000 deep inside a description normalizes without recursion",
          "[normalize]") {
  const std::string body = std::string(kRssHead) + "<item><guid>g</guid><description><![CDATA[" +
                           repeat("<div>", 100000) + "x" + repeat("</div>", 100000) +
                           "]]></description></item>" + std::string(kRssTail);
  auto doc = normalize(body);
  REQUIRE(doc);
  REQUIRE(doc->feed.items.size() == 1);
  CHECK(doc->feed.items[0].summary.size() == 100000 * 11 + 1);
}

TEST_CASE("a description of 20 MB on one line normalizes", "[normalize]") {
  const std::string body = std::string(kRssHead) + "<item><guid>g</guid><description>" +
                           repeat("word ", 4000000) + "</description></item>" +
                           std::string(kRssTail);
  auto doc = normalize(body);
  REQUIRE(doc);
  REQUIRE(doc->feed.items.size() == 1);
  CHECK(doc->feed.items[0].summary.size() == 4000000 * 5 - 1);
}

TEST_CASE("an item of 2,000,000 empty elements has no model, with a reason", "[normalize]") {
  const std::string body = std::string(kRssHead) + "<item><guid>g</guid>" +
                           repeat("<x/>", 2000000) + "</item>" + std::string(kRssTail);
  CHECK(error_of(body) == "an item or channel of more than 4096 fields");
}

TEST_CASE("a JSON item of 5,000 keys has no model, with a reason", "[normalize]") {
  std::string keys;
  for (int i = 0; i < 5000; ++i) keys += ",\"k" + std::to_string(i) + "\":0";
  const std::string body = std::string(kJsonFeed) + "[{\"id\":\"a\"" + keys + "}]}";
  CHECK(error_of(body) == "an item or channel of more than 4096 fields");
}

TEST_CASE("an item of 4,000 fields is within the limits", "[normalize]") {
  const std::string body = std::string(kRssHead) + "<item><guid>g</guid>" +
                           repeat("<x>1</x>", 4000) + "</item>" + std::string(kRssTail);
  auto doc = normalize(body);
  REQUIRE(doc);
  REQUIRE(doc->feed.items.size() == 1);
  CHECK(doc->feed.items[0].extra.size() == 4000);
}

}  // namespace
}  // namespace feeddiff
