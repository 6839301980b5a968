#pragma once
// The cache's entries of which there is one per change (an item summary, items/..., and the
// key of an old commit's summary, keys/...), in one SQLite file,
// .git/feeddiff/cache/entries.sqlite, rather than a file each. A file each was 4 KB of disk
// and an inode for a few hundred bytes: a 1M-change archive's cache held two million files
// and 8 GB, and a poller run from cron grows it by a file per change for as long as it runs.
// SQLite, already linked for search and export, is the store: a B-tree with its pages shared
// across processes, crash-safe, and no code of ours to trust with the disk format. Internal
// to store.

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "feeddiff/sqlite_db.h"

namespace feeddiff {

/// One process's connection to the entries file; its calls may come from any thread. Every
/// failure is a miss or a write left out: a cache can always be recomputed.
class EntryDb {
 public:
  /// Opens (creating it) the file at path; nullptr when it cannot be opened, or when a
  /// connection this process inherited from the one that forked it is still open (SQLite's
  /// locks would then be wrong: see release() and the connections count).
  static std::unique_ptr<EntryDb> open(const std::string& path);
  /// Commits a batch left open; closes the connection in the process that opened it.
  ~EntryDb();
  EntryDb(const EntryDb&) = delete;
  EntryDb& operator=(const EntryDb&) = delete;

  /// The value stored under name, or nullopt.
  std::optional<std::string> get(std::string_view name);
  /// Stores value under name, committed at once.
  void put(std::string_view name, std::string_view value);
  /// Stores value under name in a transaction left open for the next puts (committed by
  /// commit(), after kBatch puts, or when dropped); reads through this connection see it.
  void put_batched(std::string_view name, std::string_view value);
  /// Commits the open batch, if any.
  void commit();

  /// Puts in one transaction at most: another process's write waits for its commit.
  static constexpr std::size_t kBatch = 1024;

  /// Whether a cache entry name belongs in this file (its kind has an entry per change).
  static bool holds(std::string_view name);
  /// Connections open in this process (for tests of the fork rule).
  static int open_connections();
  /// The connection and its prepared statements (entry_db.cc's).
  struct Connection;

 private:
  explicit EntryDb(std::unique_ptr<Connection> connection);
  bool mine() const;
  void put_locked(std::string_view name, std::string_view value);
  void commit_locked();

  std::mutex lock_;  // one connection, its statements used by one thread at a time
  std::unique_ptr<Connection> connection_;
  std::size_t batched_ = 0;  // puts in the open transaction (0: none open)
  pid_t owner_;              // the process that opened it
};

}  // namespace feeddiff
