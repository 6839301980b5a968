#pragma once
// sqlite_db: a thin RAII layer over libsqlite3 for the modules that keep an SQLite file
// (export's git-history database, search's full-text index): handles that close and finalize
// themselves, errors as Result values naming the database file. The only module that
// includes sqlite3.h: the handles are opaque here, so a user of this header never sees it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "feeddiff/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace feeddiff::sqlite {

/// Closes a connection (sqlite3_close_v2 rolls back a transaction left open).
struct CloseDb {
  /// Closes it.
  void operator()(sqlite3* db) const;
};
/// Finalizes a prepared statement.
struct FinalizeStatement {
  /// Finalizes it.
  void operator()(sqlite3_stmt* statement) const;
};
/// An open connection.
using SqlitePtr = std::unique_ptr<sqlite3, CloseDb>;
/// A prepared statement.
using StatementPtr = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

/// A prepared statement of a Db: bind, step, read columns, reset.
class Statement {
 public:
  /// Wraps a prepared statement of the database at path (for error messages).
  Statement(StatementPtr statement, sqlite3* db, std::string path)
      : statement_(std::move(statement)), db_(db), path_(std::move(path)) {}

  /// Binds text (copied) to parameter index (1-based); nullopt binds NULL.
  Status bind(int index, const std::optional<std::string>& text);
  /// Binds text (copied) to parameter index (1-based).
  Status bind(int index, std::string_view text);
  /// Binds an integer to parameter index (1-based).
  Status bind(int index, std::int64_t value);
  /// Binds NULL to parameter index (1-based).
  Status bind_null(int index);
  /// Runs one step: true when a row is ready to read, false when done.
  Result<bool> step();
  /// Runs a statement that returns no row, then resets it for the next bindings.
  Status run();
  /// Resets it for new bindings (the bindings stay until bound again).
  void reset();
  /// The row's column (0-based) as text; nullopt for NULL.
  std::optional<std::string> text(int column) const;
  /// The row's column (0-based) as an integer.
  std::int64_t integer(int column) const;
  /// Whether the row's column (0-based) is NULL.
  bool is_null(int column) const;

 private:
  Status error(int code) const;
  StatementPtr statement_;
  sqlite3* db_;
  std::string path_;
};

/// An open database file. Errors are Errc::io naming the file, Errc::locked when another
/// connection held it past the wait.
class Db {
 public:
  /// Opens (creating it if missing) the database file at path, read-write, waiting up to a few
  /// seconds for another connection's lock.
  static Result<Db> open(const std::string& path);
  /// Runs SQL statements that return no rows.
  Status exec(const std::string& sql);
  /// Prepares one statement.
  Result<Statement> prepare(const std::string& sql);
  /// Keeps the WAL file (and its index) when the last connection closes: a file opened by
  /// every short command then is not made and deleted again by each (SQLITE_FCNTL_PERSIST_WAL).
  void keep_wal_file();
  /// The rowid of the last row inserted.
  std::int64_t last_insert_rowid() const;
  /// Rows the last INSERT, UPDATE or DELETE changed.
  std::int64_t changes() const;
  /// The file's path.
  const std::string& path() const { return path_; }

 private:
  Db(SqlitePtr db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  SqlitePtr db_;
  std::string path_;
};

/// A transaction: BEGIN IMMEDIATE when made, ROLLBACK when dropped before commit().
class Transaction {
 public:
  /// Begins one on db.
  static Result<Transaction> begin(Db& db);
  /// Commits it.
  Status commit();
  /// Moves one.
  Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  Transaction& operator=(Transaction&&) = delete;
  /// Rolls back unless committed.
  ~Transaction();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

/// The version of the SQLite library in use (sqlite3_libversion), e.g. "3.40.1".
std::string library_version();

}  // namespace feeddiff::sqlite
