// Thin RAII wrappers over SQLite's C API: a connection and a prepared statement whose every
// failure is a kiln::Error(kIO) naming the database file and the statement. Only what the
// tuning database needs: positional binds, stepping, typed column reads.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::database {

class SqliteConnection {
 public:
  // Opens (creating when `create`) the file; kiln::Error(kIO) naming it on failure. With
  // `read_only_immutable`, only for reading, as a file nobody changes while it is open
  // (SQLite's immutable URI): a write-protected file in a write-protected folder, where WAL
  // mode could not make its -shm file.
  SqliteConnection(const std::string& path, bool create, bool read_only_immutable = false);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs statements that return no rows.
  void Exec(const std::string& sql);
  // "PATH: WHAT: sqlite's message".
  [[noreturn]] void Fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteConnection& db, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Binds are 1-based, as in SQLite; each returns *this to chain.
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, double value);
  SqliteStatement& Bind(int index, const std::string& value);
  SqliteStatement& BindBlob(int index, const std::vector<uint8_t>& value);
  SqliteStatement& BindNull(int index);
  SqliteStatement& Bind(int index, std::optional<double> value);

  // True when a row is ready; false when the statement is done.
  bool Step();
  // Steps to completion (for statements that return no rows).
  void Run();
  void Reset();

  int64_t Int(int column) const;
  double Double(int column) const;
  std::optional<double> OptionalDouble(int column) const;
  std::string Text(int column) const;
  std::vector<uint8_t> Blob(int column) const;

 private:
  SqliteConnection& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE on construction, ROLLBACK on destruction unless Commit() was called: a
// thrown error leaves nothing of a batch behind.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteConnection& db);
  ~SqliteTransaction();
  void Commit();

 private:
  SqliteConnection& db_;
  bool done_ = false;
};

}  // namespace kiln::database
