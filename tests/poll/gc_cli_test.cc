// feeddiff gc through the binary: what it prints.

#include <catch2/catch.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

TEST_CASE("feeddiff gc prints the archive's size before and after", "[poll]") {
  HttpServer server(
      [](const RecordedRequest& request) { return Reply{.body = rss(request.target)}; });
  CliArchive archive("gc-cli");
  for (const char* name : {"a", "b", "c"})
    REQUIRE(archive({"add", name, server.url(std::string("/") + name)}).exit_code == 0);
  REQUIRE(archive({"poll"}).exit_code == 0);
  auto r = archive({"gc"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.starts_with("Before: "));
  CHECK(r.out.find(" in 1 pack and ") != std::string::npos);  // the poll's pack; add's commits
  CHECK(r.out.find("\nAfter:  ") != std::string::npos);
  CHECK(r.out.find(" in 1 pack") != std::string::npos);
  CHECK(archive.git({"fsck", "--strict"}).exit_code == 0);
  CHECK(archive({"cat", "HEAD", "c"}).out == rss("/c"));
  CHECK(archive({"gc"}).out.find("Before: ") == 0);
}
