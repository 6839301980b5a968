// The per-source index (.git/feeddiff/index/) answers `log raw/NAME` exactly as
// `git log --format=%H -- raw/NAME/` does, after polls, a user's reset and own commits, and
// whatever happens to its files; and it holds, per source, as many records as git counts.

#include <sched.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "feeddiff/store.h"
#include "store/source_index.h"
#include "store/source_index_split.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::git_out;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;
using feeddiff::test::spit;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kSources = {"alpha", "beta", "gamma", "Delta.feed", "e_5", "zeta"};

// A version commit as poll makes it: title, Source trailer, one file under raw/<source>/.
CommitRequest version(const std::string& source, const std::string& body, TimeMs when) {
  CommitRequest r;
  r.message = source + ": changed (" + std::to_string(body.size()) +
              " bytes, HTTP 200)\n\nSource: " + source +
              "\nObserved-At: 2026-10-01T05:54:04.027Z\nStatus: 200\n";
  r.author_time = r.commit_time = when;
  r.files.push_back({"raw/" + source + "/response.xml", body});
  return r;
}

// Polls, adds, removes and config edits, at random but the same each run.
void random_history(Archive& archive, std::mt19937& rng, int commits) {
  TimeMs when = 1'790'830'982'000;
  std::uniform_int_distribution<std::size_t> pick(0, kSources.size() - 1);
  std::uniform_int_distribution<int> kind(0, 19);
  int made = 0;
  while (made < commits) {
    const bool batch = kind(rng) < 10;
    if (batch) REQUIRE(archive.begin_batch());
    for (int i = 0; i < (batch ? 5 : 1); ++i, ++made) {
      const std::string& s = kSources[pick(rng)];
      when += 60'000;
      const int k = kind(rng);
      CommitRequest r;
      if (k == 0) {
        // `remove`: Source trailer, deletes raw/<s>/ and edits feeddiff.toml.
        r.message = s + ": removed\n\nSource: " + s + "\n";
        r.author_time = r.commit_time = when;
        r.files.push_back({"feeddiff.toml", "# " + std::to_string(when) + "\n"});
        r.files.push_back({"raw/" + s + "/response.xml", std::nullopt});
      } else if (k == 1) {
        // `add`: Source trailer, but only feeddiff.toml changes.
        r.message = s + ": source added\n\nSource: " + s + "\nURL: http://x/\n";
        r.author_time = r.commit_time = when;
        r.files.push_back({"feeddiff.toml", "# added " + std::to_string(when) + "\n"});
      } else if (k == 3) {
        // An article version (docs/articles.md): articles/<s>/<hh>/<key>/, nothing in raw/.
        r.message =
            s + ": article changed: A headline\n\nSource: " + s + "\nChange-Class: article\n";
        r.author_time = r.commit_time = when;
        r.files.push_back({"articles/" + s + "/0" + std::to_string(rng() % 3) + "/key/article.txt",
                           "text " + std::to_string(rng() % 4) + "\n"});
      } else if (k == 2) {
        // A body moving from XML to JSON: two files of one source.
        r = version(s, "{}", when);
        r.files[0].path = "raw/" + s + "/response.json";
        r.files.push_back({"raw/" + s + "/response.xml", std::nullopt});
      } else {
        r = version(s, "<rss>" + std::to_string(rng() % 4) + "</rss>", when);
      }
      auto c = archive.commit(r);
      REQUIRE(c);
    }
    if (batch) REQUIRE(archive.end_batch());
  }
}

std::vector<std::string> git_log(const std::string& dir, const std::string& source,
                                 const std::string& root = "raw") {
  std::vector<std::string> out;
  std::istringstream in(git_out(dir, {"log", "--format=%H", "--", root + "/" + source + "/"}));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> index_log(const std::string& dir, const std::string& source,
                                   std::size_t limit = 0, const std::string& root = "raw") {
  auto archive = Archive::open(dir);
  REQUIRE(archive);
  auto log = archive->log(root + "/" + source, limit);
  INFO((log ? "" : log.error().message));
  REQUIRE(log);
  std::vector<std::string> out;
  for (const auto& c : *log) out.push_back(c.id);
  return out;
}

// The index's tip: each escaped source name's record count.
std::map<std::string, std::string> tip_counts(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::istringstream in(slurp(dir + "/.git/feeddiff/index/tip"));
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("source ")) {
      const auto space = line.find(' ', 7);
      out[line.substr(space + 1)] = line.substr(7, space - 7);
    }
  return out;
}

std::string escaped(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

// Every source (and the names only a user's commit made), by log, log -n 2 and the ids
// alone, agrees with git; and the written index holds git's count for each.
void check_agrees(const std::string& dir, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> names = kSources;
  names.insert(names.end(), extra.begin(), extra.end());
  for (const auto& name : names) {
    INFO("source " << name);
    const auto expected = git_log(dir, name);
    CHECK(index_log(dir, name) == expected);
    const std::vector<std::string> first_two(
        expected.begin(), expected.begin() + std::min<std::size_t>(2, expected.size()));
    CHECK(index_log(dir, name, 2) == first_two);
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    auto ids = archive->source_commit_ids(name);
    REQUIRE(ids);
    CHECK(*ids == expected);
    auto oids = archive->source_commit_oids(name);
    REQUIRE(oids);
    std::vector<std::string> hex;
    for (const auto& oid : *oids) hex.push_back(hex_encode(oid.data(), oid.size()));
    CHECK(hex == expected);
    // Its article versions, from the same index.
    CHECK(index_log(dir, name, 0, "articles") == git_log(dir, name, "articles"));
  }
  // The reads above took the free lock and wrote what they caught up.
  const auto counts = tip_counts(dir);
  for (const auto& name : names) {
    INFO("source " << name);
    const auto n = git_log(dir, name).size();
    const auto it = counts.find(escaped(name));
    if (n == 0)
      CHECK(it == counts.end());
    else
      CHECK((it != counts.end() && it->second == std::to_string(n)));
    // The article versions under their own key, "articles/NAME" escaped.
    const auto articles = git_log(dir, name, "articles").size();
    const auto a = counts.find("articles%2F" + escaped(name));
    if (articles == 0)
      CHECK(a == counts.end());
    else
      CHECK((a != counts.end() && a->second == std::to_string(articles)));
  }
}

std::string user_commit(const std::string& dir, const std::string& path, const std::string& body,
                        const std::string& message) {
  fs::create_directories(fs::path(dir + "/" + path).parent_path());
  spit(dir + "/" + path, body);
  git_out(dir, {"add", path});
  git_out(dir, {"-c", "user.name=Someone", "-c", "user.email=someone@example.org", "commit", "-q",
                "-m", message});
  return git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40);
}

// A new archive in a temporary directory named after `name`, with `commits` random ones.
std::string random_archive(const std::string& name, unsigned seed, int commits) {
  const std::string dir = make_temp_dir(name);
  auto archive = Archive::init(dir, 1'790'830'000'000);
  REQUIRE(archive);
  std::mt19937 rng(seed);
  random_history(*archive, rng, commits);
  return dir;
}

std::string generation_file(const std::string& dir, const std::string& name) {
  for (const auto& e : fs::directory_iterator(dir + "/.git/feeddiff/index"))
    if (e.is_directory()) return e.path().string() + "/" + escaped(name);
  return {};
}

}  // namespace

TEST_CASE("the source index agrees with git log after random polls", "[store][index]") {
  const std::string dir = make_temp_dir("index-random");
  auto archive = Archive::init(dir, 1'790'830'000'000);
  REQUIRE(archive);
  std::mt19937 rng(20261004);
  random_history(*archive, rng, 400);
  // The writers kept it: the tip names the branch's head.
  CHECK(slurp(dir + "/.git/feeddiff/index/tip")
            .find(git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40)) != std::string::npos);
  check_agrees(dir);
}

TEST_CASE("a source whose name ends another's is read from its own line of the index's tip",
          "[store][index]") {
  const std::string dir = make_temp_dir("index-suffix");
  auto archive = Archive::init(dir, 1'790'830'000'000);
  REQUIRE(archive);
  // Different counts, so that a reader given another's line answers wrongly.
  const std::vector<std::string> names = {"feed", "a-feed", "b.feed", "feed2", "alpha"};
  TimeMs when = 1'790'830'982'000;
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t v = 0; v <= i; ++v)
      REQUIRE(archive->commit(version(names[i], std::to_string(v), when += 60'000)));
  // The index is at the head: readers take the tip's line for the one source.
  CHECK(slurp(dir + "/.git/feeddiff/index/tip")
            .find(git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40)) != std::string::npos);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(index_log(dir, names[i]).size() == i + 1);
  }
  check_agrees(dir, {"feed", "a-feed", "b.feed", "feed2"});
  // A name the tip does not list has no versions.
  auto reopened = Archive::open(dir);
  REQUIRE(reopened);
  auto none = reopened->source_commit_oids("eed");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("the source index is rebuilt after a user's reset, and follows the new commits",
          "[store][index]") {
  const std::string dir = random_archive("index-reset", 7, 120);
  check_agrees(dir);
  git_out(dir, {"reset", "-q", "--hard", "HEAD~5"});
  // Read before any writer saw the reset: the tip is no ancestor of HEAD any more.
  check_agrees(dir);
  {
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    std::mt19937 rng(8);
    random_history(*archive, rng, 30);
  }
  check_agrees(dir);
  // An amended head: same depth, other commit.
  git_out(dir, {"-c", "user.name=Someone", "-c", "user.email=someone@example.org", "commit", "-q",
                "--amend", "-m", "amended"});
  check_agrees(dir);
}

TEST_CASE(
    "after the newest commits are rewritten the source index rewinds to the shared "
    "commit instead of rebuilding, and agrees with a full walk",
    "[store][index]") {
  const std::string dir = random_archive("index-rewind", 21, 80);
  check_agrees(dir);
  // The root commit (loose: init writes it outside a batch) hidden: a full rebuild walks
  // down to it and would fail; a rewind reads only the commits above the shared one.
  const std::string root = git_out(dir, {"rev-list", "--max-parents=0", "HEAD"}).substr(0, 40);
  const std::string object = dir + "/.git/objects/" + root.substr(0, 2) + "/" + root.substr(2);
  REQUIRE(fs::exists(object));
  fs::rename(object, object + ".away");
  // What a sync's replay does to the newest commits: the branch leaves the index's tip for
  // commits made on an older one (same depth, other ids), then more commits on top.
  git_out(dir, {"reset", "-q", "--hard", "HEAD~6"});
  {
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    std::mt19937 rng(22);
    random_history(*archive, rng, 9);  // each commit's writer brings the index up to it
  }
  CHECK(slurp(dir + "/.git/feeddiff/index/tip")
            .find(git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40)) != std::string::npos);
  // A reader after a reset past the tip (no writer in between) rewinds in memory too.
  git_out(dir, {"reset", "-q", "--hard", "HEAD~3"});
  for (const auto& name : kSources) {
    INFO("source " << name);
    // git stops at its second commit, above the hidden root (every source has two by then).
    const std::string two =
        git_out(dir, {"log", "-n", "2", "--format=%H", "--", "raw/" + name + "/"});
    std::vector<std::string> expected;
    std::istringstream in(two);
    for (std::string line; std::getline(in, line);) expected.push_back(line);
    REQUIRE(expected.size() == 2);
    CHECK(index_log(dir, name, 2) == expected);
  }
  fs::rename(object + ".away", object);
  check_agrees(dir);
}

TEST_CASE("the source index sees a user's own commits, with or without a trailer",
          "[store][index]") {
  const std::string dir = random_archive("index-user", 11, 60);
  check_agrees(dir);
  const std::string own =
      user_commit(dir, "raw/beta/response.xml", "<rss>by hand</rss>", "edit beta");
  const std::string readme = user_commit(dir, "README", "notes\n", "notes");
  // A hand-made commit that looks like poll's but touches two sources and a new name.
  fs::create_directories(dir + "/raw/gamma");
  spit(dir + "/raw/gamma/response.xml", "<rss>forged</rss>");
  spit(dir + "/raw/alpha/response.xml", "<rss>also</rss>");
  user_commit(dir, "raw/newcomer/response.xml", "<rss/>",
              "gamma: changed (17 bytes, HTTP 200)\n\nSource: gamma");
  git_out(dir, {"add", "-A", "raw"});
  git_out(dir, {"-c", "user.name=Someone", "-c", "user.email=someone@example.org", "commit", "-q",
                "-m", "gamma: changed (17 bytes, HTTP 200)\n\nSource: gamma"});
  check_agrees(dir, {"newcomer"});
  CHECK(index_log(dir, "beta", 5).size() >= 1);
  const auto beta = index_log(dir, "beta");
  CHECK(std::find(beta.begin(), beta.end(), own) != beta.end());
  for (const auto& name : kSources) {
    const auto ids = index_log(dir, name);
    CHECK(std::find(ids.begin(), ids.end(), readme) == ids.end());
  }
  // And after more polls on top.
  {
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    std::mt19937 rng(12);
    random_history(*archive, rng, 25);
  }
  check_agrees(dir, {"newcomer"});
}

TEST_CASE(
    "a commit forged under feeddiff's own name with a poll's title is indexed under "
    "every source it rewrites",
    "[store][index]") {
  const std::string dir = random_archive("index-forged", 31, 40);
  check_agrees(dir);
  // Titled and trailered as gamma's poll, by feeddiff <feeddiff@localhost> (a replay keeps
  // the author and committer of what others pushed), and rewriting alpha too.
  fs::create_directories(dir + "/raw/gamma");
  fs::create_directories(dir + "/raw/alpha");
  spit(dir + "/raw/gamma/response.xml", "<rss>forged</rss>");
  spit(dir + "/raw/alpha/response.xml", "<rss>slipped in</rss>");
  git_out(dir, {"add", "-A", "raw"});
  git_out(dir, {"-c", "user.name=feeddiff", "-c", "user.email=feeddiff@localhost", "commit", "-q",
                "-m", "gamma: changed (17 bytes, HTTP 200)\n\nSource: gamma"});
  REQUIRE(git_out(dir, {"log", "-1", "--format=%an <%ae> %cn <%ce>"}) ==
          "feeddiff <feeddiff@localhost> feeddiff <feeddiff@localhost>\n");
  const std::string forged = git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40);
  // Caught up from the tip, as the next reader does.
  const auto alpha = index_log(dir, "alpha", 1);
  CHECK(alpha == std::vector<std::string>{forged});
  check_agrees(dir);
  // Rebuilt from the root.
  fs::remove_all(dir + "/.git/feeddiff/index");
  CHECK(index_log(dir, "alpha", 1) == std::vector<std::string>{forged});
  check_agrees(dir);
}

// Every file of the index, with its bytes.
std::map<std::string, std::string> index_files(const std::string& dir) {
  std::map<std::string, std::string> out;
  const std::string index = dir + "/.git/feeddiff/index";
  for (const auto& e : fs::recursive_directory_iterator(index))
    if (e.is_regular_file()) out[fs::relative(e.path(), index).string()] = slurp(e.path());
  return out;
}

TEST_CASE("a source index caught up in chunks of seven commits is the one caught up at once",
          "[store][index]") {
  const std::string dir = random_archive("index-chunks", 11, 150);
  const std::string index = dir + "/.git/feeddiff/index";
  struct Chunk {
    explicit Chunk(std::size_t n) : saved(source_index::catch_up_chunk) {
      source_index::catch_up_chunk = n;
    }
    ~Chunk() { source_index::catch_up_chunk = saved; }
    std::size_t saved;
  };
  // Rebuilt from nothing at once, then in chunks: the same files, byte for byte.
  fs::remove_all(index);
  check_agrees(dir);
  const auto whole = index_files(dir);
  fs::remove_all(index);
  {
    const Chunk small(7);
    check_agrees(dir);
  }
  CHECK(index_files(dir) == whole);
  // After a user's reset, writers in chunks catch up, rewind and follow.
  {
    const Chunk small(7);
    git_out(dir, {"reset", "-q", "--hard", "HEAD~12"});
    check_agrees(dir);
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    std::mt19937 rng(12);
    random_history(*archive, rng, 40);
    check_agrees(dir);
  }
  // And the counts of an index rebuilt at once over the same history.
  const auto chunked = tip_counts(dir);
  fs::remove_all(index);
  check_agrees(dir);
  CHECK(tip_counts(dir) == chunked);
}

TEST_CASE("a deleted, truncated or garbled source index is rebuilt, never believed",
          "[store][index]") {
  const std::string dir = random_archive("index-damage", 3, 150);
  const std::string index = dir + "/.git/feeddiff/index";
  REQUIRE(fs::exists(index + "/tip"));

  SECTION("deleted") {
    fs::remove_all(index);
    check_agrees(dir);
    CHECK(fs::exists(index + "/tip"));
  }
  SECTION("a file truncated to a whole number of records") {
    const std::string file = generation_file(dir, "alpha");
    REQUIRE(fs::file_size(file) >= 56);
    fs::resize_file(file, fs::file_size(file) - 28);
    check_agrees(dir);
  }
  SECTION("a file with a torn last record") {
    const std::string file = generation_file(dir, "gamma");
    REQUIRE(fs::file_size(file) >= 28);
    fs::resize_file(file, fs::file_size(file) - 5);
    check_agrees(dir);
  }
  SECTION("a record's byte flipped") {
    const std::string file = generation_file(dir, "beta");
    std::string bytes = slurp(file);
    REQUIRE(bytes.size() >= 28);
    bytes[bytes.size() - 20] ^= 0x40;
    spit(file, bytes);
    check_agrees(dir);
  }
  SECTION("a garbled tip") {
    std::string tip = slurp(index + "/tip");
    const auto at = tip.find("source ");
    REQUIRE(at != std::string::npos);
    tip[at + 7] = tip[at + 7] == '1' ? '2' : '1';  // another count, the checksum unchanged
    spit(index + "/tip", tip);
    check_agrees(dir);
  }
  SECTION("a tip cut short") {
    spit(index + "/tip", slurp(index + "/tip").substr(0, 60));
    check_agrees(dir);
  }
  SECTION("records past the tip, as a killed writer leaves them") {
    const std::string file = generation_file(dir, "zeta");
    const std::string bytes = slurp(file);
    REQUIRE(bytes.size() >= 28);
    spit(file, bytes + bytes.substr(0, 28));
    check_agrees(dir);
    // The next writer that appends for zeta drops the leftover first.
    {
      auto archive = Archive::open(dir);
      REQUIRE(archive);
      REQUIRE(archive->commit(version("zeta", "<rss>after the leftover</rss>", 1'800'000'000'000)));
    }
    CHECK(fs::file_size(generation_file(dir, "zeta")) == bytes.size() + 28);
    check_agrees(dir);
  }
}

TEST_CASE("a reader catches the index up in memory while a writer holds the lock",
          "[store][index]") {
  const std::string dir = random_archive("index-reader", 5, 40);
  const std::string tip = slurp(dir + "/.git/feeddiff/index/tip");
  const std::string own = user_commit(dir, "raw/alpha/response.xml", "<rss>hand</rss>", "edit");
  auto writer = Archive::open(dir);
  REQUIRE(writer);
  {
    auto lock = ArchiveLock::acquire(*writer, false);
    REQUIRE(lock);
    CHECK(index_log(dir, "alpha", 1) == std::vector<std::string>{own});
    CHECK(index_log(dir, "alpha") == git_log(dir, "alpha"));
    CHECK(slurp(dir + "/.git/feeddiff/index/tip") == tip);  // not written: the lock was taken
  }
  CHECK(index_log(dir, "alpha", 1) == std::vector<std::string>{own});
  CHECK(slurp(dir + "/.git/feeddiff/index/tip") != tip);
  check_agrees(dir);
}

TEST_CASE("source_change_at agrees with git log -1 --first-parent REV -- raw/NAME/",
          "[store][index]") {
  const std::string dir = random_archive("change-at", 21, 80);
  user_commit(dir, "README", "notes\n", "notes");  // a commit poll did not make, at the head
  std::vector<std::string> revs;
  const std::string list = git_out(dir, {"rev-list", "--first-parent", "HEAD"});
  for (std::size_t at = 0, k = 0; at < list.size(); ++k) {
    const std::size_t nl = list.find('\n', at);
    if (k % 7 == 0 || nl + 1 == list.size()) revs.push_back(list.substr(at, nl - at));
    at = nl + 1;
  }
  REQUIRE(revs.size() > 10);
  // Then again with the index deleted: the first question rebuilds it.
  for (const bool deleted : {false, true}) {
    if (deleted) fs::remove_all(dir + "/.git/feeddiff/index");
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    for (const auto& rev : revs)
      for (const auto& name : kSources) {
        std::string expected = git_out(
            dir, {"log", "-1", "--first-parent", "--format=%H", rev, "--", "raw/" + name + "/"});
        if (!expected.empty()) expected.pop_back();
        auto got = archive->source_change_at(name, rev);
        REQUIRE(got);
        INFO(rev << " " << name);
        CHECK((*got ? (*got)->id : std::string()) == expected);
      }
  }
}

TEST_CASE(
    "the source index agrees with git in either layout, for names git sorts around '/', and "
    "indexes a commit that rewrites two sources of one bucket under both",
    "[store][index]") {
  // git orders a directory as if its name ended in '/': "a-b" and "a.b" before "a", "a0"
  // after it. Two of the names share a fan-out bucket, found here rather than written down.
  std::vector<std::string> names = {"a", "a-b", "a.b", "a0", "ab"};
  std::string twin;
  for (int i = 0; twin.empty(); ++i)
    if (const std::string n = "b" + std::to_string(i); fanout_bucket(n) == fanout_bucket("a"))
      twin = n;
  names.push_back(twin);
  for (const Layout layout : {Layout::flat, Layout::fanout}) {
    INFO(layout_name(layout));
    const std::string dir = make_temp_dir("index-layout");
    auto archive = Archive::init(dir, 1'790'830'000'000);
    REQUIRE(archive);
    std::mt19937 rng(7);
    TimeMs when = 1'790'830'982'000;
    for (int i = 0; i < 60; ++i) {
      const std::string& s = names[rng() % names.size()];
      when += 60'000;
      CommitRequest r = version(s, "<rss>" + std::to_string(rng() % 5) + "</rss>", when);
      r.files[0].path = source_dir(s, layout) + "response.xml";
      REQUIRE(archive->commit(r));
    }
    // Under poll's name and title for "a", rewriting its bucket's twin too.
    CommitRequest forged = version("a", "<rss>forged</rss>", when + 60'000);
    forged.files[0].path = source_dir("a", layout) + "response.xml";
    forged.files.push_back({source_dir(twin, layout) + "response.xml", "<rss>slipped</rss>"});
    REQUIRE(archive->commit(forged));
    const std::string forged_id = git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40);
    for (const bool rebuilt : {false, true}) {
      if (rebuilt) fs::remove_all(dir + "/.git/feeddiff/index");
      auto reader = Archive::open(dir);
      REQUIRE(reader);
      for (const auto& name : names) {
        INFO("source " << name << (rebuilt ? ", rebuilt" : ""));
        std::vector<std::string> expected;
        std::istringstream in(git_out(dir, {"log", "--format=%H", "--", source_dir(name, layout)}));
        for (std::string line; std::getline(in, line);) expected.push_back(line);
        REQUIRE(!expected.empty());
        auto ids = reader->source_commit_ids(name);
        REQUIRE(ids);
        CHECK(*ids == expected);
        if (name == twin) CHECK(ids->front() == forged_id);
      }
    }
  }
}

TEST_CASE("changed_only_source agrees with git diff on every commit, and sees through a forgery",
          "[store][index]") {
  const std::string dir = random_archive("only-source", 41, 80);
  // Under poll's name and title for gamma, rewriting alpha too.
  fs::create_directories(dir + "/raw/gamma");
  fs::create_directories(dir + "/raw/alpha");
  spit(dir + "/raw/gamma/response.xml", "<rss>forged</rss>");
  spit(dir + "/raw/alpha/response.xml", "<rss>slipped in</rss>");
  git_out(dir, {"add", "-A", "raw"});
  git_out(dir, {"-c", "user.name=feeddiff", "-c", "user.email=feeddiff@localhost", "commit", "-q",
                "-m", "gamma: changed (17 bytes, HTTP 200)\n\nSource: gamma"});
  const std::string forged = git_out(dir, {"rev-parse", "HEAD"}).substr(0, 40);
  auto archive = Archive::open(dir);
  REQUIRE(archive);
  std::vector<std::string> ids;
  std::istringstream in(git_out(dir, {"rev-list", "--reverse", "HEAD"}));
  for (std::string line; std::getline(in, line);) ids.push_back(line);
  std::size_t believed = 0;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    std::set<std::string> touched;
    std::istringstream names(
        git_out(dir, {"diff", "--name-only", ids[i - 1], ids[i], "--", "raw/"}));
    for (std::string path; std::getline(names, path);)
      touched.insert(path.substr(4, path.find('/', 4) - 4));
    for (const auto& name : kSources) {
      INFO(ids[i] << " " << name);
      auto only = archive->changed_only_source(ids[i], name);
      REQUIRE(only);
      CHECK(*only == (touched == std::set<std::string>{name}));
      believed += *only ? 1 : 0;
    }
  }
  CHECK(believed > 40);
  auto claim = archive->changed_only_source(forged, "gamma");
  REQUIRE(claim);
  CHECK_FALSE(*claim);
}

namespace {

// A forged version commit (feeddiff's identity and gamma's poll title, rewriting alpha too)
// and a user's commit of beta, on top of dir's history.
void forge_and_edit(const std::string& dir, const std::string& tag) {
  fs::create_directories(dir + "/raw/gamma");
  fs::create_directories(dir + "/raw/alpha");
  spit(dir + "/raw/gamma/response.xml", "<rss>forged " + tag + "</rss>");
  spit(dir + "/raw/alpha/response.xml", "<rss>slipped in " + tag + "</rss>");
  git_out(dir, {"add", "-A", "raw"});
  git_out(dir, {"-c", "user.name=feeddiff", "-c", "user.email=feeddiff@localhost", "commit", "-q",
                "-m", "gamma: changed (17 bytes, HTTP 200)\n\nSource: gamma"});
  user_commit(dir, "raw/beta/response.xml", "<rss>by hand " + tag + "</rss>", "edit " + tag);
}

// Whether this process may run on two CPUs: touched_by forks no child on one.
bool two_cpus() {
  cpu_set_t cpus;
  return ::sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) >= 2;
}

// Sets how touched_by splits for one scope.
struct Split {
  Split(std::size_t min_steps, bool child_fails)
      : saved_min(source_index::split_min_steps), saved_fails(source_index::split_child_fails) {
    source_index::split_min_steps = min_steps;
    source_index::split_child_fails = child_fails;
  }
  ~Split() {
    source_index::split_min_steps = saved_min;
    source_index::split_child_fails = saved_fails;
  }
  std::size_t saved_min;
  bool saved_fails;
};

}  // namespace

TEST_CASE(
    "a source index rebuilt by two processes is byte for byte the one rebuilt by one, "
    "with a forged and a user's commit in each half",
    "[store][index]") {
  const std::string dir = random_archive("index-split", 23, 60);
  forge_and_edit(dir, "older");
  {
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    std::mt19937 rng(24);
    random_history(*archive, rng, 60);
  }
  forge_and_edit(dir, "newer");
  const std::string index = dir + "/.git/feeddiff/index";
  std::map<std::string, std::string> alone;
  {
    const Split never(0, false);
    fs::remove_all(index);
    const std::size_t runs = source_index::split_runs;
    check_agrees(dir);
    CHECK(source_index::split_runs == runs);
    alone = index_files(dir);
  }
  SECTION("split in two") {
    const Split always(2, false);
    fs::remove_all(index);
    const std::size_t runs = source_index::split_runs;
    check_agrees(dir);
    if (two_cpus()) CHECK(source_index::split_runs > runs);
    CHECK(index_files(dir) == alone);
    // Every child was reaped: none is left holding the archive lock's descriptor.
    errno = 0;
    CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
    CHECK(errno == ECHILD);
  }
  SECTION("split in two, each chunk of nine") {
    const Split always(2, false);
    const std::size_t saved = source_index::catch_up_chunk;
    source_index::catch_up_chunk = 9;
    fs::remove_all(index);
    const std::size_t runs = source_index::split_runs;
    check_agrees(dir);
    source_index::catch_up_chunk = saved;
    if (two_cpus()) CHECK(source_index::split_runs >= runs + 10);
    CHECK(index_files(dir) == alone);
  }
  SECTION("a child that fails leaves its half to the parent") {
    const Split failing(2, true);
    fs::remove_all(index);
    const std::size_t runs = source_index::split_runs;
    check_agrees(dir);
    CHECK(source_index::split_runs == runs);
    CHECK(index_files(dir) == alone);
  }
}

TEST_CASE(
    "a source index rebuilt through the pack reader is byte for byte the one libgit2's reads "
    "rebuild, from the packs poll writes and from git gc's",
    "[store][index]") {
  const std::string dir = random_archive("index-reader", 31, 80);
  forge_and_edit(dir, "older");
  {
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    std::mt19937 rng(32);
    random_history(*archive, rng, 80);
  }
  forge_and_edit(dir, "newer");
  // Two odd poll commits: one with an encoding header (the plain-commit path leaves it to
  // libgit2), one whose committer name is padded with spaces (both trim it).
  for (const std::string& odd : {std::string("encoding ISO-8859-1\n"), std::string()}) {
    fs::create_directories(dir + "/raw/gamma");
    spit(dir + "/raw/gamma/response.xml", "<rss>odd " + std::to_string(odd.size()) + "</rss>");
    git_out(dir, {"add", "-A", "raw"});
    git_out(dir, {"-c", "user.name=feeddiff", "-c", "user.email=feeddiff@localhost", "commit", "-q",
                  "-m", "gamma: changed (17 bytes, HTTP 200)\n\nSource: gamma"});
    std::string raw = git_out(dir, {"cat-file", "commit", "HEAD"});
    const auto committer = raw.find("\ncommitter ");
    const auto blank = raw.find("\n\n");
    REQUIRE((committer != std::string::npos && blank != std::string::npos));
    if (odd.empty())
      raw.replace(committer + 1, 19, "committer  feeddiff ");
    else
      raw.insert(blank + 1, odd);
    auto made = run({"git", "-C", dir, "hash-object", "-t", "commit", "-w", "--stdin"}, {}, raw);
    REQUIRE(made.exit_code == 0);
    git_out(dir, {"update-ref", "HEAD", made.out.substr(0, 40)});
  }
  SECTION("poll's packs") {}
  SECTION("git gc's pack, offset deltas") {
    git_out(dir, {"gc", "-q", "--aggressive"});
  }
  SECTION("a repack's, ref deltas") {
    git_out(dir, {"-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq"});
  }
  const std::string index = dir + "/.git/feeddiff/index";
  struct Restore {
    std::size_t saved = source_index::reader_after;
    ~Restore() { source_index::reader_after = saved; }
  } restore;
  std::map<std::string, std::string> libgit2_alone;
  {
    const Split never(0, false);
    source_index::reader_after = SIZE_MAX;
    fs::remove_all(index);
    check_agrees(dir);
    libgit2_alone = index_files(dir);
  }
  for (const std::size_t split : {std::size_t{0}, std::size_t{2}}) {
    INFO("split at " << split);
    const Split maybe(split, false);
    source_index::reader_after = 0;
    fs::remove_all(index);
    check_agrees(dir);
    CHECK(index_files(dir) == libgit2_alone);
  }
}
