// The cache's per-change entries: rows of one SQLite file, batched, remade when unreadable,
// never opened by a forked child beside its parent's connection; gc deletes the files
// earlier builds kept instead.

#include "store/entry_db.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <string>

#include "feeddiff/store.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::make_temp_dir;
using feeddiff::test::source_change;
using feeddiff::test::spit;

namespace {

// Runs check in a forked child; its exit code (0: every expectation held).
int in_child(const std::function<bool()>& check) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(check() ? 0 : 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

}  // namespace

TEST_CASE("a batch of entries reads back through its own connection and reaches others at commit",
          "[store]") {
  const std::string path = make_temp_dir("entry-db-batch") + "/cache/entries.sqlite";
  auto db = EntryDb::open(path);
  REQUIRE(db);
  auto other = EntryDb::open(path);
  REQUIRE(other);
  db->put_batched("items/a", "first");
  CHECK(db->get("items/a") == "first");
  CHECK_FALSE(other->get("items/a"));  // not committed yet
  db->commit();
  CHECK(other->get("items/a") == "first");
  // A batch commits itself at kBatch puts: another writer never waits longer than that.
  for (std::size_t i = 0; i < EntryDb::kBatch; ++i)
    db->put_batched("items/n" + std::to_string(i), "v" + std::to_string(i));
  CHECK(other->get("items/n1023") == "v1023");
  db->put_batched("items/a", "replaced");
  other.reset();
  db.reset();  // dropping it commits
  auto again = EntryDb::open(path);
  REQUIRE(again);
  CHECK(again->get("items/a") == "replaced");
  again->put("keys/c", std::string("bytes\0and more", 14));  // values are bytes, not C strings
  CHECK(again->get("keys/c")->size() == 14);
  CHECK(EntryDb::holds("items/x"));
  CHECK(EntryDb::holds("keys/x"));
  CHECK_FALSE(EntryDb::holds("versions/x"));
}

TEST_CASE("a connection leaves the WAL empty as it closes, so a reader after it writes nothing",
          "[store]") {
  const std::string path = make_temp_dir("entry-db-wal") + "/cache/entries.sqlite";
  namespace fs = std::filesystem;
  {
    auto db = EntryDb::open(path);
    REQUIRE(db);
    for (int i = 0; i < 3; ++i)
      db->put_batched("items/" + std::to_string(i), std::string(300, char('a' + i)));
    db->put("keys/one", "a key");
  }
  REQUIRE(fs::exists(path + "-wal"));  // kept, so that each command does not make it again
  CHECK(fs::file_size(path + "-wal") == 0);
  const std::string before = feeddiff::test::slurp(path);
  const auto written = fs::last_write_time(path);
  for (int reader = 0; reader < 2; ++reader) {
    auto db = EntryDb::open(path);
    REQUIRE(db);
    CHECK(db->get("items/2") == std::string(300, 'c'));
    CHECK(db->get("keys/one") == "a key");
  }
  // Not written again, not even with the same bytes.
  CHECK(fs::last_write_time(path) == written);
  CHECK(feeddiff::test::slurp(path) == before);
  CHECK(fs::file_size(path + "-wal") == 0);
}

TEST_CASE("an entries file that is not a database is made again, empty", "[store]") {
  const std::string dir = make_temp_dir("entry-db-garbage");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const std::string file = archive->cache_dir() + "/entries.sqlite";
  std::filesystem::create_directories(archive->cache_dir());
  spit(file, std::string(8192, 'g'));  // as a crash of the disk might leave it
  CHECK_FALSE(archive->cache_read("items/x"));
  archive->cache_write("items/x", "written");
  CHECK(archive->cache_read("items/x") == "written");
  auto other = Archive::open(dir);
  REQUIRE(other);
  CHECK(other->cache_read("items/x") == "written");
}

TEST_CASE("a forked child opens the entries file only once its parent has released it", "[store]") {
  const std::string dir = make_temp_dir("entry-db-fork");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  archive->cache_write("items/x", "parent's");
  REQUIRE(archive->cache_read("items/x") == "parent's");  // the parent's connection is open
  const int before = EntryDb::open_connections();
  REQUIRE(before >= 1);
  // With the parent's connection open, a child's archive gets misses, and writes nothing.
  CHECK(in_child([&] {
          auto own = Archive::open(dir);
          if (!own || own->cache_read("items/x")) return false;
          own->cache_write("items/y", "child's");
          return !archive->cache_read("items/x") && EntryDb::open_connections() == before;
        }) == 0);
  CHECK_FALSE(archive->cache_read("items/y"));
  archive->release_cache();
  CHECK(EntryDb::open_connections() == before - 1);
  CHECK(in_child([&] {
          auto own = Archive::open(dir);
          if (!own || own->cache_read("items/x") != "parent's") return false;
          own->cache_write("items/y", "child's");
          return true;
        }) == 0);
  CHECK(archive->cache_read("items/y") == "child's");  // reopened when next used
}

TEST_CASE("gc deletes the files earlier builds kept for each change in the cache", "[store]") {
  const std::string dir = make_temp_dir("entry-db-gc");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->begin_batch());
  REQUIRE(archive->commit(source_change("s", "<rss>0</rss>")));
  REQUIRE(archive->end_batch());
  const std::string cache = archive->cache_dir();
  for (const char* sub : {"/items", "/keys", "/versions"})
    std::filesystem::create_directories(cache + sub);
  spit(cache + "/items/old-1", "a");
  spit(cache + "/items/old-2", "b");
  spit(cache + "/keys/old-3", "c");
  spit(cache + "/versions/s", "kept: a file per source");
  archive->cache_write("items/new", "a row");
  auto report = archive->gc();
  REQUIRE(report);
  CHECK(report->cache_files_removed == 3);
  CHECK_FALSE(std::filesystem::exists(cache + "/items"));
  CHECK_FALSE(std::filesystem::exists(cache + "/keys"));
  CHECK(std::filesystem::exists(cache + "/versions/s"));
  CHECK(archive->cache_read("items/new") == "a row");
  auto again = archive->gc();
  REQUIRE(again);
  CHECK(again->cache_files_removed == 0);
}
