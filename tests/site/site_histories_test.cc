// Histories, the site's history lists cut into pages: what a page's rows file and HTML hold
// after a run that filled pages, spilled its open pages past open_rows_cap and read them back,
// and resumed a list whose last run did not finish.

#include "site/site_histories.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "site/site_files.h"

namespace fs = std::filesystem;
using namespace feeddiff;
using namespace feeddiff::site;

namespace {

// A fresh directory for a site, removed afterwards.
struct SiteDir {
  fs::path path;
  SiteDir() {
    path = fs::temp_directory_path() /
           ("feeddiff-histories-" + std::to_string(::getpid()) + "-" + std::to_string(++counter()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~SiteDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

// The change numbered n of a list: an id derived from both, a title with the number.
SiteChange change_of(const std::string& list, std::size_t n) {
  SiteChange c;
  c.id = sha1_hex(list + "/" + std::to_string(n));
  c.source = list.empty() ? "all" : list;
  c.observed_at = "2026-12-07T00:00:00Z";
  c.added = n;
  c.removed = 1;
  c.title = "change " + std::to_string(n) + " of " + c.source;
  c.items = "1 added";
  c.href = "changes/" + c.id + ".html";
  return c;
}

// The titles a rows file lists, oldest first.
std::vector<std::string> titles_in(const fs::path& rows) {
  Writes writes;
  std::vector<std::string> out;
  for (const SiteChange& c : load_rows(rows, writes)) out.push_back(c.title);
  CHECK(writes.ignored == 0);
  return out;
}

std::vector<std::string> titles(const std::string& list, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t n = from; n < to; ++n) out.push_back(change_of(list, n).title);
  return out;
}

}  // namespace

TEST_CASE("history pages spilled past the open-rows cap read back whole and in order", "[site]") {
  SiteDir site;
  Writes writes;
  Histories histories(site.path, writes);
  // Enough lists that their open pages pass the cap before any fills: every open page is
  // spilled once, then read back at its next row.
  const std::size_t saved_cap = open_rows_cap;
  open_rows_cap = 400;
  struct Restore {
    std::size_t value;
    ~Restore() { open_rows_cap = value; }
  } restore{saved_cap};
  const std::size_t lists = open_rows_cap / (kSitePageSize - 3) + 3;
  const std::size_t per_list = kSitePageSize + 2;  // a full page, then two on the second
  std::vector<std::string> names;
  for (std::size_t l = 0; l < lists; ++l) names.push_back("s" + std::to_string(l));
  for (std::size_t n = 0; n < per_list; ++n)
    for (const std::string& name : names) REQUIRE(histories.append(name, n, change_of(name, n)));
  REQUIRE(histories.finish());
  for (const std::string& name : {names.front(), names[lists / 2], names.back()}) {
    CHECK(titles_in(histories.rows_path(name, 1)) == titles(name, 0, kSitePageSize));
    CHECK(titles_in(histories.rows_path(name, 2)) == titles(name, kSitePageSize, per_list));
    // The HTML lists the page's rows, newest first.
    auto html = read_file((site.path / "sources" / name / "2.html").string());
    REQUIRE(html);
    const auto newest = html->find(change_of(name, per_list - 1).id);
    const auto oldest = html->find(change_of(name, kSitePageSize).id);
    CHECK(newest != std::string::npos);
    CHECK(oldest != std::string::npos);
    CHECK(newest < oldest);
    CHECK(html->find(change_of(name, kSitePageSize - 1).id) == std::string::npos);
  }
  CHECK(writes.ignored == 0);
  // The newest rows of a list, newest first, across its pages.
  const auto newest = histories.newest(names.front(), per_list, 10);
  REQUIRE(newest.size() == 10);
  CHECK(newest.front().title == change_of(names.front(), per_list - 1).title);
  CHECK(newest.back().title == change_of(names.front(), per_list - 10).title);
}

TEST_CASE("a history page resumed at a position drops the rows an unfinished run left beyond it",
          "[site]") {
  SiteDir site;
  {
    Writes writes;
    Histories first(site.path, writes);
    for (std::size_t n = 0; n < 10; ++n) REQUIRE(first.append("feed", n, change_of("feed", n)));
    REQUIRE(first.finish());
  }
  // The next run starts at position 6: its state said six, the rows file holds ten.
  Writes writes;
  Histories next(site.path, writes);
  SiteChange replaced = change_of("other", 6);
  replaced.title = "a different sixth";
  REQUIRE(next.append("feed", 6, replaced));
  REQUIRE(next.finish());
  std::vector<std::string> want = titles("feed", 0, 6);
  want.push_back("a different sixth");
  CHECK(titles_in(next.rows_path("feed", 1)) == want);
  auto html = read_file((site.path / "sources" / "feed" / "1.html").string());
  REQUIRE(html);
  CHECK(html->find(replaced.id) != std::string::npos);
  CHECK(html->find(change_of("feed", 5).id) != std::string::npos);
  CHECK(html->find(change_of("feed", 7).id) == std::string::npos);
}
