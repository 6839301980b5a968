// `feeddiff site DIR` over an archive of 200 recorded changes (two corpus histories): every
// page is there and every link leads to a file; a second run writes nothing; after one more
// change a run rewrites only that change's page and artifact, its source's page, the index
// and the Atom feed.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "cli/render_helpers.h"
#include "feeddiff/config.h"

using namespace feeddiff;
using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

std::string version_file(const std::string& history, int n) {
  char name[16];
  std::snprintf(name, sizeof name, "%04d.xml", n);
  return corpus_path(history + "/" + name);
}

// Records successive corpus versions as changes, one commit each, 10 minutes apart.
class HistoryArchive {
 public:
  HistoryArchive() : dir_(make_temp_dir("site") + "/archive") {
    auto archive = Archive::init(dir_, *parse_iso8601("2025-01-01T00:00:00Z"));
    REQUIRE(archive);
    Config config;
    for (const char* name : {"ollama", "openai"}) {
      SourceConfig source;
      source.name = name;
      source.url = std::string("https://example.com/") + name + ".xml";
      config.sources.push_back(source);
    }
    CommitRequest request;
    request.message = "feeddiff: sources added\n";
    request.author_time = request.commit_time = clock_;
    request.files.push_back({"feeddiff.toml", format_config(config)});
    REQUIRE(archive->commit(request));
  }

  // Commits the next version of the history that differs from the last one recorded.
  void record(const std::string& source, const std::string& history, int& next) {
    auto archive = Archive::open(dir_);
    REQUIRE(archive);
    for (;; ++next) {
      const std::string body = slurp(version_file(history, next));
      clock_ += 600'000;
      const std::string at = format_iso8601_ms(clock_);
      CommitRequest request;
      request.message = fmt_title(source, body) + "\n\nSource: " + source + "\nObserved-At: " + at +
                        "\nStatus: 200\nFinal-URL: https://example.com/" + source +
                        ".xml\nResponse-Header: etag: \"v" + std::to_string(next) + "\"\n";
      request.author_time = request.commit_time = clock_;
      request.files.push_back({"raw/" + source + "/response.xml", body});
      auto made = archive->commit(request);
      REQUIRE(made);
      if (*made) {
        ++next;
        return;
      }
    }
  }

  const std::string& dir() const { return dir_; }

 private:
  static std::string fmt_title(const std::string& source, const std::string& body) {
    return source + ": changed (" + std::to_string(body.size()) + " bytes, HTTP 200)";
  }
  std::string dir_;
  TimeMs clock_ = *parse_iso8601("2025-01-01T00:00:00Z");
};

struct SiteRun {
  std::size_t written = 0;
  std::size_t unchanged = 0;
};

SiteRun run_site(const std::string& archive, const std::string& out) {
  auto r = run_feeddiff({"-C", archive, "site", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("wrote ([0-9,]+) files?, ([0-9,]+) unchanged")));
  auto number = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return static_cast<std::size_t>(std::stoul(s));
  };
  return {number(m[1]), number(m[2])};
}

// Every file of the site with its modification time.
std::map<std::string, fs::file_time_type> mtimes(const std::string& site) {
  std::map<std::string, fs::file_time_type> out;
  for (const auto& entry : fs::recursive_directory_iterator(site))
    if (entry.is_regular_file())
      out[fs::relative(entry.path(), site).string()] = entry.last_write_time();
  return out;
}

// Every href of a page leads to a file of the site (relative links work from file://).
void check_links(const std::string& site, const std::string& page) {
  INFO(page);
  const std::string html = slurp(site + "/" + page);
  const fs::path base = fs::path(site + "/" + page).parent_path();
  std::size_t count = 0;
  const std::regex href_re("href=\"([^\"]*)\"");
  for (std::sregex_iterator it(html.begin(), html.end(), href_re), end; it != end; ++it) {
    const std::string href = (*it)[1];
    INFO(href);
    if (href.starts_with("https://")) continue;  // the feed's own URL
    CHECK(href.find(':') == std::string::npos);
    CHECK(fs::exists(base / href));
    ++count;
  }
  CHECK(count > 0);
}

}  // namespace

TEST_CASE("site writes every page of a 200-change archive and a second run only what changed",
          "[cli]") {
  HistoryArchive history;
  int ollama = 1, openai = 1;
  for (int i = 0; i < 200; ++i) {
    if (i % 10 == 9)
      history.record("openai", "history-olshansk-openai-research", openai);
    else
      history.record("ollama", "history-olshansk-ollama-raw", ollama);
  }
  const std::string site = make_temp_dir("site-out") + "/public";

  const SiteRun first = run_site(history.dir(), site);
  // 200 change pages and raw artifacts, 2 source pages, the index and the feed.
  CHECK(first.written == 200 + 200 + 2 + 2);
  CHECK(first.unchanged == 0);
  std::size_t pages = 0;
  for (const auto& entry : fs::directory_iterator(site + "/changes"))
    pages += entry.is_regular_file();
  CHECK(pages == 200);

  // The Atom feed has one entry per commit, each with its own id.
  const std::string atom = slurp(site + "/feed.atom");
  const std::string ids = run({"git", "-C", history.dir(), "log", "--format=%H", "--", "raw/"}).out;
  std::string entry_ids;
  const std::regex id_re("<id>urn:feeddiff:commit:([0-9a-f]+)</id>");
  for (std::sregex_iterator it(atom.begin(), atom.end(), id_re), end; it != end; ++it)
    entry_ids += (*it)[1].str() + "\n";
  CHECK(entry_ids == ids);
  CHECK(atom.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns="));

  // The index lists both sources with their counts; every link of the site's pages works.
  const std::string index = slurp(site + "/index.html");
  CHECK(index.find("<a href=\"sources/ollama.html\">ollama</a></th>") != std::string::npos);
  CHECK(index.find("<td class=\"num\">180</td>") != std::string::npos);
  CHECK(index.find("<td class=\"num\">20</td>") != std::string::npos);
  const std::string head = ids.substr(0, 40);
  check_links(site, "index.html");
  check_links(site, "sources/ollama.html");
  check_links(site, "changes/" + head + ".html");
  // The 200th change was openai's; its artifact is there byte for byte.
  CHECK(slurp(site + "/raw/" + head + "/response.xml") ==
        run({"git", "-C", history.dir(), "show", head + ":raw/openai/response.xml"}).out);

  // Nothing new: nothing written.
  const auto before = mtimes(site);
  const SiteRun second = run_site(history.dir(), site);
  CHECK(second.written == 0);
  CHECK(second.unchanged == 2 + 2);
  CHECK(mtimes(site) == before);

  // One more change of openai: its page and artifact, openai's page, the index, the feed.
  history.record("openai", "history-olshansk-openai-research", openai);
  const std::string new_head =
      run({"git", "-C", history.dir(), "rev-parse", "HEAD"}).out.substr(0, 40);
  const SiteRun third = run_site(history.dir(), site);
  CHECK(third.written == 5);
  const auto after = mtimes(site);
  std::set<std::string> touched;
  for (const auto& [file, time] : after)
    if (!before.count(file) || before.at(file) != time) touched.insert(file);
  const std::set<std::string> expected = {"changes/" + new_head + ".html",
                                          "raw/" + new_head + "/response.xml",
                                          "sources/openai.html",
                                          "index.html",
                                          "feed.atom",
                                          ".feeddiff-site.tsv"};
  CHECK(touched == expected);
  CHECK(slurp(site + "/feed.atom").find("urn:feeddiff:commit:" + new_head) != std::string::npos);
}

TEST_CASE("a crafted site manifest cannot make site remove anything outside its directory",
          "[cli]") {
  HistoryArchive history;
  int ollama = 1;
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  const std::string out = make_temp_dir("site-crafted");
  const std::string site = out + "/public";
  run_site(history.dir(), site);

  // Beside the site: what `raw/../../victim` and `changes/../../victim.html` name, and a
  // directory named by an absolute id (`top / "raw" / "/abs"` is "/abs").
  fs::create_directories(out + "/victim");
  spit(out + "/victim/sentinel", "keep me");
  spit(out + "/victim.html", "keep me too");
  fs::create_directories(out + "/absolute");
  spit(out + "/absolute/sentinel", "and me");
  // The rows keep the manifest's key, so the run reads them as its own.
  const std::string manifest = slurp(site + "/.feeddiff-site.tsv");
  const std::string key = manifest.substr(0, manifest.find('\n') + 1);
  std::string crafted = manifest;
  for (const std::string& id : {std::string("../../victim"), out + "/absolute", std::string("..")})
    crafted += id + "\tollama\t2025-01-01T00:00:00.000Z\t1\t1\tcrafted\t\n";
  spit(site + "/.feeddiff-site.tsv", crafted);

  auto r = run_feeddiff({"-C", history.dir(), "site", site});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("site: ignored 3 malformed rows of") != std::string::npos);
  CHECK(slurp(out + "/victim/sentinel") == "keep me");
  CHECK(slurp(out + "/victim.html") == "keep me too");
  CHECK(slurp(out + "/absolute/sentinel") == "and me");
  CHECK(fs::exists(site + "/raw"));
  // The rewritten manifest is the site's own again: the crafted rows are gone.
  CHECK(slurp(site + "/.feeddiff-site.tsv") == manifest);
  CHECK(key.starts_with("feeddiff-site "));
}
