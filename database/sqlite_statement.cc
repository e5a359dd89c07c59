// SQLite wrappers: every error becomes a kiln::Error(kIO) that names the file and statement.
#include "database/sqlite_statement.h"

#include <cstdio>

#include "support/error.h"

namespace kiln::database {

namespace {

// "file:PATH?immutable=1" with the characters a URI path may not hold escaped.
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

SqliteConnection::SqliteConnection(const std::string& path, bool create, bool read_only_immutable)
    : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  std::string name = path;
  if (read_only_immutable) {
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
    name = ImmutableUri(path);
  }
  if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(ErrorKind::kIO, path + ": cannot open the tuning database: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
}

SqliteConnection::~SqliteConnection() { sqlite3_close(db_); }

void SqliteConnection::Exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw Error(ErrorKind::kIO, path_ + ": " + sql.substr(0, 60) + ": " + text);
  }
}

void SqliteConnection::Fail(const std::string& what) const {
  // A write the file system refused says what the user can do about it.
  int code = sqlite3_errcode(db_) & 0xff;  // the primary code of an extended one
  std::string hint = code == SQLITE_FULL || code == SQLITE_IOERR
                         ? " (the disk may be full or failing; what was stored before is kept)"
                     : code == SQLITE_READONLY ? " (the file or its folder cannot be written)"
                                               : "";
  throw Error(ErrorKind::kIO, path_ + ": " + what + ": " + sqlite3_errmsg(db_) + hint);
}

SqliteStatement::SqliteStatement(SqliteConnection& db, const std::string& sql)
    : db_(db), sql_(sql) {
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    db.Fail("cannot prepare '" + sql.substr(0, 60) + "'");
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.Fail("bind");
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.Fail("bind");
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    db_.Fail("bind");
  }
  return *this;
}

SqliteStatement& SqliteStatement::BindBlob(int index, const std::vector<uint8_t>& value) {
  // A zero-length blob is bound as an empty blob, not NULL, so that it reads back as one.
  if (sqlite3_bind_blob(stmt_, index, value.empty() ? "" : static_cast<const void*>(value.data()),
                        static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK) {
    db_.Fail("bind");
  }
  return *this;
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.Fail("bind");
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, std::optional<double> value) {
  return value ? Bind(index, *value) : BindNull(index);
}

bool SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.Fail("'" + sql_.substr(0, 60) + "'");
}

void SqliteStatement::Run() {
  while (Step()) {
  }
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

double SqliteStatement::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<double> SqliteStatement::OptionalDouble(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt_, column);
}

std::string SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::vector<uint8_t> SqliteStatement::Blob(int column) const {
  const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
  int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr || size <= 0) return {};
  return std::vector<uint8_t>(data, data + size);
}

SqliteTransaction::SqliteTransaction(SqliteConnection& db) : db_(db) {
  db_.Exec("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::Commit() {
  db_.Exec("COMMIT");
  done_ = true;
}

}  // namespace kiln::database
