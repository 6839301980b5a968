// The file helpers: fsync_dir, which every atomic rename (core, store, poll) relies on to make the
// rename itself durable. (That each rename is followed by it is checked by tracing a real
// poll's system calls: tests/poll/poll_failpoint_test.cc.)

#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/core.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::make_temp_dir;
using feeddiff::test::slurp;

TEST_CASE("fsync_dir flushes a directory and names the one it cannot open", "[core]") {
  const std::string dir = make_temp_dir("store-fsync-dir");
  CHECK(fsync_dir(dir));

  const std::string missing = dir + "/no-such-directory";
  Status status = fsync_dir(missing);
  REQUIRE_FALSE(status);
  CHECK(status.error().code == Errc::io);
  INFO(status.error().message);
  CHECK(status.error().message.find(missing) != std::string::npos);
  CHECK(status.error().message.find("No such file or directory") != std::string::npos);

  // A file is not a directory: refused, not silently flushed as one.
  REQUIRE(write_file_atomic(dir + "/file", "bytes"));
  CHECK(slurp(dir + "/file") == "bytes");
  status = fsync_dir(dir + "/file");
  REQUIRE_FALSE(status);
  CHECK(status.error().message.find("Not a directory") != std::string::npos);
}

TEST_CASE("write_file_replace swaps the bytes whole and sync_filesystem names what it cannot open",
          "[core]") {
  const std::string dir = make_temp_dir("store-replace");
  REQUIRE(write_file_replace(dir + "/page.html", "old"));
  REQUIRE(write_file_replace(dir + "/page.html", "new bytes"));
  CHECK(slurp(dir + "/page.html") == "new bytes");
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.exists();
  CHECK(files == 1);  // no temporary left beside it
  CHECK(sync_filesystem(dir));

  const Status missing = sync_filesystem(dir + "/no-such-directory");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::io);
  CHECK(missing.error().message.find("no-such-directory") != std::string::npos);
  CHECK_FALSE(write_file_replace(dir + "/no-such-directory/page.html", "x"));
}
