// OPML in and out: the scanner over real-world shapes, import through the binary, and a
// round trip that restores feeddiff.toml exactly.

#include <catch2/catch.hpp>

#include "feeddiff/config.h"
#include "feeddiff/poll.h"
#include "normalize/deadline.h"
#include "poll/poll_helpers.h"

using namespace feeddiff;
using namespace feeddiff::test;

TEST_CASE("parse_opml reads nested outlines, entities, either quote and odd attribute case",
          "[poll]") {
  auto feeds = parse_opml(slurp(fixture_path("opml/handwritten.opml")));
  REQUIRE(feeds);
  REQUIRE(feeds->size() == 6);
  CHECK((*feeds)[0].title == "Caf\xC3\xA9 <Notes>");
  CHECK((*feeds)[0].url == "https://example.org/caf%C3%A9/atom.xml");
  CHECK((*feeds)[1].title == "Release notes");
  CHECK((*feeds)[1].url == "https://example.com/releases.json?format=json&v=1.1");
  CHECK((*feeds)[2].url == "https://mirror.example.com/releases.json");
  // The commented-out outline and the link without xmlUrl are not feeds.
  CHECK((*feeds)[3].url == "ftp://ftp.example.com/feed.xml");
  CHECK((*feeds)[4].title.empty());
  CHECK((*feeds)[5].url == "https://reader:s3cret@intranet.example.com/feed");
  for (const auto& f : *feeds) {
    CHECK(f.name.empty());
    CHECK_FALSE(f.every);
  }

  auto nested = parse_opml(slurp(fixture_path("opml/feedly.opml")));
  REQUIRE(nested);
  REQUIRE(nested->size() == 4);
  CHECK((*nested)[1].url == "https://hnrss.org/frontpage?points=100&comments=25");
  CHECK((*nested)[3].title == "Nature");
}

TEST_CASE("parse_opml refuses what is no OPML and says where a tag broke", "[poll]") {
  auto html = parse_opml("<html><body><a href='x'>x</a></body></html>");
  REQUIRE_FALSE(html);
  CHECK(html.error().code == Errc::bad_xml);
  CHECK(html.error().message == "not an OPML document (no <opml> element)");

  auto unquoted = parse_opml("<opml>\n<body>\n<outline xmlUrl=http://x/>\n</body></opml>");
  REQUIRE_FALSE(unquoted);
  CHECK(unquoted.error().message == "OPML line 3: attribute 'xmlurl' of <outline> is not quoted");

  auto open = parse_opml("<opml><body><outline text=\"a\" xmlUrl=\"http://x/");
  REQUIRE_FALSE(open);
  CHECK(open.error().message.find("is not closed") != std::string::npos);

  auto comment = parse_opml("<opml><!-- <outline xmlUrl='http://x/'/>");
  REQUIRE_FALSE(comment);
  CHECK(comment.error().message == "OPML line 1: unterminated comment");

  auto every = parse_opml("<opml><outline xmlUrl='http://x/' feeddiff:every='soon'/></opml>");
  REQUIRE_FALSE(every);
  CHECK(every.error().message.find("feeddiff:every=\"soon\" is no duration") != std::string::npos);
}

TEST_CASE("format_opml escapes everything and parse_opml reads every field back", "[poll]") {
  Config config;
  config.sources.push_back({"a.b", "https://x.example/feed?a=1&b=<2>\"", 90'000, {}, false});
  config.sources.push_back({"z_9",
                            "http://y.example/",
                            2 * 86'400'000,
                            {"channel/lastBuildDate", "item/comments"},
                            true});
  const std::string opml = format_opml(config);
  CHECK(opml.find("xmlUrl=\"https://x.example/feed?a=1&amp;b=&lt;2&gt;&quot;\"") !=
        std::string::npos);
  auto back = parse_opml(opml);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& s = config.sources[i];
    const auto& f = (*back)[i];
    CHECK(f.name == s.name);
    CHECK(f.url == s.url);
    CHECK(f.every == s.every);
    CHECK(f.ignore == s.ignore);
    CHECK(f.skip_cosmetic == s.skip_cosmetic);
  }
}

TEST_CASE("source names made from titles are safe and unique", "[poll]") {
  CHECK(source_name_for("Ars Technica", "", {}) == "ars-technica");
  CHECK(source_name_for("Hacker News: Front Page", "", {}) == "hacker-news-front-page");
  CHECK(source_name_for("Caf\xC3\xA9 <Notes>", "", {}) == "caf-notes");
  CHECK(source_name_for("..hidden..lock", "", {}) == "hidden");
  CHECK(source_name_for("", "https://user:pw@www.example.net/blog/feed.rss?x=1", {}) ==
        "example.net-blog-feed.rss");
  CHECK(source_name_for("!!!", "", {}) == "feed");
  CHECK(source_name_for("News", "", {"news", "news-2"}) == "news-3");
  const std::string long_name = source_name_for(std::string(300, 'x'), "", {});
  CHECK(long_name.size() == 60);
  for (const char* title : {"a/../b", "-rf", ".git", "x.lock", "\xff\xfe", "CON"})
    CHECK(check_source_name(source_name_for(title, "http://h/", {})));
}

TEST_CASE("import adds each feed once, keeps credentials out of the commit, skips bad URLs",
          "[poll]") {
  CliArchive archive("opml-import");
  const std::string file = fixture_path("opml/handwritten.opml");
  auto r = archive({"import", file});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);  // the ftp:// feed was skipped
  CHECK(r.err ==
        "skipped ftp://ftp.example.com/feed.xml: ftp://ftp.example.com/feed.xml: "
        "unsupported URL scheme 'ftp' (use http or https)\n");
  CHECK(r.out.find("Added caf-notes (https://example.org/caf%C3%A9/atom.xml, every 1h)\n") !=
        std::string::npos);
  CHECK(r.out.find("Added release-notes (") != std::string::npos);
  CHECK(r.out.find("Added release-notes-2 (https://mirror.example.com/releases.json") !=
        std::string::npos);
  CHECK(r.out.find("Added example.net-blog-feed.rss (") != std::string::npos);
  CHECK(r.out.find("Added private (https://intranet.example.com/feed, every 1h)") !=
        std::string::npos);
  CHECK(r.out.ends_with("Imported 5 of 6 feeds, 1 skipped; run `feeddiff poll` to fetch them\n"));
  CHECK(r.out.find("s3cret") == std::string::npos);
  CHECK(archive.git({"log", "-1", "--format=%s"}).out == "import: 5 sources from OPML\n");
  const std::string toml = slurp(archive.dir() + "/feeddiff.toml");
  CHECK(toml.find("s3cret") == std::string::npos);
  CHECK(archive.git({"log", "-p"}).out.find("s3cret") == std::string::npos);
  CHECK(slurp(archive.dir() + "/.git/feeddiff/credentials").find("private\treader:s3cret") !=
        std::string::npos);
  CHECK(archive.git({"status", "--porcelain"}).out.empty());

  // Importing again adds nothing: every URL is a source already.
  const std::string head = archive.head();
  auto again = archive({"import", file});
  CHECK(again.out.ends_with("Imported 0 of 6 feeds, 5 already there, 1 skipped\n"));
  CHECK(archive.head() == head);
}

TEST_CASE(
    "export-opml then import restores every source and option, and a name-ordered file byte for "
    "byte",
    "[poll]") {
  CliArchive from("opml-from");
  REQUIRE(from({"import", fixture_path("opml/feedly.opml"), "--every", "6h"}).exit_code == 0);
  REQUIRE(from({"add", "fast", "http://127.0.0.1:9/fast", "--every", "90s"}).exit_code == 0);
  // Options only feeddiff.toml can set travel too.
  std::string toml = slurp(from.dir() + "/feeddiff.toml");
  toml.replace(toml.find("every = \"1m30s\"\n"), 16,
               "every = \"1m30s\"\nignore = [\"channel/lastBuildDate\"]\nskip_cosmetic = true\n");
  spit(from.dir() + "/feeddiff.toml", toml);

  auto exported = from({"export-opml"});
  REQUIRE(exported.exit_code == 0);
  CHECK(exported.out.find("feeddiff:every=\"6h\"") != std::string::npos);
  CHECK(exported.out.find("feeddiff:skip-cosmetic=\"true\"") != std::string::npos);
  const std::string opml = make_temp_dir("opml-file") + "/feeds.opml";
  REQUIRE(from({"export-opml", "-o", opml}).exit_code == 0);
  CHECK(slurp(opml) == exported.out);

  CliArchive to("opml-to");
  auto imported = to({"import", opml});
  INFO(imported.out << imported.err);
  REQUIRE(imported.exit_code == 0);
  // import appends in the list's order, which export writes by name: the same sources with
  // the same options, and byte for byte the file that lists them in name order.
  const std::string restored = slurp(to.dir() + "/feeddiff.toml");
  auto before = parse_config(toml);
  auto after = parse_config(restored);
  REQUIRE(before);
  REQUIRE(after);
  CHECK(format_config(*after) == format_config(*before));
  CHECK(restored == format_config(*before));
  CHECK(to({"export-opml"}).out == exported.out);
}

TEST_CASE("import --dry-run changes nothing; a file that is no OPML is an error", "[poll]") {
  CliArchive archive("opml-dry");
  const std::string head = archive.head();
  auto dry = archive({"import", "--dry-run", fixture_path("opml/feedly.opml")});
  CHECK(dry.exit_code == 0);
  CHECK(dry.out.ends_with("Would import 4 of 4 feeds\n"));
  CHECK(archive.head() == head);

  const std::string bad = make_temp_dir("opml-bad") + "/not.opml";
  spit(bad, "<rss version=\"2.0\"><channel/></rss>");
  auto r = archive({"import", bad});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "feeddiff: error: " + bad + ": not an OPML document (no <opml> element)\n");
  CHECK(archive({"import", "/nonexistent.opml"}).exit_code == 2);
}

TEST_CASE("an OPML attribute of 4,000,000 '&' and a run of 3,000,000 \"<!>\" parse in linear time",
          "[poll]") {
  // Each '&' looked for its ';' through the rest of the attribute, and each "<!" for a '['
  // through the rest of the document: minutes of searching, where this takes milliseconds.
  const std::string amps(4'000'000, '&');
  const std::string attribute =
      "<opml version=\"2.0\"><body><outline xmlUrl=\"https://e.x/f\" text=\"" + amps +
      "amp;\"/></body></opml>";
  CHECK(run_bounded([&] {
          auto feeds = parse_opml(attribute);
          return feeds && feeds->size() == 1 && (*feeds)[0].title == amps;
        }) == "finished");
  std::string declarations = "<opml version=\"2.0\">";
  for (int i = 0; i < 3'000'000; ++i) declarations += "<!>";
  declarations += "<body><outline xmlUrl=\"https://e.x/f\" text=\"t\"/></body></opml>";
  CHECK(run_bounded([&] {
          auto feeds = parse_opml(declarations);
          return feeds && feeds->size() == 1 && (*feeds)[0].title == "t";
        }) == "finished");
}

TEST_CASE("OPML entities decode within 12 bytes of their '&', after any run of '&'", "[poll]") {
  auto feeds = parse_opml(
      "<opml><body><outline xmlUrl=\"https://e.x/f\" text=\"&&&amp;&lt;&#233;&#x1F600;&nosuch;&\" "
      "title=\"&quot;x&apos;\"/></body></opml>");
  REQUIRE(feeds);
  REQUIRE(feeds->size() == 1);
  CHECK((*feeds)[0].title == "&&&<\xc3\xa9\xf0\x9f\x98\x80&nosuch;&");
}

TEST_CASE("a source name is made from a title of 2,000,000 leading '_' in linear time", "[poll]") {
  // The '_' were erased one at a time, moving the rest of the name each time.
  const std::string title = std::string(2'000'000, '_') + "Name";
  CHECK(run_bounded([&] { return source_name_for(title, "", {}) == "name"; }) == "finished");
}
