// article.txt, the readable text of an archived article (docs/articles.md).

#include <catch2/catch.hpp>

#include "feeddiff/message.h"

TEST_CASE("article.txt reads back what was written, and a headline never breaks its header",
          "[store][articles]") {
  feeddiff::ArticleFile a{"A headline\nwith a break", "Jane Doe", "2026-10-01", "One.\n\nTwo.\n"};
  const std::string text = feeddiff::format_article_file(a);
  CHECK(
      text ==
      "Title: A headline with a break\nByline: Jane Doe\nPublished: 2026-10-01\n\nOne.\n\nTwo.\n");
  const feeddiff::ArticleFile back = feeddiff::parse_article_file(text);
  CHECK(back.title == "A headline with a break");
  CHECK(back.byline == "Jane Doe");
  CHECK(back.published == "2026-10-01");
  CHECK(back.body == "One.\n\nTwo.\n");
  // A file without the header (edited by hand) is all body.
  CHECK(feeddiff::parse_article_file("Just text\n").body == "Just text\n");
  CHECK(feeddiff::parse_article_file("Just text\n").title.empty());
}
