// The search index called as a library: the query language and what it refuses, a phrase's
// span across versions, the filters, and the index against a walk of git after polls, a
// reset, a deleted file and a truncated one.

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/message.h"
#include "feeddiff/normalize.h"
#include "feeddiff/search.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

struct FakeItem {
  std::string id, title, description;
};

// The feed of these items; `built` goes in the channel, so that versions whose items are the
// same still differ (each is a commit).
std::string feed_of(const std::vector<FakeItem>& items, int built = 0) {
  std::string out = fmt::format(
      "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>"
      "<lastBuildDate>{}</lastBuildDate>\n",
      built);
  for (const auto& item : items)
    out +=
        fmt::format("<item><guid>{}</guid><title>{}</title><description>{}</description></item>\n",
                    item.id, item.title, item.description);
  return out + "</channel></rss>\n";
}

// What a walk of git says the index must hold: every source's versions read oldest first,
// each item's text followed from the version it appeared in to the one it was gone from.
std::vector<SearchIndexRow> walk_of_git(const Archive& archive,
                                        const std::vector<std::string>& sources) {
  std::vector<SearchIndexRow> rows;
  for (const std::string& source : sources) {
    auto ids = archive.source_commit_ids(source);
    REQUIRE(ids);
    std::reverse(ids->begin(), ids->end());
    struct Open {
      std::string text;
      SearchIndexRow row;
    };
    std::map<std::string, Open> open;
    std::string previous;
    for (const std::string& id : *ids) {
      auto body = archive.read(id, "raw/" + source + "/response.xml");
      REQUIRE(body);
      Feed feed;
      if (*body) {
        auto doc = normalize(**body);
        REQUIRE(doc);
        feed = std::move(doc->feed);
      }
      std::map<std::string, Open> next;
      for (const Item& item : feed.items) {
        const std::string text =
            item.title + '\0' + readable_text(item.summary) + '\0' + readable_text(item.content);
        auto it = open.find(item.id);
        if (it != open.end() && it->second.text == text) {
          it->second.row.last = id;
          next.emplace(item.id, std::move(it->second));
          open.erase(it);
          continue;
        }
        if (it != open.end()) {
          it->second.row.gone = id;
          rows.push_back(it->second.row);
          open.erase(it);
        }
        next.emplace(item.id, Open{text, {source, item.id, item.title, id, id, ""}});
      }
      for (auto& [key, left] : open) {
        left.row.gone = id;
        rows.push_back(left.row);
      }
      open = std::move(next);
    }
    for (auto& [key, left] : open) rows.push_back(left.row);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

void check_agrees(const RecordedArchive& recorded, const std::vector<std::string>& sources) {
  const Archive archive = recorded.open();
  auto rows = search_index_rows(archive);
  REQUIRE(rows);
  const auto want = walk_of_git(archive, sources);
  REQUIRE(!want.empty());
  CHECK(*rows == want);
}

SearchResult search_for(const Archive& archive, const std::string& text,
                        std::vector<std::string> sources = {}) {
  SearchQuery query;
  query.text = text;
  query.sources = std::move(sources);
  auto result = search_archive(archive, query);
  INFO(result.description());
  REQUIRE(result);
  return std::move(*result);
}

}  // namespace

TEST_CASE("search_expression quotes every word, and refuses what it cannot mean", "[search]") {
  auto ok = [](std::string_view q) {
    auto e = search_expression(q);
    INFO(q << ": " << e.description());
    REQUIRE(e);
    return *e;
  };
  CHECK(ok("open weights") == "\"open\" AND \"weights\"");
  CHECK(ok("\"open weights\"") == "\"open weights\"");
  CHECK(ok("wei*") == "\"wei\"*");
  CHECK(ok("\"open wei\"*") == "\"open wei\"*");
  CHECK(ok("a OR b NOT c") == "\"a\" OR \"b\" NOT \"c\"");
  CHECK(ok("(a OR b) AND c") == "(\"a\" OR \"b\") AND \"c\"");
  // FTS5's own syntax typed by a user is text: a column filter, NEAR, ^, + and quotes.
  CHECK(ok("title:x") == "\"title:x\"");
  CHECK(ok("NEAR a") == "\"NEAR\" AND \"a\"");
  CHECK(ok("^start +x") == "\"^start\" AND \"+x\"");
  CHECK(ok("a\"\"b") == "\"a\" AND \"\" AND \"b\"");
  CHECK(ok("or and not") == "\"or\" AND \"and\" AND \"not\"");

  auto refused = [](std::string_view q, std::string_view says) {
    auto e = search_expression(q);
    INFO(q);
    REQUIRE_FALSE(e);
    CHECK(e.error().code == Errc::usage);
    CHECK(e.error().message.find(says) != std::string::npos);
    CHECK(e.error().message.find('\n') == std::string::npos);
  };
  refused("\"a\" OR *", "'*' must end a word");
  refused("NEAR(", "'(' is never closed");
  refused("NEAR(a b", "'(' is never closed");
  refused("a)", "')' closes nothing");
  refused("\"unbalanced", "never ends");
  refused("", "empty");
  refused("   ", "empty");
  refused("a OR", "OR needs something on both sides");
  refused("NOT a", "NOT needs something on both sides");
  refused("a AND AND b", "AND needs something on both sides");
  refused("()", "'()' holds nothing");
  refused("*", "'*' must end a word");
  refused("a**b*", "'*' must end a word");
  refused(std::string(kMaxSearchQueryBytes + 1, 'a'), "at most 1024");
  refused(std::string(10 << 20, 'x'), "bytes; at most");
  std::string many;
  for (int i = 0; i < 70; ++i) many += "w ";
  refused(many, "more than 64");
}

TEST_CASE("a phrase that appeared in version 3 and was gone in version 7 is one hit with its span",
          "[search]") {
  RecordedArchive recorded("search-span", {"blog"});
  std::vector<std::string> commits;
  const FakeItem other{"other", "Other post", "nothing to see"};
  for (int v = 1; v <= 8; ++v) {
    // The phrase is in the summary from version 3 to 6; version 5 edits the text around
    // it (a new text, the phrase kept); version 7 edits the phrase out.
    std::string description = "the model ships";
    if (v >= 3 && v <= 6) description = "the open weights model ships";
    if (v == 5 || v == 6) description = "now: the open weights model ships today";
    // The leaving item: there with the phrase in versions 2 to 4, then gone from the feed.
    std::vector<FakeItem> items = {{"post", "Post", description}, other};
    if (v >= 2 && v <= 4) items.push_back({"leaving", "Leaving", "open weights, briefly"});
    commits.push_back(recorded.record("blog", feed_of(items, v)));
  }
  const Archive archive = recorded.open();
  const SearchResult result = search_for(archive, "\"open weights\"");
  CHECK(result.index.action == SearchIndexReport::Action::rebuilt);
  REQUIRE(result.hits.size() == 2);
  const SearchHit& post = result.hits[0];  // its matching text is the newest (version 5)
  CHECK(post.source == "blog");
  CHECK(post.item_id == "post");
  CHECK(post.title == "Post");
  CHECK(post.first.commit == commits[2]);
  CHECK(post.last.commit == commits[5]);
  CHECK(post.versions == 4);
  REQUIRE(post.gone);
  CHECK(post.gone->commit == commits[6]);
  CHECK(post.edited_out);
  CHECK(post.first.observed < post.last.observed);
  CHECK(post.last.observed < post.gone->observed);
  // The snippet is the newest matching text, the phrase marked.
  std::string marked;
  for (const SnippetRun& run : post.snippet) marked += run.match ? "[" + run.text + "]" : run.text;
  CHECK(marked == "now: the [open weights] model ships today");

  const SearchHit& leaving = result.hits[1];
  CHECK(leaving.item_id == "leaving");
  CHECK(leaving.first.commit == commits[1]);
  CHECK(leaving.last.commit == commits[3]);
  REQUIRE(leaving.gone);
  CHECK(leaving.gone->commit == commits[4]);
  CHECK_FALSE(leaving.edited_out);

  // An item still there says so; a prefix and a boolean query find what they should.
  const SearchResult still = search_for(archive, "see*");
  REQUIRE(still.hits.size() == 1);
  CHECK(still.hits[0].item_id == "other");
  CHECK_FALSE(still.hits[0].gone);
  CHECK(still.hits[0].last.commit == commits.back());
  CHECK(still.hits[0].versions == 8);
  CHECK(search_for(archive, "weights NOT briefly").hits.size() == 1);
  CHECK(search_for(archive, "briefly OR nothing").hits.size() == 2);
  CHECK(search_for(archive, "\"weights open\"").hits.empty());
  // The second search found the index up to date.
  CHECK(still.index.action == SearchIndexReport::Action::none);
}

TEST_CASE("search filters by source and by time, and limits the hits", "[search]") {
  RecordedArchive recorded("search-filters", {"alpha", "beta"});
  const std::string a1 = recorded.record("alpha", feed_of({{"a", "Apples", "fruit one"}}));
  recorded.record("beta", feed_of({{"b", "Bananas", "fruit two"}}));
  recorded.record("alpha", feed_of({{"c", "Cherries", "fruit three"}}));
  const Archive archive = recorded.open();
  CHECK(search_for(archive, "fruit").hits.size() == 3);
  CHECK(search_for(archive, "fruit", {"beta"}).hits.size() == 1);
  CHECK(search_for(archive, "fruit", {"alpha", "beta"}).hits.size() == 3);
  CHECK(search_for(archive, "bananas", {"alpha"}).hits.empty());

  SearchQuery query;
  query.text = "fruit";
  query.sources = {"gamma"};
  auto unknown = search_archive(archive, query);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == Errc::not_found);

  // Apples were gone from alpha's second version (00:30): since then, bananas and cherries;
  // until 00:15, apples alone.
  query.sources.clear();
  query.since = *parse_iso8601("2025-01-01T00:30:00Z");
  auto since = search_archive(archive, query);
  REQUIRE(since);
  REQUIRE(since->hits.size() == 2);
  CHECK(since->hits[0].title == "Cherries");
  CHECK(since->hits[1].title == "Bananas");
  query.since.reset();
  query.until = *parse_iso8601("2025-01-01T00:15:00Z");
  auto until = search_archive(archive, query);
  REQUIRE(until);
  REQUIRE(until->hits.size() == 1);
  CHECK(until->hits[0].title == "Apples");
  CHECK(until->hits[0].first.commit == a1);

  // Newest first, cut at the limit, and said to be cut.
  query.until.reset();
  query.limit = 1;
  auto limited = search_archive(archive, query);
  REQUIRE(limited);
  REQUIRE(limited->hits.size() == 1);
  CHECK(limited->hits[0].title == "Cherries");
  CHECK(limited->more);
}

TEST_CASE(
    "the index agrees with a walk of git after polls, a reset, a deleted and a truncated index",
    "[search]") {
  RecordedArchive recorded("search-agrees", {"alpha", "beta"});
  auto version = [&](const std::string& source, int v) {
    std::vector<FakeItem> items;
    for (int k = v; k > v - 4 && k >= 0; --k)
      items.push_back(
          {source + "-" + std::to_string(k),
           fmt::format("{} item {}{}", source, k, k == v - 1 && v % 3 == 0 ? " (edited)" : ""),
           fmt::format("&lt;p&gt;Text of {} number {}&lt;/p&gt;", source, k)});
    return feed_of(items);
  };
  int alpha = 0, beta = 0;
  for (int i = 0; i < 6; ++i) {
    recorded.record("alpha", version("alpha", alpha++));
    recorded.record("beta", version("beta", beta++));
  }
  const std::vector<std::string> sources = {"alpha", "beta"};
  check_agrees(recorded, sources);

  // Polls since: taken in, not rebuilt.
  for (int i = 0; i < 4; ++i) recorded.record("alpha", version("alpha", alpha++));
  {
    auto report = update_search_index(recorded.open());
    REQUIRE(report);
    CHECK(report->action == SearchIndexReport::Action::updated);
    CHECK(report->commits == 4);
    CHECK(report->note.empty());
  }
  check_agrees(recorded, sources);

  // git reset --hard HEAD~5: what followed is dropped (a rewind, not a rebuild).
  auto reset = run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", "HEAD~5"});
  REQUIRE(reset.exit_code == 0);
  {
    auto report = update_search_index(recorded.open());
    REQUIRE(report);
    CHECK(report->action == SearchIndexReport::Action::rewound);
    CHECK(report->commits == 0);
  }
  check_agrees(recorded, sources);
  // New versions after the reset, other texts than the dropped ones.
  alpha -= 3;
  recorded.record("alpha", version("alpha", alpha + 7));
  recorded.record("beta", version("beta", beta++));
  check_agrees(recorded, sources);

  // The last commit amended (a new id, as a sync's replay gives every local commit): the
  // index drops what the old one brought and reads the new one.
  auto amend = run({"git", "-C", recorded.dir(), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--amend", "-m", "beta: changed (amended)"});
  REQUIRE(amend.exit_code == 0);
  {
    auto report = update_search_index(recorded.open());
    REQUIRE(report);
    CHECK(report->action == SearchIndexReport::Action::rewound);
    CHECK(report->commits == 1);
  }
  check_agrees(recorded, sources);

  const std::string path = search_index_path(recorded.open());
  // Deleted: built again, and the line why.
  REQUIRE(std::filesystem::remove(path));
  {
    auto report = update_search_index(recorded.open());
    REQUIRE(report);
    CHECK(report->action == SearchIndexReport::Action::rebuilt);
    CHECK(report->note.find("missing") != std::string::npos);
  }
  check_agrees(recorded, sources);

  // Truncated: found, rebuilt, said.
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  {
    auto report = update_search_index(recorded.open());
    REQUIRE(report);
    CHECK(report->action == SearchIndexReport::Action::rebuilt);
    CHECK(report->note.find("unreadable") != std::string::npos);
  }
  check_agrees(recorded, sources);

  // Garbage in place of the file, and a file of another format.
  {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(8192, 'x');
    auto report = update_search_index(recorded.open());
    REQUIRE(report);
    CHECK(report->action == SearchIndexReport::Action::rebuilt);
    CHECK(report->note.find("not an SQLite file") != std::string::npos);
  }
  check_agrees(recorded, sources);
}

TEST_CASE("a commit forged with one source's poll title that rewrites another is indexed for both",
          "[search]") {
  RecordedArchive recorded("search-forged", {"alpha", "beta"});
  recorded.record("alpha", feed_of({{"a1", "Alpha one", "first"}}));
  recorded.record("beta", feed_of({{"b1", "Beta one", "first"}}));
  check_agrees(recorded, {"alpha", "beta"});
  // Titled and trailered as alpha's poll, by feeddiff's own identity, and rewriting beta.
  spit(recorded.dir() + "/raw/alpha/response.xml", feed_of({{"a1", "Alpha one", "second"}}, 1));
  spit(recorded.dir() + "/raw/beta/response.xml",
       feed_of({{"b1", "Beta one", "slipped in quietly"}}, 1));
  REQUIRE(run({"git", "-C", recorded.dir(), "add", "-A", "raw"}).exit_code == 0);
  REQUIRE(run({"git", "-C", recorded.dir(), "-c", "user.name=feeddiff", "-c",
               "user.email=feeddiff@localhost", "commit", "-q", "-m",
               "alpha: changed (99 bytes, HTTP 200)\n\nSource: alpha"})
              .exit_code == 0);
  check_agrees(recorded, {"alpha", "beta"});
  const Archive archive = recorded.open();
  const SearchResult found = search_for(archive, "\"slipped in quietly\"");
  REQUIRE(found.hits.size() == 1);
  CHECK(found.hits[0].source == "beta");
}

namespace {

// Commits an article version of item `id` of `source` as poll's article phase does
// (docs/articles.md): articles/SOURCE/HH/KEY/{page.html,article.txt}, Change-Class article
// (or article-uncertain), Item-Id and Article-URL.
std::string record_article(RecordedArchive& recorded, const std::string& source,
                           const std::string& id, const std::string& headline,
                           const std::string& body, bool uncertain = false) {
  const std::string key = sha1_hex(id).substr(0, 20);
  const std::string dir = "articles/" + source + "/" + key.substr(0, 2) + "/" + key + "/";
  ArticleFile file;
  file.title = headline;
  file.body = body + "\n";
  return recorded.record_files(
      source + ": article " + (uncertain ? "archived, extraction uncertain: " : "changed: ") +
          headline,
      "Source: " + source + "\nChange-Class: " + (uncertain ? "article-uncertain" : "article") +
          "\nArticle-URL: https://example.com/a/" + id + "\nItem-Id: " + id + "\n",
      {{dir + "page.html", "<html><body><p>" + body + "</p></body></html>"},
       {dir + "article.txt", format_article_file(file)}});
}

}  // namespace

TEST_CASE("search finds words of the articles behind items, each with its own versions",
          "[search]") {
  RecordedArchive recorded("search-articles", {"news"});
  recorded.record("news", feed_of({{"p1", "Bridge vote", "the council votes"}}));
  const std::string a1 = record_article(recorded, "news", "p1", "Bridge vote delayed",
                                        "The vote on the bridge is delayed to March.");
  recorded.record("news", feed_of({{"p1", "Bridge vote", "the council votes"}}, 2));
  // A paywall in between is no version of the text: the words are not gone.
  record_article(recorded, "news", "p1", "Subscribe", "Subscribe to read", true);
  const std::string a2 = record_article(recorded, "news", "p1", "Bridge vote delayed",
                                        "The vote on the bridge is delayed to April.");
  const Archive archive = recorded.open();

  const SearchResult march = search_for(archive, "march");
  REQUIRE(march.hits.size() == 1);
  const SearchHit& hit = march.hits[0];
  CHECK(hit.source == "news");
  CHECK(hit.item_id == "p1");
  CHECK(hit.title == "Bridge vote delayed");
  REQUIRE(hit.article_url);
  CHECK(*hit.article_url == "https://example.com/a/p1");
  CHECK(hit.first.commit == a1);
  CHECK(hit.last.commit == a1);
  CHECK(hit.versions == 1);
  REQUIRE(hit.gone);
  CHECK(hit.gone->commit == a2);
  CHECK(hit.edited_out);
  CHECK(search_text(march, false).find("gone     ") != std::string::npos);
  CHECK(search_text(march, false).find("the article's text changed") != std::string::npos);
  CHECK(search_text(march, false).find("  article  https://example.com/a/p1\n") !=
        std::string::npos);
  CHECK(search_json("march", march).find("\"url\": \"https://example.com/a/p1\"") !=
        std::string::npos);

  const SearchResult april = search_for(archive, "april", {"news"});
  REQUIRE(april.hits.size() == 1);
  CHECK(april.hits[0].first.commit == a2);
  CHECK_FALSE(april.hits[0].gone);
  CHECK(search_for(archive, "subscribe").hits.empty());

  // A word in both the item and its article: a hit for each.
  const SearchResult bridge = search_for(archive, "bridge");
  REQUIRE(bridge.hits.size() == 2);
  CHECK(bridge.hits[0].article_url.has_value() != bridge.hits[1].article_url.has_value());

  // The item rows still agree with a walk of git: articles are kept apart from them.
  check_agrees(recorded, {"news"});

  // A commit that calls itself an article version but also rewrote the feed is read for the
  // feed too: its items are not hidden from search behind the claim.
  {
    const std::string key = sha1_hex("p1").substr(0, 20);
    ArticleFile file;
    file.title = "Bridge vote delayed";
    file.body = "The vote on the bridge is delayed to April.\n";
    recorded.record_files(
        "news: article changed: Bridge vote delayed",
        "Source: news\nChange-Class: article\nItem-Id: p1\n",
        {{"articles/news/" + key.substr(0, 2) + "/" + key + "/article.txt",
          format_article_file(file)},
         {"raw/news/response.xml", feed_of({{"p1", "Bridge vote", "the council forgedword"}}, 3)}});
    CHECK(search_for(archive, "forgedword").hits.size() == 1);
    check_agrees(recorded, {"news"});
    auto drop = run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", "HEAD~1"});
    REQUIRE(drop.exit_code == 0);
    CHECK(search_for(archive, "forgedword").hits.empty());
  }
  // A feed version after an index run that began with the article open: the item's text and
  // its article's stay apart (the item's span ends, the article's does not).
  recorded.record("news", feed_of({{"p1", "Bridge vote", "the council postpones"}}, 4));
  check_agrees(recorded, {"news"});
  const SearchResult article_still = search_for(archive, "april");
  REQUIRE(article_still.hits.size() == 1);
  CHECK_FALSE(article_still.hits[0].gone);

  // A reset past the edit (and the feed version after it) rewinds the article's versions
  // too; a new edit after it is read.
  auto reset = run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", "HEAD~2"});
  REQUIRE(reset.exit_code == 0);
  const SearchResult gone = search_for(archive, "april");
  CHECK(gone.index.action == SearchIndexReport::Action::rewound);
  CHECK(gone.hits.empty());
  const SearchResult back = search_for(archive, "march");
  REQUIRE(back.hits.size() == 1);
  CHECK_FALSE(back.hits[0].gone);
  const std::string a3 = record_article(recorded, "news", "p1", "Bridge vote delayed",
                                        "The vote on the bridge is delayed to May.");
  const SearchResult may = search_for(archive, "march");
  REQUIRE(may.hits.size() == 1);
  REQUIRE(may.hits[0].gone);
  CHECK(may.hits[0].gone->commit == a3);
  // From scratch, the same answer.
  std::filesystem::remove(search_index_path(archive));
  const SearchResult rebuilt = search_for(archive, "march");
  CHECK(rebuilt.index.action == SearchIndexReport::Action::rebuilt);
  REQUIRE(rebuilt.hits.size() == 1);
  REQUIRE(rebuilt.hits[0].gone);
  CHECK(rebuilt.hits[0].gone->commit == a3);
}

TEST_CASE("a prefix covering more than 32 words finds what each word finds, with snippets",
          "[search]") {
  RecordedArchive recorded("search-wide-prefix", {"blog"});
  std::vector<FakeItem> items;
  for (int i = 0; i < 40; ++i)
    items.push_back({fmt::format("i{}", i), fmt::format("Item {}", i),
                     fmt::format("about word{} and more", i)});
  recorded.record("blog", feed_of(items, 1));
  // Item 3's text changes in the second version, its word kept: one hit from version 1.
  items[3].description = "now about word3 and less";
  const std::string second = recorded.record("blog", feed_of(items, 2));
  const Archive archive = recorded.open();

  SearchQuery query;
  query.text = "word*";
  query.limit = 100;
  auto wide = search_archive(archive, query);
  REQUIRE(wide);
  REQUIRE(wide->hits.size() == 40);
  for (const SearchHit& hit : wide->hits) {
    INFO(hit.item_id);
    CHECK(hit.title == "Item " + hit.item_id.substr(1));
    CHECK_FALSE(hit.gone);
    CHECK(hit.versions == 2);
    std::string marked;
    for (const SnippetRun& run : hit.snippet) marked += run.match ? "[" + run.text + "]" : run.text;
    CHECK(marked.find("[word" + hit.item_id.substr(1) + "]") != std::string::npos);
  }
  // The newest text first: item 3's second text appeared last.
  CHECK(wide->hits[0].item_id == "i3");
  // A narrower prefix (word1, word10 to word19: written as the words) agrees.
  query.text = "word1*";
  auto narrow = search_archive(archive, query);
  REQUIRE(narrow);
  CHECK(narrow->hits.size() == 11);
  CHECK(search_for(archive, "word3*").hits.size() == 11);
  CHECK(search_for(archive, "word3").hits.size() == 1);
  (void)second;
}
