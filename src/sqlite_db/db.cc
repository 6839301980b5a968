#include "feeddiff/sqlite_db.h"

#include <fmt/format.h>
#include <sqlite3.h>

namespace feeddiff::sqlite {

void CloseDb::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);
}

void FinalizeStatement::operator()(sqlite3_stmt* statement) const {
  sqlite3_finalize(statement);
}

namespace {

Error error_of(sqlite3* db, int code, const std::string& path) {
  const char* message = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  // Another connection's lock outlasting the wait is no fault of the file: a caller that
  // rebuilds an unreadable file must not take it for one.
  const int primary = code & 0xff;
  const Errc errc = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? Errc::locked : Errc::io;
  return Error{errc, fmt::format("{}: {}", path, message ? message : sqlite3_errstr(code))};
}

}  // namespace

Status Statement::error(int code) const {
  return error_of(db_, code, path_);
}

Status Statement::bind(int index, const std::optional<std::string>& text) {
  if (!text) {
    if (int rc = sqlite3_bind_null(statement_.get(), index); rc != SQLITE_OK) return error(rc);
    return Ok{};
  }
  return bind(index, std::string_view(*text));
}

Status Statement::bind(int index, std::string_view text) {
  int rc = sqlite3_bind_text64(statement_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT,
                               SQLITE_UTF8);
  if (rc != SQLITE_OK) return error(rc);
  return Ok{};
}

Status Statement::bind(int index, std::int64_t value) {
  if (int rc = sqlite3_bind_int64(statement_.get(), index, value); rc != SQLITE_OK)
    return error(rc);
  return Ok{};
}

Status Statement::bind_null(int index) {
  if (int rc = sqlite3_bind_null(statement_.get(), index); rc != SQLITE_OK) return error(rc);
  return Ok{};
}

Result<bool> Statement::step() {
  const int rc = sqlite3_step(statement_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return error(rc).error();
}

Status Statement::run() {
  auto row = step();
  reset();
  if (!row) return row.error();
  return Ok{};
}

void Statement::reset() {
  sqlite3_reset(statement_.get());
}

std::optional<std::string> Statement::text(int column) const {
  if (sqlite3_column_type(statement_.get(), column) == SQLITE_NULL) return std::nullopt;
  const auto* bytes = sqlite3_column_text(statement_.get(), column);
  const int size = sqlite3_column_bytes(statement_.get(), column);
  return std::string(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(statement_.get(), column);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(statement_.get(), column) == SQLITE_NULL;
}

Result<Db> Db::open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  SqlitePtr db(raw);
  if (rc != SQLITE_OK) return error_of(db.get(), rc, path);
  sqlite3_extended_result_codes(db.get(), 1);
  // A reader (Datasette) holding the file for a moment is waited for, not an error.
  sqlite3_busy_timeout(db.get(), 5000);
  return Db(std::move(db), path);
}

Status Db::exec(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Ok{};
  std::string text = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  const int primary = rc & 0xff;
  const Errc errc = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? Errc::locked : Errc::io;
  return Error{errc, fmt::format("{}: {}", path_, text)};
}

Result<Statement> Db::prepare(const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  const int rc =
      sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()) + 1, &raw, nullptr);
  StatementPtr statement(raw);
  if (rc != SQLITE_OK) return error_of(db_.get(), rc, path_);
  return Statement(std::move(statement), db_.get(), path_);
}

void Db::keep_wal_file() {
  int on = 1;
  sqlite3_file_control(db_.get(), "main", SQLITE_FCNTL_PERSIST_WAL, &on);
}

std::int64_t Db::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_.get());
}

std::int64_t Db::changes() const {
  return sqlite3_changes64(db_.get());
}

Result<Transaction> Transaction::begin(Db& db) {
  if (auto ok = db.exec("BEGIN IMMEDIATE"); !ok) return ok.error();
  return Transaction(&db);
}

Status Transaction::commit() {
  Db* db = std::exchange(db_, nullptr);
  return db->exec("COMMIT");
}

Transaction::~Transaction() {
  if (db_) (void)db_->exec("ROLLBACK");
}

std::string library_version() {
  return sqlite3_libversion();
}

}  // namespace feeddiff::sqlite
