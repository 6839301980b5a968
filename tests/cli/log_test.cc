// feeddiff log at scale: what it reads must not grow with the archive's age.

#include <catch2/catch.hpp>
#include <filesystem>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;

TEST_CASE("log -n 2 reads only the newest commits, so history it does not print can be missing",
          "[cli]") {
  // A walk sorted over the whole history (what `log -n` did) must read the oldest commit; a
  // walk that stops after N never does. Deleting the root commit's object proves which one ran.
  CliArchive archive("log-lazy");
  for (int i = 0; i < 4; ++i)
    REQUIRE(archive({"add", "s" + std::to_string(i), "http://127.0.0.1:1/" + std::to_string(i)})
                .exit_code == 0);
  const std::string root = archive.git({"rev-list", "--max-parents=0", "HEAD"}).out.substr(0, 40);
  const std::string loose =
      archive.dir() + "/.git/objects/" + root.substr(0, 2) + "/" + root.substr(2);
  REQUIRE(std::filesystem::exists(loose));  // `add` writes loose objects, not a pack
  std::filesystem::remove(loose);
  REQUIRE(archive.git({"cat-file", "-e", root}).exit_code != 0);

  auto r = archive({"log", "-n", "2"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("s3: source added") != std::string::npos);
  CHECK(r.out.find("s2: source added") != std::string::npos);
  CHECK(r.out.find("s1: source added") == std::string::npos);
  // The whole log does need the root: it fails, and says so.
  CHECK(archive({"log"}).exit_code == 2);
}
