// SqliteDatabase: the tuning database in one SQLite file in WAL mode, so that the CLI can read
// while the coordinator writes, with a busy timeout for several processes on one file. The
// schema carries its version in a meta table: an older file is migrated step by step at open,
// a newer one (or a file that is not a Kiln database) is refused with a message that says
// which version it has and which this build reads.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "database/database.h"

namespace kiln::database {

// The schema version this build writes. Pinned by tests/database: changing the schema means
// a new version and a migration step from the previous one.
inline constexpr int kSchemaVersion = 3;

// ~/.cache/kiln/tuning.db, or tuning.db under KILN_CACHE_DIR when set.
std::string DefaultDatabasePath();

class SqliteConnection;

struct SqliteDatabaseOptions {
  bool create = true;  // create the file (and its folder) when missing
  int busy_timeout_ms = 10000;
};

class SqliteDatabase : public Database {
 public:
  // Opens or creates `path`; kiln::Error(kIO) naming the file when it cannot be opened, is
  // not a Kiln tuning database, or has a schema version this build cannot read. A file that
  // cannot be written, in a folder that cannot be written, is opened for reading only (as
  // SQLite's immutable file: nobody may write it meanwhile); each write then fails with an
  // error saying that the file cannot be written.
  explicit SqliteDatabase(const std::string& path, SqliteDatabaseOptions options = {});
  ~SqliteDatabase() override;

  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  // "ok" for a sound file (PRAGMA integrity_check's first row).
  std::string IntegrityCheck();
  // Writes a consistent copy of the database to `path` with SQLite's online backup (other
  // connections may go on writing meanwhile). The copy is made as PATH.partial and renamed
  // when complete, so that nothing half-written is left at `path`; kiln::Error(kIO) naming the
  // file when `path` exists or the copy fails.
  void BackupTo(const std::string& path);
  int SchemaVersion();

  bool CommitWorkload(const Workload& workload) override;
  std::optional<Workload> GetWorkload(const std::string& hash) override;
  int64_t CommitRecords(std::vector<TuningRecord>& records) override;
  std::vector<TuningRecord> TopK(const std::string& workload_hash, const std::string& target,
                                 const std::string& device, int64_t k) override;
  std::vector<TuningRecord> History(const HistoryQuery& query) override;
  std::vector<WorkloadSummary> ListWorkloads() override;
  int64_t CountRecords() override;

  int64_t CreateJob(Job& job) override;
  std::optional<Job> GetJob(int64_t id) override;
  std::vector<Job> ListJobs(bool unfinished_only = false) override;
  int64_t CountUnfinishedJobs() override;
  int64_t CountUnfinishedJobs(const std::string& client) override;
  void SetJobState(int64_t id, JobState state, const std::string& error = {}) override;
  void SetTaskProgress(int64_t job_id, int task_index, int64_t trials_done,
                       std::optional<double> best_seconds) override;
  JobStatistics GetJobStatistics(int64_t job_id) override;

  void SaveCostModel(const std::string& target, const std::vector<uint8_t>& bytes) override;
  std::optional<std::vector<uint8_t>> LoadCostModel(const std::string& target) override;

 private:
  // False when the file turned out to be readable only (see the constructor).
  bool OpenSchema();
  std::vector<JobTask> LoadTasks(int64_t job_id);

  std::string path_;
  bool read_only_ = false;
  std::unique_ptr<SqliteConnection> db_;
  // One connection serves every thread of a process; SQLite's own locking serves processes.
  std::mutex mutex_;
};

}  // namespace kiln::database
