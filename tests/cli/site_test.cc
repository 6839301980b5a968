// `feeddiff site DIR` over an archive of 200 recorded changes (two corpus histories): every
// page is there and every link leads to a file; a second run writes nothing; after one more
// change a run rewrites only that change's page and artifact, its source's page and feed and
// the newest history pages it landed on, the index and the Atom feed. Over a generated archive
// of 260 changes: history pages of kSitePageSize changes, every change reachable from the
// index, one more commit rewrites only what it touched, and a reset gives a correct site.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli/render_helpers.h"
#include "support/recorded_archive.h"

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
class HistoryArchive : public RecordedArchive {
 public:
  HistoryArchive() : RecordedArchive("site", {"ollama", "openai"}) {}

  // Commits the next version of the history that differs from the last one recorded.
  void record(const std::string& source, const std::string& history, int& next) {
    for (;; ++next) {
      if (record_body(source, slurp(version_file(history, next)), next)) {
        ++next;
        return;
      }
    }
  }

  // Commits body as the source's next version; false when it is the one recorded last.
  bool record_body(const std::string& source, const std::string& body, int etag) {
    return !RecordedArchive::record(source, body,
                                    "Final-URL: https://example.com/" + source +
                                        ".xml\nResponse-Header: etag: \"v" + std::to_string(etag) +
                                        "\"\n")
                .empty();
  }
};

// Records `count` changes of two corpus histories, one of openai's every `every`, ollama's
// between.
void record_interleaved(HistoryArchive& history, int count, int every, int& ollama, int& openai) {
  for (int i = 0; i < count; ++i) {
    if (i % every == every - 1)
      history.record("openai", "history-olshansk-openai-research", openai);
    else
      history.record("ollama", "history-olshansk-ollama-raw", ollama);
  }
}

struct SiteRun {
  std::size_t written = 0;
  std::size_t unchanged = 0;
  std::size_t rendered = 0;
  bool full = false;
};

SiteRun run_site(const std::string& archive, const std::string& out,
                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"-C", archive, "site", out};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_feeddiff(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("wrote ([0-9,]+) files?, ([0-9,]+) unchanged")));
  auto number = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return static_cast<std::size_t>(std::stoul(s));
  };
  SiteRun result{number(m[1]), number(m[2])};
  REQUIRE(std::regex_search(r.out, m, std::regex("rendered ([0-9,]+) changes?")));
  result.rendered = number(m[1]);
  result.full = r.out.find("(full build)") != std::string::npos;
  return result;
}

// The lock file a run holds: rewritten (its pid) by every run, it is no page.
constexpr const char* kLockFile = ".feeddiff-site.lock";

// Every file of the site with its modification time.
std::map<std::string, fs::file_time_type> mtimes(const std::string& site) {
  std::map<std::string, fs::file_time_type> out;
  for (const auto& entry : fs::recursive_directory_iterator(site))
    if (entry.is_regular_file() && entry.path().filename() != kLockFile)
      out[fs::relative(entry.path(), site).string()] = entry.last_write_time();
  return out;
}

// The pages a run wrote: those new or with a new modification time, but the site's own state.
std::set<std::string> touched_pages(const std::map<std::string, fs::file_time_type>& before,
                                    const std::map<std::string, fs::file_time_type>& after) {
  std::set<std::string> touched;
  for (const auto& [file, time] : after)
    if (!file.starts_with(".feeddiff-site/") && (!before.count(file) || before.at(file) != time))
      touched.insert(file);
  return touched;
}

// The relative hrefs of a page.
std::vector<std::string> hrefs(const std::string& html) {
  std::vector<std::string> out;
  const std::regex href_re("href=\"([^\"]*)\"");
  for (std::sregex_iterator it(html.begin(), html.end(), href_re), end; it != end; ++it)
    if (!(*it)[1].str().starts_with("https://")) out.push_back((*it)[1]);
  return out;
}

// The change pages reachable from index.html by following the links of the site's pages.
std::set<std::string> reachable_changes(const std::string& site) {
  std::set<std::string> seen = {"index.html"}, changes;
  std::vector<std::string> todo = {"index.html"};
  while (!todo.empty()) {
    const std::string page = todo.back();
    todo.pop_back();
    const fs::path dir = fs::path(page).parent_path();
    for (const std::string& href : hrefs(slurp(site + "/" + page))) {
      if (!href.ends_with(".html")) continue;
      const std::string target = (dir / href).lexically_normal().string();
      if (target.starts_with("changes/")) {
        changes.insert(target.substr(8, 40));
        continue;  // a change page links back only
      }
      if (seen.insert(target).second) todo.push_back(target);
    }
  }
  return changes;
}

// The changes listed on a history page.
std::size_t rows_on(const std::string& page) {
  const std::string html = slurp(page);
  const std::regex row_re("href=\"(\\.\\./)+changes/[0-9a-f]{40}\\.html\"");
  return static_cast<std::size_t>(std::distance(
      std::sregex_iterator(html.begin(), html.end(), row_re), std::sregex_iterator()));
}

std::set<std::string> line_set(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.insert(line);
  return out;
}

// Every file of the site with its bytes.
std::map<std::string, std::string> contents(const std::string& site) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(site))
    if (entry.is_regular_file() && entry.path().filename() != kLockFile)
      out[fs::relative(entry.path(), site).string()] = slurp(entry.path());
  return out;
}

std::string history_head(const HistoryArchive& history) {
  return run({"git", "-C", history.dir(), "rev-parse", "HEAD"}).out.substr(0, 40);
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
  record_interleaved(history, 200, 10, ollama, openai);
  const std::string site = make_temp_dir("site-out") + "/public";

  const SiteRun first = run_site(history.dir(), site);
  // 200 change pages and raw artifacts, 2 source pages and their feeds, the index and the
  // feed, and the history pages of 50 changes: 4 of the archive's, 4 of ollama's (180), 1 of
  // openai's (20), a page and a feed for each of the 6 items ever edited, and each source's
  // complete-history set (current.atom and .json, and its sealed archive pages) and its
  // TimeMap (one page: fewer than 1,000 versions).
  std::size_t history_files = 0;
  for (const std::string source : {"ollama", "openai"})
    for (const auto& entry : fs::directory_iterator(site + "/sources/" + source + "/history"))
      history_files += entry.is_regular_file();
  CHECK(history_files >= 4);
  // And the search page, its script and the index's files (docs/site.md, "Search").
  std::size_t search_files = 2;
  for (const auto& entry : fs::recursive_directory_iterator(site + "/search"))
    search_files += entry.is_regular_file();
  CHECK(search_files > 4);
  CHECK(first.written ==
        200 + 200 + 2 + 2 + 2 + 4 + 4 + 1 + 6 * 2 + history_files + 2 + search_files);
  CHECK(first.rendered == 200);
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
  check_links(site, "sources/ollama/4.html");
  check_links(site, "history/4.html");
  check_links(site, "changes/" + head + ".html");
  // The 200th change was openai's; its artifact is there byte for byte.
  CHECK(slurp(site + "/raw/" + head + "/response.xml.txt") ==
        run({"git", "-C", history.dir(), "show", head + ":raw/openai/response.xml"}).out);

  // Nothing new: nothing written (the source pages are not even rendered: nothing of theirs
  // changed).
  const auto before = mtimes(site);
  const SiteRun second = run_site(history.dir(), site);
  CHECK(second.written == 0);
  CHECK(second.unchanged == 5);  // the index and feed, search.html, search.js, the manifest
  CHECK(second.rendered == 0);
  CHECK(mtimes(site) == before);

  // One more change of openai: its page and artifact, openai's page, feed, history page and
  // TimeMap, the archive's new fifth history page, the index, the feed.
  history.record("openai", "history-olshansk-openai-research", openai);
  const std::string new_head =
      run({"git", "-C", history.dir(), "rev-parse", "HEAD"}).out.substr(0, 40);
  const SiteRun third = run_site(history.dir(), site);
  CHECK(third.rendered == 1);
  const std::set<std::string> expected = {"changes/" + new_head + ".html",
                                          "raw/" + new_head + "/response.xml.txt",
                                          "sources/openai.html",
                                          "sources/openai/feed.atom",
                                          "sources/openai/1.html",
                                          "sources/openai/timemap.link",
                                          "history/5.html",
                                          "index.html",
                                          "feed.atom"};
  // openai's edited items: their pages show the new version's events (the feeds of their
  // edits are unchanged); no other source's item is touched.
  std::set<std::string> touched = touched_pages(before, mtimes(site));
  std::size_t item_pages = 0, history_pages = 0, search_writes = 0;
  for (auto it = touched.begin(); it != touched.end();) {
    // The search index's tail: the shards the new words land in, its documents, the manifest.
    if (it->starts_with("search/")) {
      CHECK((it->starts_with("search/seg-") || *it == "search/manifest.json"));
      ++search_writes;
      it = touched.erase(it);
      continue;
    }
    // openai's complete-history set: its current document, and a page if one was sealed.
    if (it->starts_with("sources/openai/history/")) {
      ++history_pages;
      it = touched.erase(it);
      continue;
    }
    if (!it->starts_with("items/")) {
      ++it;
      continue;
    }
    INFO(*it);
    CHECK(it->starts_with("items/openai/"));
    CHECK(it->ends_with(".html"));
    ++item_pages;
    it = touched.erase(it);
  }
  CHECK(touched == expected);
  CHECK(search_writes >= 2);
  CHECK(third.written == expected.size() + item_pages + history_pages + search_writes);
  CHECK(slurp(site + "/feed.atom").find("urn:feeddiff:commit:" + new_head) != std::string::npos);
}

TEST_CASE("a crafted site manifest cannot make site remove anything outside its directory",
          "[cli]") {
  HistoryArchive history;
  int ollama = 1;
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  const std::string out = make_temp_dir("site-crafted");
  const std::string site = out + "/public";
  run_site(history.dir(), site);
  const std::string gone = run({"git", "-C", history.dir(), "rev-parse", "HEAD"}).out.substr(0, 40);
  REQUIRE(fs::exists(site + "/changes/" + gone + ".html"));

  // Beside the site: what `raw/../../victim` and `changes/../../victim.html` name, and a
  // directory named by an absolute id (`top / "raw" / "/abs"` is "/abs").
  fs::create_directories(out + "/victim");
  spit(out + "/victim/sentinel", "keep me");
  spit(out + "/victim.html", "keep me too");
  fs::create_directories(out + "/absolute");
  spit(out + "/absolute/sentinel", "and me");
  // Rows of the archive's history as the site keeps them; a reset makes the next run read
  // them all to find the pages of commits that left the branch.
  const std::string rows_file = site + "/.feeddiff-site/history/1.tsv";
  std::string crafted = slurp(rows_file);
  for (const std::string& id : {std::string("../../victim"), out + "/absolute", std::string("..")})
    crafted += id + "\tollama\t2025-01-01T00:00:00.000Z\t1\t1\tcrafted\t\n";
  spit(rows_file, crafted);
  REQUIRE(run({"git", "-C", history.dir(), "reset", "-q", "--hard", "HEAD~1"}).exit_code == 0);

  auto r = run_feeddiff({"-C", history.dir(), "site", site});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("site: ignored 3 malformed rows in") != std::string::npos);
  CHECK(r.out.find("(full build)") != std::string::npos);
  CHECK(slurp(out + "/victim/sentinel") == "keep me");
  CHECK(slurp(out + "/victim.html") == "keep me too");
  CHECK(slurp(out + "/absolute/sentinel") == "and me");
  CHECK(fs::exists(site + "/raw"));
  // The change that left the branch lost its page; the rows are the site's own again.
  CHECK_FALSE(fs::exists(site + "/changes/" + gone + ".html"));
  CHECK_FALSE(fs::exists(site + "/raw/" + gone));
  const std::string rows = slurp(rows_file);
  CHECK(rows.find("crafted") == std::string::npos);
  CHECK(rows.find(gone) == std::string::npos);
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 1);
}

TEST_CASE("a raw directory that links out of the site is neither written through nor emptied",
          "[cli][site]") {
  // The crafted rows above never pass is_commit_id; these ids are real commits, so the
  // symlink checks themselves are what keep the site inside DIR.
  HistoryArchive history;
  int ollama = 1;
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  const std::string kept = history_head(history);
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  const std::string gone = history_head(history);
  const std::string out = make_temp_dir("site-raw-links");
  const std::string site = out + "/public";
  run_site(history.dir(), site);

  // raw/KEPT and raw/GONE lead out of the site, to directories that must stay as they are.
  for (const char* name : {"kept-target", "gone-target"}) {
    fs::create_directories(out + "/" + name);
    spit(out + "/" + name + "/sentinel", "keep me");
  }
  for (const auto& [id, target] :
       {std::pair{kept, "kept-target"}, std::pair{gone, "gone-target"}}) {
    fs::remove_all(site + "/raw/" + id);
    fs::create_directory_symlink(out + "/" + target, site + "/raw/" + id);
  }
  // KEPT's page is rendered again (its page is missing), GONE's removed (it left the branch).
  fs::remove(site + "/changes/" + kept + ".html");
  REQUIRE(run({"git", "-C", history.dir(), "reset", "-q", "--hard", "HEAD~1"}).exit_code == 0);
  const SiteRun rebuilt = run_site(history.dir(), site);
  CHECK(rebuilt.full);
  CHECK(rebuilt.rendered == 1);

  for (const char* name : {"kept-target", "gone-target"}) {
    INFO(name);
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(out + "/" + name))
      files.insert(entry.path().filename().string());
    CHECK(files == std::set<std::string>{"sentinel"});
    CHECK(slurp(out + "/" + name + "/sentinel") == "keep me");
  }
  // The kept change's raw copy is in the site, in a directory of its own; the link is gone.
  CHECK_FALSE(fs::is_symlink(site + "/raw/" + kept));
  CHECK(slurp(site + "/raw/" + kept + "/response.xml.txt") ==
        run({"git", "-C", history.dir(), "show", kept + ":raw/ollama/response.xml"}).out);
  CHECK_FALSE(fs::exists(fs::symlink_status(site + "/raw/" + gone)));
}

// A body that a browser runs as a page when it is served as XML: XHTML with a script that
// marks the document.
constexpr const char* kScriptedXhtml =
    "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t"
    "</title></head><body><script>document.documentElement.setAttribute('data-pwned', "
    "'1')</script></body></html>\n";

TEST_CASE("a body that is XHTML with a script is published as a text file, never as a page",
          "[cli][site]") {
  HistoryArchive history;
  REQUIRE(history.record_body("ollama", kScriptedXhtml, 1));
  const std::string head = history_head(history);
  const std::string site = make_temp_dir("site-xhtml") + "/public";
  run_site(history.dir(), site);

  CHECK(slurp(site + "/raw/" + head + "/response.xml.txt") == kScriptedXhtml);
  std::size_t raw_files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(site + "/raw")) {
    if (!entry.is_regular_file()) continue;
    INFO(entry.path());
    CHECK(entry.path().extension() == ".txt");
    ++raw_files;
  }
  CHECK(raw_files == 1);
  // The link still says what the file is.
  const std::string page = slurp(site + "/changes/" + head + ".html");
  CHECK(page.find("<a href=\"../raw/" + head + "/response.xml.txt\">raw/ollama/response.xml</a>") !=
        std::string::npos);
  check_links(site, "changes/" + head + ".html");
}

TEST_CASE("a pushed commit's artifact named x.html is not published, and the run says so",
          "[cli][site]") {
  HistoryArchive history;
  int ollama = 1;
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  {
    // As someone who can push could commit it: a poll's trailers, a file poll never writes.
    auto archive = Archive::open(history.dir());
    REQUIRE(archive);
    CommitRequest request;
    request.message =
        "ollama: changed (10 bytes, HTTP 200)\n\nSource: ollama\nObserved-At: "
        "2026-01-01T00:00:00.000Z\nStatus: 200\n";
    request.author_time = request.commit_time = *parse_iso8601("2026-01-01T00:00:00Z");
    request.files.push_back({"raw/ollama/x.html", kScriptedXhtml});
    REQUIRE(archive->commit(request));
  }
  const std::string head = history_head(history);
  const std::string site = make_temp_dir("site-crafted-artifact") + "/public";
  auto r = run_feeddiff({"-C", history.dir(), "site", site});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("site: did not publish 1 raw artifact whose name feeddiff never writes "
                   "(only response.xml and response.json are published), first "
                   "raw/ollama/x.html in commit " +
                   head.substr(0, 12) + "\n") != std::string::npos);
  // Its change page is there, without a link to a raw copy; no copy under any name.
  CHECK(fs::exists(site + "/changes/" + head + ".html"));
  CHECK_FALSE(fs::exists(site + "/raw/" + head));
  CHECK(slurp(site + "/changes/" + head + ".html").find("x.html</a>") == std::string::npos);
  check_links(site, "changes/" + head + ".html");
}

TEST_CASE("a site whose raw copies kept their own names loses them on its next run",
          "[cli][site]") {
  HistoryArchive history;
  int ollama = 1;
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  const std::string head = history_head(history);
  const std::string site = make_temp_dir("site-old-raw") + "/public";
  run_site(history.dir(), site);
  // As a site written before the copies became .txt files left it: layout 2, and the copy
  // under the artifact's own name, which a host serves as XML.
  const std::string state_file = site + "/.feeddiff-site/state";
  std::string state = slurp(state_file);
  REQUIRE(state.starts_with("feeddiff-site 3 "));
  state.replace(0, 16, "feeddiff-site 2 ");
  spit(state_file, state);
  fs::remove(site + "/raw/" + head + "/response.xml.txt");
  spit(site + "/raw/" + head + "/response.xml", "the old copy");

  const SiteRun next = run_site(history.dir(), site);
  CHECK(next.full);
  CHECK_FALSE(fs::exists(site + "/raw/" + head + "/response.xml"));
  CHECK(slurp(site + "/raw/" + head + "/response.xml.txt") ==
        run({"git", "-C", history.dir(), "show", head + ":raw/ollama/response.xml"}).out);
}

TEST_CASE(
    "site pages a generated archive of 260 changes and a run after one commit writes only what "
    "it touched",
    "[cli]") {
  // 260 changes of two sources, alternating: every page boundary the site has (full history
  // pages and a part page, a source's full pages and its part page, the Atom feed cut at its
  // bound) at the smallest size that shows each; bench/scale measures site at 10k and more.
  const std::string archive = make_temp_dir("site-scale") + "/archive";
  auto generated = run({"python3", std::string(FEEDDIFF_SOURCE_DIR) + "/bench/scale/generate",
                        archive, "--changes", "260", "--sources", "2"});
  INFO(generated.err);
  REQUIRE(generated.exit_code == 0);
  const auto changes_in_git = [&] {
    return line_set(run({"git", "-C", archive, "log", "--format=%H", "--", "raw/"}).out);
  };
  REQUIRE(changes_in_git().size() == 260);
  const std::string site = make_temp_dir("site-scale-out") + "/public";
  // The Atom feed's bound, made smaller than the archive (every run passes the same one).
  const std::vector<std::string> feed_bound = {"--feed-entries", "100"};

  const SiteRun first = run_site(archive, site, feed_bound);
  CHECK(first.full);
  CHECK(first.rendered == 260);
  // Five full pages of the archive's history and a sixth of 10; each source has 130 changes,
  // two full pages and a third of 30. Page 1 holds the oldest.
  for (int n = 1; n <= 5; ++n)
    CHECK(rows_on(site + "/history/" + std::to_string(n) + ".html") == 50);
  CHECK(rows_on(site + "/history/6.html") == 10);
  CHECK_FALSE(fs::exists(site + "/history/7.html"));
  CHECK(rows_on(site + "/sources/feed-0/1.html") == 50);
  CHECK(rows_on(site + "/sources/feed-0/2.html") == 50);
  CHECK(rows_on(site + "/sources/feed-1/3.html") == 30);
  CHECK_FALSE(fs::exists(site + "/sources/feed-1/4.html"));
  const std::string oldest =
      run({"git", "-C", archive, "log", "--reverse", "--format=%H", "--", "raw/"})
          .out.substr(0, 40);
  CHECK(slurp(site + "/history/1.html").find(oldest) != std::string::npos);
  // The index, the source pages and the Atom feed are bounded.
  CHECK(rows_on(site + "/sources/feed-1.html") == 50);
  const std::string atom = slurp(site + "/feed.atom");
  std::size_t entries = 0;
  for (std::size_t at = 0; (at = atom.find("<entry>", at)) != std::string::npos; ++at) ++entries;
  CHECK(entries == 100);
  // Every change page is reachable from the index, and there is no other.
  CHECK(reachable_changes(site) == changes_in_git());
  std::size_t pages = 0;
  for (const auto& entry : fs::directory_iterator(site + "/changes"))
    pages += entry.is_regular_file();
  CHECK(pages == 260);

  // One more change of feed-1 (its 131st, the archive's 261st).
  {
    auto opened = Archive::open(archive);
    REQUIRE(opened);
    auto body = opened->read_head("raw/feed-1/response.xml");
    REQUIRE(body);
    REQUIRE(*body);
    CommitRequest request;
    request.message =
        "feed-1: changed (1 bytes, HTTP 200)\n\nSource: feed-1\nObserved-At: "
        "2026-01-01T00:00:00.000Z\nStatus: 200\n";
    request.author_time = request.commit_time = *parse_iso8601("2026-01-01T00:00:00Z");
    request.files.push_back({"raw/feed-1/response.xml", **body + "<!-- one more -->\n"});
    REQUIRE(opened->commit(request));
  }
  const std::string new_head = run({"git", "-C", archive, "rev-parse", "HEAD"}).out.substr(0, 40);
  const auto before = mtimes(site);
  const SiteRun second = run_site(archive, site, feed_bound);
  CHECK_FALSE(second.full);
  CHECK(second.rendered == 1);
  const std::set<std::string> expected = {"changes/" + new_head + ".html",
                                          "raw/" + new_head + "/response.xml.txt",
                                          "sources/feed-1.html",
                                          "sources/feed-1/feed.atom",
                                          "sources/feed-1/3.html",
                                          "sources/feed-1/timemap.link",
                                          "history/6.html",
                                          "index.html",
                                          "feed.atom"};
  CHECK(touched_pages(before, mtimes(site)) == expected);
  CHECK(second.written == expected.size());
  CHECK(rows_on(site + "/history/6.html") == 11);
  CHECK(rows_on(site + "/sources/feed-1/3.html") == 31);
  CHECK(reachable_changes(site) == changes_in_git());

  // A user's reset drops that commit and two more: the run notices the tip left the branch,
  // rebuilds the lists (re-using every page of the commits both histories share) and removes
  // the pages of the three.
  const std::set<std::string> dropped =
      line_set(run({"git", "-C", archive, "log", "-3", "--format=%H"}).out);
  REQUIRE(run({"git", "-C", archive, "reset", "-q", "--hard", "HEAD~3"}).exit_code == 0);
  const SiteRun third = run_site(archive, site, feed_bound);
  CHECK(third.full);
  CHECK(third.rendered == 0);
  CHECK(reachable_changes(site) == changes_in_git());
  for (const std::string& id : dropped) {
    CHECK_FALSE(fs::exists(site + "/changes/" + id + ".html"));
    CHECK_FALSE(fs::exists(site + "/raw/" + id));
  }
  CHECK(rows_on(site + "/history/6.html") == 8);
  CHECK_FALSE(fs::exists(site + "/history/7.html"));
  // The generator's last change was feed-1's 130th, so the reset took two of feed-1's and
  // feed-0's 130th.
  CHECK(rows_on(site + "/sources/feed-1/3.html") == 29);
  CHECK(rows_on(site + "/sources/feed-0/3.html") == 29);

  // And the next commit after the reset is an ordinary incremental run again.
  const SiteRun fourth = run_site(archive, site, feed_bound);
  CHECK_FALSE(fourth.full);
  CHECK(fourth.written == 0);
}

TEST_CASE("site built in rounds of three commits is byte for byte the site built in one round",
          "[cli]") {
  // Two sources interleaved; then ollama goes back to its first version (a revert, whose
  // items that had left the feed reappear) and on.
  HistoryArchive history;
  int ollama = 1, openai = 1;
  record_interleaved(history, 40, 4, ollama, openai);
  REQUIRE(history.record_body("ollama", slurp(version_file("history-olshansk-ollama-raw", 1)), 0));
  history.record("openai", "history-olshansk-openai-research", openai);
  history.record("ollama", "history-olshansk-ollama-raw", ollama);
  const std::string one = make_temp_dir("site-one") + "/public";
  const std::string rounds = make_temp_dir("site-rounds") + "/public";
  const auto build = [&](const std::string& site, bool in_rounds) {
    std::vector<std::string> args = {"-C", history.dir(), "site", site};
    if (in_rounds) args.insert(args.end(), {"--round", "3"});
    auto r = run_feeddiff(args);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // The run's working files go with it.
    CHECK_FALSE(fs::exists(site + "/.feeddiff-site.work"));
  };
  // Each build reads the versions of a source anew (from the cache the other left, or not).
  fs::remove_all(history.dir() + "/.git/feeddiff/cache");
  build(rounds, true);
  fs::remove_all(history.dir() + "/.git/feeddiff/cache");
  build(one, false);
  const auto pages = contents(one);
  CHECK(pages.size() > 43 * 2);
  CHECK(contents(rounds) == pages);
  // What only the source's earlier versions tell is there, so the comparison covers it.
  const std::string revert =
      run({"git", "-C", history.dir(), "log", "-1", "--skip=2", "--format=%H"}).out.substr(0, 40);
  const std::string page = slurp(one + "/changes/" + revert + ".html");
  CHECK(page.find("Reverted to") != std::string::npos);
  CHECK(page.find("reappeared") != std::string::npos);

  // A reset drops five commits: both sites lose their pages, in rounds (and chunks of ids
  // checked against the history) of three or in one.
  const std::set<std::string> dropped =
      line_set(run({"git", "-C", history.dir(), "log", "-5", "--format=%H"}).out);
  REQUIRE(run({"git", "-C", history.dir(), "reset", "-q", "--hard", "HEAD~5"}).exit_code == 0);
  build(rounds, true);
  build(one, false);
  const auto after = contents(one);
  CHECK(contents(rounds) == after);
  for (const std::string& id : dropped) {
    CHECK(after.count("changes/" + id + ".html") == 0);
    CHECK(pages.count("changes/" + id + ".html") == 1);
  }
  CHECK(after.size() < pages.size());
}
