// SqliteDatabase: schema, migrations and queries of the tuning database.
#include "database/sqlite_database.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "database/sqlite_statement.h"
#include "support/error.h"

namespace kiln::database {
namespace {

double NowUnix() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The schema of version 1. Run times are a JSON array: every repeat is kept, and the median
// has its own column so that best-K is an index scan.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  tvmscript TEXT NOT NULL,
  created REAL NOT NULL);
CREATE TABLE records (
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  target TEXT NOT NULL,
  device TEXT NOT NULL,
  trace TEXT NOT NULL,
  error_kind TEXT NOT NULL,
  message TEXT NOT NULL,
  run_seconds TEXT NOT NULL,
  median_seconds REAL,
  number INTEGER NOT NULL,
  build_seconds REAL NOT NULL,
  build_cache_hit INTEGER NOT NULL,
  correctness_checked INTEGER NOT NULL,
  max_abs_error REAL NOT NULL,
  max_rel_error REAL NOT NULL,
  reference TEXT NOT NULL,
  worker TEXT NOT NULL,
  job_id INTEGER,
  candidate_id INTEGER,
  created REAL NOT NULL);
CREATE INDEX records_best ON records (workload_id, target, device, median_seconds);
CREATE INDEX records_created ON records (created);
CREATE UNIQUE INDEX records_candidate ON records (job_id, candidate_id)
  WHERE job_id IS NOT NULL;
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  model_text TEXT NOT NULL,
  target TEXT NOT NULL,
  device TEXT NOT NULL,
  options TEXT NOT NULL,
  state TEXT NOT NULL,
  error TEXT NOT NULL,
  trials_total INTEGER NOT NULL,
  trials_done INTEGER NOT NULL,
  created REAL NOT NULL,
  updated REAL NOT NULL);
CREATE TABLE tasks (
  job_id INTEGER NOT NULL REFERENCES jobs(id),
  task_index INTEGER NOT NULL,
  name TEXT NOT NULL,
  workload_hash TEXT NOT NULL,
  weight INTEGER NOT NULL,
  trials_total INTEGER NOT NULL,
  trials_done INTEGER NOT NULL,
  best_seconds REAL,
  PRIMARY KEY (job_id, task_index));
CREATE TABLE cost_models (
  target TEXT PRIMARY KEY,
  model BLOB NOT NULL,
  updated REAL NOT NULL);
)sql";

// Steps from version i to i + 1, for i = 1 .. kSchemaVersion - 1. A new schema version adds
// its step here; every older file is brought forward one step at a time at open.
const std::vector<std::function<void(SqliteConnection&)>>& Migrations() {
  static const std::vector<std::function<void(SqliteConnection&)>> migrations = {
      // 1 -> 2: each record's contention (runtime/cpu_wait.h); earlier records say 0, unmeasured.
      [](SqliteConnection& db) {
        db.Exec("ALTER TABLE records ADD COLUMN contention REAL NOT NULL DEFAULT 0");
      },
      // 2 -> 3: each job's client (its CurveZMQ public key), for the limit of jobs per client;
      // earlier jobs say '' (unrecorded). The index answers the unfinished-job counts without
      // reading the rows, whose models may be large.
      [](SqliteConnection& db) {
        db.Exec(
            "ALTER TABLE jobs ADD COLUMN client TEXT NOT NULL DEFAULT ''; "
            "CREATE INDEX jobs_state_client ON jobs (state, client)");
      },
  };
  return migrations;
}

constexpr const char* kRecordColumns =
    "w.hash, r.target, r.device, r.trace, r.error_kind, r.message, r.run_seconds, "
    "r.median_seconds, r.number, r.build_seconds, r.build_cache_hit, r.correctness_checked, "
    "r.max_abs_error, r.max_rel_error, r.reference, r.worker, r.created, r.job_id, "
    "r.candidate_id, r.id, r.contention";

TuningRecord ReadRecord(const SqliteStatement& s) {
  TuningRecord r;
  r.workload_hash = s.Text(0);
  r.target = s.Text(1);
  r.device = s.Text(2);
  r.trace_json = s.Text(3);
  r.result.error_kind =
      runtime::ParseMeasureErrorKind(s.Text(4)).value_or(runtime::MeasureErrorKind::kRuntimeError);
  r.result.message = s.Text(5);
  nlohmann::json runs = nlohmann::json::parse(s.Text(6), nullptr, false);
  if (runs.is_array()) {
    for (const auto& v : runs) {
      if (v.is_number()) r.result.repeat_seconds.push_back(v.get<double>());
    }
  }
  r.result.median_seconds = s.OptionalDouble(7).value_or(0);
  r.result.number = static_cast<int>(s.Int(8));
  r.result.build_seconds = s.Double(9);
  r.result.build_cache_hit = s.Int(10) != 0;
  r.result.correctness_checked = s.Int(11) != 0;
  r.result.max_abs_error = s.Double(12);
  r.result.max_rel_error = s.Double(13);
  r.result.reference = s.Text(14);
  r.worker = s.Text(15);
  r.created_unix = s.Double(16);
  r.job_id = s.Int(17);
  r.candidate_id = s.Int(18);
  r.id = s.Int(19);
  r.result.contention = s.Double(20);
  return r;
}

Job ReadJob(const SqliteStatement& s) {
  Job job;
  job.id = s.Int(0);
  job.model = s.Text(1);
  job.model_text = s.Text(2);
  job.target = s.Text(3);
  job.device = s.Text(4);
  job.options_json = s.Text(5);
  job.state = ParseJobState(s.Text(6)).value_or(JobState::kFailed);
  job.error = s.Text(7);
  job.trials_total = s.Int(8);
  job.trials_done = s.Int(9);
  job.created_unix = s.Double(10);
  job.updated_unix = s.Double(11);
  job.client = s.Text(12);
  return job;
}

constexpr const char* kJobColumns =
    "id, model, model_text, target, device, options, state, error, trials_total, trials_done, "
    "created, updated, client";

}  // namespace

std::string DefaultDatabasePath() {
  if (const char* dir = std::getenv("KILN_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return (std::filesystem::path(dir) / "tuning.db").string();
  }
  const char* home = std::getenv("HOME");
  std::filesystem::path base = home != nullptr && *home != '\0' ? home : "/tmp";
  return (base / ".cache" / "kiln" / "tuning.db").string();
}

SqliteDatabase::SqliteDatabase(const std::string& path, SqliteDatabaseOptions options)
    : path_(path) {
  KILN_CHECK(!path.empty(), ErrorKind::kIO, "tuning database: the path is empty");
  if (options.create && path != ":memory:") {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    KILN_CHECK(!ec, ErrorKind::kIO,
               path + ": cannot create the folder " + parent.string() + ": " + ec.message());
  }
  db_ = std::make_unique<SqliteConnection>(path, options.create);
  sqlite3_busy_timeout(db_->get(), options.busy_timeout_ms);
  if (!OpenSchema()) {
    // A file that cannot be written in a folder that cannot be written (a shared copy, a
    // read-only mount): WAL mode cannot make its -shm file even to read. Read it as a file
    // nobody changes; every write fails, saying that the file cannot be written.
    db_ = std::make_unique<SqliteConnection>(path, false, /*read_only_immutable=*/true);
    read_only_ = true;
    OpenSchema();
  }
}

SqliteDatabase::~SqliteDatabase() = default;

bool SqliteDatabase::OpenSchema() {
  // Not a database at all (a text file given as --db) fails on its first read: say so.
  int tables = 0;
  bool has_meta = false;
  try {
    SqliteStatement list(*db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (list.Step()) {
      ++tables;
      if (list.Text(0) == "meta") has_meta = true;
    }
  } catch (const Error& e) {
    if (!read_only_ && (sqlite3_errcode(db_->get()) & 0xff) == SQLITE_READONLY) return false;
    throw Error(ErrorKind::kIO, path_ + ": not a Kiln tuning database (" + e.what() + ")");
  }
  if (read_only_) {
    KILN_CHECK(tables > 0 && has_meta, ErrorKind::kIO,
               path_ + ": not a Kiln tuning database, and it cannot be written to make one");
    int version = SchemaVersion();
    KILN_CHECK(version == kSchemaVersion, ErrorKind::kIO,
               path_ + ": tuning database schema version " + std::to_string(version) +
                   " is to be migrated to " + std::to_string(kSchemaVersion) +
                   ", and the file or its folder cannot be written: copy it where it can be");
    return true;
  }
  if (path_ != ":memory:") {
    SqliteStatement wal(*db_, "PRAGMA journal_mode=WAL");
    std::string mode = wal.Step() ? wal.Text(0) : "";
    KILN_CHECK(
        mode == "wal", ErrorKind::kIO,
        path_ + ": cannot switch the tuning database to WAL mode (journal mode is '" + mode + "')");
  }
  db_->Exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON");
  if (tables == 0) {
    SqliteTransaction transaction(*db_);
    db_->Exec(kSchemaV1);
    for (int v = 1; v < kSchemaVersion; ++v) Migrations().at(v - 1)(*db_);
    SqliteStatement(*db_, "INSERT INTO meta (key, value) VALUES ('schema_version', ?)")
        .Bind(1, std::to_string(kSchemaVersion))
        .Run();
    SqliteStatement(*db_, "INSERT INTO meta (key, value) VALUES ('created_by', 'kiln')").Run();
    transaction.Commit();
    return true;
  }
  KILN_CHECK(has_meta, ErrorKind::kIO,
             path_ + ": not a Kiln tuning database (it has tables but no meta table)");
  int version = SchemaVersion();
  KILN_CHECK(version >= 1 && version <= kSchemaVersion, ErrorKind::kIO,
             path_ + ": tuning database schema version " + std::to_string(version) +
                 (version > kSchemaVersion ? " is newer than" : " is not one of") +
                 " the versions this build reads (1 to " + std::to_string(kSchemaVersion) + ")" +
                 (version > kSchemaVersion ? ": use a newer Kiln" : ""));
  if (version < kSchemaVersion) {
    SqliteTransaction transaction(*db_);
    for (int v = version; v < kSchemaVersion; ++v) Migrations().at(v - 1)(*db_);
    SqliteStatement(*db_, "UPDATE meta SET value = ? WHERE key = 'schema_version'")
        .Bind(1, std::to_string(kSchemaVersion))
        .Run();
    transaction.Commit();
  }
  return true;
}

int SqliteDatabase::SchemaVersion() {
  SqliteStatement s(*db_, "SELECT value FROM meta WHERE key = 'schema_version'");
  KILN_CHECK(s.Step(), ErrorKind::kIO, path_ + ": the meta table has no schema_version");
  std::string text = s.Text(0);
  try {
    size_t used = 0;
    int version = std::stoi(text, &used);
    if (used == text.size()) return version;
  } catch (const std::exception&) {
  }
  throw Error(ErrorKind::kIO, path_ + ": schema_version '" + text + "' is not a number");
}

std::string SqliteDatabase::IntegrityCheck() {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "PRAGMA integrity_check");
  return s.Step() ? s.Text(0) : "no answer";
}

void SqliteDatabase::BackupTo(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  KILN_CHECK(!fs::exists(path, ec), ErrorKind::kIO,
             path + ": exists; a backup is written to a new file only");
  std::string partial = path + ".partial";
  fs::remove(partial, ec);
  try {
    {
      SqliteConnection copy(partial, /*create=*/true);
      std::lock_guard lock(mutex_);
      sqlite3_backup* backup = sqlite3_backup_init(copy.get(), "main", db_->get(), "main");
      if (backup == nullptr) copy.Fail("cannot start the backup of " + path_);
      int rc = sqlite3_backup_step(backup, -1);  // every page, in one step
      sqlite3_backup_finish(backup);
      if (rc != SQLITE_DONE) copy.Fail("the backup of " + path_ + " did not complete");
    }
    fs::rename(partial, path, ec);
    KILN_CHECK(!ec, ErrorKind::kIO,
               partial + ": cannot be renamed to " + path + ": " + ec.message());
  } catch (...) {
    fs::remove(partial, ec);
    throw;
  }
}

bool SqliteDatabase::CommitWorkload(const Workload& workload) {
  KILN_CHECK(!workload.hash.empty(), ErrorKind::kInvalidIR,
             "CommitWorkload: workload '" + workload.name + "' has no hash");
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_,
                    "INSERT OR IGNORE INTO workloads (hash, name, tvmscript, created) "
                    "VALUES (?, ?, ?, ?)");
  s.Bind(1, workload.hash).Bind(2, workload.name).Bind(3, workload.tvmscript).Bind(4, NowUnix());
  s.Run();
  return sqlite3_changes(db_->get()) > 0;
}

std::optional<Workload> SqliteDatabase::GetWorkload(const std::string& hash) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "SELECT hash, name, tvmscript FROM workloads WHERE hash = ?");
  s.Bind(1, hash);
  if (!s.Step()) return std::nullopt;
  return Workload{s.Text(0), s.Text(1), s.Text(2)};
}

int64_t SqliteDatabase::CommitRecords(std::vector<TuningRecord>& records) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*db_);
  SqliteStatement find(*db_, "SELECT id FROM workloads WHERE hash = ?");
  SqliteStatement insert(
      *db_,
      "INSERT OR IGNORE INTO records (workload_id, target, device, trace, error_kind, message, "
      "run_seconds, median_seconds, number, build_seconds, build_cache_hit, "
      "correctness_checked, max_abs_error, max_rel_error, reference, worker, job_id, "
      "candidate_id, created, contention) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int64_t added = 0;
  double now = NowUnix();
  for (TuningRecord& r : records) {
    find.Reset();
    find.Bind(1, r.workload_hash);
    KILN_CHECK(find.Step(), ErrorKind::kInvalidIR,
               "CommitRecords: workload " + r.workload_hash + " is not in " + path_ +
                   " (commit the workload before its records)");
    int64_t workload_id = find.Int(0);
    KILN_CHECK(
        !r.target.empty() && !r.device.empty(), ErrorKind::kInvalidIR,
        "CommitRecords: a record of workload " + r.workload_hash + " has no target or device key");
    const runtime::MeasureResult& m = r.result;
    nlohmann::json runs = m.repeat_seconds;
    if (r.created_unix <= 0) r.created_unix = now;
    insert.Reset();
    insert.Bind(1, workload_id)
        .Bind(2, r.target)
        .Bind(3, r.device)
        .Bind(4, r.trace_json)
        .Bind(5, std::string(runtime::MeasureErrorKindName(m.error_kind)))
        .Bind(6, m.message)
        .Bind(7, runs.dump())
        .Bind(8, m.ok() ? std::optional<double>(m.median_seconds) : std::nullopt)
        .Bind(9, static_cast<int64_t>(m.number))
        .Bind(10, m.build_seconds)
        .Bind(11, static_cast<int64_t>(m.build_cache_hit))
        .Bind(12, static_cast<int64_t>(m.correctness_checked))
        .Bind(13, m.max_abs_error)
        .Bind(14, m.max_rel_error)
        .Bind(15, m.reference)
        .Bind(16, r.worker);
    if (r.job_id != 0) {
      insert.Bind(17, r.job_id).Bind(18, r.candidate_id);
    } else {
      insert.BindNull(17).BindNull(18);
    }
    insert.Bind(19, r.created_unix).Bind(20, m.contention);
    insert.Run();
    if (sqlite3_changes(db_->get()) > 0) {
      r.id = sqlite3_last_insert_rowid(db_->get());
      ++added;
    }
  }
  transaction.Commit();
  return added;
}

std::vector<TuningRecord> SqliteDatabase::TopK(const std::string& workload_hash,
                                               const std::string& target, const std::string& device,
                                               int64_t k) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kRecordColumns +
                              " FROM records r JOIN workloads w ON r.workload_id = w.id "
                              "WHERE w.hash = ? AND r.target = ? AND r.device = ? "
                              "AND r.median_seconds IS NOT NULL "
                              "ORDER BY r.median_seconds, r.id LIMIT ?");
  s.Bind(1, workload_hash).Bind(2, target).Bind(3, device).Bind(4, k);
  std::vector<TuningRecord> out;
  while (s.Step()) out.push_back(ReadRecord(s));
  return out;
}

std::vector<TuningRecord> SqliteDatabase::History(const HistoryQuery& query) {
  std::lock_guard lock(mutex_);
  // Empty filters match everything: (? = '' OR column = ?).
  SqliteStatement s(*db_, std::string("SELECT ") + kRecordColumns +
                              " FROM records r JOIN workloads w ON r.workload_id = w.id "
                              "WHERE (?1 = '' OR w.hash = ?1) AND (?2 = '' OR r.target = ?2) "
                              "AND (?3 = '' OR r.device = ?3) AND (?4 = 0 OR r.job_id = ?4) "
                              "ORDER BY r.created DESC, r.id DESC LIMIT ?5");
  s.Bind(1, query.workload_hash)
      .Bind(2, query.target)
      .Bind(3, query.device)
      .Bind(4, query.job_id)
      .Bind(5, query.limit);
  std::vector<TuningRecord> out;
  while (s.Step()) out.push_back(ReadRecord(s));
  return out;
}

std::vector<WorkloadSummary> SqliteDatabase::ListWorkloads() {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_,
                    "SELECT w.hash, w.name, r.target, r.device, COUNT(*), MIN(r.median_seconds) "
                    "FROM records r JOIN workloads w ON r.workload_id = w.id "
                    "GROUP BY w.id, r.target, r.device ORDER BY w.name, w.hash, r.target, "
                    "r.device");
  std::vector<WorkloadSummary> out;
  while (s.Step()) {
    out.push_back({s.Text(0), s.Text(1), s.Text(2), s.Text(3), s.Int(4), s.OptionalDouble(5)});
  }
  return out;
}

int64_t SqliteDatabase::CountRecords() {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "SELECT COUNT(*) FROM records");
  s.Step();
  return s.Int(0);
}

int64_t SqliteDatabase::CreateJob(Job& job) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*db_);
  double now = NowUnix();
  job.created_unix = job.updated_unix = now;
  job.trials_done = 0;
  SqliteStatement insert(*db_,
                         "INSERT INTO jobs (model, model_text, target, device, options, state, "
                         "error, trials_total, trials_done, created, updated, client) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)");
  insert.Bind(1, job.model)
      .Bind(2, job.model_text)
      .Bind(3, job.target)
      .Bind(4, job.device)
      .Bind(5, job.options_json.empty() ? std::string("{}") : job.options_json)
      .Bind(6, std::string(JobStateName(job.state)))
      .Bind(7, job.error)
      .Bind(8, job.trials_total)
      .Bind(9, now)
      .Bind(10, now)
      .Bind(11, job.client);
  insert.Run();
  job.id = sqlite3_last_insert_rowid(db_->get());
  SqliteStatement task(*db_,
                       "INSERT INTO tasks (job_id, task_index, name, workload_hash, weight, "
                       "trials_total, trials_done, best_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (JobTask& t : job.tasks) {
    task.Reset();
    task.Bind(1, job.id)
        .Bind(2, static_cast<int64_t>(t.index))
        .Bind(3, t.name)
        .Bind(4, t.workload_hash)
        .Bind(5, t.weight)
        .Bind(6, t.trials_total)
        .Bind(7, t.trials_done)
        .Bind(8, t.best_seconds);
    task.Run();
    job.trials_done += t.trials_done;
  }
  SqliteStatement(*db_, "UPDATE jobs SET trials_done = ? WHERE id = ?")
      .Bind(1, job.trials_done)
      .Bind(2, job.id)
      .Run();
  transaction.Commit();
  return job.id;
}

std::vector<JobTask> SqliteDatabase::LoadTasks(int64_t job_id) {
  SqliteStatement s(*db_,
                    "SELECT task_index, name, workload_hash, weight, trials_total, trials_done, "
                    "best_seconds FROM tasks WHERE job_id = ? ORDER BY task_index");
  s.Bind(1, job_id);
  std::vector<JobTask> out;
  while (s.Step()) {
    out.push_back({static_cast<int>(s.Int(0)), s.Text(1), s.Text(2), s.Double(3), s.Int(4),
                   s.Int(5), s.OptionalDouble(6)});
  }
  return out;
}

std::optional<Job> SqliteDatabase::GetJob(int64_t id) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = ?");
  s.Bind(1, id);
  if (!s.Step()) return std::nullopt;
  Job job = ReadJob(s);
  job.tasks = LoadTasks(id);
  return job;
}

std::vector<Job> SqliteDatabase::ListJobs(bool unfinished_only) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, std::string("SELECT ") + kJobColumns + " FROM jobs" +
                              (unfinished_only ? " WHERE state IN ('queued', 'running') ORDER BY id"
                                               : " ORDER BY id DESC"));
  std::vector<Job> out;
  while (s.Step()) out.push_back(ReadJob(s));
  for (Job& job : out) job.tasks = LoadTasks(job.id);
  return out;
}

int64_t SqliteDatabase::CountUnfinishedJobs() {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'running')");
  return s.Step() ? s.Int(0) : 0;
}

int64_t SqliteDatabase::CountUnfinishedJobs(const std::string& client) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(
      *db_, "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'running') AND client = ?");
  s.Bind(1, client);
  return s.Step() ? s.Int(0) : 0;
}

void SqliteDatabase::SetJobState(int64_t id, JobState state, const std::string& error) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "UPDATE jobs SET state = ?, error = ?, updated = ? WHERE id = ?");
  s.Bind(1, std::string(JobStateName(state))).Bind(2, error).Bind(3, NowUnix()).Bind(4, id);
  s.Run();
  KILN_CHECK(sqlite3_changes(db_->get()) > 0, ErrorKind::kIO,
             path_ + ": no job " + std::to_string(id));
}

void SqliteDatabase::SetTaskProgress(int64_t job_id, int task_index, int64_t trials_done,
                                     std::optional<double> best_seconds) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*db_);
  SqliteStatement s(*db_,
                    "UPDATE tasks SET trials_done = ?, best_seconds = ? "
                    "WHERE job_id = ? AND task_index = ?");
  s.Bind(1, trials_done)
      .Bind(2, best_seconds)
      .Bind(3, job_id)
      .Bind(4, static_cast<int64_t>(task_index));
  s.Run();
  KILN_CHECK(
      sqlite3_changes(db_->get()) > 0, ErrorKind::kIO,
      path_ + ": job " + std::to_string(job_id) + " has no task " + std::to_string(task_index));
  SqliteStatement(*db_,
                  "UPDATE jobs SET trials_done = (SELECT COALESCE(SUM(trials_done), 0) FROM "
                  "tasks WHERE job_id = ?1), updated = ?2 WHERE id = ?1")
      .Bind(1, job_id)
      .Bind(2, NowUnix())
      .Run();
  transaction.Commit();
}

JobStatistics SqliteDatabase::GetJobStatistics(int64_t job_id) {
  std::lock_guard lock(mutex_);
  JobStatistics stats;
  SqliteStatement s(*db_,
                    "SELECT error_kind, COUNT(*), MIN(median_seconds) FROM records "
                    "WHERE job_id = ? GROUP BY error_kind ORDER BY error_kind");
  s.Bind(1, job_id);
  while (s.Step()) {
    std::string kind = s.Text(0);
    int64_t count = s.Int(1);
    stats.records += count;
    if (kind == "ok") {
      stats.ok = count;
      stats.best_seconds = s.OptionalDouble(2);
    } else {
      stats.errors_by_kind.emplace_back(kind, count);
    }
  }
  SqliteStatement max(*db_, "SELECT COALESCE(MAX(candidate_id), 0) FROM records WHERE job_id = ?");
  max.Bind(1, job_id);
  if (max.Step()) stats.max_candidate_id = max.Int(0);
  return stats;
}

void SqliteDatabase::SaveCostModel(const std::string& target, const std::vector<uint8_t>& bytes) {
  std::lock_guard lock(mutex_);
  SqliteStatement(*db_,
                  "INSERT INTO cost_models (target, model, updated) VALUES (?, ?, ?) "
                  "ON CONFLICT (target) DO UPDATE SET model = excluded.model, "
                  "updated = excluded.updated")
      .Bind(1, target)
      .BindBlob(2, bytes)
      .Bind(3, NowUnix())
      .Run();
}

std::optional<std::vector<uint8_t>> SqliteDatabase::LoadCostModel(const std::string& target) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(*db_, "SELECT model FROM cost_models WHERE target = ?");
  s.Bind(1, target);
  if (!s.Step()) return std::nullopt;
  return s.Blob(0);
}

}  // namespace kiln::database
