// What the commands look up before they show, and what `diff` and `log` are handed, called
// as a library: a feed at a commit, the change a word names, an item by id, link or title,
// two versions compared, and the item changes `log --items` lists.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

std::string linked_feed(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n";
  for (const auto& [id, title] : items)
    out += "<item><guid>" + id + "</guid><title>" + title + "</title><link>https://example.org/" +
           id + "</link></item>\n";
  return out + "</channel></rss>\n";
}

}  // namespace

TEST_CASE("feed_input_at reads a source's body at a commit, whichever commit changed it",
          "[changes]") {
  RecordedArchive recorded("changes-feed-input", {"blog", "other"});
  const std::string first = recorded.record("blog", linked_feed({{"a", "A"}}));
  recorded.record("other", linked_feed({{"x", "X"}}));
  const Archive archive = recorded.open();

  auto at_head = feed_input_at(archive, "HEAD", "blog");
  REQUIRE(at_head);
  CHECK(at_head->bytes == linked_feed({{"a", "A"}}));
  CHECK(at_head->source == "blog");
  CHECK(at_head->label.ends_with(":raw/blog/response.xml"));

  // Without a source: the one the commit recorded.
  auto own = feed_input_at(archive, first, "");
  REQUIRE(own);
  CHECK(own->source == "blog");

  auto missing = feed_input_at(archive, first, "other");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);
  auto unknown = feed_input_at(archive, "no-such-revision", "blog");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == Errc::not_found);
}

TEST_CASE("resolve_show_word takes a revision, else a source with a history, else refuses",
          "[changes]") {
  RecordedArchive recorded("changes-show-word", {"blog"});
  const std::string id = recorded.record("blog", linked_feed({{"a", "A"}}));
  const Archive archive = recorded.open();

  auto revision = resolve_show_word(archive, id.substr(0, 12));
  REQUIRE(revision);
  CHECK(revision->revision == id.substr(0, 12));
  CHECK(revision->source.empty());

  // "blog" is configured in feeddiff.toml and resolves as no revision: its latest change.
  auto source = resolve_show_word(archive, "blog");
  REQUIRE(source);
  CHECK(source->revision == "HEAD");
  CHECK(source->source == "blog");

  auto neither = resolve_show_word(archive, "nothing-by-that-name");
  REQUIRE_FALSE(neither);
  CHECK(neither.error().code == Errc::not_found);

  auto latest = source_change_at_or_before(archive, "HEAD", "blog");
  REQUIRE(latest);
  CHECK(*latest == id);
}

TEST_CASE("find_item names an item by id, link or one title, and refuses an ambiguous title",
          "[changes]") {
  RecordedArchive recorded("changes-find-item", {"blog"});
  recorded.record("blog", linked_feed({{"a", "GPT-4"}, {"b", "GPT-4 research"}, {"c", "Other"}}));
  const Archive archive = recorded.open();
  auto history = read_source_history(archive, "blog");
  REQUIRE(history);

  auto by_id = find_item(archive, *history, "blog", "c");
  REQUIRE(by_id);
  CHECK((*by_id)->id == "c");
  auto by_link = find_item(archive, *history, "blog", "https://example.org/b");
  REQUIRE(by_link);
  CHECK((*by_link)->id == "b");
  auto whole_title = find_item(archive, *history, "blog", "gpt-4");
  REQUIRE(whole_title);
  CHECK((*whole_title)->id == "a");
  auto ambiguous = find_item(archive, *history, "blog", "GPT");
  REQUIRE_FALSE(ambiguous);
  CHECK(ambiguous.error().code == Errc::usage);
  auto none = find_item(archive, *history, "blog", "\x1b[31mnothing");
  REQUIRE_FALSE(none);
  CHECK(none.error().code == Errc::not_found);
  CHECK(none.error().message.find('\x1b') == std::string::npos);  // escaped for a terminal
}

TEST_CASE("compare_source diffs a source between two commits and labels a missing side",
          "[changes]") {
  RecordedArchive recorded("changes-compare", {"blog", "other"});
  const std::string before = recorded.record("other", linked_feed({{"x", "X"}}));
  recorded.record("blog", linked_feed({{"a", "A"}}));
  const std::string after = recorded.record("blog", linked_feed({{"a", "A"}, {"b", "B"}}));
  const Archive archive = recorded.open();
  auto a = archive.resolve(before);
  auto b = archive.resolve(after);
  REQUIRE(a);
  REQUIRE(b);

  auto change = compare_source(archive, *a, *b, "blog", false);
  REQUIRE(change);
  const ChangeView& v = (*change)->view;
  CHECK(v.title == a->short_id() + ":(no blog) -> " + b->short_id() + ":raw/blog/response.xml");
  CHECK(v.path_status == "compared");
  CHECK_FALSE(v.diff.empty());
  CHECK((*change)->commit.id == after);  // B's fields: the source's change at B

  auto nowhere = compare_source(archive, *a, *a, "blog", false);
  REQUIRE_FALSE(nowhere);
  CHECK(nowhere.error().code == Errc::not_found);

  // Two files: no archive, no fields, the same diff.
  FeedInput x{linked_feed({{"a", "A"}}), "x.xml", "", ""};
  FeedInput y{linked_feed({{"a", "A"}, {"b", "B"}}), "y.xml", "", ""};
  auto files = compare_inputs(nullptr, x, y, false);
  REQUIRE(files);
  CHECK((*files)->view.title == "x.xml -> y.xml");
  CHECK((*files)->view.source == "-");
  REQUIRE((*files)->view.items);
  CHECK((*files)->view.items->items.size() == 1);
}

TEST_CASE("item_log lists item changes newest first, one source's or every source's, to a limit",
          "[changes]") {
  RecordedArchive recorded("changes-item-log", {"blog", "other"});
  recorded.record("blog", linked_feed({{"a", "A"}}));
  recorded.record("blog", linked_feed({{"a", "A"}, {"b", "B"}}));
  recorded.record("other", linked_feed({{"x", "X"}}));
  recorded.record("other", linked_feed({{"x", "X2"}}));
  const Archive archive = recorded.open();

  auto blog = item_log(archive, "blog", 0);
  REQUIRE(blog);
  // The first version's items are listed as added too.
  REQUIRE(blog->size() == 2);
  CHECK(blog->front().word == "added");
  CHECK(blog->front().title == "B");
  CHECK(blog->front().source == "blog");
  CHECK(blog->back().title == "A");

  auto every = item_log(archive, "", 0);
  REQUIRE(every);
  REQUIRE(every->size() == 4);
  CHECK(every->front().source == "other");  // newest first
  CHECK(every->front().word == "changed");
  CHECK(every->front().title == "X2");
  CHECK(every->back().source == "blog");

  auto one = item_log(archive, "", 1);
  REQUIRE(one);
  CHECK(one->size() == 1);

  auto commits = change_log(archive, "blog", 0);
  REQUIRE(commits);
  CHECK(commits->size() == 2);
  const auto entries = log_entries(archive, *commits, true);
  REQUIRE(entries.size() == 2);
  CHECK(entries.front().source == "blog");
  CHECK(observed_minute(commits->front()).size() == 16);
}

TEST_CASE("forge_file_url turns a forge's commit page into the page of a file at it", "[changes]") {
  CHECK(forge_file_url("https://github.com/me/feeds/commit/abc", "raw/news/response.xml") ==
        "https://github.com/me/feeds/blob/abc/raw/news/response.xml");
  CHECK(forge_file_url("https://gitlab.com/me/feeds/-/commit/abc", "raw/a") ==
        "https://gitlab.com/me/feeds/-/blob/abc/raw/a");
  CHECK(forge_file_url("https://codeberg.org/me/feeds/commit/abc", "raw/a") ==
        "https://codeberg.org/me/feeds/src/commit/abc/raw/a");
  CHECK_FALSE(forge_file_url("https://example.com/me/feeds", "raw/a"));
}
