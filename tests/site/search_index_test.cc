// The site's static search index (DIR/search/), read back with nlohmann-json: a new item's
// words posted as appeared in its change, a word edited away as gone, the documents' fields;
// sealed segments never rewritten by a later run; a reset and a fresh build giving the same
// index; feed text kept as JSON strings; and every page but search.html allowing no script.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "feeddiff/core.h"
#include "feeddiff/site.h"
#include "site/search_index_helpers.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

struct SearchItem {
  std::string guid, title, description;
};

std::string search_rss(const std::vector<SearchItem>& items) {
  std::string out = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n";
  for (const auto& i : items)
    out += "<item><guid>" + i.guid + "</guid><title>" + i.title + "</title><description>" +
           i.description + "</description></item>\n";
  return out + "</channel></rss>\n";
}

std::vector<IndexedPosting> postings_of(const std::vector<IndexedPosting>& all,
                                        const std::string& term) {
  std::vector<IndexedPosting> out;
  for (const auto& p : all)
    if (p.term == term) out.push_back(p);
  return out;
}

// Every file of a directory, by path relative to it, with its bytes.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      out[fs::relative(entry.path(), dir).string()] = *read_file(entry.path().string());
  return out;
}

// An archive whose every version adds one item ("item N", words "wordN" and "common").
std::vector<std::string> record_growing(RecordedArchive& archive, int from, int to) {
  static std::vector<SearchItem> items;
  if (from == 1) items.clear();
  std::vector<std::string> ids;
  for (int n = from; n <= to; ++n) {
    items.push_back({"g" + std::to_string(n), "Item " + std::to_string(n),
                     "word" + std::to_string(n) + " common"});
    ids.push_back(archive.record("blog", search_rss(items)));
    REQUIRE_FALSE(ids.back().empty());
  }
  return ids;
}

// Each file of a directory with its inode and modification time: a file written again, even
// with the same bytes, gets a new inode (a rename) or a new time.
std::map<std::string, std::pair<ino_t, std::int64_t>> stamps_under(const fs::path& dir) {
  std::map<std::string, std::pair<ino_t, std::int64_t>> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    if (entry.is_regular_file() && ::stat(entry.path().c_str(), &st) == 0)
      out[fs::relative(entry.path(), dir).string()] = {
          st.st_ino, std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  }
  return out;
}

// The segments a manifest lists, as (documents, sealed), newest first.
std::vector<std::pair<std::size_t, bool>> segment_shapes(const std::string& site) {
  std::vector<std::pair<std::size_t, bool>> out;
  // Held here: a range-for over a member of a temporary would outlive the temporary.
  const auto manifest = read_json_file(site + "/search/manifest.json");
  for (const auto& s : manifest.at("segments"))
    out.emplace_back(s.at("docs").get<std::size_t>(), s.at("sealed").get<bool>());
  return out;
}

// Options for a site built into a new directory, its search segments sealed at two
// documents, so that a few changes make several segments.
SiteOptions small_segments(const std::string& name) {
  SiteOptions options;
  options.dir = make_temp_dir(name) + "/public";
  options.search_segment = 2;
  return options;
}

// A fresh build of the same archive into a new directory: what a run must come to.
std::string fresh_build(RecordedArchive& recorded, const SiteOptions& options,
                        const std::string& name) {
  SiteOptions fresh = options;
  fresh.dir = make_temp_dir(name) + "/public";
  REQUIRE(build_site(recorded.open(), fresh));
  return fresh.dir;
}

}  // namespace

TEST_CASE("an item pulled from a feed posts its words as gone and one that aged out posts none",
          "[site]") {
  RecordedArchive recorded("site-search-aged", {"blog"});
  recorded.record("blog", search_rss({{"n3", "Gamma", "gammaword"},
                                      {"n2", "Beta", "betaword"},
                                      {"n1", "Alpha", "alphaword"}}));
  // n2 goes while n1, older, stays: pulled.
  const std::string pulled = recorded.record("blog", search_rss({{"n4", "Delta", "deltaword"},
                                                                 {"n3", "Gamma", "gammaword"},
                                                                 {"n1", "Alpha", "alphaword"}}));
  // n1, the oldest, goes as n5 arrives: it fell off the end of the window.
  const std::string aged = recorded.record("blog", search_rss({{"n5", "Epsilon", "epsilonword"},
                                                               {"n4", "Delta", "deltaword"},
                                                               {"n3", "Gamma", "gammaword"}}));
  SiteOptions options;
  options.dir = make_temp_dir("site-search-aged-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const auto all = read_index(options.dir);
  const auto beta = postings_of(all, "betaword");
  REQUIRE(beta.size() == 2);  // appeared in the first version, gone when pulled
  CHECK(std::count_if(beta.begin(), beta.end(),
                      [&](const auto& p) { return p.gone && p.doc.change == pulled; }) == 1);
  const auto alpha = postings_of(all, "alphaword");
  REQUIRE(alpha.size() == 1);  // appeared only: aging out posts nothing
  CHECK_FALSE(alpha[0].gone);
  CHECK(postings_of(all, "epsilonword").size() == 1);
  CHECK(postings_of(all, "epsilonword")[0].doc.change == aged);
}

TEST_CASE("the search index posts a new item's words as appeared and an edited-away word as gone",
          "[site]") {
  RecordedArchive recorded("site-search-words", {"blog"});
  const std::string first = recorded.record(
      "blog", search_rss({{"a", "Alpha Launch",
                           "&lt;p&gt;Rocket &lt;b&gt;engines&lt;/b&gt; tested&lt;/p&gt;"}}));
  const std::string second = recorded.record(
      "blog", search_rss({{"b", "Beta news", "Caf\xc3\xa9 opens"},
                          {"a", "Alpha Launch", "&lt;p&gt;Rocket boosters tested&lt;/p&gt;"}}));
  SiteOptions options;
  options.dir = make_temp_dir("site-search-words-out") + "/public";
  auto built = build_site(recorded.open(), options);
  REQUIRE(built);
  CHECK(built->indexed == 3);  // a in the first change; b and a's edit in the second

  const auto all = read_index(options.dir);
  auto engines = postings_of(all, "engines");
  REQUIRE(engines.size() == 2);
  std::map<std::string, bool> gone_by_change;
  for (const auto& p : engines) gone_by_change[p.doc.change] = p.gone;
  CHECK(gone_by_change == std::map<std::string, bool>{{first, false}, {second, true}});

  auto boosters = postings_of(all, "boosters");
  REQUIRE(boosters.size() == 1);
  CHECK(boosters[0].doc.change == second);
  CHECK_FALSE(boosters[0].gone);
  // A word in both versions of the item is posted once: where it appeared.
  auto rocket = postings_of(all, "rocket");
  REQUIRE(rocket.size() == 1);
  CHECK(rocket[0].doc.change == first);
  // Markup is not a word; ASCII letters are lowercased; UTF-8 stays whole.
  CHECK(postings_of(all, "p").empty());
  CHECK(postings_of(all, "b").empty());
  CHECK(postings_of(all, "alpha").size() == 1);
  auto cafe = postings_of(all, "caf\xc3\xa9");
  REQUIRE(cafe.size() == 1);

  const IndexedDoc& doc = cafe[0].doc;
  CHECK(doc.change == second);
  CHECK(doc.source == "blog");
  CHECK(doc.title == "Beta news");
  CHECK(doc.key.size() == 16);
  CHECK(fs::exists(options.dir + "/changes/" + doc.change + ".html"));
  CHECK(doc.observed.size() == 24);
  CHECK(doc.observed.ends_with("Z"));
}

TEST_CASE("a later site run leaves the sealed search segments byte for byte and adds the change",
          "[site]") {
  RecordedArchive recorded("site-search-seal", {"blog"});
  record_growing(recorded, 1, 10);
  SiteOptions options = small_segments("site-search-seal-out");
  auto built = build_site(recorded.open(), options);
  REQUIRE(built);
  CHECK(built->indexed == 10);

  // Ten documents, segments of two: four sealed ones merged into one of eight, then one of
  // two, newest first.
  const auto manifest = read_json_file(options.dir + "/search/manifest.json");
  REQUIRE(manifest.at("segments").size() == 2);
  CHECK(manifest.at("segments")[0].at("docs") == 2);
  CHECK(manifest.at("segments")[1].at("docs") == 8);
  CHECK(manifest.at("documents") == 10);
  std::map<std::string, std::map<std::string, std::string>> sealed;
  for (const auto& s : manifest.at("segments")) {
    CHECK(s.at("sealed") == true);
    const std::string dir = s.at("dir");
    sealed[dir] = files_under(options.dir + "/search/" + dir);
  }
  // The merged segment's term shards, written without json values, are what nlohmann's dump
  // makes of them, byte for byte.
  std::size_t shards = 0;
  for (const auto& entry :
       fs::directory_iterator(options.dir + "/search/" +
                              manifest.at("segments")[1].at("dir").get<std::string>() + "/t")) {
    const std::string text = *read_file(entry.path().string());
    const auto parsed = nlohmann::json::parse(text);
    CHECK(parsed.is_object());
    CHECK(parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) == text);
    ++shards;
  }
  CHECK(shards > 0);
  // Only the segments listed are left (the four merged ones went).
  std::size_t dirs = 0;
  for (const auto& entry : fs::directory_iterator(options.dir + "/search"))
    dirs += entry.is_directory() ? 1 : 0;
  CHECK(dirs == 2);

  const std::string eleventh = record_growing(recorded, 11, 11).front();
  auto again = build_site(recorded.open(), options);
  REQUIRE(again);
  CHECK_FALSE(again->full_build);
  CHECK(again->indexed == 1);
  const auto after = read_json_file(options.dir + "/search/manifest.json");
  REQUIRE(after.at("segments").size() == 3);
  CHECK(after.at("segments")[0].at("sealed") == false);
  CHECK(after.at("segments")[0].at("docs") == 1);
  for (const auto& [dir, files] : sealed)
    CHECK(files_under(options.dir + "/search/" + dir) == files);

  const auto all = read_index(options.dir);
  auto word = postings_of(all, "word11");
  REQUIRE(word.size() == 1);
  CHECK(word[0].doc.change == eleventh);
  CHECK(postings_of(all, "common").size() == 11);

  // The same archive built at once gives the same index.
  const std::string fresh = fresh_build(recorded, options, "site-search-seal-fresh");
  CHECK(index_facts(fresh) == index_facts(options.dir));
}

TEST_CASE("after a reset the search index is rebuilt to what a fresh build makes", "[site]") {
  RecordedArchive recorded("site-search-reset", {"blog"});
  const auto ids = record_growing(recorded, 1, 6);
  SiteOptions options = small_segments("site-search-reset-out");
  REQUIRE(build_site(recorded.open(), options));
  REQUIRE_FALSE(postings_of(read_index(options.dir), "word6").empty());

  auto reset = run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", ids[3]});
  REQUIRE(reset.exit_code == 0);
  const std::string other = recorded.record(
      "blog", search_rss({{"g1", "Item 1", "word1 common"}, {"x", "Other", "replacement"}}));
  auto rebuilt = build_site(recorded.open(), options);
  REQUIRE(rebuilt);
  CHECK(rebuilt->full_build);
  const auto all = read_index(options.dir);
  CHECK(postings_of(all, "word6").size() == 0);
  CHECK(postings_of(all, "word5").size() == 0);
  REQUIRE(postings_of(all, "replacement").size() == 1);
  CHECK(postings_of(all, "replacement")[0].doc.change == other);

  const std::string fresh = fresh_build(recorded, options, "site-search-reset-fresh");
  CHECK(index_facts(fresh) == index_facts(options.dir));
  CHECK(read_file(fresh + "/search/manifest.json")->size() ==
        read_file(options.dir + "/search/manifest.json")->size());

  // An index gone missing is rebuilt by the next run, pages re-used.
  fs::remove(options.dir + "/search/manifest.json");
  auto restored = build_site(recorded.open(), options);
  REQUIRE(restored);
  CHECK(restored->full_build);
  CHECK(restored->rendered == 0);
  CHECK(index_facts(fresh) == index_facts(options.dir));
}

TEST_CASE("a reset keeps the search segments both histories share and reads none of their changes",
          "[site]") {
  RecordedArchive recorded("site-search-keep", {"blog"});
  const auto ids = record_growing(recorded, 1, 10);
  SiteOptions options = small_segments("site-search-keep-out");
  REQUIRE(build_site(recorded.open(), options));
  // Ten documents: one segment of changes 1 to 8 (four merged), one of changes 9 and 10.
  const auto manifest = read_json_file(options.dir + "/search/manifest.json");
  REQUIRE(manifest.at("segments").size() == 2);
  REQUIRE(manifest.at("segments")[1].at("docs") == 8);
  const fs::path shared =
      options.dir + "/search/" + manifest.at("segments")[1].at("dir").get<std::string>();
  const auto stamps = stamps_under(shared);
  const auto bytes = files_under(shared);
  REQUIRE(stamps.size() > 2);

  // Back to change 9, then another version: change 9's document comes back from the files of
  // the segment the histories part in, the new one from its change; 1 to 8 are not read.
  REQUIRE(run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", ids[8]}).exit_code == 0);
  std::vector<SearchItem> items;
  for (int n = 1; n <= 9; ++n)
    items.push_back({"g" + std::to_string(n), "Item " + std::to_string(n),
                     "word" + std::to_string(n) + " common"});
  items.push_back({"x", "Other", "replacement"});
  const std::string other = recorded.record("blog", search_rss(items));
  auto rebuilt = build_site(recorded.open(), options);
  REQUIRE(rebuilt);
  CHECK(rebuilt->full_build);
  CHECK(rebuilt->rendered == 1);
  CHECK(rebuilt->indexed == 2);
  CHECK(stamps_under(shared) == stamps);
  CHECK(files_under(shared) == bytes);
  const auto all = read_index(options.dir);
  CHECK(postings_of(all, "word10").empty());
  REQUIRE(postings_of(all, "word9").size() == 1);
  CHECK(postings_of(all, "word9")[0].doc.change == ids[8]);
  REQUIRE(postings_of(all, "replacement").size() == 1);
  CHECK(postings_of(all, "replacement")[0].doc.change == other);

  const std::string fresh = fresh_build(recorded, options, "site-search-keep-fresh");
  CHECK(index_facts(fresh) == index_facts(options.dir));
  CHECK(segment_shapes(fresh) == segment_shapes(options.dir));

  // Back into the merged segment: its first six changes' documents come from its files and
  // the index has the shape a fresh build gives.
  REQUIRE(run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", ids[5]}).exit_code == 0);
  auto deeper = build_site(recorded.open(), options);
  REQUIRE(deeper);
  CHECK(deeper->full_build);
  CHECK(deeper->rendered == 0);
  CHECK(deeper->indexed == 6);
  SiteOptions again = options;
  again.dir = make_temp_dir("site-search-keep-again") + "/public";
  REQUIRE(build_site(recorded.open(), again));
  CHECK(index_facts(again.dir) == index_facts(options.dir));
  CHECK(segment_shapes(again.dir) == segment_shapes(options.dir));
  CHECK(postings_of(read_index(options.dir), "word7").empty());
  CHECK(postings_of(read_index(options.dir), "word6").size() == 1);
  CHECK_FALSE(fs::exists(shared));  // its documents are in new segments; it went
}

TEST_CASE("a hostile item title is kept in the search index as a JSON string", "[site]") {
  RecordedArchive recorded("site-search-hostile", {"blog"});
  recorded.record(
      "blog",
      search_rss({{"h", "&lt;script&gt;alert(\"x\")&lt;/script&gt; 'quoted' \xe2\x80\xae tail",
                   "payload"}}));
  SiteOptions options;
  options.dir = make_temp_dir("site-search-hostile-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const auto hits = postings_of(read_index(options.dir), "payload");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].doc.title == "<script>alert(\"x\")</script> 'quoted' \xe2\x80\xae tail");
  REQUIRE(postings_of(read_index(options.dir), "script").size() == 1);
}

TEST_CASE("every site page but search.html allows no script, and the index links the search",
          "[site]") {
  RecordedArchive recorded("site-search-csp", {"blog"});
  record_growing(recorded, 1, 2);
  SiteOptions options;
  options.dir = make_temp_dir("site-search-csp-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  std::size_t pages = 0;
  for (const auto& entry : fs::recursive_directory_iterator(options.dir)) {
    // .feeddiff-site/ keeps fragments of pages, not pages.
    if (entry.path().extension() != ".html" ||
        entry.path().string().find(".feeddiff-site") != std::string::npos)
      continue;
    const std::string page = *read_file(entry.path().string());
    ++pages;
    if (entry.path().filename() == "search.html") {
      CHECK(page.find("content=\"default-src 'none'; script-src 'self'; connect-src 'self'; "
                      "style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'\"") !=
            std::string::npos);
      CHECK(page.find("<script src=\"search.js\"></script>") != std::string::npos);
      CHECK(page.find("<form method=\"get\" action=\"search.html\"") != std::string::npos);
      CHECK(page.find("python3 -m http.server") != std::string::npos);
      CHECK(page.find("feeddiff search") != std::string::npos);
    } else {
      INFO(entry.path());
      CHECK(page.find("script-src 'none'") != std::string::npos);
      CHECK(page.find("<script") == std::string::npos);
    }
  }
  CHECK(pages > 3);
  CHECK(fs::is_regular_file(options.dir + "/search.js"));
  CHECK(read_file(options.dir + "/index.html")->find("<a href=\"search.html\">Search</a>") !=
        std::string::npos);
  CHECK(read_file(options.dir + "/sources/blog.html")->find("href=\"../search.html\"") !=
        std::string::npos);
}

TEST_CASE("search tokens drop runs over 64 bytes and an item counts 2,000 distinct words",
          "[site]") {
  RecordedArchive recorded("site-search-tokens", {"blog"});
  std::string many;
  for (int n = 0; n < 2500; ++n) many += "w" + std::to_string(10000 + n) + " ";
  const std::string longest(64, 'x'), too_long(65, 'y');
  recorded.record("blog", search_rss({{"t", "Tokens", longest + " " + too_long + " MiXeD-case_2x"},
                                      {"m", "Many", many}}));
  SiteOptions options;
  options.dir = make_temp_dir("site-search-tokens-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const auto all = read_index(options.dir);
  CHECK(postings_of(all, longest).size() == 1);
  CHECK(postings_of(all, too_long).empty());
  CHECK(postings_of(all, "mixed").size() == 1);
  CHECK(postings_of(all, "case").size() == 1);
  CHECK(postings_of(all, "2x").size() == 1);
  std::size_t words_of_many = 0;
  for (const auto& p : all) words_of_many += p.doc.title == "Many" ? 1 : 0;
  // Its title's word and the first 1,999 of the description, in text order.
  CHECK(words_of_many == 2000);
  CHECK(postings_of(all, "w11998").size() == 1);
  CHECK(postings_of(all, "w11999").empty());
}
