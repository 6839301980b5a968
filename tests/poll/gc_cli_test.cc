// feeddiff gc through the binary: what it prints, and what it leaves alone.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// The archive's pack files, by name.
std::vector<std::string> packs_of(const CliArchive& archive) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(archive.dir() + "/.git/objects/pack"))
    if (e.path().extension() == ".pack") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

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
  const auto after = r.out.find("\nAfter:  ");
  REQUIRE(after != std::string::npos);
  CHECK(r.out.find(" in 1 pack ", after) != std::string::npos);
  CHECK(packs_of(archive).size() == 1);
  CHECK(archive.git({"fsck", "--strict"}).exit_code == 0);
  CHECK(archive({"cat", "HEAD", "c"}).out == rss("/c"));
  CHECK(r.out.find("Removed") == std::string::npos);  // nothing of earlier builds to remove
  // The cache files an earlier build kept for each change are deleted, and said so.
  const std::string items = archive.dir() + "/.git/feeddiff/cache/items";
  std::filesystem::create_directories(items);
  for (const char* name : {"/one", "/two"}) spit(items + name, "an old summary");
  auto again = archive({"gc"});
  CHECK(again.out.find("Before: ") == 0);
  CHECK(
      again.out.ends_with("\nRemoved 2 files that earlier versions kept in .git/feeddiff/cache\n"));
  CHECK_FALSE(std::filesystem::exists(items));
}

TEST_CASE("feeddiff gc leaves a pack someone else wrote, and what is in it", "[poll]") {
  HttpServer server(
      [](const RecordedRequest& request) { return Reply{.body = rss(request.target)}; });
  CliArchive archive("gc-foreign");
  REQUIRE(archive({"add", "a", server.url("/a")}).exit_code == 0);
  REQUIRE(archive({"poll"}).exit_code == 0);
  // What a concurrent `git fetch` leaves: a pack of objects no ref names (yet). Here a blob
  // nothing reaches, packed by git itself, its loose copy gone.
  auto blob = run({"git", "-C", archive.dir(), "hash-object", "-w", "--stdin"}, {},
                  "fetched, not yet named by any ref\n");
  REQUIRE(blob.exit_code == 0);
  const std::string id = blob.out.substr(0, 40);
  auto packed = run({"git", "-C", archive.dir(), "pack-objects", "-q", ".git/objects/pack/pack"},
                    {}, id + "\n");
  INFO(packed.err);
  REQUIRE(packed.exit_code == 0);
  const std::string theirs = "pack-" + packed.out.substr(0, 40) + ".pack";
  REQUIRE(archive.git({"prune-packed"}).exit_code == 0);
  REQUIRE(packs_of(archive).size() == 2);

  auto r = archive({"gc"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto packs = packs_of(archive);
  CHECK(packs.size() == 2);  // ours and theirs; the poll's pack is in ours and went
  CHECK(std::find(packs.begin(), packs.end(), theirs) != packs.end());
  CHECK(archive.git({"cat-file", "blob", id}).out == "fetched, not yet named by any ref\n");
  auto fsck = archive.git({"fsck", "--strict"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(archive({"cat", "HEAD", "a"}).out == rss("/a"));
}
