// normalize, items and diff through the binary.

#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;

namespace {

// The guids of an RSS file, found by a plain regular expression, independent of feeddiff.
std::set<std::string> guids_of(const std::string& xml) {
  std::set<std::string> out;
  static const std::regex guid("<guid[^>]*>([^<]*)</guid>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), guid); it != std::sregex_iterator();
       ++it)
    out.insert((*it)[1]);
  return out;
}

// The ids in `feeddiff items --json` output, found by a regular expression.
std::set<std::string> ids_of(const std::string& json) {
  std::set<std::string> out;
  static const std::regex id("\"id\": \"([^\"]*)\"");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), id); it != std::sregex_iterator();
       ++it)
    out.insert((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("normalize prints a canonical form that normalizes to itself", "[cli]") {
  const std::string feed = fixture_path("feeds/openai-research/0002.xml");
  auto once = run_feeddiff({"normalize", feed});
  INFO(once.err);
  REQUIRE(once.exit_code == 0);
  CHECK(once.out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
  CHECK(once.out.find("feeddiff:volatile") != std::string::npos);  // lastBuildDate, generator
  auto twice = run({FEEDDIFF_BINARY, "normalize", "-"}, {}, once.out);
  REQUIRE(twice.exit_code == 0);
  CHECK(twice.out == once.out);
}

TEST_CASE("normalize names the line and column where a document breaks", "[cli]") {
  const std::string dir = make_temp_dir("normalize-bad");
  spit(dir + "/bad.xml", "<rss version=\"2.0\">\n<channel>\n<title>x</titel>\n</channel></rss>\n");
  auto r = run_feeddiff({"normalize", dir + "/bad.xml"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.starts_with("feeddiff: error: "));
  CHECK(r.err.find("line 3") != std::string::npos);
}

TEST_CASE("normalize lists each repair with its line, and the rest as one count", "[cli]") {
  const std::string dir = make_temp_dir("normalize-repairs");
  // A byte invalid in UTF-8 on each of 102 lines: 100 are listed, the other 2 are counted.
  std::string body;
  for (int i = 0; i < 102; ++i) body += "<title>\xFC</title>\n";
  spit(dir + "/latin1.xml", "<rss version=\"2.0\">\n<channel>\n" + body + "</channel></rss>\n");
  auto r = run_feeddiff({"normalize", dir + "/latin1.xml"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const std::string label = "feeddiff: " + dir + "/latin1.xml";
  CHECK(r.err.starts_with(
      label + " line 3: repaired: replaced a byte invalid in UTF-8 (0xFC) with U+FFFD\n" + label +
      " line 4: repaired: replaced a byte invalid in UTF-8 (0xFC) with U+FFFD\n"));
  CHECK(r.err.ends_with(label + ": repaired: and 2 more repairs\n"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 101);
}

TEST_CASE("normalize reports a run of one repair on one line once, with its count", "[cli]") {
  const std::string dir = make_temp_dir("normalize-repair-runs");
  // 102 Latin-1 bytes, then 77 NUL bytes, on line 3; one more NUL on line 4.
  spit(dir + "/runs.xml", "<rss version=\"2.0\">\n<channel>\n<title>" + std::string(102, '\xFC') +
                              std::string(77, '\0') + "</title>\n<link>\x01" +
                              std::string(1, '\0') + "</link>\n</channel></rss>\n");
  auto r = run_feeddiff({"normalize", dir + "/runs.xml"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const std::string label = "feeddiff: " + dir + "/runs.xml";
  CHECK(r.err ==
        label +
            " line 3: repaired: replaced a byte invalid in UTF-8 (0xFC) with U+FFFD (102 times)\n" +
            label + " line 3: repaired: removed control character U+0000 (77 times)\n" + label +
            " line 4: repaired: removed control character U+0001\n" + label +
            " line 4: repaired: removed control character U+0000\n");
  std::string replaced;
  for (int i = 0; i < 102; ++i) replaced += "\xEF\xBF\xBD";
  CHECK(r.out.find("<title>" + replaced + "</title>") != std::string::npos);
  CHECK(r.out.find('\0') == std::string::npos);
}

TEST_CASE("items --json lists the same identities as a plain guid scan", "[cli]") {
  for (const char* version : {"0100.xml", "0101.xml", "0300.xml"}) {
    const std::string path = corpus_path(std::string("history-olshansk-ollama-raw/") + version);
    auto r = run_feeddiff({"items", path, "--json"});
    INFO(version << r.err);
    REQUIRE(r.exit_code == 0);
    const auto guids = guids_of(slurp(path));
    REQUIRE_FALSE(guids.empty());
    CHECK(ids_of(r.out) == guids);
  }
}

TEST_CASE("diff of two files reports the item changes and exits 1, identical files exit 0",
          "[cli]") {
  const std::string dir = make_temp_dir("diff-files");
  const std::string a = fixture_path("feeds/openai-research/0001.xml");
  const std::string b = fixture_path("feeds/openai-research/0002.xml");
  auto r = run_feeddiff({"diff", a, b, "--max-lines", "10"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Items: 5 changed, 4 moved") != std::string::npos);
  CHECK(r.out.find("  channel  lastBuildDate\n") != std::string::npos);
  auto same = run_feeddiff({"diff", a, a});
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("No difference in the raw body.") != std::string::npos);
  CHECK(same.out.find("Items: no item changed") != std::string::npos);
}

TEST_CASE("a lastBuildDate-only change is summarized as cosmetic only", "[cli]") {
  const std::string dir = make_temp_dir("cosmetic");
  const std::string v1 = slurp(fixture_path("feeds/openai-research/0002.xml"));
  std::string v2 = v1;
  const std::string old_date = "<lastBuildDate>Tue, 21 Jan 2025 13:18:32 +0000</lastBuildDate>";
  REQUIRE(v2.find(old_date) != std::string::npos);
  v2.replace(v2.find(old_date), old_date.size(),
             "<lastBuildDate>Wed, 22 Jan 2025 09:00:00 +0000</lastBuildDate>");
  spit(dir + "/a.xml", v1);
  spit(dir + "/b.xml", v2);
  auto r = run_feeddiff({"diff", dir + "/a.xml", dir + "/b.xml", "--normalized"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Items: cosmetic only (lastBuildDate)") != std::string::npos);
  CHECK(r.out.find("Lines added                  +1\n") != std::string::npos);
}
