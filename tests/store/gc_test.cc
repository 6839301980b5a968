// gc: one pack with deltas, nothing reachable lost, the old packs and loose objects gone.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>

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

TEST_CASE("gc stores the raw/ tree whole once in hundreds of versions, no chain over 50 deep",
          "[store]") {
  // 300 sources, then 1,500 changes round-robin: every commit rewrites the 11 KB raw/ tree
  // in one entry. libgit2's packbuilder alone stored it whole every ~120 versions.
  const std::string dir = make_temp_dir("store-gc-trees");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  constexpr int kSources = 300;
  constexpr int kChanges = 1500;
  for (int batch = 0; batch < (kSources + kChanges) / 300; ++batch) {
    REQUIRE(archive->begin_batch());
    for (int k = batch * 300; k < (batch + 1) * 300; ++k)
      REQUIRE(archive->commit(source_change("source-" + std::to_string(k % kSources),
                                            "<rss>version " + std::to_string(k) + "</rss>")));
    REQUIRE(archive->end_batch());
  }
  const std::string old_tree = git_out(dir, {"ls-tree", "HEAD~1234:raw"});
  const std::string head_tree = git_out(dir, {"ls-tree", "HEAD:raw"});
  REQUIRE(std::count(head_tree.begin(), head_tree.end(), '\n') == kSources);

  auto report = archive->gc();
  REQUIRE(report);
  CHECK(report->packs_after == 1);
  const auto stems = pack_stems(dir);
  REQUIRE(stems.size() == 1);
  auto verify = run({"git", "verify-pack", "-v", dir + "/.git/objects/pack/" + stems[0] + ".pack"});
  REQUIRE(verify.exit_code == 0);
  // The raw/ trees' ids, from git: `rev-list --objects` names each object by a path.
  std::set<std::string> raw_ids;
  {
    std::istringstream objects(git_out(dir, {"rev-list", "--objects", "HEAD"}));
    for (std::string line; std::getline(objects, line);)
      if (line.size() > 41 && line.substr(40) == " raw") raw_ids.insert(line.substr(0, 40));
  }
  // Each line: id type size size-in-pack offset [depth base-id].
  int whole_raw_trees = 0, deepest = 0, raw_trees = 0;
  std::istringstream lines(verify.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string id, type;
    std::size_t size = 0, packed = 0, offset = 0;
    int depth = 0;
    if (!(fields >> id >> type >> size >> packed >> offset)) continue;
    const bool delta = static_cast<bool>(fields >> depth);
    deepest = std::max(deepest, depth);
    if (raw_ids.count(id)) {
      ++raw_trees;
      if (!delta && size > 1000) ++whole_raw_trees;  // small ones, of the first sources, aside
    }
  }
  CHECK(raw_trees >= kChanges);
  CHECK(whole_raw_trees >= 1);
  CHECK(whole_raw_trees <= 3);  // 1,800 versions, one whole in 650
  CHECK(deepest <= 50);
  auto fsck = run({"git", "-C", dir, "fsck", "--strict", "--no-dangling"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(git_out(dir, {"ls-tree", "HEAD~1234:raw"}) == old_tree);
  CHECK(git_out(dir, {"ls-tree", "HEAD:raw"}) == head_tree);
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
