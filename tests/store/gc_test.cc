// gc: one pack with deltas, nothing reachable lost, the old packs and loose objects gone.

#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/store.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::corpus_path;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;
using feeddiff::test::spit;

namespace {

CommitRequest version(const std::string& source, const std::string& body) {
  CommitRequest r;
  r.message = source + ": changed\n\nSource: " + source + "\n";
  r.author_time = r.commit_time = 1'790'834'044'027;
  r.files.push_back({"raw/" + source + "/response.xml", body});
  return r;
}

std::string git_out(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", dir});
  auto r = run(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
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
        REQUIRE(archive->commit(version("s" + std::to_string(s),
                                        slurp(corpus_path(std::string(histories[s]) + file)))));
      }
    REQUIRE(archive->end_batch());
  }
  REQUIRE(archive->commit(version("single", "<rss>loose</rss>")));
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
  CHECK(report->bytes_after == archive->object_bytes());

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
  REQUIRE(reopened->commit(version("s0", "<rss>after gc</rss>")));
  REQUIRE(reopened->end_batch());
  auto again = reopened->gc();
  REQUIRE(again);
  CHECK(again->packs_after == 1);
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
  CHECK(git_out(dir, {"status", "--porcelain"}) == "A  staged.txt\n");
}
