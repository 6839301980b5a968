// feeddiff gc: everything reachable, repacked into one pack with deltas; then the old packs
// whose every object the new pack holds go, and the loose objects it holds.

#include <git2/sys/odb_backend.h>
#include <chrono>

#include <fmt/format.h>
#include <filesystem>
#include <unordered_set>
#include <vector>

#include "feeddiff/store.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"
#include "store/pack_writer.h"

namespace feeddiff {

namespace {

namespace fs = std::filesystem;

// libgit2 orders objects for delta search by a hash of their name's last 16 characters.
// Every body is called response.xml, so the name given is the path turned around: versions
// of one source then sit together and are tried as each other's bases.
std::string delta_name(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return path;
  return path.substr(slash + 1) + "|" + path.substr(0, slash);
}

// The raw/ tree: one entry per source, rewritten by every commit. libgit2's packbuilder
// tries only 10 neighbours as delta bases, so its chains of these trees restart whole every
// ~120 versions (each a full copy of a tree of ids, which do not compress); git gc
// --aggressive's window of 250 builds shallow fans instead. These trees are packed apart,
// as hub_chains plans, and the two packs rolled into one.
constexpr std::string_view kBigTreePath = "raw";

// Every kHubSpan-th version is a hub, delta'd against the hub before it, at most kHubDepth
// hubs deep; the versions between chain from their hub. No chain is deeper than
// pack::kMaxDepth, and a whole tree is stored once per (kHubDepth + 1) * kHubSpan versions
// (650) where a plain chain stores one per 50.
constexpr std::size_t kHubSpan = 25;
constexpr int kHubDepth = pack::kMaxDepth - static_cast<int>(kHubSpan);

std::vector<pack::PackObject> hub_chains(const std::vector<git_oid>& versions) {
  std::vector<pack::PackObject> out;
  out.reserve(versions.size());
  int hub_depth = 0;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    std::size_t base = i - 1;  // between hubs: the version before
    if (i % kHubSpan == 0) {
      if (i == 0 || hub_depth == kHubDepth) {
        base = pack::PackObject::kWhole;
        hub_depth = 0;
      } else {
        base = i - kHubSpan;
        ++hub_depth;
      }
    }
    out.push_back({versions[i], std::string(kBigTreePath), base});
  }
  return out;
}

struct Usage {
  std::uint64_t bytes = 0;
  std::size_t packs = 0;
  std::size_t loose = 0;
};

Usage usage_of(const std::string& objects_dir) {
  Usage u;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(objects_dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file(ec)) continue;
    u.bytes += it->file_size(ec);
    const std::string parent = it->path().parent_path().filename().string();
    if (it->path().extension() == ".pack") ++u.packs;
    if (parent.size() == 2 && std::isxdigit(static_cast<unsigned char>(parent[0])) &&
        std::isxdigit(static_cast<unsigned char>(parent[1])))
      ++u.loose;
  }
  return u;
}

struct Collector {
  git_repository* repo;
  git_packbuilder* pb;
  std::unordered_set<std::string> seen;
  std::vector<git_oid> big_trees;  // raw/ trees, newest first: packed apart
  int error = 0;

  // True the first time an object is seen.
  bool insert(const git_oid& id, const std::string& path) {
    if (!seen.insert(git::to_hex(id)).second) return false;
    const std::string name = delta_name(path);
    if (git_packbuilder_insert(pb, &id, name.empty() ? nullptr : name.c_str()) != 0) error = -1;
    return true;
  }

  static int on_entry(const char* root, const git_tree_entry* entry, void* payload) {
    auto* self = static_cast<Collector*>(payload);
    const git_object_t type = git_tree_entry_type(entry);
    if (type == GIT_OBJECT_COMMIT) return 1;  // a submodule's commit is not ours
    const std::string path = std::string(root) + git_tree_entry_name(entry);
    const git_oid& id = *git_tree_entry_id(entry);
    bool fresh = false;
    if (type == GIT_OBJECT_TREE && path == kBigTreePath) {
      fresh = self->seen.insert(git::to_hex(id)).second;
      if (fresh) self->big_trees.push_back(id);
    } else {
      fresh = self->insert(id, path);
    }
    if (self->error) return -1;
    return fresh ? 0 : 1;  // a tree seen before: its contents are in already
  }
};

// True when every object of the pack whose index is idx_path is in seen. The pack is read
// on its own (git_odb_backend_one_pack) through an object database of its own; anything
// unreadable counts as not in, so that the pack stays.
bool all_in(const std::string& idx_path, const std::unordered_set<std::string>& seen) {
  git_odb* odb_raw = nullptr;
  if (git_odb_new(&odb_raw) != 0) return false;
  git::OdbPtr odb(odb_raw);
  git_odb_backend* backend = nullptr;
  if (git_odb_backend_one_pack(&backend, idx_path.c_str()) != 0) return false;
  if (git_odb_add_backend(odb.get(), backend, 1) != 0) {
    backend->free(backend);
    return false;
  }
  struct Check {
    const std::unordered_set<std::string>* seen;
    bool missing = false;
  } check{&seen};
  const int rc = git_odb_foreach(
      odb.get(),
      [](const git_oid* id, void* payload) {
        auto* c = static_cast<Check*>(payload);
        if (c->seen->count(git::to_hex(*id))) return 0;
        c->missing = true;
        return 1;  // one is enough
      },
      &check);
  return rc == 0 && !check.missing;
}

}  // namespace

std::uint64_t Archive::object_bytes() const {
  return usage_of(impl_->git_dir + "/objects").bytes;
}

Result<GcReport> Archive::gc() {
  if (impl_->batching) return Error{Errc::internal, "gc during a batch of commits"};
  git_repository* repo = impl_->repo.get();
  const std::string objects_dir = impl_->git_dir + "/objects";
  const std::string pack_dir = objects_dir + "/pack";
  const Usage before = usage_of(objects_dir);
  GcReport report;
  report.bytes_before = before.bytes;
  report.packs_before = before.packs;
  report.loose_before = before.loose;

  git_packbuilder* pb_raw = nullptr;
  if (git_packbuilder_new(&pb_raw, repo) != 0) return git::last_error("starting the repack");
  std::unique_ptr<git_packbuilder, decltype(&git_packbuilder_free)> pb(pb_raw,
                                                                       &git_packbuilder_free);
  git_packbuilder_set_threads(pb.get(), 0);  // one delta-search thread per CPU
  Collector collect{repo, pb.get(), {}, {}, 0};

  // Everything reachable from a ref, a reflog entry, HEAD or the index.
  git_revwalk* walk_raw = nullptr;
  if (git_revwalk_new(&walk_raw, repo) != 0) return git::last_error("walking history");
  git::RevwalkPtr walk(walk_raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  (void)git_revwalk_push_head(walk.get());
  std::vector<std::string> refs = {"HEAD"};
  git_reference_foreach_name(
      repo,
      [](const char* name, void* payload) {
        static_cast<std::vector<std::string>*>(payload)->push_back(name);
        return 0;
      },
      &refs);
  for (const auto& name : refs) {
    git_oid id;
    if (git_reference_name_to_id(&id, repo, name.c_str()) == 0) {
      git_object* obj = nullptr;
      if (git_object_lookup(&obj, repo, &id, GIT_OBJECT_ANY) == 0) {
        git::ObjectPtr owned(obj);
        if (git_object_type(obj) == GIT_OBJECT_TAG) collect.insert(id, "");
        git_object* peeled = nullptr;
        if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
          git_revwalk_push(walk.get(), git_object_id(peeled));
          git_object_free(peeled);
        }
      }
    }
    git_reflog* log = nullptr;
    if (git_reflog_read(&log, repo, name.c_str()) == 0) {
      for (std::size_t i = 0; i < git_reflog_entrycount(log); ++i) {
        const git_oid* target = git_reflog_entry_id_new(git_reflog_entry_byindex(log, i));
        git_commit* c = nullptr;
        if (target && git_commit_lookup(&c, repo, target) == 0) {
          git_revwalk_push(walk.get(), target);
          git_commit_free(c);
        }
      }
      git_reflog_free(log);
    }
  }
  git_oid id;
  while (git_revwalk_next(&id, walk.get()) == 0) {
    collect.insert(id, "");
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo, &id) != 0) return git::last_error("reading a commit");
    git::CommitPtr owned(commit);
    git_tree* tree = nullptr;
    if (git_commit_tree(&tree, commit) != 0) return git::last_error("reading a tree");
    git::TreePtr tree_owned(tree);
    if (collect.insert(*git_tree_id(tree), "") &&
        git_tree_walk(tree, GIT_TREEWALK_PRE, &Collector::on_entry, &collect) != 0)
      return git::last_error("walking a tree");
    if (collect.error) return git::last_error("adding objects to the pack");
  }
  git_index* index = nullptr;
  if (git_repository_index(&index, repo) == 0) {
    git::IndexPtr owned(index);
    git_index_read(index, 0);  // as on disk now: someone may have run `git add` meanwhile
    for (std::size_t i = 0; i < git_index_entrycount(index); ++i) {
      const git_index_entry* e = git_index_get_byindex(index, i);
      git_odb* odb = nullptr;
      bool exists = false;
      if (git_repository_odb(&odb, repo) == 0) {
        exists = git_odb_exists(odb, &e->id) == 1;
        git_odb_free(odb);
      }
      if (exists && (e->mode & 0170000) != 0160000) collect.insert(e->id, e->path);
    }
  }
  if (collect.error) return git::last_error("adding objects to the pack");

  // The new pack, durable, before anything old goes.
  if (git_packbuilder_write(pb.get(), pack_dir.c_str(), 0, nullptr, nullptr) != 0)
    return git::last_error("writing the pack");
  report.objects = git_packbuilder_object_count(pb.get()) + collect.big_trees.size();
  std::string keep = std::string("pack-") + git_packbuilder_name(pb.get());
  if (!collect.big_trees.empty()) {
    git_odb* odb_raw = nullptr;
    if (git_repository_odb(&odb_raw, repo) != 0)
      return git::last_error("opening the object database");
    git::OdbPtr odb(odb_raw);
    auto trees = pack::write_pack(odb.get(), hub_chains(collect.big_trees), pack_dir);
    if (!trees) return trees.error();
    // One pack again. Killed before the old packs go, both new packs stay beside them:
    // every object is still there, some twice, and the next gc removes the extra copies.
    auto rolled = pack::roll_up({keep, *trees}, pack_dir);
    if (!rolled) return rolled.error();
    if (auto ok = pack::install(*rolled, pack_dir); !ok) return ok.error();
    keep = rolled->name;
  }

  // An old pack goes only when the new one holds every object in it. Another process may
  // have written a pack meanwhile (a `git fetch`, a killed poll's leftovers that someone may
  // yet name): its objects are not all in ours, so it stays, as does a pack marked .keep.
  std::error_code ec;
  std::vector<std::string> stems;
  for (const auto& entry : fs::directory_iterator(pack_dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.starts_with("pack-") && entry.path().extension() == ".idx" &&
        entry.path().stem().string() != keep)
      stems.push_back(entry.path().stem().string());
  }
  for (const auto& stem : stems) {
    const std::string base = pack_dir + "/" + stem;
    if (fs::exists(base + ".keep", ec)) continue;  // someone asked to keep it
    if (!all_in(base + ".idx", collect.seen)) continue;
    // The index first: without it no reader finds the pack, so none opens a pack half gone.
    for (const char* ext : {".idx", ".pack", ".rev", ".bitmap", ".mtimes", ".promisor"})
      fs::remove(base + ext, ec);
  }
  // A .pack with no .idx is unreadable (git and libgit2 find objects through indexes): a
  // writer killed between the two renames left it, or one is writing it right now (git and
  // feeddiff rename the pack before its index). An hour old, it is a leftover; younger, it
  // may be a `git fetch` or a poll at work, so it stays for the next gc.
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& entry : fs::directory_iterator(pack_dir, ec)) {
    const fs::path& path = entry.path();
    if (!path.filename().string().starts_with("pack-") || path.extension() != ".pack") continue;
    fs::path idx = path;
    idx.replace_extension(".idx");
    std::error_code time_ec;
    const auto written = fs::last_write_time(path, time_ec);
    if (!fs::exists(idx, ec) && !time_ec && written < an_hour_ago) fs::remove(path, ec);
  }
  for (const auto& dir : fs::directory_iterator(objects_dir, ec)) {
    const std::string two = dir.path().filename().string();
    if (two.size() != 2 || !dir.is_directory()) continue;
    for (const auto& obj : fs::directory_iterator(dir.path(), ec)) {
      // Loose objects that are in the new pack go; unreachable ones stay for git gc to judge.
      if (collect.seen.count(two + obj.path().filename().string())) fs::remove(obj.path(), ec);
    }
    fs::remove(dir.path(), ec);  // only when empty
  }
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) == 0) {
    git_odb_refresh(odb);
    git_odb_free(odb);
  }
  // Earlier builds kept a file per change in the cache's items/ and keys/, which the
  // cache's SQLite file holds now (entry_db.h): nothing reads those files any more.
  for (const char* stale : {"items", "keys"}) {
    const fs::path dir = fs::path(impl_->git_dir) / "feeddiff" / "cache" / stale;
    const std::uintmax_t removed = fs::remove_all(dir, ec);
    if (!ec && removed > 0) report.cache_files_removed += removed - 1;  // not the directory
  }
  const Usage after = usage_of(objects_dir);
  report.bytes_after = after.bytes;
  report.packs_after = after.packs;
  report.loose_after = after.loose;
  return report;
}

}  // namespace feeddiff
