// Pack consolidation: a poll's many small packs rolled up geometrically (as `git repack
// --geometric=2`), copied entry by entry, with nothing lost and git agreeing on every pack.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "feeddiff/store.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::git_out;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::source_change;
using feeddiff::test::spit;

namespace {

namespace fs = std::filesystem;

// Object counts of the packs in dir's objects/pack, smallest first: the last entry of each
// index's fan-out table, read here (check_sound has git read every index in full).
std::vector<long> pack_sizes(const std::string& dir) {
  std::vector<long> out;
  for (const auto& e : fs::directory_iterator(dir + "/.git/objects/pack"))
    if (e.path().extension() == ".idx") {
      const std::string idx = test::slurp(e.path().string());
      REQUIRE(idx.size() > 8 + 1024);
      long n = 0;
      for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(idx[8 + 255 * 4 + i]);
      out.push_back(n);
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t files_with(const std::string& dir, const std::string& ext) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir + "/.git/objects/pack"))
    if (e.path().extension() == ext) ++n;
  return n;
}

// A feed body long enough for a delta: version v of source s.
std::string body(int s, int v) {
  std::string out = "<rss><channel><title>source " + std::to_string(s) + "</title>";
  for (int i = 0; i < 40; ++i) out += "<item><title>item " + std::to_string(i) + "</title></item>";
  return out + "<item>version " + std::to_string(v) + "</item></channel></rss>";
}

struct Written {
  std::string commit;
  std::string path;
  std::string content;
};

// One flush (one pack) of two commits: two versions of one source, the second a delta of the
// first in the pack, and the raw/ tree a delta of the one before.
void poll_once(Archive& archive, int step, std::vector<Written>& log) {
  REQUIRE(archive.begin_batch());
  for (int k = 0; k < 2; ++k) {
    const int s = step % 7;
    auto c = archive.commit(source_change("s" + std::to_string(s), body(s, 2 * step + k),
                                          1'790'834'044'027 + step * 60'000 + k));
    REQUIRE(c);
    REQUIRE(*c);
    log.push_back({**c, "raw/s" + std::to_string(s) + "/response.xml", body(s, 2 * step + k)});
  }
  REQUIRE(archive.end_batch());
}

void check_sound(const std::string& dir, Archive& archive, const std::vector<Written>& log) {
  auto fsck = run({"git", "-C", dir, "fsck", "--strict", "--no-dangling"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  for (const auto& e : fs::directory_iterator(dir + "/.git/objects/pack"))
    if (e.path().extension() == ".idx") {
      auto verify = run({"git", "verify-pack", e.path().string()});
      INFO(e.path() << verify.err);
      CHECK(verify.exit_code == 0);
    }
  // Every version, read back through libgit2 and through git.
  for (const auto& w : log) {
    auto read = archive.read(w.commit, w.path);
    REQUIRE(read);
    REQUIRE(*read);
    CHECK(**read == w.content);
  }
  CHECK(git_out(dir, {"show", log.front().commit + ":" + log.front().path}) == log.front().content);
  const std::string counted = "\n" + git_out(dir, {"count-objects", "-v"});
  CHECK(counted.find("\ngarbage: 0\n") != std::string::npos);
  CHECK(counted.find("\npacks: " + std::to_string(files_with(dir, ".pack")) + "\n") !=
        std::string::npos);
}

}  // namespace

TEST_CASE("hundreds of small packs are rolled up geometrically and every object stays readable",
          "[store]") {
  const std::string dir = make_temp_dir("store-consolidate");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  std::vector<Written> log;
  constexpr std::size_t kLimit = 6;
  std::size_t rollups = 0, most = 0;
  for (int step = 0; step < 200; ++step) {
    poll_once(*archive, step, log);
    auto report = archive->consolidate_packs(kLimit);
    REQUIRE(report);
    const auto sizes = pack_sizes(dir);
    CHECK(report->packs_after == sizes.size());
    most = std::max(most, sizes.size());
    if (report->packs_rolled) {
      ++rollups;
      CHECK(report->packs_before > kLimit);
      CHECK(report->packs_after == report->packs_before - report->packs_rolled + 1);
      // The packs left form a factor-2 progression, the new one included.
      for (std::size_t i = 1; i < sizes.size(); ++i) {
        INFO("step " << step << ", pack " << i);
        CHECK(sizes[i] >= 2 * sizes[i - 1]);
      }
    } else {
      CHECK(report->packs_before == report->packs_after);
      CHECK(report->packs_before <= kLimit);
    }
  }
  CHECK(most <= kLimit + 1);
  // Geometric: a roll-up now and then, not at every flush, and not everything each time.
  CHECK(rollups > 10);
  CHECK(rollups < 100);
  // 200 flushes of ~10 objects: with a factor of 2, at most log2(2000 / 10) + 1 packs after a
  // roll-up (9), and never more than the limit after this last call.
  CHECK(files_with(dir, ".pack") <= kLimit);
  CHECK(files_with(dir, ".idx") == files_with(dir, ".pack"));
  check_sound(dir, *archive, log);
  // Nothing left behind: no temporary file, no pack without its index.
  for (const auto& e : fs::directory_iterator(dir + "/.git/objects/pack"))
    CHECK(e.path().filename().string().starts_with("pack-"));

  // gc afterwards still makes one pack of it all.
  auto gc = archive->gc();
  REQUIRE(gc);
  CHECK(gc->packs_after == 1);
  check_sound(dir, *archive, log);
}

TEST_CASE("a roll-up killed before it deleted the old packs is rolled up again, each object once",
          "[store]") {
  const std::string dir = make_temp_dir("store-consolidate-again");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  std::vector<Written> log;
  for (int step = 0; step < 4; ++step) poll_once(*archive, step, log);
  // The state a kill between writing the new pack and deleting the old ones leaves: the old
  // packs put back beside the new one.
  const std::string pack_dir = dir + "/.git/objects/pack";
  const std::string saved = make_temp_dir("store-consolidate-saved");
  for (const auto& e : fs::directory_iterator(pack_dir))
    fs::copy_file(e.path(), saved + "/" + e.path().filename().string());
  auto first = archive->consolidate_packs(2);
  REQUIRE(first);
  REQUIRE(first->packs_rolled == 4);
  CHECK(files_with(dir, ".pack") == 1);
  for (const auto& e : fs::directory_iterator(saved))
    if (!fs::exists(pack_dir + "/" + e.path().filename().string()))
      fs::copy_file(e.path(), pack_dir + "/" + e.path().filename().string());
  REQUIRE(files_with(dir, ".pack") == 5);
  check_sound(dir, *archive, log);

  poll_once(*archive, 4, log);
  auto again = archive->consolidate_packs(2);
  REQUIRE(again);
  CHECK(again->packs_rolled == 6);
  CHECK(files_with(dir, ".pack") == 1);
  // Each object once: as many as git counts in the pack.
  std::string idx;
  for (const auto& e : fs::directory_iterator(pack_dir))
    if (e.path().extension() == ".idx") idx = test::slurp(e.path().string());
  auto shown = run({"git", "-C", dir, "show-index"}, {}, idx);
  REQUIRE(shown.exit_code == 0);
  CHECK(static_cast<std::size_t>(std::count(shown.out.begin(), shown.out.end(), '\n')) ==
        again->objects);
  CHECK(pack_sizes(dir) == std::vector<long>{static_cast<long>(again->objects)});
  check_sound(dir, *archive, log);
}

TEST_CASE(
    "consolidation never touches a pack marked .keep, nor any while a multi-pack-index is "
    "there",
    "[store]") {
  const std::string dir = make_temp_dir("store-consolidate-keep");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  std::vector<Written> log;
  for (int step = 0; step < 6; ++step) poll_once(*archive, step, log);
  const std::string pack_dir = dir + "/.git/objects/pack";
  std::vector<std::string> stems;
  for (const auto& e : fs::directory_iterator(pack_dir))
    if (e.path().extension() == ".pack") stems.push_back(e.path().stem().string());
  std::sort(stems.begin(), stems.end());
  spit(pack_dir + "/" + stems[2] + ".keep", "");

  // Under the limit: nothing to do.
  auto under = archive->consolidate_packs(6);
  REQUIRE(under);
  CHECK(under->packs_rolled == 0);
  CHECK(files_with(dir, ".pack") == 6);
  // A limit of 0: never.
  auto never = archive->consolidate_packs(0);
  REQUIRE(never);
  CHECK(never->packs_rolled == 0);

  REQUIRE(run({"git", "-C", dir, "multi-pack-index", "write"}).exit_code == 0);
  auto with_midx = archive->consolidate_packs(2);
  REQUIRE(with_midx);
  CHECK(with_midx->packs_rolled == 0);
  CHECK(files_with(dir, ".pack") == 6);
  fs::remove(pack_dir + "/multi-pack-index");

  auto report = archive->consolidate_packs(2);
  REQUIRE(report);
  CHECK(report->packs_before == 6);
  CHECK(report->packs_rolled == 5);
  CHECK(report->packs_after == 2);
  for (const char* ext : {".pack", ".idx", ".keep"})
    CHECK(fs::exists(pack_dir + "/" + stems[2] + ext));
  check_sound(dir, *archive, log);
}
