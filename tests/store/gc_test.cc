// gc: one pack with deltas, nothing reachable lost, the old packs and loose objects gone.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/store.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::corpus_path;
using feeddiff::test::git_out;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;
using feeddiff::test::source_change;
using feeddiff::test::spit;

namespace {

// Bytes of the files under dir, counted here rather than by the code under test.
std::uint64_t bytes_under(const std::string& dir) {
  std::uint64_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

std::vector<std::string> pack_stems(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/.git/objects/pack"))
    if (e.path().extension() == ".pack") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("gc repacks everything reachable into one smaller pack and keeps every version",
          "[store]") {
  const std::string dir = make_temp_dir("store-gc");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  // Three sources, ten recorded versions each, over five polls (five packs) and some
  // single commits (loose objects).
  const char* histories[] = {"history-olshansk-openai-research", "history-olshansk-the-batch",
                             "history-olshansk-paulgraham"};
  for (int poll = 0; poll < 5; ++poll) {
    REQUIRE(archive->begin_batch());
    for (int s = 0; s < 3; ++s)
      for (int v = 2 * poll + 1; v <= 2 * poll + 2; ++v) {
        char file[16];
        std::snprintf(file, sizeof file, "/%04d.xml", v);
        REQUIRE(archive->commit(source_change(
            "s" + std::to_string(s), slurp(corpus_path(std::string(histories[s]) + file)))));
      }
    REQUIRE(archive->end_batch());
  }
  REQUIRE(archive->commit(source_change("single", "<rss>loose</rss>")));
  // A blob only the index knows, and a pack someone asked git to keep.
  spit(dir + "/staged.txt", "staged, not committed\n");
  REQUIRE(run({"git", "-C", dir, "add", "staged.txt"}).exit_code == 0);
  const std::string log_before = git_out(dir, {"log", "--format=%H %s"});
  const std::string tree_before = git_out(dir, {"ls-tree", "-r", "HEAD"});

  auto report = archive->gc();
  REQUIRE(report);
  CHECK(report->packs_before == 5);
  CHECK(report->loose_before > 0);
  CHECK(report->packs_after == 1);
  CHECK(report->loose_after <= 1);  // the empty tree of `init` is reachable from nothing
  CHECK(report->bytes_after < report->bytes_before / 2);
  // The report against what git itself counts on disk.
  const std::string counted = "\n" + git_out(dir, {"count-objects", "-v"});
  CHECK(counted.find("\ncount: " + std::to_string(report->loose_after) + "\n") !=
        std::string::npos);
  CHECK(counted.find("\nin-pack: " + std::to_string(report->objects) + "\n") != std::string::npos);
  CHECK(counted.find("\npacks: 1\n") != std::string::npos);
  CHECK(report->bytes_after == bytes_under(dir + "/.git/objects"));

  auto fsck = run({"git", "-C", dir, "fsck", "--strict", "--no-dangling"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(git_out(dir, {"log", "--format=%H %s"}) == log_before);
  CHECK(git_out(dir, {"ls-tree", "-r", "HEAD"}) == tree_before);
  CHECK(git_out(dir, {"cat-file", "blob", ":staged.txt"}) == "staged, not committed\n");
  CHECK(git_out(dir, {"cat-file", "blob", "HEAD~20:raw/s1/response.xml"}).size() > 1000);
  // Versions of one source were stored as deltas of each other.
  std::string pack;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/.git/objects/pack"))
    if (e.path().extension() == ".pack") pack = e.path().string();
  auto verify = run({"git", "verify-pack", "-v", pack});
  REQUIRE(verify.exit_code == 0);
  CHECK(verify.out.find("chain length = 1:") != std::string::npos);

  // The archive goes on working: another poll's pack, another gc.
  auto reopened = Archive::open(dir);
  REQUIRE(reopened);
  REQUIRE(reopened->begin_batch());
  REQUIRE(reopened->commit(source_change("s0", "<rss>after gc</rss>")));
  REQUIRE(reopened->end_batch());
  auto again = reopened->gc();
  REQUIRE(again);
  CHECK(again->packs_after == 1);
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
  CHECK(git_out(dir, {"status", "--porcelain"}) == "A  staged.txt\n");
}

TEST_CASE("gc keeps a pack marked .keep, and the objects in it", "[store]") {
  const std::string dir = make_temp_dir("store-gc-keep");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  for (int poll = 0; poll < 3; ++poll) {
    REQUIRE(archive->begin_batch());
    REQUIRE(archive->commit(source_change("s", "<rss>" + std::to_string(poll) + "</rss>")));
    REQUIRE(archive->end_batch());
  }
  const auto packs = pack_stems(dir);
  REQUIRE(packs.size() == 3);
  const std::string kept = dir + "/.git/objects/pack/" + packs[1];
  spit(kept + ".keep", "kept by hand\n");

  auto report = archive->gc();
  REQUIRE(report);
  CHECK(report->packs_before == 3);
  CHECK(report->packs_after == 2);  // the new one and the kept one
  const auto after = pack_stems(dir);
  REQUIRE(after.size() == 2);
  CHECK(std::find(after.begin(), after.end(), packs[1]) != after.end());
  CHECK(std::find(after.begin(), after.end(), packs[0]) == after.end());
  CHECK(std::find(after.begin(), after.end(), packs[2]) == after.end());
  for (const char* ext : {".pack", ".idx", ".keep"}) CHECK(std::filesystem::exists(kept + ext));
  CHECK(run({"git", "-C", dir, "verify-pack", kept + ".idx"}).exit_code == 0);
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
  CHECK(git_out(dir, {"cat-file", "blob", "HEAD~1:raw/s/response.xml"}) == "<rss>1</rss>");
}
