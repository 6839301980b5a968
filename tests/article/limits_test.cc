// The extractor's limits: a hostile page ends in a result or an error that names the limit,
// never a crash, a minute in the parser or gigabytes of memory. Outcomes are asserted, not
// times: docs/article.md has what each page costs.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/article.h"
#include "support/process.h"

namespace feeddiff {
namespace {

using test::repeat;

const std::string kProse =
    "<p>The council met on Tuesday, and after a long debate it voted to keep the library open "
    "on Sundays, which residents had asked for.</p>";

TEST_CASE("A page nested 100,000 divs deep is refused naming the depth limit", "[article]") {
  auto article = extract_article(repeat("<div>", 100000) + kProse);
  REQUIRE_FALSE(article);
  CHECK(article.error().code == Errc::unsupported);
  CHECK(article.error().message == "elements nested deeper than 1000 levels");
}

TEST_CASE("Nesting that end tags cannot close is counted as nesting", "[article]") {
  // </div> does not close a div past an <object> (a scope boundary), nor does a stray
  // </span>, nor "<div/>" (HTML has no self-closing div): each of these nests in the parser.
  for (const std::string unit : {"<div><object></div>", "<div></span>", "<div/>", "<b><i>"}) {
    auto article = extract_article(repeat(unit, 100000) + kProse);
    REQUIRE_FALSE(article);
    CHECK(article.error().message == "elements nested deeper than 1000 levels");
  }
}

TEST_CASE("Pages nested just under the depth limit are read", "[article]") {
  auto article = extract_article(repeat("<div>", 900) + kProse + repeat("</div>", 900));
  REQUIRE(article);
  CHECK(article->text().find("voted to keep the library open") != std::string::npos);
}

TEST_CASE("Siblings that close themselves do not count as nesting", "[article]") {
  // 5,000 paragraphs without </p>, list items without </li>, and SVG icons: flat pages.
  auto article = extract_article("<div>" + repeat("<p>A sentence of the article, told.", 5000) +
                                 "<ul>" + repeat("<li>item", 3000) + "</ul>" +
                                 repeat("<svg><path d='M0'/><path/></svg>", 3000) + "</div>");
  REQUIRE(article);
}

TEST_CASE("A million links are refused naming the tag limit", "[article]") {
  auto article = extract_article(repeat("<a href=\"/x\">x</a>", 1'000'000));
  REQUIRE_FALSE(article);
  CHECK(article.error().code == Errc::unsupported);
  CHECK(article.error().message == "more than 200000 tags");
}

TEST_CASE("A paragraph of 50 MB, just under the byte limit, is read whole", "[article]") {
  const std::string word = "word, ";
  const std::size_t n = 50'000'000 / word.size();
  auto article = extract_article("<html><body><p>" + repeat(word, n) + "</p></body></html>");
  REQUIRE(article);
  REQUIRE(article->blocks.size() == 1);
  CHECK(article->blocks[0].text.size() == n * word.size() - 1);  // the last space trimmed
}

TEST_CASE("A page over the byte limit is refused before it is parsed", "[article]") {
  ArticleOptions options;
  options.max_bytes = 1000;
  auto article = extract_article(repeat("<p>words</p>", 100), options);
  REQUIRE_FALSE(article);
  CHECK(article.error().code == Errc::unsupported);
  CHECK(article.error().message == "page is 1200 bytes, more than the 1000 allowed");
}

TEST_CASE("Tags inside scripts, comments and styles are not counted as nesting", "[article]") {
  const std::string page = "<script>" + repeat("<div>", 5000) + "</script><!--" +
                           repeat("<div>", 5000) + "--><style>" + repeat("<div>", 5000) +
                           "</style>" + kProse;
  auto article = extract_article(page);
  REQUIRE(article);
  CHECK(article->text().find("library open on Sundays") != std::string::npos);
}

TEST_CASE("A page with no text is an error, not an empty article", "[article]") {
  for (const std::string page : {"", "<html><body></body></html>", "<img src=a.png>"}) {
    auto article = extract_article(page);
    REQUIRE_FALSE(article);
    CHECK(article.error().code == Errc::body);
  }
}

TEST_CASE("JSON-LD nested 100,000 deep is read without the deep part", "[article]") {
  const std::string page =
      R"(<html><head><script type="application/ld+json">{"@context":"https://schema.org",)"
      R"("@type":"NewsArticle","headline":"Deep","x":)" +
      repeat("[", 100000) + repeat("]", 100000) + "}</script></head><body>" + kProse +
      "</body></html>";
  auto article = extract_article(page);
  REQUIRE(article);
  CHECK(article->title == "Deep");
}

}  // namespace
}  // namespace feeddiff
