// The extractor's rules that follow Readability.js's, on crafted pages: each page holds one
// element the rule decides about, inside an article long enough (over 500 characters) that
// no retry without the cleaning hides the decision.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/article.h"

namespace feeddiff {
namespace {

constexpr const char* kStoryParagraphs[] = {
    "The council met on Tuesday evening and, after a long debate, voted to keep the central "
    "library open on Sundays, as residents had asked in a petition last spring.",
    "Librarians said they would need two more staff, and the council agreed to fund them from "
    "the reserve for the first year, while the use of the library is measured.",
    "Sunday hours start on the first of next month, and a review of the opening hours will "
    "follow after a year, the council said in a statement on Wednesday.",
    "The head librarian said the library had waited years for this decision, and that "
    "volunteers would help on the first Sundays, before the new staff are hired."};

std::string story_page(const std::string& middle, const std::string& head = "") {
  std::string body = "<article>";
  for (int i = 0; i < 4; ++i) {
    if (i == 2) body += middle;
    body += "<p>" + std::string(kStoryParagraphs[i]) + "</p>";
  }
  body += "</article>";
  return "<html><head><title>Library open on Sundays</title>" + head + "</head><body>" + body +
         "</body></html>";
}

std::string story_text(const std::string& html) {
  auto article = extract_article(html);
  REQUIRE(article);
  const std::string text = article->text();
  CHECK(text.find("voted to keep the central library") != std::string::npos);
  CHECK(text.find("before the new staff are hired") != std::string::npos);
  return text;
}

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("A page inside one form is read, and a sign-in form in the article is not", "[article]") {
  std::string paragraphs;
  for (const char* p : kStoryParagraphs) paragraphs += "<p>" + std::string(p) + "</p>";
  const std::string whole_page_form =
      "<html><body><form id='aspnetForm' action='/page.aspx' method='post'><div class='story'>" +
      paragraphs + "</div></form></body></html>";
  story_text(whole_page_form);

  const std::string text = story_text(
      story_page("<form class='box'><p><label>Email</label> <input name='e'></p><p><input name='p' "
                 "type='password'></p><button>Sign in to comment</button></form>"));
  CHECK_FALSE(has(text, "Sign in"));
  CHECK_FALSE(has(text, "Email"));
}

TEST_CASE("A line of links in a division of its own is not the body", "[article]") {
  const std::string text = story_text(
      story_page("<div>See also: <a href='/budget'>Council budget</a> <a href='/history'>Library "
                 "history</a> <a href='/hours'>Opening hours</a></div>"));
  CHECK_FALSE(has(text, "See also"));
}

TEST_CASE("A heading in a division of its own stays in the body", "[article]") {
  const std::string text =
      story_text(story_page("<div class='section'><div id='staff'><h2>Who pays for it</h2></div>"
                            "</div>"));
  CHECK(has(text, "Who pays for it"));
}

TEST_CASE("Links within the page count less than links out of it", "[article]") {
  const std::string text = story_text(story_page(
      "<div><p>The figures are in the <a href='#note-1'>first note at the end of this page</a> "
      "and in <a href='#note-2'>the second note below it</a>, as the council published "
      "them.</p></div>"));
  CHECK(has(text, "The figures are in the first note"));
}

TEST_CASE("What surrounds an embedded video stays with it", "[article]") {
  const std::string text = story_text(story_page(
      "<div class='player'><iframe src='https://www.youtube.com/embed/abc123'></iframe><p><a "
      "href='/video/council'>Watch the council meeting in full</a></p></div>"));
  CHECK(has(text, "Watch the council meeting in full"));
}

TEST_CASE("A table of one column is laid out, not data, and its links are furniture", "[article]") {
  std::string rows;
  for (int i = 0; i < 12; ++i)
    rows += "<tr><td><a href='/n" + std::to_string(i) + "'>Other story number " +
            std::to_string(i) + "</a></td></tr>";
  const std::string text = story_text(story_page("<table>" + rows + "</table>"));
  CHECK_FALSE(has(text, "Other story number"));
}

TEST_CASE("Only the first byline element leaves the body, and none when metadata names one",
          "[article]") {
  auto named = extract_article(story_page("<p class='byline'>By Sam Writer</p>",
                                          "<meta name='author' content='Sam Writer'>"));
  REQUIRE(named);
  CHECK(named->byline == "Sam Writer");
  CHECK(has(named->text(), "By Sam Writer"));

  auto found = extract_article(story_page(
      "<span class='author'>Sam Writer</span><div class='author-note'>Sam Writer covers the "
      "town hall.</div>"));
  REQUIRE(found);
  CHECK(found->byline == "Sam Writer");
  CHECK_FALSE(has(found->text(), "Sam Writer\n"));
  CHECK(has(found->text(), "Sam Writer covers the town hall."));
}

}  // namespace
}  // namespace feeddiff
