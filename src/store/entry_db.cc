#include "store/entry_db.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <utility>

namespace feeddiff {

namespace {

// SQLite keeps each open file's locks in process memory, which a forked child inherits while
// the kernel gives it none of the locks themselves: a connection the child opened beside an
// inherited one would trust locks it does not hold. So a child opens nothing while a
// connection of its parent's is open (the site closes its own before it forks).
std::atomic<int> connections{0};
std::atomic<pid_t> connections_pid{0};

}  // namespace

struct EntryDb::Connection {
  sqlite::Db db;
  sqlite::Statement select;
  sqlite::Statement insert;
};

namespace {

// WAL: readers in other processes never wait for a writer, and a commit is a write to the
// log (synchronous=NORMAL syncs at checkpoints only: a power cut may take the last commits,
// which a cache can lose, and never leaves the file unreadable).
Result<std::unique_ptr<EntryDb::Connection>> connect(const std::string& path) {
  auto db = sqlite::Db::open(path);
  if (!db) return db.error();
  if (auto ok = db->exec("PRAGMA synchronous=NORMAL"); !ok) return ok.error();
  db->keep_wal_file();
  // The table and WAL mode (which the file keeps) are set up once, by the first to find the
  // table missing: every `log` and `show` opens this file, and the setup statements were
  // most of an open's millisecond.
  auto select = db->prepare("SELECT value FROM entry WHERE name = ?1");
  if (!select) {
    if (auto ok = db->exec("PRAGMA journal_mode=WAL;"
                           "CREATE TABLE IF NOT EXISTS entry(name TEXT PRIMARY KEY,"
                           " value BLOB NOT NULL) WITHOUT ROWID");
        !ok)
      return ok.error();
    select = db->prepare("SELECT value FROM entry WHERE name = ?1");
  }
  if (!select) return select.error();
  auto insert = db->prepare("INSERT OR REPLACE INTO entry(name, value) VALUES (?1, ?2)");
  if (!insert) return insert.error();
  return std::make_unique<EntryDb::Connection>(
      EntryDb::Connection{std::move(*db), std::move(*select), std::move(*insert)});
}

}  // namespace

std::unique_ptr<EntryDb> EntryDb::open(const std::string& path) {
  if (connections.load() > 0 && connections_pid.load() != ::getpid()) return nullptr;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  auto connection = connect(path);
  if (!connection && connection.error().code != Errc::locked) {
    // Not a database (a crash of the disk, a file put there by hand): it holds nothing that
    // cannot be recomputed, so it is made again once. Another process still using it keeps
    // its own copy until it closes it.
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
    connection = connect(path);
  }
  if (!connection) return nullptr;
  connections_pid.store(::getpid());
  ++connections;
  return std::unique_ptr<EntryDb>(new EntryDb(std::move(*connection)));
}

EntryDb::EntryDb(std::unique_ptr<Connection> connection)
    : connection_(std::move(connection)), owner_(::getpid()) {}

EntryDb::~EntryDb() {
  if (!mine()) {
    // Inherited across a fork: the parent's to close, never the child's.
    (void)connection_.release();
    return;
  }
  commit_locked();
  // The last connection to close checkpoints the WAL into the database, but the WAL file is
  // kept (keep_wal_file) with its frames still valid: the next command to open the file
  // found them again and copied them into the database once more, with three fdatasync
  // calls, at every `show` and `log` (1.5 ms of a 7 ms `show` on this disk). Emptied here,
  // they are copied once. Another process's readers are never waited for: then the next
  // connection to close empties it.
  (void)connection_->db.exec("PRAGMA busy_timeout=0");
  (void)connection_->db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  connection_.reset();
  --connections;
}

bool EntryDb::mine() const {
  return ::getpid() == owner_;
}

bool EntryDb::holds(std::string_view name) {
  return name.starts_with("items/") || name.starts_with("keys/");
}

int EntryDb::open_connections() {
  return connections.load();
}

std::optional<std::string> EntryDb::get(std::string_view name) {
  if (!mine()) return std::nullopt;
  const std::lock_guard<std::mutex> hold(lock_);
  sqlite::Statement& select = connection_->select;
  std::optional<std::string> value;
  if (select.bind(1, name)) {
    if (auto row = select.step(); row && *row) value = select.text(0);
  }
  select.reset();
  return value;
}

void EntryDb::put_locked(std::string_view name, std::string_view value) {
  sqlite::Statement& insert = connection_->insert;
  if (insert.bind(1, name) && insert.bind(2, value)) (void)insert.run();
  insert.reset();
}

void EntryDb::put(std::string_view name, std::string_view value) {
  if (!mine()) return;
  const std::lock_guard<std::mutex> hold(lock_);
  put_locked(name, value);
}

void EntryDb::put_batched(std::string_view name, std::string_view value) {
  if (!mine()) return;
  const std::lock_guard<std::mutex> hold(lock_);
  // IMMEDIATE: the write lock now, as a batch read through first could not take it later.
  if (batched_ == 0 && !connection_->db.exec("BEGIN IMMEDIATE")) {
    put_locked(name, value);  // no batch (another writer outlasted the wait): on its own
    return;
  }
  put_locked(name, value);
  if (++batched_ >= kBatch) commit_locked();
}

void EntryDb::commit() {
  if (!mine()) return;
  const std::lock_guard<std::mutex> hold(lock_);
  commit_locked();
}

void EntryDb::commit_locked() {
  if (batched_ == 0) return;
  batched_ = 0;
  // A failed commit rolls back: those entries are recomputed when next asked for.
  if (!connection_->db.exec("COMMIT")) (void)connection_->db.exec("ROLLBACK");
}

}  // namespace feeddiff
