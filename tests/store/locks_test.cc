// git's lock files after a killed writer: feeddiff removes the ones it took itself, and
// leaves any other (a live git's) alone, saying so.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/store.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::git_out;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;
using feeddiff::test::source_change;
using feeddiff::test::spit;

namespace {

// An archive at v2 whose work tree and index a writer killed right after moving the branch
// left at v1, with its marker (paths only so far).
std::string half_done(const std::string& hint) {
  const std::string dir = make_temp_dir(hint);
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->commit(source_change("s", "<rss>v1</rss>")));
  REQUIRE(archive->commit(source_change("s", "<rss>v2</rss>")));
  spit(dir + "/raw/s/response.xml", "<rss>v1</rss>");
  REQUIRE(run({"git", "-C", dir, "update-index", "raw/s/response.xml"}).exit_code == 0);
  spit(dir + "/.git/feeddiff/checkout-pending", "raw/s/response.xml\n");
  REQUIRE_FALSE(git_out(dir, {"status", "--porcelain"}).empty());
  return dir;
}

// How the marker names a lock file feeddiff takes: device, inode, birth time.
std::string identity(const std::string& path) {
  struct statx st {};
  REQUIRE(::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &st) == 0);
  std::string id = std::to_string(st.stx_dev_major) + ":" + std::to_string(st.stx_dev_minor) + " " +
                   std::to_string(st.stx_ino);
  if (st.stx_mask & STATX_BTIME) {
    char ns[16];
    std::snprintf(ns, sizeof ns, "%09u", st.stx_btime.tv_nsec);
    id += " " + std::to_string(st.stx_btime.tv_sec) + "." + ns;
  }
  return id;
}

}  // namespace

TEST_CASE("a lock file feeddiff did not take survives its recovery, which names it", "[store]") {
  const std::string dir = half_done("store-locks-foreign");
  // Another git process, started after the writer died, holds the index.
  const std::string index_lock = dir + "/.git/index.lock";
  spit(index_lock, "another git's index, half written");

  auto archive = Archive::open(dir);
  REQUIRE(archive);
  auto lock = ArchiveLock::acquire(*archive, false);
  REQUIRE_FALSE(lock);
  CHECK(lock.error().code == Errc::locked);
  CHECK(lock.error().message.find(index_lock) != std::string::npos);
  CHECK(lock.error().message.find("another git process may be running") != std::string::npos);
  CHECK(slurp(index_lock) == "another git's index, half written");
  CHECK(std::filesystem::exists(dir + "/.git/feeddiff/checkout-pending"));

  // A lock the marker names, but no longer the file feeddiff took: someone else's too.
  const std::string branch_lock = dir + "/.git/refs/heads/main.lock";
  spit(branch_lock, "");
  const std::string recorded = identity(branch_lock);
  // Moved aside rather than deleted, so that the new file cannot get its inode back.
  std::filesystem::rename(branch_lock, dir + "/.git/feeddiff/old-lock");
  spit(branch_lock, "");
  REQUIRE(identity(branch_lock) != recorded);
  std::filesystem::remove(index_lock);
  spit(dir + "/.git/feeddiff/checkout-pending",
       "raw/s/response.xml\n:lock refs/heads/main.lock " + recorded + "\n");
  auto again = ArchiveLock::acquire(*archive, false);
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find(branch_lock) != std::string::npos);
  CHECK(std::filesystem::exists(branch_lock));

  // Once the other process is done, the update is finished.
  std::filesystem::remove(branch_lock);
  auto finally = ArchiveLock::acquire(*archive, false);
  REQUIRE(finally);
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  CHECK(slurp(dir + "/raw/s/response.xml") == "<rss>v2</rss>");
  CHECK_FALSE(std::filesystem::exists(dir + "/.git/feeddiff/checkout-pending"));
}

TEST_CASE("the lock files a killed writer took are removed and its update finished", "[store]") {
  const std::string dir = half_done("store-locks-own");
  // What the writer had noted before dying: an index.lock (a copy of the index, linked in)
  // and the branch's lock, each the very file it took.
  const std::string index_lock = dir + "/.git/index.lock";
  const std::string branch_lock = dir + "/.git/refs/heads/main.lock";
  spit(index_lock, slurp(dir + "/.git/index"));
  spit(branch_lock, "");
  spit(dir + "/.git/feeddiff/checkout-pending", "raw/s/response.xml\n:lock refs/heads/main.lock " +
                                                    identity(branch_lock) + "\n:lock index.lock " +
                                                    identity(index_lock) + "\n");

  auto archive = Archive::open(dir);
  REQUIRE(archive);
  auto lock = ArchiveLock::acquire(*archive, false);
  INFO((lock ? std::string() : lock.error().message));
  REQUIRE(lock);
  CHECK_FALSE(std::filesystem::exists(index_lock));
  CHECK_FALSE(std::filesystem::exists(branch_lock));
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  CHECK(slurp(dir + "/raw/s/response.xml") == "<rss>v2</rss>");
  CHECK_FALSE(std::filesystem::exists(dir + "/.git/feeddiff/checkout-pending"));
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
  // And the archive goes on: git and feeddiff both can take the locks again.
  REQUIRE(archive->commit(source_change("s", "<rss>v3</rss>")));
  CHECK(git_out(dir, {"show", "HEAD:raw/s/response.xml"}) == "<rss>v3</rss>");
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  CHECK(git_out(dir, {"reflog", "-1", "--format=%gs"}) == "commit: s: changed\n");
}

TEST_CASE("a commit refuses to take an index.lock someone else holds, and says so", "[store]") {
  const std::string dir = make_temp_dir("store-locks-commit");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const std::string index_lock = dir + "/.git/index.lock";
  spit(index_lock, "held");
  auto made = archive->commit(source_change("s", "<rss>v1</rss>"));
  REQUIRE_FALSE(made);
  CHECK(made.error().message.find(index_lock) != std::string::npos);
  CHECK(made.error().message.find("another git process may be running") != std::string::npos);
  CHECK(slurp(index_lock) == "held");
}
