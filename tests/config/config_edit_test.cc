// The feeddiff.toml editor of `add` and `remove`, and the notification rule keys.

#include <catch2/catch.hpp>

#include "feeddiff/config.h"

using namespace feeddiff;

namespace {

const std::string kFile =
    "# my feeds, grouped by hand\n"
    "\n"
    "[notify]\n"
    "exec = 'mail me'   # literal string, kept as written\n"
    "\n"
    "# the one feed that works, do not remove\n"
    "[sources.good]\n"
    "url = \"https://good.example/feed\"\n"
    "every = \"2h\"\n"
    "\n"
    "# flaky since March\n"
    "[sources.bad]\n"
    "url = \"https://bad.example/rss\"\n"
    "every = \"1h\"\n"
    "\n"
    "[sources.bad.notify]\n"
    "exec = \"\"\n"
    "\n"
    "[sources.zed]   # last\n"
    "url = \"https://zed.example/atom\"\n";

}  // namespace

TEST_CASE("adding a source appends its table and keeps every byte of the file", "[config]") {
  SourceConfig news;
  news.name = "news";
  news.url = "https://news.example/feed.xml";
  news.every = 15 * 60'000;
  auto edited = add_source_table(kFile, news);
  REQUIRE(edited);
  CHECK(edited->starts_with(kFile));
  CHECK(edited->substr(kFile.size()) ==
        "\n[sources.news]\nurl = \"https://news.example/feed.xml\"\nevery = \"15m\"\n");
  auto parsed = parse_config(*edited);
  REQUIRE(parsed);
  REQUIRE(parsed->find("news"));
  CHECK(parsed->find("news")->every == 15 * 60'000);
  CHECK(parsed->sources.size() == 4);

  // A file without a final newline, and an empty one.
  auto unterminated = add_source_table("# x\n[sources.a]\nurl = \"http://a/\"", news);
  REQUIRE(unterminated);
  CHECK(*unterminated ==
        "# x\n[sources.a]\nurl = \"http://a/\"\n\n[sources.news]\nurl = "
        "\"https://news.example/feed.xml\"\nevery = \"15m\"\n");
  auto empty = add_source_table("", news);
  REQUIRE(empty);
  CHECK(parse_config(*empty)->sources.size() == 1);

  auto twice = add_source_table(kFile, *parse_config(kFile)->find("good"));
  REQUIRE_FALSE(twice);
  CHECK(twice.error().code == Errc::bad_config);
}

TEST_CASE("removing a source takes out its tables and their comment and keeps the rest",
          "[config]") {
  auto edited = remove_source_table(kFile, "bad");
  REQUIRE(edited);
  CHECK(*edited ==
        "# my feeds, grouped by hand\n"
        "\n"
        "[notify]\n"
        "exec = 'mail me'   # literal string, kept as written\n"
        "\n"
        "# the one feed that works, do not remove\n"
        "[sources.good]\n"
        "url = \"https://good.example/feed\"\n"
        "every = \"2h\"\n"
        "\n"
        "[sources.zed]   # last\n"
        "url = \"https://zed.example/atom\"\n");

  // The last table: no blank line left dangling at the end.
  auto last = remove_source_table(kFile, "zed");
  REQUIRE(last);
  CHECK(last->ends_with("[sources.bad.notify]\nexec = \"\"\n"));
  auto parsed = parse_config(*last);
  REQUIRE(parsed);
  CHECK(parsed->sources.size() == 2);
  CHECK(parsed->find("bad")->notify.exec == std::optional<std::string>(""));

  auto none = remove_source_table(kFile, "nope");
  REQUIRE_FALSE(none);
  CHECK(none.error().code == Errc::bad_config);
}

TEST_CASE("a source written where the editor cannot take it apart is left for a hand edit",
          "[config]") {
  // Dotted keys under [sources]: no [sources.b] table to remove.
  const std::string dotted =
      "[sources]\na.url = \"http://a.example/\"\nb.url = \"http://b.example/\"\n";
  auto edited = remove_source_table(dotted, "b");
  REQUIRE_FALSE(edited);
  CHECK(edited.error().code == Errc::bad_config);
  CHECK_THAT(edited.error().message, Catch::Contains("edit the file by hand"));
}

TEST_CASE("notify rules parse, merge key by key and round-trip", "[config][notify]") {
  auto config = parse_config(
      "[notify]\nexec = \"x\"\nkinds = [\"added\", \"aged_out\"]\nafter = 3\n"
      "[sources.a]\nurl = \"http://a/\"\n"
      "[sources.a.notify]\nfields = \"title\"\nmatch = [\"CVE-\", \"security\"]\n");
  REQUIRE(config);
  const NotifySettings s = notify_settings(*config, *config->find("a"));
  CHECK(s.kinds == std::vector<std::string>{"added", "aged_out"});
  CHECK(s.fields == std::vector<std::string>{"title"});
  CHECK(s.match == std::vector<std::string>{"CVE-", "security"});
  CHECK(s.after == 3);
  CHECK(s.selects_items());
  auto again = parse_config(format_config(*config));
  REQUIRE(again);
  CHECK(format_config(*again) == format_config(*config));
  CHECK(again->notify == config->notify);

  for (const char* wrong :
       {"[notify]\nkinds = [\"deleted\"]\n", "[notify]\nkinds = []\n", "[notify]\nafter = 0\n",
        "[notify]\nafter = 101\n", "[notify]\nmatch = [\"\"]\n", "[notify]\nfields = 3\n"}) {
    auto r = parse_config(wrong);
    INFO(wrong);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::bad_config);
    CHECK_THAT(r.error().message, Catch::Contains("line 2"));
  }
}
