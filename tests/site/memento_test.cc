// Memento (RFC 7089) on the static site: each source's TimeMap (application/link-format,
// paged), read back by a small link-format parser written here, every memento link followed
// to the file it names and compared with what git holds at that commit; a run after more
// polls only appends (sealed pages keep their bytes); change pages carry their links.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/site.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

// One link of a link-format document (RFC 6690): the URI between < and >, its parameters.
struct ParsedLink {
  std::string uri;
  std::map<std::string, std::string> params;
};

// A strict reader of RFC 6690's grammar as TimeMaps use it: links separated by commas (and
// line ends), each `<URI>` then `;name=value` pairs, values quoted or tokens. Anything else
// fails the test: the file must parse, not merely contain the right strings.
std::vector<ParsedLink> parse_link_format(const std::string& text) {
  std::vector<ParsedLink> out;
  std::size_t at = 0;
  auto skip_space = [&] {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n' || text[at] == '\t')) ++at;
  };
  skip_space();
  while (at < text.size()) {
    REQUIRE(text[at] == '<');
    const std::size_t close = text.find('>', at);
    REQUIRE(close != std::string::npos);
    ParsedLink link;
    link.uri = text.substr(at + 1, close - at - 1);
    // No byte a URI may not hold (RFC 3986).
    for (const char ch : link.uri) {
      CHECK(static_cast<unsigned char>(ch) > 0x20);
      CHECK(std::string_view("<\"{}|\\^`").find(ch) == std::string_view::npos);
    }
    at = close + 1;
    while (at < text.size() && text[at] == ';') {
      ++at;
      const std::size_t eq = text.find('=', at);
      REQUIRE(eq != std::string::npos);
      const std::string name = text.substr(at, eq - at);
      REQUIRE_FALSE(name.empty());
      for (const char ch : name)
        REQUIRE((std::isalnum(static_cast<unsigned char>(ch)) || ch == '-'));
      at = eq + 1;
      std::string value;
      if (at < text.size() && text[at] == '"') {
        const std::size_t end = text.find('"', at + 1);
        REQUIRE(end != std::string::npos);
        value = text.substr(at + 1, end - at - 1);
        at = end + 1;
      } else {
        const std::size_t end = text.find_first_of(";,\n", at);
        value = text.substr(at, end - at);
        at = end == std::string::npos ? text.size() : end;
      }
      REQUIRE(link.params.emplace(name, value).second);
    }
    out.push_back(std::move(link));
    skip_space();
    if (at < text.size()) {
      REQUIRE(text[at] == ',');
      ++at;
      skip_space();
      REQUIRE(at < text.size());  // no comma after the last link
    }
  }
  return out;
}

std::vector<std::string> rels_of(const ParsedLink& link) {
  std::vector<std::string> out;
  const std::string& rel = link.params.at("rel");
  for (std::size_t at = 0; at <= rel.size();) {
    const std::size_t end = std::min(rel.find(' ', at), rel.size());
    out.push_back(rel.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

bool has_rel(const ParsedLink& link, const std::string& rel) {
  const auto rels = rels_of(link);
  return std::find(rels.begin(), rels.end(), rel) != rels.end();
}

// Every memento a TimeMap names, following its rel="timemap" pages (oldest first), then the
// entry page's own; each with the page it came from.
struct TimeMapRead {
  std::vector<ParsedLink> mementos;
  std::map<std::string, std::vector<ParsedLink>> pages;  // file name -> its links
};

TimeMapRead read_timemap(const std::string& dir) {
  TimeMapRead out;
  const std::vector<ParsedLink> entry = parse_link_format(slurp(dir + "/timemap.link"));
  out.pages["timemap.link"] = entry;
  for (const ParsedLink& link : entry)
    if (has_rel(link, "timemap")) {
      CHECK(link.params.at("type") == "application/link-format");
      const auto page = parse_link_format(slurp(dir + "/" + link.uri));
      out.pages[link.uri] = page;
      for (const ParsedLink& l : page)
        if (has_rel(l, "memento")) out.mementos.push_back(l);
    }
  for (const ParsedLink& link : entry)
    if (has_rel(link, "memento")) out.mementos.push_back(link);
  return out;
}

std::string memento_body(int n) {
  return "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>"
         "<item><guid>v" +
         std::to_string(n) + "</guid><title>Version " + std::to_string(n) +
         "</title></item></channel></rss>\n";
}

// When RecordedArchive observed its nth version (10 minutes apart from midnight), as a
// TimeMap writes it.
std::string memento_date(int n) {
  return format_http_date(*parse_iso8601("2025-01-01T00:00:00Z") + n * 600'000);
}

// The feed's URL in feeddiff.toml, with a password and a token that must not reach the site.
void set_secret_url(const std::string& dir) {
  auto archive = Archive::open(dir);
  REQUIRE(archive);
  Config config;
  SourceConfig source;
  source.name = "blog";
  source.url = "https://reader:hunter2@example.com/blog.xml?token=s3cret";
  config.sources.push_back(source);
  CommitRequest request;
  request.message = "feeddiff: blog's URL\n";
  request.author_time = request.commit_time = *parse_iso8601("2025-01-01T00:00:00Z");
  request.files.push_back({"feeddiff.toml", format_config(config)});
  REQUIRE(archive->commit(request));
}

std::map<std::string, std::string> sealed_timemaps(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("timemap-"))
      out[entry.path().filename().string()] = slurp(entry.path().string());
  return out;
}

}  // namespace

TEST_CASE("A source's TimeMap lists every version in order, each memento the bytes recorded",
          "[site]") {
  RecordedArchive recorded("site-memento", {"blog"});
  set_secret_url(recorded.dir());
  std::vector<std::string> commits;
  for (int n = 1; n <= 7; ++n) commits.push_back(recorded.record("blog", memento_body(n)));
  auto archive = Archive::open(recorded.dir());
  REQUIRE(archive);
  SiteOptions options;
  options.dir = make_temp_dir("site-memento-out") + "/public";
  options.timemap_page = 3;
  auto built = build_site(*archive, options);
  REQUIRE(built);
  CHECK(built->mementos == 7);
  const std::string dir = options.dir + "/sources/blog";

  const TimeMapRead read = read_timemap(dir);
  // Seven versions: two sealed pages of three, the entry page holds the last.
  CHECK(read.pages.size() == 3);
  REQUIRE(read.mementos.size() == commits.size());
  for (std::size_t i = 0; i < commits.size(); ++i) {
    const ParsedLink& m = read.mementos[i];
    INFO(m.uri);
    CHECK(m.uri == "../../raw/" + commits[i] + "/response.xml.txt");
    CHECK(m.params.at("datetime") == memento_date(static_cast<int>(i) + 1));
    // The memento is the resource as it was: the bytes git holds at that commit.
    const RunResult shown =
        run({"git", "-C", recorded.dir(), "show", commits[i] + ":raw/blog/response.xml"});
    REQUIRE(shown.exit_code == 0);
    CHECK(slurp(dir + "/" + m.uri) == shown.out);
    CHECK(shown.out == memento_body(static_cast<int>(i) + 1));
  }
  CHECK(rels_of(read.mementos.front()) == std::vector<std::string>{"first", "memento"});
  CHECK(rels_of(read.mementos.back()) == std::vector<std::string>{"last", "memento"});
  for (std::size_t i = 1; i + 1 < read.mementos.size(); ++i)
    CHECK(read.mementos[i].params.at("rel") == "memento");

  // Every page names the original (redacted: no password, no token) and itself, with the
  // span of its mementos.
  for (const auto& [file, links] : read.pages) {
    INFO(file);
    REQUIRE(links.size() >= 2);
    CHECK(links[0].params.at("rel") == "original");
    CHECK(links[0].uri == "https://example.com/blog.xml?token=***");
    CHECK(links[1].params.at("rel") == "self");
    CHECK(links[1].uri == file);
    CHECK(links[1].params.at("type") == "application/link-format");
    const std::string text = slurp(dir + "/" + file);
    CHECK(text.find("hunter2") == std::string::npos);
    CHECK(text.find("s3cret") == std::string::npos);
  }
  const auto& entry = read.pages.at("timemap.link");
  CHECK(entry[1].params.at("from") == memento_date(7));
  CHECK(entry[1].params.at("until") == memento_date(7));
  CHECK(entry[2].uri == "timemap-1.link");
  CHECK(entry[2].params.at("from") == memento_date(1));
  CHECK(entry[2].params.at("until") == memento_date(3));
  const auto& second = read.pages.at("timemap-2.link");
  CHECK(second[1].params.at("from") == memento_date(4));
  CHECK(second[1].params.at("until") == memento_date(6));

  // The source's page announces the TimeMap and links it.
  const std::string page = slurp(options.dir + "/sources/blog.html");
  CHECK(page.find("<link rel=\"timemap\" type=\"application/link-format\" "
                  "href=\"blog/timemap.link\">") != std::string::npos);
  CHECK(page.find("<a href=\"blog/timemap.link\">TimeMap</a>") != std::string::npos);
}

TEST_CASE(
    "A site run after more polls only appends to the TimeMap, and sealed pages keep "
    "their bytes",
    "[site]") {
  RecordedArchive recorded("site-memento-again", {"blog"});
  for (int n = 1; n <= 7; ++n) REQUIRE_FALSE(recorded.record("blog", memento_body(n)).empty());
  SiteOptions options;
  options.dir = make_temp_dir("site-memento-again-out") + "/public";
  options.timemap_page = 3;
  REQUIRE(build_site(recorded.open(), options));
  const std::string dir = options.dir + "/sources/blog";
  const auto sealed = sealed_timemaps(dir);
  REQUIRE(sealed.size() == 2);

  // Nothing new: no memento added, no file written.
  auto idle = build_site(recorded.open(), options);
  REQUIRE(idle);
  CHECK(idle->mementos == 0);
  CHECK(idle->written == 0);

  // Three more versions: the entry page fills and page 3 is sealed; 1 and 2 are untouched.
  for (int n = 8; n <= 10; ++n) REQUIRE_FALSE(recorded.record("blog", memento_body(n)).empty());
  const fs::file_time_type before = fs::last_write_time(dir + "/timemap-1.link");
  auto next = build_site(recorded.open(), options);
  REQUIRE(next);
  CHECK(next->mementos == 3);
  auto now = sealed_timemaps(dir);
  CHECK(now.size() == 3);
  for (const auto& [name, bytes] : sealed) CHECK(now[name] == bytes);
  CHECK(fs::last_write_time(dir + "/timemap-1.link") == before);  // not even rewritten
  const TimeMapRead read = read_timemap(dir);
  REQUIRE(read.mementos.size() == 10);
  for (std::size_t i = 0; i < read.mementos.size(); ++i)
    CHECK(read.mementos[i].params.at("datetime") == memento_date(static_cast<int>(i) + 1));

  // A site built afresh, a commit a round, writes the same pages: they depend on the
  // versions, not on how many each run brought.
  SiteOptions fresh = options;
  fresh.dir = make_temp_dir("site-memento-fresh") + "/public";
  fresh.round = 1;
  REQUIRE(build_site(recorded.open(), fresh));
  CHECK(sealed_timemaps(fresh.dir + "/sources/blog") == now);
  CHECK(slurp(fresh.dir + "/sources/blog/timemap.link") == slurp(dir + "/timemap.link"));

  // With a base URL every link is absolute: the sealed pages are written again, once.
  options.base_url = "https://archive.example.org/feeds/";
  auto based = build_site(recorded.open(), options);
  REQUIRE(based);
  const auto absolute = parse_link_format(slurp(dir + "/timemap-2.link"));
  CHECK(absolute[1].uri == "https://archive.example.org/feeds/sources/blog/timemap-2.link");
  bool memento_seen = false;
  for (const ParsedLink& link : absolute)
    if (has_rel(link, "memento")) {
      memento_seen = true;
      CHECK(link.uri.starts_with("https://archive.example.org/feeds/raw/"));
    }
  CHECK(memento_seen);
}

TEST_CASE("A change page carries rel=original, its TimeMap and its first and previous mementos",
          "[site]") {
  RecordedArchive recorded("site-memento-page", {"blog"});
  set_secret_url(recorded.dir());
  const std::string v1 = recorded.record("blog", memento_body(1));
  const std::string v2 = recorded.record("blog", memento_body(2));
  const std::string v3 = recorded.record("blog", memento_body(3));
  SiteOptions options;
  options.dir = make_temp_dir("site-memento-page-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const std::string third = slurp(options.dir + "/changes/" + v3 + ".html");
  CHECK(third.find("<link rel=\"original\" href=\"https://example.com/blog.xml?token=***\">") !=
        std::string::npos);
  CHECK(third.find("<link rel=\"timemap\" href=\"../sources/blog/timemap.link\">") !=
        std::string::npos);
  CHECK(third.find("<link rel=\"first memento\" href=\"../raw/" + v1 + "/response.xml.txt\">") !=
        std::string::npos);
  CHECK(third.find("<link rel=\"prev memento\" href=\"../raw/" + v2 + "/response.xml.txt\">") !=
        std::string::npos);
  // Written once, before a later version exists: no next or last memento.
  CHECK(third.find("next memento") == std::string::npos);
  CHECK(third.find("last memento") == std::string::npos);
  CHECK(third.find("hunter2") == std::string::npos);
  // The first version has no previous one.
  const std::string first = slurp(options.dir + "/changes/" + v1 + ".html");
  CHECK(first.find("prev memento") == std::string::npos);
  CHECK(first.find("<link rel=\"first memento\" href=\"../raw/" + v1 + "/response.xml.txt\">") !=
        std::string::npos);
}
