// An item whose content changes by megabytes: its word diff stops at kMaxWordDiffBytes of
// changed text on each side, and every page that shows word diffs says how much it did not
// compare.
#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/diff.h"
#include "feeddiff/render.h"

using namespace feeddiff;

namespace {

Feed feed_with_content(const std::string& content) {
  Feed feed;
  feed.format = "rss2.0";
  Item item;
  item.id = "urn:big";
  item.title = "Big";
  item.content = content;
  feed.items.push_back(std::move(item));
  return feed;
}

// `n` words "<stem>1000000 " and so on, in paragraphs of 100.
std::string article(const std::string& stem, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 100 == 0) out += i ? "</p><p>" : "<p>";
    out += stem + std::to_string(1'000'000 + i) + " ";
  }
  return out + "</p>";
}

}  // namespace

TEST_CASE(
    "an item whose content differs by megabytes is word-diffed up to the bound, and every "
    "page says what was not compared",
    "[render]") {
  // 3.4 MB of words before, 2.8 MB after: no word in common but the frame.
  const Feed old_feed = feed_with_content("<p>Intro.</p>" + article("was", 300'000));
  const Feed new_feed = feed_with_content("<p>Intro.</p>" + article("now", 250'000));
  ChangeView view;
  view.commit_id = std::string(40, 'b');
  view.title = "s: changed (1 bytes, HTTP 200)";
  view.diff_label = "raw";
  view.items = diff_items(old_feed, new_feed);
  REQUIRE(view.items->items.size() == 1);
  const ItemChange& item = view.items->items[0];
  REQUIRE(item.changes.size() == 1);
  const WordExcerpt& words = item.changes[0].words;
  CHECK(item.changes[0].field == "content");
  // Readable text: ~3.3 MB and ~2.8 MB; at most 1 MiB of each was compared.
  CHECK(words.not_compared_chars > 6'100'000 - 2 * kMaxWordDiffBytes - 100'000);
  CHECK(words.not_compared_chars < 6'100'000 - 2 * kMaxWordDiffBytes + 100'000);
  const std::string count = [&] {
    std::string digits = std::to_string(words.not_compared_chars), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  }();
  const std::string note = "the word diff stops after 1 MiB of changed text: " + count +
                           " more characters of the two versions not compared";
  const RenderOptions options;
  CHECK(render_text(view, options).find(note) != std::string::npos);
  CHECK(render_markdown(view, options).find(note) != std::string::npos);
  CHECK(render_html(view, options).find(note) != std::string::npos);
  CHECK(render_json(view, options)
            .find("\"not_compared_chars\": " + std::to_string(words.not_compared_chars)) !=
        std::string::npos);
}
