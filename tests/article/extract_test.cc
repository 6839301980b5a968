// The article of crafted pages: what changes around an article leaves its text alone, what
// changes in it shows, and the metadata comes from where pages state it.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/article.h"

namespace feeddiff {
namespace {

struct Version {
  std::string headline = "Council keeps the library open on Sundays";
  std::string nav = "<a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a>";
  std::string ad = "Buy the new phone today, now 20% off";
  std::string related = "Mayor opens bridge";
  std::string comments = "First! Great article, thanks for writing it up, very helpful.";
  std::string cookies = "We use cookies to improve your experience. Accept all?";
  std::string second = "The vote was seven to two, and the change starts next month.";
};

std::string page(const Version& v) {
  return R"(<!DOCTYPE html><html lang="en-GB"><head><title>)" + v.headline +
         R"( | The Town Crier</title></head><body>
<div class="cookie-banner"><p>)" +
         v.cookies + R"(</p><button>OK</button></div>
<header class="site-header"><nav class="menu">)" +
         v.nav + R"(</nav></header>
<div class="layout">
 <aside class="sidebar"><div class="ad-slot"><p>)" +
         v.ad + R"(</p></div></aside>
 <article class="post">
  <h1>)" +
         v.headline + R"(</h1>
  <div class="share-bar"><a href="/s/fb">Share</a> <a href="/s/tw">Tweet</a></div>
  <p>The town council met on Tuesday evening, and after a long debate it voted to keep the
  central library open on Sundays, which residents had asked for in a petition, signed by
  more than two thousand people, last spring.</p>
  <div class="slot"><div>Advertisement</div><div class="ad-container"></div></div>
  <p>)" + v.second +
         R"( Librarians said they would need two more staff, and the council
  agreed to fund them from the reserve, at least for the first year, while usage is measured.</p>
  <h2>What happens next</h2>
  <ul><li>Sunday hours start on the first of the month.</li><li>A review follows in a year.</li></ul>
  <blockquote><p>We are delighted, said the head librarian, it is what the town wanted.</p></blockquote>
  <pre>opening  hours:
  Sun 10-16</pre>
 </article>
 <div class="related-stories"><h3>Related</h3><ul><li><a href="/r1">)" +
         v.related +
         R"(</a></li><li><a href="/r2">Park reopens</a></li></ul></div>
 <div id="comments" class="comments"><p>)" +
         v.comments + R"(</p></div>
</div>
<footer class="site-footer"><p>Copyright The Town Crier. All rights reserved.</p></footer>
</body></html>)";
}

Article extract(const Version& v) {
  auto article = extract_article(page(v));
  REQUIRE(article);
  return *article;
}

TEST_CASE("Navigation, ads, related stories, comments and banners are not the body", "[article]") {
  const std::string text = extract(Version{}).text();
  CHECK(text.find("voted to keep the") != std::string::npos);
  for (const char* furniture : {"Home", "Buy the new phone", "Mayor opens bridge", "First!",
                                "We use cookies", "Copyright", "Tweet", "Advertisement"})
    CHECK(text.find(furniture) == std::string::npos);
}

TEST_CASE("Two versions differing only around the article have the same body text", "[article]") {
  Version a;
  Version b;
  b.nav = "<a href='/'>Home</a> <a href='/weather'>Weather</a>";
  b.ad = "Holidays in Spain from 99 pounds, book before Friday";
  b.related = "School wins national prize";
  b.comments = "I disagree with this decision entirely, it is a waste of money.";
  b.cookies = "This site uses cookies, see our policy.";
  CHECK(extract(a).text() == extract(b).text());
  CHECK(extract(a).title == extract(b).title);
}

TEST_CASE("A changed sentence in the body changes the body text", "[article]") {
  Version a;
  Version b;
  b.second = "The vote was six to three, and the change starts next month.";
  const std::string before = extract(a).text();
  const std::string after = extract(b).text();
  CHECK(before != after);
  CHECK(after.find("six to three") != std::string::npos);
}

TEST_CASE("A changed headline changes the title and not the body", "[article]") {
  Version a;
  Version b;
  b.headline = "Council votes to open the library on Sundays";
  const Article before = extract(a);
  const Article after = extract(b);
  CHECK(before.title == "Council keeps the library open on Sundays");
  CHECK(after.title == "Council votes to open the library on Sundays");
  CHECK(before.text() == after.text());
}

TEST_CASE("The body is blocks of their kinds, and text() writes one block a paragraph",
          "[article]") {
  const Article article = extract(Version{});
  CHECK(article.language == "en-GB");
  bool heading = false, item = false, quote = false, pre = false;
  for (const Block& block : article.blocks) {
    if (block.kind == BlockKind::heading && block.text == "What happens next") {
      heading = true;
      CHECK(block.level == 2);
    }
    item =
        item || (block.kind == BlockKind::list_item && block.text == "A review follows in a year.");
    quote = quote || (block.kind == BlockKind::quote && block.text.starts_with("We are delighted"));
    pre = pre ||
          (block.kind == BlockKind::preformatted && block.text == "opening  hours:\n  Sun 10-16");
  }
  CHECK(heading);
  CHECK(item);
  CHECK(quote);
  CHECK(pre);
  const std::string text = article.text();
  CHECK(text.find("\n\n- Sunday hours start on the first of the month.\n\n- A review") !=
        std::string::npos);
  CHECK(text.find("\n> We are delighted") != std::string::npos);
  CHECK(text.ends_with("Sun 10-16\n"));
}

TEST_CASE("Metadata comes from meta tags: author, published time, site, language", "[article]") {
  const std::string html = R"(<html><head>
<meta property="og:title" content="Rivers are rising">
<meta property="og:site_name" content="Weather Weekly">
<meta name="author" content="Ann Example">
<meta property="article:published_time" content="2026-03-01T08:30:00Z">
<meta http-equiv="content-language" content="de">
<title>Ignored | Weather Weekly</title></head><body><article>
<p>The river rose by two metres overnight, and the town's flood barriers were raised at dawn,
before the water reached the old bridge, which was closed to traffic for the day.</p>
</article></body></html>)";
  auto article = extract_article(html);
  REQUIRE(article);
  CHECK(article->title == "Rivers are rising");
  CHECK(article->byline == "Ann Example");
  CHECK(article->published == "2026-03-01T08:30:00Z");
  CHECK(article->site_name == "Weather Weekly");
  CHECK(article->language == "de");
}

TEST_CASE("Metadata comes from JSON-LD before meta tags", "[article]") {
  const std::string html = R"(<html lang="fr"><head>
<meta name="author" content="Meta Author">
<meta property="og:title" content="The meta title">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
 {"@type":"WebSite","name":"Le Site"},
 {"@type":"NewsArticle","headline":"Le titre","author":[{"name":"Marie Curie"},{"name":"Pierre Curie"}],
  "datePublished":"2026-02-03T10:00:00+01:00","publisher":{"name":"Le Journal"}}]}</script>
</head><body><article><p>La rivière a monté de deux mètres pendant la nuit, et les barrières
ont été levées à l'aube, avant que l'eau n'atteigne le vieux pont, fermé pour la journée.</p>
</article></body></html>)";
  auto article = extract_article(html);
  REQUIRE(article);
  // An @graph record with no top-level @type is read when the record itself carries one.
  CHECK(article->language == "fr");
  CHECK(article->title == "Le titre");
  CHECK(article->byline == "Marie Curie, Pierre Curie");
  CHECK(article->published == "2026-02-03T10:00:00+01:00");
  CHECK(article->site_name == "Le Journal");
}

TEST_CASE("A byline and a <time> in the page are read when no metadata states them", "[article]") {
  const std::string html = R"(<html><head><title>Short</title></head><body><article>
<h1>Rivers are rising again this week</h1>
<p class="byline">By Sam Writer</p><time datetime="2026-04-05">5 April</time>
<p>The river rose by two metres overnight, and the town's flood barriers were raised at dawn,
before the water reached the old bridge, which was closed to traffic for the day.</p>
</article></body></html>)";
  auto article = extract_article(html);
  REQUIRE(article);
  CHECK(article->byline == "By Sam Writer");
  CHECK(article->published == "2026-04-05");
  CHECK(article->text().find("By Sam Writer") == std::string::npos);
}

}  // namespace
}  // namespace feeddiff

namespace feeddiff {
namespace {

TEST_CASE("One <br> breaks a line, two end a paragraph", "[article]") {
  const std::string html =
      "<html><body><div class='post'>The first paragraph of the story, long enough to read "
      "as prose,<br>on a second line.<br> <br>The second paragraph, which follows after two "
      "line breaks, as pages without paragraph elements write them.</div></body></html>";
  auto article = extract_article(html);
  REQUIRE(article);
  REQUIRE(article->blocks.size() == 2);
  CHECK(article->blocks[0].text ==
        "The first paragraph of the story, long enough to read as prose,\non a second line.");
  CHECK(article->blocks[1].text.starts_with("The second paragraph"));
}

}  // namespace
}  // namespace feeddiff
