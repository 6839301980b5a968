// An article version's markdown and HTML faces hold a hostile page's text as text: no
// markup, no script, no javascript: link, no terminal escape.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/render.h"

using namespace feeddiff;

namespace {

ArticleView hostile_edit() {
  ArticleView v;
  v.commit_id = "0123456789abcdef0123456789abcdef01234567";
  v.title = "news: article changed: <script>alert(1)</script>";
  v.source = "news";
  v.url = "javascript:alert(1)";
  v.item_id = "id-1";
  v.status = "200";
  v.observed_at = "2026-10-01T13:00:00.000Z";
  v.path = "articles/news/ab/key/page.html";
  v.old_title = "Old *headline*";
  v.new_title = "New <b>headline</b>\x1b[31m";
  v.old_byline = v.new_byline = "A. Writer";
  v.words = 3;
  v.body_changed = true;
  v.body.runs = {{WordRun::Kind::kept, "Kept ", 0},
                 {WordRun::Kind::removed, "<img src=x onerror=alert(1)>", 0},
                 {WordRun::Kind::added, "**bold** [link](javascript:x)", 0}};
  return v;
}

}  // namespace

TEST_CASE("an article's HTML page escapes the page's text and links only http(s)", "[render]") {
  const std::string page = render_article_html(hostile_edit());
  CHECK(page.find("<script>") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("href=\"javascript:") == std::string::npos);
  CHECK(page.find('\x1b') == std::string::npos);
  CHECK(page.find("<del>Old *headline*</del> → <ins>New &lt;b&gt;headline&lt;/b&gt;") !=
        std::string::npos);
  CHECK(page.find("<del>&lt;img src=x onerror=alert(1)&gt;</del>") != std::string::npos);
  CHECK(page.find("Content-Security-Policy") != std::string::npos);
}

TEST_CASE("an article's markdown escapes emphasis, links and HTML of the page's text", "[render]") {
  const std::string md = render_article_markdown(hostile_edit());
  CHECK(md.find("<script>") == std::string::npos);
  // The brackets are escaped, so no link is made of them.
  CHECK(md.find("\\[link\\](javascript:x)") != std::string::npos);
  CHECK(md.find(" [link]") == std::string::npos);
  CHECK(md.find('\x1b') == std::string::npos);
  CHECK(md.find("- **Headline**: ~~Old \\*headline\\*~~ -> **New \\<b\\>headline") !=
        std::string::npos);
  CHECK(md.find("- **Byline**: A. Writer\n") != std::string::npos);
  CHECK(md.find("### Body (3 words now)") != std::string::npos);
}
