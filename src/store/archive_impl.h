#pragma once
// What an open Archive holds; shared by the store's source files, seen by no other module.

#include <git2.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "feeddiff/store.h"
#include "store/ahead_dirs.h"
#include "store/batch_backend.h"
#include "store/cache_behind.h"
#include "store/entry_db.h"
#include "store/git_handles.h"
#include "store/git_locks.h"
#include "store/pack_writer.h"
#include "store/precompressor.h"
#include "store/source_index_touched.h"
#include "store/tree_splice.h"

namespace feeddiff {

struct Archive::Impl {
  git::RepositoryPtr repo;
  std::string work_dir;
  std::string git_dir;

  // A batch: objects go to an in-memory backend, the branch stays where it was until flush().
  bool batching = false;
  git::BatchBackend* batch = nullptr;  // owned by repo's object database
  git_odb_backend* mempack = nullptr;  // batch's, as libgit2 sees it
  // The batch's blobs compressed ahead of its pack, on a thread of their own.
  std::unique_ptr<pack::Precompressor> precompressor;
  std::optional<git_oid> pending_head;    // the batch's newest commit, not yet on the branch
  std::optional<git_oid> batch_base;      // the branch when the batch's first commit was made
  std::vector<pack::PackObject> objects;  // what the batch wrote, in order
  std::set<std::string> touched;          // work-tree paths to check out after the move
  std::size_t pending_bytes = 0;          // bytes of those objects
  std::size_t pending_commits = 0;        // commits not yet on the branch

  // The last few answers of a question about a full commit id (a commit never changes),
  // oldest replaced first.
  template <typename Value>
  class Recent {
   public:
    const Value* find(const std::string& key) const {
      for (const auto& [k, v] : slots_)
        if (k == key) return &v;
      return nullptr;
    }
    void remember(std::string key, Value value) {
      if (slots_.size() < kSlots)
        slots_.emplace_back(std::move(key), std::move(value));
      else
        slots_[next_] = {std::move(key), std::move(value)};
      next_ = (next_ + 1) % kSlots;
    }

   private:
    static constexpr std::size_t kSlots = 8;
    std::vector<std::pair<std::string, Value>> slots_;
    std::size_t next_ = 0;
  };

  // source_changes' last answers: a site build asks for one change's paths two or three
  // times in a row (the source's versions, the change's page, its search documents), and
  // each answer reads two raw/ trees, which hold a thousand entries in an archive of a
  // thousand sources.
  Recent<std::vector<PathChange>> recent_changes;

  // A source's directory at a commit (its tree id, zero when absent, and its path), the last
  // answers kept: reading a source's versions in order asks for each version's directory
  // twice, as its new side and as the next version's old side, and each read inflates a
  // raw/ tree of a thousand entries.
  struct SourceEntry {
    git_oid id{};
    std::string dir;
  };
  Recent<SourceEntry> recent_entries;
  // The cache's file of per-change entries (entry_db.h), opened at its first use; declared
  // before cache_behind, whose last writes go to it as it stops.
  std::mutex entries_lock;
  std::unique_ptr<EntryDb> entries;
  bool entries_tried = false;
  // The open entries file; nullptr when it cannot be had.
  EntryDb* entry_db();
  // cache_write's thread, while write_cache_behind is on.
  std::unique_ptr<CacheBehind> cache_behind;

  // remote.origin.url, once read (origin_url).
  std::optional<std::optional<std::string>> origin;

  // The directories read_source_dirs_ahead read (ahead_dirs.h), made at its first call.
  std::unique_ptr<AheadDirs> ahead;
  // The directory read ahead for the commit and source, into out; false when none was.
  bool ahead_entry(std::string_view commit_id, std::string_view name, SourceEntry& out);
  Result<SourceEntry> source_entry_at(std::string_view commit_id, std::string_view name);
  // The same, read from git: no memory of earlier answers.
  Result<SourceEntry> read_source_entry(std::string_view commit_id, std::string_view name);

  // changed_only_source's raw/ trees, the last one read kept for the next call.
  git::OdbPtr compared_odb;
  std::unique_ptr<source_index::RawTreeComparer> comparer;

  // The trees read_head walked last, by directory ("raw", "raw/NAME"), with their ids: a
  // poll reads up to six paths of a source in a row, each below raw/, whose tree holds an
  // entry per source and would be parsed again for each (libgit2's object cache is off).
  std::map<std::string, std::pair<git_oid, git::TreePtr>> head_trees;

  // The thread that opened the archive: read_blob reads through the repository's own object
  // database there (opening one per call was a twentieth of a site build), and opens one of
  // its own on any other thread.
  std::thread::id opened_on = std::this_thread::get_id();

  // Lists the paths to check out (one a line) and the lock files taken meanwhile (see
  // git_locks.h) while the branch, index and work tree are brought in step.
  std::string checkout_marker() const { return git_dir + "/feeddiff/checkout-pending"; }
  locks::Places lock_places() const { return {git_dir, git_dir + "/feeddiff", checkout_marker()}; }
  // The branch's newest commit, or the batch's when it holds commits not yet on the branch.
  Result<std::optional<git::CommitPtr>> head() const;
  // The blob at path in head's tree, through head_trees; nullopt when there is none.
  Result<std::optional<git_oid>> head_file(const git_commit* head, std::string_view path);
  // Remembers what a batched commit wrote, for the pack.
  // With spliced (tree_splice.h), its trees and blob ids are taken as they are.
  Status note_objects(const CommitRequest& request, const git_oid& tree_id,
                      const tree_splice::Spliced* spliced, const git_oid& commit_id);
};

}  // namespace feeddiff
