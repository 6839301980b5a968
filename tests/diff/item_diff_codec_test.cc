// The cache format of item summaries: what encode writes, decode reads back exactly, and
// anything else reads as nothing.
#include <catch2/catch.hpp>

#include "feeddiff/diff.h"

using namespace feeddiff;

namespace {

ItemDiff sample() {
  ItemDiff d;
  d.channel_fields = {"lastBuildDate", "title\twith a tab"};
  d.ignored_changes = true;
  ItemChange added;
  added.kind = ItemChange::Kind::added;
  added.id = "https://example.org/a?x=1&y=\\2";
  added.title = "Line one\nline two\t\\ end";
  added.new_index = 0;
  ItemChange changed;
  changed.kind = ItemChange::Kind::changed;
  changed.id = "urn:b";
  changed.title = "";
  changed.fields = {"title", "summary", "media:content"};
  FieldChange title;
  title.field = "title";
  title.old_value = "Old\ttitle\\";
  title.new_value = "New\ntitle";
  FieldChange summary;
  summary.field = "summary";
  summary.text = true;
  summary.words.runs = {{WordRun::Kind::kept, "the\tfirst ", 120},
                        {WordRun::Kind::removed, "old", 0},
                        {WordRun::Kind::added, "new\\", 0}};
  summary.words.skipped_after = 7;
  summary.words.held_back_changes = 2;
  summary.words.held_back_chars = 30;
  summary.words.not_compared_chars = 2'000'000;
  FieldChange media;
  media.field = "media:content";
  media.old_value = "";
  media.new_value = "url=\"x\"";
  media.cut = true;
  changed.changes = {title, summary, media};
  changed.moved = true;
  changed.old_index = 7;
  changed.new_index = 2;
  ItemChange removed;
  removed.kind = ItemChange::Kind::removed;
  removed.id = "urn:c";
  removed.title = "Gone";
  removed.old_index = 9;
  ItemChange back;
  back.kind = ItemChange::Kind::reappeared;
  back.id = "urn:d";
  back.new_index = 3;
  ItemChange twice;
  twice.kind = ItemChange::Kind::duplicate;
  twice.id = "urn:b";
  twice.new_index = 4;
  ItemChange minor = changed;
  minor.id = "urn:e";
  minor.minor = true;
  minor.moved = false;
  minor.changes = {title};
  minor.fields = {"title"};
  d.items = {added, changed, removed, back, twice, minor};
  return d;
}

void check_equal(const ItemDiff& a, const ItemDiff& b) {
  CHECK(a.channel_fields == b.channel_fields);
  CHECK(a.cosmetic_only == b.cosmetic_only);
  CHECK(a.ignored_changes == b.ignored_changes);
  CHECK(a.minor == b.minor);
  REQUIRE(a.items.size() == b.items.size());
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    CHECK(a.items[i].kind == b.items[i].kind);
    CHECK(a.items[i].id == b.items[i].id);
    CHECK(a.items[i].title == b.items[i].title);
    CHECK(a.items[i].fields == b.items[i].fields);
    CHECK(a.items[i].moved == b.items[i].moved);
    CHECK(a.items[i].minor == b.items[i].minor);
    CHECK(a.items[i].old_index == b.items[i].old_index);
    CHECK(a.items[i].new_index == b.items[i].new_index);
    REQUIRE(a.items[i].changes.size() == b.items[i].changes.size());
    for (std::size_t k = 0; k < a.items[i].changes.size(); ++k) {
      const FieldChange& x = a.items[i].changes[k];
      const FieldChange& y = b.items[i].changes[k];
      CHECK(x.field == y.field);
      CHECK(x.text == y.text);
      CHECK(x.old_value == y.old_value);
      CHECK(x.new_value == y.new_value);
      CHECK(x.cut == y.cut);
      CHECK(x.words.skipped_after == y.words.skipped_after);
      CHECK(x.words.held_back_changes == y.words.held_back_changes);
      CHECK(x.words.held_back_chars == y.words.held_back_chars);
      CHECK(x.words.not_compared_chars == y.words.not_compared_chars);
      REQUIRE(x.words.runs.size() == y.words.runs.size());
      for (std::size_t r = 0; r < x.words.runs.size(); ++r) {
        CHECK(x.words.runs[r].kind == y.words.runs[r].kind);
        CHECK(x.words.runs[r].text == y.words.runs[r].text);
        CHECK(x.words.runs[r].skipped == y.words.runs[r].skipped);
      }
    }
  }
}

}  // namespace

TEST_CASE("an item summary reads back exactly, tabs, newlines and backslashes included", "[diff]") {
  const ItemDiff d = sample();
  const std::string text = encode_item_diff(d);
  // One record a line: the newline and tab inside fields are escaped.
  CHECK(std::count(text.begin(), text.end(), '\n') == 1 + 1 + 2 + 6 + 3 + 1 + 1);
  auto back = decode_item_diff(text);
  REQUIRE(back);
  check_equal(*back, d);

  ItemDiff minor;
  minor.minor = true;
  minor.channel_fields = {"description"};
  auto back3 = decode_item_diff(encode_item_diff(minor));
  REQUIRE(back3);
  check_equal(*back3, minor);

  ItemDiff cosmetic;
  cosmetic.cosmetic_only = true;
  cosmetic.channel_fields = {"lastBuildDate"};
  auto back2 = decode_item_diff(encode_item_diff(cosmetic));
  REQUIRE(back2);
  check_equal(*back2, cosmetic);
}

TEST_CASE("a summary cut short, of another version or garbled reads as nothing", "[diff]") {
  const std::string text = encode_item_diff(sample());
  CHECK_FALSE(decode_item_diff(""));
  CHECK_FALSE(decode_item_diff(text.substr(0, text.size() - 1)));    // no final newline
  CHECK_FALSE(decode_item_diff(text.substr(0, text.rfind("end"))));  // no end line
  CHECK_FALSE(decode_item_diff(text.substr(0, text.size() / 2)));
  std::string other = text;
  other.replace(other.find(" 5\n"), 3, " 9\n");  // another format version
  CHECK_FALSE(decode_item_diff(other));
  std::string bad_kind = text;
  bad_kind.replace(bad_kind.find("\tadded\t"), 7, "\tbogus\t");
  CHECK_FALSE(decode_item_diff(bad_kind));
  std::string bad_escape = text;
  bad_escape.replace(bad_escape.find("\\n"), 2, "\\q");
  CHECK_FALSE(decode_item_diff(bad_escape));
  CHECK_FALSE(decode_item_diff(text + "item\tadded\n"));  // after the end line
}

TEST_CASE("a summary cached by the first format, without before and after values, reads as nothing",
          "[diff]") {
  // What feeddiff wrote before fields had values: read, it would show a changed item with no
  // before and after, so it is recomputed instead.
  CHECK_FALSE(decode_item_diff(
      "feeddiff item-diff 1\nflags\t0\t0\nitem\tchanged\t0\t1\t1\turn:a\tA\ttitle\nend\n"));
  // Format 2 knew no duplicates (it called them added) and no minor flag: recomputed too.
  CHECK_FALSE(
      decode_item_diff("feeddiff item-diff 2\nflags\t0\t0\nitem\tadded\t0\t-\t1\turn:a\tA\nend\n"));
  // Format 3 could not say that a word diff stopped short (not_compared_chars): recomputed.
  CHECK_FALSE(decode_item_diff(
      "feeddiff item-diff 3\nflags\t0\t0\t0\nitem\tchanged\t0\t0\t0\t0\turn:a\tA\tsummary\n"
      "change\tsummary\t1\t0\t\t\t0\t0\t0\tadded\t0\tx\nend\n"));
  // Format 4 knew no aged-out removals (it called them removed): recomputed.
  CHECK_FALSE(decode_item_diff(
      "feeddiff item-diff 4\nflags\t0\t0\t0\nitem\tremoved\t0\t0\t0\t-\turn:a\tA\nend\n"));
  const std::string text = encode_item_diff(sample());
  std::string orphan = text;  // a change line with no item before it
  orphan.insert(orphan.find("item\t"), "change\ttitle\t0\t0\ta\tb\t0\t0\t0\t0\n");
  CHECK_FALSE(decode_item_diff(orphan));
  std::string bad_run = text;
  bad_run.replace(bad_run.find("\tremoved\t"), 9, "\tchanged\t");
  CHECK_FALSE(decode_item_diff(bad_run));
  std::string short_run = text;  // a run without its text
  const std::string last_run = "\tadded\t0\tnew\\\\\n";
  REQUIRE(short_run.find(last_run) != std::string::npos);
  short_run.replace(short_run.find(last_run), last_run.size(), "\tadded\t0\n");
  CHECK_FALSE(decode_item_diff(short_run));
}

TEST_CASE("the cache name of a summary changes with either blob and with the ignored fields",
          "[diff]") {
  const std::string a(40, 'a'), b(40, 'b');
  const std::string name = item_diff_cache_name(a, b, {});
  CHECK(name.starts_with("items/" + a + "-" + b + "-"));
  CHECK(name == item_diff_cache_name(a, b, {}));
  CHECK(name != item_diff_cache_name(b, a, {}));
  CHECK(name != item_diff_cache_name(a, b, {"updated"}));
  CHECK(item_diff_cache_name(a, b, {"ab", "c"}) != item_diff_cache_name(a, b, {"a", "bc"}));
  Insignificant rules;
  CHECK(item_diff_cache_name(a, b, {}, rules) == name);  // no rule: the same name
  rules.punctuation = true;
  CHECK(item_diff_cache_name(a, b, {}, rules) != name);
  Insignificant words;
  words.min_words = 3;
  CHECK(item_diff_cache_name(a, b, {}, words) != item_diff_cache_name(a, b, {}, rules));
  CHECK(item_diff_cache_name("", b, {}).starts_with("items/none-" + b + "-"));
  // Only characters Archive::cache_write accepts.
  for (char c : item_diff_cache_name("", b, {"x"}))
    CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '/'));
}
