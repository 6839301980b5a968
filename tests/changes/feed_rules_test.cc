// A source's rules as a commit's feeddiff.toml has them, and the cache that spares reads
// parsing the file again (src/changes/feed_rules.cc).

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "feeddiff/changes.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/store.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

// feeddiff.toml of two sources: "news" with rules (ignore guid; whitespace, min_words
// given), "blog" with none, and a global punctuation rule when asked.
std::string toml_with_rules(std::size_t min_words, bool punctuation) {
  Config config;
  SourceConfig news;
  news.name = "news";
  news.url = "https://example.com/news.xml";
  news.ignore = {"guid"};
  news.insignificant.whitespace = true;
  news.insignificant.min_words = min_words;
  SourceConfig blog;
  blog.name = "blog";
  blog.url = "https://example.com/blog.xml";
  config.sources = {blog, news};
  if (punctuation) config.insignificant.punctuation = true;
  return format_config(config);
}

// Commits text as feeddiff.toml; the commit's id and the file's blob id.
std::pair<std::string, std::string> commit_toml(Archive& archive, const std::string& text,
                                                TimeMs when) {
  CommitRequest request;
  request.message = "feeddiff: rules edited\n";
  request.author_time = request.commit_time = when;
  request.files.push_back({"feeddiff.toml", text});
  auto made = archive.commit(request);
  REQUIRE(made);
  REQUIRE(*made);
  auto blob = archive.blob_id(**made, "feeddiff.toml");
  REQUIRE(blob);
  REQUIRE(*blob);
  return {**made, **blob};
}

// The id git gives a blob of these bytes.
std::string blob_id_of(const std::string& text) {
  return sha1_hex("blob " + std::to_string(text.size()) + std::string(1, '\0') + text);
}

}  // namespace

TEST_CASE("a source's rules are read from feeddiff.toml at the commit and kept by its blob id",
          "[changes]") {
  RecordedArchive recorded("feed-rules", {"blog"});
  Archive archive = recorded.open();
  const auto [commit, blob] =
      commit_toml(archive, toml_with_rules(4, false), *parse_iso8601("2025-02-01T00:00:00Z"));

  const FeedRules news = feed_rules(archive, commit, "news");
  CHECK(news.ignore == std::vector<std::string>{"guid"});
  CHECK(news.insignificant.whitespace);
  CHECK_FALSE(news.insignificant.punctuation);
  CHECK(news.insignificant.min_words == 4);
  const FeedRules blog = feed_rules(archive, commit, "blog");
  CHECK(blog.ignore.empty());
  CHECK_FALSE(blog.insignificant.any());
  CHECK_FALSE(feed_rules(archive, commit, "absent").insignificant.any());

  CHECK(configures_source(archive, commit, "news"));
  CHECK(configures_source(archive, commit, "blog"));
  CHECK_FALSE(configures_source(archive, commit, "absent"));

  // The file's sources and rules are cached under its blob id: blog, which has no rules,
  // by its name alone.
  const auto cached = archive.cache_read("rules/" + blob);
  REQUIRE(cached);
  CHECK(cached->starts_with("feeddiff rules 2\n"));
  CHECK(cached->find("s\tblog\ns\tnews\ni\tguid\n") != std::string::npos);
  CHECK(cached->ends_with("\nend\n"));
}

TEST_CASE(
    "a cached rules entry is what a later read answers from, and a damaged one is parsed "
    "again",
    "[changes]") {
  RecordedArchive recorded("feed-rules-cache", {"blog"});
  Archive archive = recorded.open();
  TimeMs when = *parse_iso8601("2025-02-01T00:00:00Z");

  // An entry already there for this version of the file is used as it stands: the file is
  // not parsed (the entry here says min_words 9; the file says 5).
  const std::string second = toml_with_rules(5, false);
  const std::string second_blob = blob_id_of(second);
  archive.cache_write("rules/" + second_blob, "feeddiff rules 2\ns\tnews\nm\t9\nend\n");
  const auto [commit_b, blob_b] = commit_toml(archive, second, when += 60'000);
  REQUIRE(blob_b == second_blob);
  CHECK(feed_rules(archive, commit_b, "news").insignificant.min_words == 9);
  CHECK_FALSE(configures_source(archive, commit_b, "blog"));  // the entry names news only

  // An entry cut short (no `end`) is no entry: the file is parsed and the entry rewritten.
  const std::string third = toml_with_rules(6, true);
  const std::string third_blob = blob_id_of(third);
  archive.cache_write("rules/" + third_blob, "feeddiff rules 2\ns\tnews\nm\t9\n");
  const auto [commit_c, blob_c] = commit_toml(archive, third, when += 60'000);
  const FeedRules rules = feed_rules(archive, commit_c, "news");
  CHECK(rules.insignificant.min_words == 6);
  CHECK(rules.insignificant.punctuation);  // the global [insignificant] table applies
  CHECK(feed_rules(archive, commit_c, "blog").insignificant.punctuation);
  const auto rewritten = archive.cache_read("rules/" + blob_c);
  REQUIRE(rewritten);
  CHECK(rewritten->ends_with("\nend\n"));
  CHECK(rewritten->find("m\t6\n") != std::string::npos);
}

TEST_CASE("a source's rules read one at a time from the cache agree with the whole map's",
          "[changes]") {
  RecordedArchive recorded("feed-rules-lazy", {"blog"});
  Archive archive = recorded.open();
  // The entry the file's blob id names: alpha's block opened twice (both blocks count, as
  // when the whole map is built), "end" a source like any other, beta with no rules.
  const std::string text = toml_with_rules(7, false);
  archive.cache_write("rules/" + blob_id_of(text),
                      "feeddiff rules 2\ns\talpha\ni\tguid\ns\tbeta\ns\tend\nw\nm\t3\n"
                      "s\talpha\nf\ttitle\np\nend\n");
  const auto [commit, blob] = commit_toml(archive, text, *parse_iso8601("2025-03-01T00:00:00Z"));
  // Asked more times than the one-at-a-time reading serves: both ways answer.
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    const FeedRules alpha = feed_rules(archive, commit, "alpha");
    CHECK(alpha.ignore == std::vector<std::string>{"guid"});
    CHECK(alpha.insignificant.fields == std::vector<std::string>{"title"});
    CHECK(alpha.insignificant.punctuation);
    CHECK_FALSE(alpha.insignificant.whitespace);
    const FeedRules end = feed_rules(archive, commit, "end");
    CHECK(end.insignificant.whitespace);
    CHECK(end.insignificant.min_words == 3);
    CHECK(end.ignore.empty());
    CHECK(configures_source(archive, commit, "beta"));
    CHECK_FALSE(feed_rules(archive, commit, "beta").insignificant.any());
    CHECK_FALSE(configures_source(archive, commit, "news"));  // the file's, not the entry's
    CHECK_FALSE(configures_source(archive, commit, "alph"));
  }
}
