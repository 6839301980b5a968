// Item-level diff: unit cases, and every consecutive pair of the corpus feed histories
// checked against a guid scan made here, independently of normalize.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "diff/item_helpers.h"
#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"
#include "support/process.h"

namespace feeddiff {
using namespace test;
namespace {

Feed feed(std::vector<Item> items, std::vector<Field> channel = {}) {
  Feed f;
  f.format = "rss2.0";
  f.items = std::move(items);
  f.channel = std::move(channel);
  return f;
}

const ItemChange* find(const ItemDiff& d, const std::string& id) {
  for (const ItemChange& c : d.items)
    if (c.id == id) return &c;
  return nullptr;
}

// The identities of a raw RSS text, by a scan that shares nothing with normalize: each
// <item> block's <guid>, else its <link>, CDATA and the five XML entities undone. A
// multiset: an identity the feed repeats counts as often as it appears.
std::multiset<std::string> scan_ids(const std::string& xml) {
  auto element = [](std::string_view block, std::string_view open_prefix,
                    std::string_view close) -> std::optional<std::string> {
    const std::size_t open = block.find(open_prefix);
    if (open == std::string_view::npos) return std::nullopt;
    const std::size_t gt = block.find('>', open);
    const std::size_t end = block.find(close, gt);
    if (gt == std::string_view::npos || end == std::string_view::npos) return std::nullopt;
    return std::string(block.substr(gt + 1, end - gt - 1));
  };
  std::multiset<std::string> ids;
  std::size_t pos = 0;
  while ((pos = xml.find("<item>", pos)) != std::string::npos) {
    const std::size_t end = xml.find("</item>", pos);
    if (end == std::string::npos) break;
    const std::string_view block = std::string_view(xml).substr(pos, end - pos);
    pos = end;
    std::string id = element(block, "<guid", "</guid>")
                         .value_or(element(block, "<link>", "</link>").value_or(""));
    if (id.starts_with("<![CDATA[") && id.ends_with("]]>")) id = id.substr(9, id.size() - 12);
    for (auto [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                            {"&gt;", ">"},
                            {"&quot;", "\""},
                            {"&apos;", "'"},
                            {"&amp;", "&"}}) {
      std::size_t p = 0;
      while ((p = id.find(from, p)) != std::string::npos) {
        id.replace(p, from.size(), to);
        p += to.size();
      }
    }
    const auto b = id.find_first_not_of(" \t\r\n"), e = id.find_last_not_of(" \t\r\n");
    ids.insert(b == std::string::npos ? std::string() : id.substr(b, e - b + 1));
  }
  return ids;
}

std::vector<std::string> versions(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".xml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("item diff reports added, removed and changed items with their fields", "[diff]") {
  Item changed_old = item("b", "Old title");
  Item changed_new = item("b", "New title");
  changed_new.categories = {"x"};
  const ItemDiff d = diff_items(feed({item("a"), changed_old, item("gone")}),
                                feed({item("new"), item("a"), changed_new}));
  REQUIRE(d.items.size() == 3);
  CHECK(d.items[0].kind == ItemChange::Kind::added);
  CHECK(d.items[0].id == "new");
  CHECK(d.items[1].kind == ItemChange::Kind::changed);
  CHECK(d.items[1].title == "New title");
  CHECK(d.items[1].fields == std::vector<std::string>{"title", "categories"});
  CHECK_FALSE(d.items[1].moved);
  CHECK(d.items[2].kind == ItemChange::Kind::removed);
  CHECK(d.items[2].id == "gone");
  CHECK_FALSE(d.cosmetic_only);
}

TEST_CASE("item diff reports an item whose order changed as moved, not a shifted one", "[diff]") {
  const ItemDiff d = diff_items(feed({item("a"), item("b"), item("c"), item("d")}),
                                feed({item("x"), item("a"), item("c"), item("b"), item("d")}));
  std::size_t moved = 0;
  for (const ItemChange& c : d.items)
    if (c.kind == ItemChange::Kind::moved) ++moved;
  CHECK(moved == 1);
  REQUIRE(find(d, "x") != nullptr);
  CHECK(find(d, "x")->kind == ItemChange::Kind::added);
  CHECK(find(d, "a") == nullptr);
  CHECK(find(d, "d") == nullptr);
}

TEST_CASE("item diff compares extra fields and enclosures", "[diff]") {
  Item a = item("a"), b = item("a");
  a.extra = {Field{"itunes:duration", "10:00", false}};
  b.extra = {Field{"itunes:duration", "11:00", false}};
  b.enclosures = {Enclosure{"http://x/1.mp3", "audio/mpeg", "1"}};
  const ItemDiff d = diff_items(feed({a}), feed({b}));
  REQUIRE(d.items.size() == 1);
  CHECK(d.items[0].fields == std::vector<std::string>{"enclosures", "itunes:duration"});
}

TEST_CASE("a change in volatile channel fields alone is cosmetic", "[diff]") {
  const Feed a = feed({item("a")}, {Field{"title", "T", false}, Field{"lastBuildDate", "1", true}});
  const Feed b = feed({item("a")}, {Field{"title", "T", false}, Field{"lastBuildDate", "2", true}});
  const ItemDiff d = diff_items(a, b);
  CHECK(d.items.empty());
  CHECK(d.channel_fields == std::vector<std::string>{"lastBuildDate"});
  CHECK(d.cosmetic_only);

  const Feed c = feed({item("a")}, {Field{"title", "U", false}, Field{"lastBuildDate", "2", true}});
  CHECK_FALSE(diff_items(a, c).cosmetic_only);
  CHECK_FALSE(diff_items(a, a).cosmetic_only);
  CHECK(diff_items(a, a).empty());
}

TEST_CASE("ignored fields make a change cosmetic", "[diff]") {
  Item a = item("a"), b = item("a");
  a.updated = "1";
  b.updated = "2";
  const ItemDiff plain = diff_items(feed({a}), feed({b}));
  CHECK_FALSE(plain.cosmetic_only);
  REQUIRE(plain.items.size() == 1);
  const ItemDiff ignoring = diff_items(feed({a}), feed({b}), {"updated"});
  CHECK(ignoring.items.empty());
  CHECK(ignoring.cosmetic_only);
  CHECK_FALSE(ignoring.empty());
}

TEST_CASE("a repeated identity matches occurrence by occurrence", "[diff]") {
  const ItemDiff d = diff_items(feed({item("a", "1"), item("a", "2")}),
                                feed({item("a", "1"), item("a", "2"), item("a", "3")}));
  REQUIRE(d.items.size() == 1);
  CHECK(d.items[0].kind == ItemChange::Kind::duplicate);
  CHECK(d.items[0].title == "3");
}

TEST_CASE("an id repeated inside one version is a duplicate, not an added or removed item",
          "[diff]") {
  // New in this version, and at once twice: one added, one duplicate.
  const ItemDiff fresh = diff_items(feed({item("x")}), feed({item("x"), item("n"), item("n")}));
  REQUIRE(fresh.items.size() == 2);
  CHECK(fresh.items[0].kind == ItemChange::Kind::added);
  CHECK(fresh.items[0].new_index == 1);
  CHECK(fresh.items[1].kind == ItemChange::Kind::duplicate);
  CHECK(fresh.items[1].new_index == 2);
  CHECK_FALSE(fresh.minor);

  // The extra copy goes and the id stays: a duplicate that went, not a removed item.
  const ItemDiff went = diff_items(feed({item("d"), item("d")}), feed({item("d")}));
  REQUIRE(went.items.size() == 1);
  CHECK(went.items[0].kind == ItemChange::Kind::duplicate);
  CHECK(went.items[0].old_index == 1);
  CHECK(went.items[0].new_index == static_cast<std::size_t>(-1));

  // Both copies go: two removed items.
  const ItemDiff gone = diff_items(feed({item("d"), item("d")}), feed({}));
  REQUIRE(gone.items.size() == 2);
  CHECK(gone.items[0].kind == ItemChange::Kind::removed);
  CHECK(gone.items[1].kind == ItemChange::Kind::removed);
}

TEST_CASE("the k-th occurrence of an id is matched with its k-th, however many there are",
          "[diff]") {
  // 3,000 copies before, 3,002 after, the 1,000th edited: the edit is found at its place,
  // the two extra copies are duplicates, and nothing is added or removed.
  std::vector<Item> before, after;
  for (int i = 0; i < 3000; ++i) before.push_back(item("same", "copy " + std::to_string(i)));
  after = before;
  after[999].title = "edited";
  after.push_back(item("same", "extra 1"));
  after.push_back(item("same", "extra 2"));
  const ItemDiff d = diff_items(feed(before), feed(after));
  REQUIRE(d.items.size() == 3);
  CHECK(d.items[0].kind == ItemChange::Kind::changed);
  CHECK(d.items[0].old_index == 999);
  CHECK(d.items[0].new_index == 999);
  CHECK(d.items[1].kind == ItemChange::Kind::duplicate);
  CHECK(d.items[1].new_index == 3000);
  CHECK(d.items[2].kind == ItemChange::Kind::duplicate);
  CHECK(d.items[2].new_index == 3001);

  // The other way: the copies after the 2,000th go; they are duplicates that went.
  after.assign(before.begin(), before.begin() + 2000);
  const ItemDiff fewer = diff_items(feed(before), feed(after));
  REQUIRE(fewer.items.size() == 1000);
  CHECK(std::all_of(fewer.items.begin(), fewer.items.end(), [](const ItemChange& c) {
    return c.kind == ItemChange::Kind::duplicate && c.old_index >= 2000;
  }));
}

TEST_CASE("mark_reappeared turns an added item an earlier version held into reappeared", "[diff]") {
  ItemDiff d = diff_items(feed({item("b")}), feed({item("a"), item("b"), item("c")}));
  REQUIRE(d.items.size() == 2);
  CHECK(mark_reappeared(d, [](const std::string& id) { return id == "a"; }));
  CHECK(d.items[0].kind == ItemChange::Kind::reappeared);
  CHECK(d.items[1].kind == ItemChange::Kind::added);
  CHECK_FALSE(mark_reappeared(d, [](const std::string&) { return false; }));
  CHECK(std::string(item_kind_name(ItemChange::Kind::reappeared)) == "reappeared");
  CHECK(item_kind_from_name("duplicate") == ItemChange::Kind::duplicate);
  CHECK_FALSE(item_kind_from_name("bogus"));
}

TEST_CASE("insignificant rules mark a change minor, one rule at a time", "[diff]") {
  auto titled = [](std::string title, std::string updated = "2026-01-01") {
    Item it = item("i", std::move(title));
    it.updated = std::move(updated);
    it.summary = "<p>The quick brown fox jumps over the lazy dog.</p>";
    return it;
  };
  const Feed before = feed({titled("Hello world")});
  auto minor = [&](const Item& after, const Insignificant& rules) {
    const ItemDiff d = diff_items(before, feed({after}), {}, true, rules);
    REQUIRE(d.items.size() == 1);
    CHECK(d.items[0].minor == d.minor);
    return d.minor;
  };
  Insignificant whitespace;
  whitespace.whitespace = true;
  CHECK(minor(titled("  Hello \t world "), whitespace));
  CHECK_FALSE(minor(titled("Hello, world"), whitespace));

  Insignificant punctuation;
  punctuation.punctuation = true;
  CHECK(minor(titled("Hello, world!"), punctuation));
  CHECK(minor(titled("Hello  world"), punctuation));  // whitespace is no word either
  CHECK_FALSE(minor(titled("Hello world2"), punctuation));

  Insignificant fields;
  fields.fields = {"updated"};
  CHECK(minor(titled("Hello world", "2026-02-02"), fields));
  CHECK_FALSE(minor(titled("Hello there", "2026-02-02"), fields));

  Insignificant words;
  words.min_words = 3;
  Item two_words = titled("Hello there");  // one word out, one in: 2 changed
  CHECK(minor(two_words, words));
  Item more = titled("Hello there");
  more.summary = "<p>The quick red fox jumps over the lazy dog.</p>";  // 2 more
  CHECK_FALSE(minor(more, words));

  // Without rules, nothing is minor; an added item never is.
  CHECK_FALSE(minor(titled("Hello, world!"), Insignificant{}));
  const ItemDiff added =
      diff_items(before, feed({titled("Hello world"), item("new")}), {}, true, punctuation);
  CHECK_FALSE(added.minor);

  // A channel field a rule covers is minor too; one it does not is not.
  Insignificant channel;
  channel.fields = {"description"};
  const ItemDiff d =
      diff_items(feed({titled("Hello world")}, {{"description", "a"}}),
                 feed({titled("Hello world")}, {{"description", "b"}}), {}, true, channel);
  CHECK(d.minor);
  CHECK_FALSE(d.cosmetic_only);
  const ItemDiff t = diff_items(feed({titled("Hello world")}, {{"title", "a"}}),
                                feed({titled("Hello world")}, {{"title", "b"}}), {}, true, channel);
  CHECK_FALSE(t.minor);
}

TEST_CASE("item diff of every consecutive pair of the corpus histories matches a guid scan",
          "[diff]") {
  const std::string root = test::corpus_path("");
  std::size_t pairs = 0, additions = 0, removals = 0;
  for (const auto& e : std::filesystem::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || !name.starts_with("history-")) continue;
    const std::vector<std::string> files = versions(e.path().string());
    std::string old_raw;
    std::optional<Document> old_doc;
    for (const std::string& file : files) {
      std::string raw = test::slurp(file);
      Result<Document> doc = normalize(raw);
      if (!doc) {
        FAIL_CHECK(file << ": " << doc.error().message);
        old_doc.reset();
        continue;
      }
      if (old_doc) {
        INFO(file);
        const ItemDiff d = diff_items(old_doc->feed, doc->feed);
        std::multiset<std::string> added, removed;
        // A duplicate that appeared or went counts as the scan's multisets count it.
        const std::size_t none = static_cast<std::size_t>(-1);
        for (const ItemChange& c : d.items) {
          const bool duplicate = c.kind == ItemChange::Kind::duplicate;
          if (c.kind == ItemChange::Kind::added || (duplicate && c.new_index != none))
            added.insert(c.id);
          if (c.kind == ItemChange::Kind::removed || (duplicate && c.new_index == none))
            removed.insert(c.id);
        }
        const std::multiset<std::string> before = scan_ids(old_raw), after = scan_ids(raw);
        std::multiset<std::string> want_added, want_removed;
        std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                            std::inserter(want_added, want_added.end()));
        std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                            std::inserter(want_removed, want_removed.end()));
        if (added != want_added || removed != want_removed)
          FAIL_CHECK("added " << added.size() << " (scan: " << want_added.size() << "), removed "
                              << removed.size() << " (scan: " << want_removed.size() << ")");
        ++pairs;
        additions += want_added.size();
        removals += want_removed.size();
      }
      old_raw = std::move(raw);
      old_doc = std::move(doc).value();
    }
  }
  INFO(pairs << " pairs, " << additions << " additions, " << removals << " removals");
  CHECK(pairs > 1200);
  CHECK(additions > 0);
  CHECK(removals > 0);
}

TEST_CASE("ollama versions that changed only lastBuildDate are cosmetic, the others not",
          "[diff]") {
  auto without_build_date = [](std::string s) {
    const std::size_t a = s.find("<lastBuildDate>"), b = s.find("</lastBuildDate>");
    if (a != std::string::npos && b != std::string::npos && a < b) s.erase(a, b - a);
    return s;
  };
  const std::vector<std::string> files = versions(test::corpus_path("history-olshansk-ollama-raw"));
  std::size_t cosmetic = 0, real = 0;
  std::string old_raw;
  std::optional<Document> old_doc;
  for (const std::string& file : files) {
    std::string raw = test::slurp(file);
    Result<Document> doc = normalize(raw);
    REQUIRE(doc.ok());
    if (old_doc && raw != old_raw) {
      INFO(file);
      const bool only_date = without_build_date(raw) == without_build_date(old_raw);
      const ItemDiff d = diff_items(old_doc->feed, doc->feed);
      CHECK(d.cosmetic_only == only_date);
      if (only_date) {
        CHECK(d.items.empty());
        CHECK(d.channel_fields == std::vector<std::string>{"lastBuildDate"});
        ++cosmetic;
      } else {
        ++real;
      }
    }
    old_raw = std::move(raw);
    old_doc = std::move(doc).value();
  }
  CHECK(cosmetic > 400);
  CHECK(real >= 5);
}

}  // namespace feeddiff

namespace feeddiff {

TEST_CASE("a changed item carries each changed field before and after", "[diff]") {
  Item a = item("a", "Old title"), b = item("a", "New title");
  a.authors = {"Ann", "Bob"};
  b.authors = {"Ann"};
  a.enclosures = {Enclosure{"http://x/1.mp3", "audio/mpeg", "100"}};
  b.enclosures = {Enclosure{"http://x/2.mp3", "", "200"}};
  a.extra = {Field{"itunes:duration", "10:00", false}};
  b.extra = {Field{"itunes:duration", "11:00", false}};
  a.content = "<p>The model was trained on <b>12</b> GPUs.</p><script>var x = 1;</script>";
  b.content = "<p>The model was trained on <b>16</b> GPUs.</p><script>var x = 2;</script>";
  a.summary = "<p>Same <i>text</i></p>";
  b.summary = "<p>Same text</p>";
  b.updated = std::string(400, 'x');
  const ItemDiff d = diff_items(feed({a}), feed({b}));
  REQUIRE(d.items.size() == 1);
  const ItemChange& ch = d.items[0];
  REQUIRE(ch.changes.size() == ch.fields.size());
  auto change = [&ch](const std::string& field) {
    for (const FieldChange& c : ch.changes)
      if (c.field == field) return c;
    FAIL("no change of " << field);
    return FieldChange{};
  };
  const FieldChange title = change("title");
  CHECK_FALSE(title.text);
  CHECK(title.old_value == "Old title");
  CHECK(title.new_value == "New title");
  CHECK(change("authors").old_value == "Ann, Bob");
  CHECK(change("authors").new_value == "Ann");
  CHECK(change("enclosures").old_value == "http://x/1.mp3 (100 bytes, audio/mpeg)");
  CHECK(change("enclosures").new_value == "http://x/2.mp3 (200 bytes)");
  CHECK(change("itunes:duration").new_value == "11:00");
  const FieldChange updated = change("updated");
  CHECK(updated.cut);
  CHECK(updated.old_value.empty());
  CHECK(updated.new_value == std::string(kMaxFieldValueChars, 'x') + "…");

  // Long text: the words of what a reader sees (the script is no text of the page).
  const FieldChange content = change("content");
  CHECK(content.text);
  CHECK(content.old_value.empty());
  REQUIRE(content.words.runs.size() == 4);
  CHECK(content.words.runs[0].text == "The model was trained on ");
  CHECK(content.words.runs[1].kind == WordRun::Kind::removed);
  CHECK(content.words.runs[1].text == "12");
  CHECK(content.words.runs[2].kind == WordRun::Kind::added);
  CHECK(content.words.runs[2].text == "16");
  CHECK(content.words.runs[3].text == " GPUs.");
  // Markup alone changed: no words to show.
  CHECK(change("summary").words.runs.empty());
}

}  // namespace feeddiff
