#pragma once
// store: the only module that talks to git (libgit2). An archive is an ordinary git
// repository; this module writes commits (objects first, then an atomic branch move),
// reads files and history back, keeps the work tree in step, and owns the files under
// .git/feeddiff/ that are the archive's: the lock, the cache and the per-source index
// (poll's state file is poll's: feeddiff/poll.h).

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/result.h"

namespace feeddiff {

/// One `Key: value` line of a commit message's trailer block.
struct Trailer {
  std::string key;    ///< e.g. "Observed-At"
  std::string value;  ///< the rest of the line
};

/// A commit as read back.
struct CommitInfo {
  std::string id;                    ///< full hex id
  std::string title;                 ///< first line of the message
  std::string message;               ///< the whole message
  std::vector<Trailer> trailers;     ///< the trailer block, in order
  TimeMs author_time = 0;            ///< author timestamp (origin_date or observed_at)
  TimeMs commit_time = 0;            ///< committer timestamp (observed_at)
  std::vector<std::string> parents;  ///< full ids
  std::string abbrev;                ///< shortest unambiguous prefix (set by log only), or ""

  /// The first trailer's value with this key (case-insensitive), or nullptr.
  const std::string* trailer(std::string_view key) const;
  /// The id as git abbreviates it: at least 7 characters, more where 7 are ambiguous (an
  /// archive of a million commits has thousands of 7-character prefixes in common).
  std::string short_id() const { return abbrev.empty() ? id.substr(0, 7) : abbrev; }
};

/// A file to write (content) or delete (nullopt) in a commit, relative to the work tree.
struct FileWrite {
  std::string path;                    ///< `raw/<source>/response.xml`, `feeddiff.toml`
  std::optional<std::string> content;  ///< bytes to store; nullopt removes the file
  /// When not empty (content nullopt): the id of a blob already stored, to place at path
  /// without reading it (a move, as `migrate` makes them).
  std::string blob = {};
  /// When not empty (with content): blob_id(*content), computed ahead on another thread, so
  /// that a batch's commit need not hash the bytes again. It must be of exactly these bytes.
  std::string content_id = {};
  /// Instead of content (then nullopt): bytes to store that the caller hands over shared
  /// rather than copied (the poll's response bodies, on their way to a batch's pack).
  std::shared_ptr<const std::string> shared = {};
};

/// A commit to make on the archive's branch.
struct CommitRequest {
  std::string message;           ///< title, blank line, trailers
  TimeMs author_time = 0;        ///< origin_date when known, else observed_at
  TimeMs commit_time = 0;        ///< observed_at
  std::vector<FileWrite> files;  ///< what changes
};

/// How a path changed in a commit against its first parent.
enum class ChangeKind { added, modified, deleted };

/// One changed path of a commit.
struct PathChange {
  std::string path;                        ///< relative to the work tree
  ChangeKind kind = ChangeKind::modified;  ///< added, modified or deleted
  std::string old_blob;                    ///< the file's blob id before; empty when added
  std::string new_blob;                    ///< the file's blob id after; empty when deleted
};

/// Bytes shared without a copy: a blob's contents stay where libgit2 inflated them for as
/// long as any copy of the Blob lives (a copy shares them; a moved-from Blob is empty). The
/// default is empty. Converts to std::string_view, which is valid while the Blob lives.
class Blob {
 public:
  /// No bytes.
  Blob() = default;
  /// A string's bytes, moved in (not copied).
  explicit Blob(std::string bytes);
  /// Bytes that owner keeps alive.
  Blob(std::shared_ptr<const void> owner, std::string_view bytes)
      : owner_(std::move(owner)), bytes_(bytes) {}
  /// Shares the other's bytes.
  Blob(const Blob&) = default;
  /// Shares the other's bytes.
  Blob& operator=(const Blob&) = default;
  /// Takes the other's bytes, leaving it empty.
  Blob(Blob&& other) noexcept
      : owner_(std::move(other.owner_)), bytes_(std::exchange(other.bytes_, {})) {}
  /// Takes the other's bytes, leaving it empty.
  Blob& operator=(Blob&& other) noexcept {
    owner_ = std::move(other.owner_);
    bytes_ = std::exchange(other.bytes_, {});
    return *this;
  }

  /// The bytes.
  std::string_view view() const { return bytes_; }
  /// The bytes.
  operator std::string_view() const { return bytes_; }
  /// Bytes held.
  std::size_t size() const { return bytes_.size(); }
  /// Whether no bytes are held.
  bool empty() const { return bytes_.empty(); }

 private:
  std::shared_ptr<const void> owner_;
  std::string_view bytes_;
};

/// What `gc` did to the archive's object store (.git/objects).
struct GcReport {
  std::uint64_t bytes_before = 0;       ///< bytes of objects, packs and indexes before
  std::uint64_t bytes_after = 0;        ///< and after
  std::size_t packs_before = 0;         ///< packs before
  std::size_t packs_after = 0;          ///< packs after (1, plus any kept: .keep'd or not covered)
  std::size_t loose_before = 0;         ///< loose objects before
  std::size_t loose_after = 0;          ///< loose objects after (unreachable ones stay)
  std::size_t objects = 0;              ///< objects in the new pack
  std::size_t cache_files_removed = 0;  ///< cache files of earlier builds deleted (items/, keys/)
};

/// Packs in .git/objects/pack past which a poll consolidates them (git's gc.autoPackLimit is
/// 50 too); FEEDDIFF_PACK_LIMIT overrides it for `feeddiff poll`, 0 turning it off.
inline constexpr std::size_t kDefaultPackLimit = 50;

/// What consolidate_packs did to .git/objects/pack.
struct ConsolidateReport {
  std::size_t packs_before = 0;  ///< packs before (.keep'd ones included)
  std::size_t packs_after = 0;   ///< packs after
  std::size_t packs_rolled = 0;  ///< packs rolled up into one (0: nothing to do)
  std::size_t objects = 0;       ///< objects in the new pack
  std::uint64_t bytes = 0;       ///< bytes of the new pack
  std::uint64_t micros = 0;      ///< time it took, listing the packs included
};

/// How replay_onto merges a file outside raw/ that both a local commit and the upstream
/// changed since the commit's parent: (path, base, upstream, local) to the merged bytes, each
/// side nullopt where the file is absent; an Error stops the replay, the branch unmoved.
using ReplayMerge = std::function<Result<std::string>(
    const std::string& path, const std::optional<std::string>& base,
    const std::optional<std::string>& upstream, const std::optional<std::string>& local)>;

/// What replay_onto did.
struct ReplayReport {
  std::string head;          ///< the branch's commit afterwards
  std::size_t upstream = 0;  ///< upstream commits the branch lacked before (now on it)
  std::size_t replayed = 0;  ///< local commits written anew on top of the upstream
  std::size_t ahead = 0;     ///< the branch's commits the upstream lacks, afterwards
  /// Each replayed commit's old id and new id, oldest first.
  std::vector<std::pair<std::string, std::string>> renamed;
};

/// The ref that names the branch as it was before its last replay_onto, so the local commits
/// stay reachable by their old ids until a push publishes the new ones (delete_ref then).
inline constexpr const char* kUnsyncedRef = "refs/feeddiff/unsynced";

/// An open archive. Move-only; closes the repository when destroyed.
class Archive {
 public:
  /// Creates an archive in dir (made if missing): a git repository with an empty
  /// feeddiff.toml committed at `created`. Errc::exists when dir already holds a repository.
  static Result<Archive> init(const std::string& dir, TimeMs created);
  /// Opens the archive at dir. Errc::not_an_archive when dir is no git repository with a
  /// feeddiff.toml at its top.
  static Result<Archive> open(const std::string& dir);

  /// Moves an archive.
  Archive(Archive&&) noexcept;
  /// Moves an archive.
  Archive& operator=(Archive&&) noexcept;
  /// Closes the repository.
  ~Archive();

  /// The work tree's top directory, absolute, without a trailing slash.
  const std::string& work_dir() const;
  /// `.git/feeddiff`, created on first use: state, lock and secrets live there.
  std::string private_dir() const;

  /// Writes the request's blobs and tree, then the commit, then moves the branch
  /// atomically, then brings the index and work tree in step (in a batch: writes them to
  /// memory only, see begin_batch). nullopt, and nothing written, when the files are
  /// byte-identical to those at HEAD.
  Result<std::optional<std::string>> commit(const CommitRequest& request);

  /// Starts a batch: from now on commit() writes to memory and leaves the branch where it
  /// is; read_head() and the next commit() see the batch's newest commit. flush() makes the
  /// batch durable. Dropping the archive without flushing loses the batch and nothing else,
  /// as a crash would. Hold the ArchiveLock while batching.
  Status begin_batch();
  /// Writes the batch's objects as one pack (fsync'd), then moves the branch once to the
  /// batch's newest commit (failing if someone else moved it meanwhile), then brings the
  /// index and work tree in step. The batch stays open.
  Status flush();
  /// flush(), then the source index (see log), then back to writing each commit straight
  /// to the branch.
  Status end_batch();
  /// Bytes of the objects the batch holds in memory (flush when it grows too big).
  std::size_t pending_bytes() const;
  /// Commits the batch holds that are not on the branch yet.
  std::size_t pending_commits() const;

  /// Repacks every object reachable from a ref, a reflog, HEAD or the index into one pack
  /// with delta compression (successive versions of a source are each other's bases), then
  /// deletes the old packs whose every object the new pack holds (never one marked .keep) and
  /// the loose objects now packed. A pack holding anything unreachable (a concurrent `git
  /// fetch`'s, a killed poll's leftovers) stays, for git gc to judge. Hold the ArchiveLock;
  /// not during a batch.
  Result<GcReport> gc();
  /// When more than limit packs are in .git/objects/pack (0: never), rolls the smallest up
  /// into one as `git repack --geometric=2 -d` does: the packs sorted by object count, the
  /// shortest prefix goes whose removal leaves each remaining pack at least twice the size of
  /// the one before, and the rolled-up pack at most half the next. Entries are copied as
  /// stored (no delta search, no recompression), every object of those packs, reachable or
  /// not. The new pack is durable and in place before any old one goes, so no reader ever
  /// misses an object. Packs marked .keep, cruft (.mtimes), promisor or bitmapped ones are
  /// never touched, nor any pack while a multi-pack-index exists. Hold the ArchiveLock; not
  /// during a batch.
  Result<ConsolidateReport> consolidate_packs(std::size_t limit);
  /// Bytes under .git/objects.
  std::uint64_t object_bytes() const;

  /// Resolves a revision (`HEAD`, `HEAD~2`, a full or abbreviated id, a branch).
  Result<CommitInfo> resolve(std::string_view revision) const;
  /// The file's bytes at that commit; nullopt when the path does not exist there.
  Result<std::optional<std::string>> read(std::string_view commit_id, std::string_view path) const;
  /// The id of the file's blob at that commit, without reading it; nullopt when the path is
  /// not a file there. Equal ids mean equal bytes: a caller parses each version once.
  Result<std::optional<std::string>> blob_id(std::string_view commit_id,
                                             std::string_view path) const;
  /// The id of the directory's tree at that commit, without reading what it holds; nullopt
  /// when the path is not a directory there. Equal ids mean equal contents: a caller that
  /// kept the id knows nothing under the directory changed (the site's corrections).
  Result<std::optional<std::string>> tree_id(std::string_view commit_id,
                                             std::string_view path) const;
  /// The paths a commit changed against its first parent (all its paths for a root commit);
  /// with `under` (a directory such as `raw/NAME/`), only the paths inside it, found without
  /// comparing the rest of the trees, so the cost does not grow with the number of sources.
  Result<std::vector<PathChange>> changes(std::string_view commit_id,
                                          std::string_view under = {}) const;
  /// The directory of source name at a commit, in the layout that holds it there:
  /// `raw/hh/NAME/` when that is a directory (probed first: no flat source directory holds
  /// a directory), else `raw/NAME/` (also when the source is in neither). Per commit, not
  /// per archive: an archive migrated from flat keeps its older commits flat.
  Result<std::string> source_dir_at(std::string_view commit_id, std::string_view name) const;
  /// The changes of one source's files at a commit against its first parent, each side's
  /// directory found in its own layout (see source_dir_at), so that a move between layouts
  /// (`migrate`) is no change; the paths are the commit's (the parent's for a deletion).
  /// previous, when given (a full id): the newest commit before commit_id that changed the
  /// source, as the source index lists them; the old side is then read there, where the
  /// call for that version most likely read it already, instead of in the parent's tree.
  Result<std::vector<PathChange>> source_changes(std::string_view commit_id, std::string_view name,
                                                 std::string_view previous = {}) const;

  /// Reads the directory of each source at its commit, in the order given (the history's),
  /// and keeps them for source_changes until forget_source_dirs(): a site asks for its
  /// commits source by source, a thousand commits apart, and each such read costs a chain
  /// of raw/ tree deltas; in the history's order each is one delta from the last. Pairs of
  /// a commit id (in full) and a source name. The newest 131,072 are kept in memory, all of
  /// them in an unnamed file under .git/feeddiff (44 bytes a commit, gone with the process),
  /// from which a source's are read back together when it is asked for.
  Status read_source_dirs_ahead(
      const std::vector<std::pair<std::string, std::string>>& commits) const;
  /// Forgets what read_source_dirs_ahead read.
  void forget_source_dirs() const;
  /// How many directories read_source_dirs_ahead keeps.
  std::size_t source_dirs_kept() const;
  /// Keeps what other (the same repository, opened again) read ahead, as if read here.
  void keep_source_dirs_of(const Archive& other) const;

  /// Every file under dir (`raw/`) at a commit, recursively, as added PathChanges (path and
  /// new_blob), in tree order.
  Result<std::vector<PathChange>> files_under(std::string_view commit_id,
                                              std::string_view dir) const;
  /// A blob's bytes, by its full hex id (as PathChange gives it), as libgit2 inflated them (no
  /// copy). Safe to call from several threads at once: each call reads through a handle of
  /// its own on .git/objects (which is why a batch's unflushed objects are not seen).
  /// Errc::not_found when there is no such blob.
  Result<Blob> read_blob(std::string_view blob_id) const;
  /// A blob's size in bytes, from its object header (nothing inflated but a delta's
  /// header). Through the archive's own handle, like every call but read_blob: from the
  /// thread that uses the archive. Errc::not_found when there is no such blob.
  Result<std::size_t> blob_size(std::string_view blob_id) const;
  /// Commits newest first, those touching a path under path_prefix when it is not empty,
  /// at most limit of them (0: all). A prefix `raw/NAME` is the source's: source_log; a
  /// prefix `articles/NAME` (the source's article versions) is answered from the same index.
  Result<std::vector<CommitInfo>> log(std::string_view path_prefix, std::size_t limit) const;
  /// The commits that changed source name's files, newest first, at most limit (0: all), in
  /// either layout (a move between layouts is no change; see source_changes): from the
  /// per-source index when it can answer, else by walking the history.
  Result<std::vector<CommitInfo>> source_log(std::string_view name, std::size_t limit) const;
  /// The newest commit at or before revision (itself, or one of its first-parent ancestors)
  /// that changed source name's files, as `git log -1 --first-parent REV -- raw/NAME/`
  /// finds it; nullopt when none did. Through the per-source index: it walks back from the
  /// revision only to the first commit whose place on the branch the index knows (the head,
  /// or a version commit poll made), not over the history.
  Result<std::optional<CommitInfo>> source_change_at(std::string_view name,
                                                     std::string_view revision) const;
  /// The full ids of source_log(name, 0), reading no commit when the index answers: the cost
  /// of a list of ids, not of a history.
  Result<std::vector<std::string>> source_commit_ids(std::string_view name) const;
  /// The same ids as 20 bytes each, newest first: what a caller that keeps them all holds
  /// (a source's versions), without a hex string made and parsed again per version.
  Result<std::vector<std::array<unsigned char, 20>>> source_commit_oids(
      std::string_view name) const;
  /// Whether the commit changed, against its first parent, the files of source name's
  /// directory under raw/ (in either layout) and nothing else of raw/: what a commit's Source
  /// trailer and title claim, checked against its tree as the source index checks it (a
  /// commit anyone can write claims what it likes). A commit with other than one parent is
  /// false. Cheapest called along a chain, oldest commit first: each raw/ tree is then read
  /// once. Not for several threads at once.
  Result<bool> changed_only_source(std::string_view commit_id, std::string_view name) const;
  /// Each full id as log prints it, as git_object_short_id abbreviates (the shortest
  /// prefix, at least core.abbrev or 7 digits, that names no other object), reading no
  /// object: a lookup in the pack indexes per digit added. With a cache name, ids is a list
  /// that only grows at its end (a source's commits, oldest first), and the cache entry
  /// records which packs the short ids were checked against: a later call looks up the ids
  /// added since in every pack, and the others only in the packs and loose objects added
  /// since (all of them again when a pack is gone).
  Result<std::vector<std::string>> abbreviate(const std::vector<std::string>& ids,
                                              std::string_view cache_name = {}) const;
  /// Walks the branch's first-parent chain from HEAD, newest first and one commit at a time
  /// (nothing is read ahead), calling visit with each commit's full id and whether it changed
  /// a path under path_prefix against its first parent (as log decides it); stops when visit
  /// returns false or the chain ends. Nothing is visited when the branch has no commit.
  Status walk_first_parent(
      std::string_view path_prefix,
      const std::function<bool(const std::string& id, bool touched)>& visit) const;
  /// The file's bytes at HEAD; nullopt when absent or the archive has no commit.
  Result<std::optional<std::string>> read_head(std::string_view path) const;
  /// The URL of the `origin` remote, if there is one: read once, when first asked.
  std::optional<std::string> origin_url() const;
  /// Commits on the branch that its upstream (the remote-tracking branch it was cloned
  /// from or set with `git branch -u`, as of the last fetch) lacks, with that upstream's
  /// name (`origin/main`); nullopt when the branch has no upstream. Costs the commits
  /// between the two, not the history.
  Result<std::optional<std::pair<std::string, std::size_t>>> unpublished() const;
  /// Whether commit is ancestor or one of its descendants (both revisions).
  Result<bool> descends_from(std::string_view commit, std::string_view ancestor) const;
  /// Puts the branch's commits that upstream (a revision) lacks on top of it, oldest first,
  /// one new commit for each with its message, author and committer (names and times) kept:
  /// its tree is upstream's plus that commit's change, raw/<source>/ subtrees (raw/<hh>/<source>/
  /// fanned out) replaced as the commit left them (never a conflict), any other file taken from the
  /// side that changed it, or from merge when both did. Then moves the branch once, atomically and
  /// only if nobody moved it meanwhile, to the last new commit (a fast-forward when the branch has
  /// nothing upstream lacks), after pointing kUnsyncedRef at where it was; then brings the index,
  /// work tree and source index in step. Errc::git, the branch unmoved, when the two share
  /// no history or a merge commit lies among the local ones; Errc::conflict, the branch
  /// unmoved, when the replay would change feeddiff.toml and it has edits not committed
  /// (the checkout would lose them). Hold the ArchiveLock; not during a batch.
  Result<ReplayReport> replay_onto(std::string_view upstream, const ReplayMerge& merge);
  /// Deletes a ref (refs/...) if it exists.
  Status delete_ref(std::string_view name);
  /// Whether the work tree's or the index's copy of path differs from the branch's (edits a
  /// commit of path would overwrite); false for a path that is nowhere.
  Result<bool> uncommitted(std::string_view path) const;

  /// `.git/feeddiff/cache`: values that can always be recomputed (deleting it loses nothing).
  std::string cache_dir() const;
  /// The value cached under name (lowercase letters, digits and '-', at most one '/'),
  /// nullopt when there is none or the name is not such a name.
  std::optional<std::string> cache_read(std::string_view name) const;
  /// Caches a value under name, best effort: a file written beside and renamed, never
  /// fsync'd, or for the kinds with an entry per change (items/, keys/) a row of the cache's
  /// SQLite file; failures (a read-only archive, a full disk, a bad name) are ignored.
  void cache_write(std::string_view name, std::string_view value) const;
  /// cache_write of each (name, value), the rows in one transaction (SQLite's shell wrote
  /// 1,000 rows in 0.22 s as a commit each and in 0.05 s as one).
  void cache_write_all(const std::vector<std::pair<std::string, std::string>>& entries) const;
  /// On: cache_write queues its values for a thread of its own to write, in order (at most
  /// a few thousand waiting), and cache_read reads a queued value from the queue; for a
  /// command that writes many (a site's change pages). Off: writes what is queued and stops
  /// the thread. Off before the process forks.
  void write_cache_behind(bool on) const;
  /// Stops the thread as write_cache_behind(false) does and closes the cache's SQLite
  /// connection (reopened when next used): required before a fork whose child opens the
  /// archive, as SQLite forbids a child a connection beside one it inherited. Not while
  /// another thread uses the archive.
  void release_cache() const;
  /// Appends to the value cached under name (creating it), best effort like cache_write:
  /// a crash may leave the value cut anywhere, so what is appended must be records that a
  /// reader checks one by one (complete lines).
  void cache_append(std::string_view name, std::string_view value) const;

 private:
  friend class ArchiveLock;
  struct Impl;
  explicit Archive(std::unique_ptr<Impl> impl);
  // A process that died between moving the branch and updating the work tree left a list of
  // paths behind; this checks them out from HEAD. ArchiveLock::acquire calls it.
  Status finish_checkout() const;
  static Result<Archive> open_repository(const std::string& dir);
  // The commits the source index lists under key (a source, or "articles/NAME"); nullopt
  // when it cannot answer.
  std::optional<std::vector<CommitInfo>> indexed_log(std::string_view key, std::size_t limit) const;
  // source_changes read from git, without its memory of the last answers.
  Result<std::vector<PathChange>> source_changes_read(std::string_view commit_id,
                                                      std::string_view name,
                                                      std::string_view previous) const;
  std::unique_ptr<Impl> impl_;
};

/// The archive's write lock (`.git/feeddiff/lock`, an flock). Released when destroyed, and
/// by the kernel if the process dies.
class ArchiveLock {
 public:
  /// Takes the lock; Errc::locked at once when another process holds it, unless wait. Then
  /// finishes a work-tree update that a killed process left half done, removing the git lock
  /// files that process took; Errc::locked, naming the file, when another's is in the way.
  static Result<ArchiveLock> acquire(const Archive& archive, bool wait);
  /// Moves a lock.
  ArchiveLock(ArchiveLock&& other) noexcept;
  /// Moves a lock.
  ArchiveLock& operator=(ArchiveLock&& other) noexcept;
  /// Releases the lock.
  ~ArchiveLock();

 private:
  explicit ArchiveLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// The id (40 hex digits) git gives a blob of these bytes, as `git hash-object` does, with
/// the same collision-detecting SHA-1. Safe on any thread.
std::string blob_id(std::string_view bytes);

/// The version of libgit2 in use (git_libgit2_version), e.g. "1.5.1".
std::string libgit2_version();

/// data as one gzip member (RFC 1952) at zlib's default level: the archive's way out to
/// files other tools read (a WARC file is a chain of such members, one per record). Here
/// because store is the module that links zlib.
std::string gzip_member(std::string_view data);

}  // namespace feeddiff
