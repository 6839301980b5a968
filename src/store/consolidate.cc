// A poll's packs, consolidated geometrically (as `git repack --geometric=2 -d`): each poll
// writes a small pack, and once there are too many the smallest are rolled up into one, so
// that the packs left form a progression where each holds at least twice the objects of the
// one before. An object is then rewritten O(log n) times over the archive's life, and the
// packs number about log2(all objects / a poll's objects).

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "feeddiff/failpoint.h"
#include "feeddiff/store.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"
#include "store/pack_writer.h"

namespace feeddiff {

namespace {

namespace fs = std::filesystem;

struct PackFile {
  std::string stem;  // pack-<checksum>
  std::uint32_t objects = 0;
};

// git's split_pack_geometry (builtin/repack.c): how many of the packs, sorted by object
// count, to roll up so that the rest, with the new pack, form a factor-2 progression.
std::size_t geometric_split(const std::vector<PackFile>& packs) {
  if (packs.size() < 2) return 0;
  std::size_t i = packs.size() - 1;
  // The largest packs that already form a progression stay.
  for (; i > 0; --i)
    if (std::uint64_t{packs[i].objects} < 2 * std::uint64_t{packs[i - 1].objects}) break;
  std::size_t split = i == 0 ? 0 : i + 1;
  if (split == 0) return 0;
  // The new pack may be too big for the next one up to stay: then that one joins it.
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < split; ++k) total += packs[k].objects;
  for (; split < packs.size(); ++split) {
    if (std::uint64_t{packs[split].objects} >= 2 * total) break;
    total += packs[split].objects;
  }
  return split;
}

}  // namespace

Result<ConsolidateReport> Archive::consolidate_packs(std::size_t limit) {
  if (impl_->batching && impl_->pending_head)
    return Error{Errc::internal, "consolidating packs during a batch of commits"};
  const auto started = std::chrono::steady_clock::now();
  const std::string pack_dir = impl_->git_dir + "/objects/pack";
  ConsolidateReport report;
  auto done = [&] {
    report.micros =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::steady_clock::now() - started)
                                       .count());
    return report;
  };
  std::vector<PackFile> candidates;
  bool multi_pack_index = false;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(pack_dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (file == "multi-pack-index") multi_pack_index = true;
    if (!file.starts_with("pack-") || entry.path().extension() != ".idx") continue;
    const std::string base = pack_dir + "/" + entry.path().stem().string();
    std::error_code e;
    if (!fs::exists(base + ".pack", e)) continue;  // no pack: readers skip the index too
    ++report.packs_before;
    // Someone else's packs: kept on purpose, cruft packs whose .mtimes date unreachable
    // objects for `git gc`, a partial clone's promisor packs, a pack a bitmap describes.
    bool theirs = false;
    for (const char* ext : {".keep", ".mtimes", ".promisor", ".bitmap"})
      if (fs::exists(base + ext, e)) theirs = true;
    if (theirs) continue;
    const auto objects = pack::index_object_count(base + ".idx");
    if (!objects) continue;  // a version 1 index, or unreadable: left alone
    candidates.push_back({entry.path().stem().string(), *objects});
  }
  report.packs_after = report.packs_before;
  // A multi-pack-index names packs by name: rolling some up would leave it naming packs
  // that are gone. git's own maintenance keeps such repositories; it is theirs to repack.
  if (limit == 0 || report.packs_before <= limit || multi_pack_index) return done();

  std::sort(candidates.begin(), candidates.end(), [](const PackFile& a, const PackFile& b) {
    return a.objects != b.objects ? a.objects < b.objects : a.stem < b.stem;
  });
  const std::size_t split = geometric_split(candidates);
  if (split < 2) return done();
  // Largest first: the new pack's older objects lead, as a full repack would order them.
  std::vector<std::string> stems;
  for (std::size_t k = split; k-- > 0;) stems.push_back(candidates[k].stem);

  auto rolled = pack::roll_up(stems, pack_dir);
  if (!rolled) return rolled.error();
  const std::string name = pack_dir + "/" + rolled->name;
  if (auto ok = pack::install(*rolled, pack_dir); !ok) return ok.error();
  failpoint(Failpoint::consolidate_written);

  // Only now the old packs go, each index before its pack: a reader that no longer finds
  // an object in a pack that vanished under it looks again and finds the new one (git and
  // libgit2 both rescan objects/pack on a miss). Killed midway, some old packs stay beside
  // the new one, their objects twice on disk, harmless; the next roll-up takes them too.
  for (std::size_t k = 0; k < stems.size(); ++k) {
    if (stems[k] == rolled->name) continue;  // the same objects, the same name: it stays
    const std::string base = pack_dir + "/" + stems[k];
    for (const char* ext : {".idx", ".pack", ".rev"}) fs::remove(base + ext, ec);
    if (k == 0) failpoint(Failpoint::consolidate_pruned);
  }
  if (auto ok = fsync_dir(pack_dir); !ok) return ok.error();
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, impl_->repo.get()) == 0) {
    git_odb_refresh(odb);
    git_odb_free(odb);
  }
  report.packs_rolled = stems.size();
  report.objects = rolled->objects;
  report.bytes = fs::file_size(name + ".pack", ec);
  report.packs_after = report.packs_before - stems.size() + 1;
  return done();
}

}  // namespace feeddiff
