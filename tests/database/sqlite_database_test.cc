// SqliteDatabase on real files: the schema version is written and enforced, records are
// keyed by (workload, target, device), a (job, candidate) is stored once, a failed batch
// leaves nothing, jobs resume from what was stored, and two connections share one file.
#include "database/sqlite_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "support/error.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::database {
namespace {

using runtime::MeasureErrorKind;
using runtime::testing::ScratchDir;
using ::testing::HasSubstr;

TuningRecord Record(const std::string& hash, const std::string& device, double median,
                    int64_t job = 0, int64_t candidate = 0) {
  TuningRecord r;
  r.workload_hash = hash;
  r.target = "llvm";
  r.device = device;
  r.trace_json = "[[], []]";
  r.result.repeat_seconds = {median * 1.1, median, median * 0.9};
  r.result.median_seconds = median;
  r.result.number = 4;
  r.result.build_seconds = 0.5;
  r.result.correctness_checked = true;
  r.worker = "w1";
  r.job_id = job;
  r.candidate_id = candidate;
  return r;
}

TuningRecord Failed(const std::string& hash, MeasureErrorKind kind, int64_t job = 0,
                    int64_t candidate = 0) {
  TuningRecord r = Record(hash, "cpu-zen4", 0, job, candidate);
  r.result.error_kind = kind;
  r.result.message = "it failed";
  r.result.repeat_seconds.clear();
  return r;
}

void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(SqliteDatabase, CreatesAVersionedWalFileAndReopensIt) {
  ScratchDir dir;
  std::string path = dir.Sub("sub/folder/tuning.db");
  {
    SqliteDatabase db(path);
    EXPECT_EQ(db.SchemaVersion(), kSchemaVersion);
    EXPECT_TRUE(db.CommitWorkload({"aa", "matmul", "# tir"}));
    EXPECT_FALSE(db.CommitWorkload({"aa", "other name", "# other"}));
  }
  SqliteDatabase again(path);
  EXPECT_EQ(again.IntegrityCheck(), "ok");
  std::optional<Workload> w = again.GetWorkload("aa");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->name, "matmul");
  EXPECT_EQ(w->tvmscript, "# tir");
  EXPECT_FALSE(again.GetWorkload("bb").has_value());
  EXPECT_TRUE(std::filesystem::exists(path + "-wal") || std::filesystem::exists(path));
}

TEST(SqliteDatabase, SchemaVersionIsPinned) {
  // Changing the schema without a new version and a migration orphans users' databases.
  EXPECT_EQ(kSchemaVersion, 3);
}

// A version 1 file (records without contention, jobs without client) opens as version 3: its
// records keep everything and say contention 0 (unmeasured); new records keep theirs.
TEST(SqliteDatabase, MigratesAVersionOneFileAndKeepsItsRecords) {
  ScratchDir dir;
  std::string path = dir.Sub("tuning.db");
  {
    SqliteDatabase db(path);
    ASSERT_TRUE(db.CommitWorkload({"aa", "matmul", "# tir"}));
    std::vector<TuningRecord> records = {Record("aa", "cpu-zen4", 2e-3)};
    ASSERT_EQ(db.CommitRecords(records), 1);
  }
  // What version 1 wrote: the same tables without the columns of versions 2 and 3.
  RawExec(path,
          "ALTER TABLE records DROP COLUMN contention; "
          "DROP INDEX jobs_state_client; ALTER TABLE jobs DROP COLUMN client; "
          "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  SqliteDatabase db(path);
  EXPECT_EQ(db.SchemaVersion(), 3);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
  std::vector<TuningRecord> old = db.TopK("aa", "llvm", "cpu-zen4", 5);
  ASSERT_EQ(old.size(), 1u);
  EXPECT_DOUBLE_EQ(old[0].result.median_seconds, 2e-3);
  EXPECT_EQ(old[0].result.repeat_seconds.size(), 3u);
  EXPECT_EQ(old[0].result.contention, 0);
  std::vector<TuningRecord> records = {Record("aa", "cpu-zen4", 1e-3)};
  records[0].result.contention = 0.42;
  ASSERT_EQ(db.CommitRecords(records), 1);
  std::vector<TuningRecord> both = db.TopK("aa", "llvm", "cpu-zen4", 5);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_DOUBLE_EQ(both[0].result.contention, 0.42);
}

// A version 2 file (jobs without their client) opens as version 3: its jobs keep everything,
// say client '' (unrecorded) and count among every client's unfinished jobs but no client's;
// new jobs keep their client and are counted per client.
TEST(SqliteDatabase, MigratesAVersionTwoFileAndKeepsItsJobs) {
  ScratchDir dir;
  std::string path = dir.Sub("tuning.db");
  int64_t old_id = 0;
  {
    SqliteDatabase db(path);
    Job job;
    job.model = "mlp.onnx";
    job.model_text = "bytes";
    job.target = "llvm";
    job.trials_total = 8;
    job.tasks = {{0, "matmul", "aa", 1, 8, 0, std::nullopt}};
    old_id = db.CreateJob(job);
  }
  // What version 2 wrote: the jobs table without the client and its index.
  RawExec(path,
          "DROP INDEX jobs_state_client; ALTER TABLE jobs DROP COLUMN client; "
          "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  SqliteDatabase db(path);
  EXPECT_EQ(db.SchemaVersion(), 3);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
  std::optional<Job> old = db.GetJob(old_id);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->model, "mlp.onnx");
  EXPECT_EQ(old->model_text, "bytes");
  EXPECT_EQ(old->state, JobState::kQueued);
  EXPECT_EQ(old->client, "");
  ASSERT_EQ(old->tasks.size(), 1u);
  EXPECT_EQ(old->tasks[0].trials_total, 8);

  Job job = *old;
  job.client = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
  int64_t id = db.CreateJob(job);
  EXPECT_EQ(db.GetJob(id)->client, job.client);
  EXPECT_EQ(db.ListJobs(true).at(1).client, job.client);
  EXPECT_EQ(db.CountUnfinishedJobs(), 2);
  EXPECT_EQ(db.CountUnfinishedJobs(job.client), 1);
  EXPECT_EQ(db.CountUnfinishedJobs("anonymous"), 0);
  db.SetJobState(id, JobState::kDone);
  EXPECT_EQ(db.CountUnfinishedJobs(job.client), 0);
  EXPECT_EQ(db.CountUnfinishedJobs(), 1);
}

TEST(SqliteDatabase, RefusesANewerSchemaNamingBothVersions) {
  ScratchDir dir;
  std::string path = dir.Sub("tuning.db");
  { SqliteDatabase db(path); }
  RawExec(path, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  try {
    SqliteDatabase db(path);
    FAIL() << "opened a version 7 database";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_THAT(e.what(), HasSubstr("schema version 7 is newer"));
    EXPECT_THAT(e.what(), HasSubstr(path));
  }
}

TEST(SqliteDatabase, RefusesFilesThatAreNotKilnDatabases) {
  ScratchDir dir;
  std::string other = dir.Sub("other.db");
  RawExec(other, "CREATE TABLE things (x INTEGER)");
  try {
    SqliteDatabase db(other);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a Kiln tuning database"));
  }
  std::string text = dir.Sub("notes.txt");
  std::ofstream(text) << "these are not the bytes of an SQLite file, not at all, no.\n";
  try {
    SqliteDatabase db(text);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a Kiln tuning database"));
  }
  try {
    SqliteDatabase db(dir.Sub("missing.db"), {.create = false});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open"));
  }
}

TEST(SqliteDatabase, TopKIsPerWorkloadTargetAndDeviceAndSkipsErrors) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("t.db"));
  db.CommitWorkload({"aa", "matmul", "#"});
  db.CommitWorkload({"bb", "softmax", "#"});
  std::vector<TuningRecord> records = {
      Record("aa", "cpu-zen4", 3e-3),   Record("aa", "cpu-zen4", 1e-3),
      Record("aa", "cpu-zen4", 2e-3),   Record("aa", "cpu-xeon-avx512", 0.5e-3),
      Record("bb", "cpu-zen4", 0.1e-3), Failed("aa", MeasureErrorKind::kWrongResult)};
  EXPECT_EQ(db.CommitRecords(records), 6);
  for (const TuningRecord& r : records) EXPECT_GT(r.id, 0);

  std::vector<TuningRecord> best = db.TopK("aa", "llvm", "cpu-zen4", 2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_DOUBLE_EQ(best[0].result.median_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(best[1].result.median_seconds, 2e-3);
  EXPECT_EQ(best[0].result.repeat_seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(best[0].result.repeat_seconds[2], 0.9e-3);
  EXPECT_EQ(best[0].result.number, 4);
  EXPECT_TRUE(best[0].result.correctness_checked);
  EXPECT_EQ(best[0].trace_json, "[[], []]");
  EXPECT_EQ(best[0].worker, "w1");
  EXPECT_TRUE(db.TopK("aa", "llvm", "cuda-h100", 5).empty());
  EXPECT_TRUE(db.TopK("aa", "cuda", "cpu-zen4", 5).empty());

  std::vector<WorkloadSummary> list = db.ListWorkloads();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name, "matmul");
  EXPECT_EQ(list[0].device, "cpu-xeon-avx512");
  EXPECT_EQ(list[1].device, "cpu-zen4");
  EXPECT_EQ(list[1].records, 4);
  EXPECT_DOUBLE_EQ(*list[1].best_seconds, 1e-3);
  EXPECT_EQ(db.CountRecords(), 6);

  std::vector<TuningRecord> history = db.History({.workload_hash = "aa", .limit = 3});
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].result.error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_EQ(history[0].result.message, "it failed");
  EXPECT_EQ(db.History({.device = "cpu-xeon-avx512"}).size(), 1u);
}

TEST(SqliteDatabase, ABatchWithAnUnknownWorkloadStoresNothing) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("t.db"));
  db.CommitWorkload({"aa", "matmul", "#"});
  std::vector<TuningRecord> records = {Record("aa", "cpu-zen4", 1e-3),
                                       Record("zz", "cpu-zen4", 1e-3)};
  try {
    db.CommitRecords(records);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_THAT(e.what(), HasSubstr("workload zz"));
  }
  EXPECT_EQ(db.CountRecords(), 0);
  std::vector<TuningRecord> no_device = {Record("aa", "", 1e-3)};
  EXPECT_THROW(db.CommitRecords(no_device), Error);
}

TEST(SqliteDatabase, ACandidateOfAJobIsStoredOnce) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("t.db"));
  db.CommitWorkload({"aa", "matmul", "#"});
  std::vector<TuningRecord> first = {Record("aa", "cpu-zen4", 1e-3, 1, 1),
                                     Record("aa", "cpu-zen4", 2e-3, 1, 2)};
  EXPECT_EQ(db.CommitRecords(first), 2);
  // Candidate 2 again (a lost worker answered late), candidate 3 new, and candidate 2 of
  // another job.
  std::vector<TuningRecord> second = {Record("aa", "cpu-zen4", 9e-3, 1, 2),
                                      Record("aa", "cpu-zen4", 3e-3, 1, 3),
                                      Record("aa", "cpu-zen4", 4e-3, 2, 2)};
  EXPECT_EQ(db.CommitRecords(second), 2);
  EXPECT_EQ(second[0].id, 0);
  EXPECT_EQ(db.CountRecords(), 4);
  EXPECT_EQ(db.History({.job_id = 1}).size(), 3u);
}

TEST(SqliteDatabase, JobsTasksProgressAndStatistics) {
  ScratchDir dir;
  std::string path = dir.Sub("t.db");
  int64_t id = 0;
  {
    SqliteDatabase db(path);
    db.CommitWorkload({"aa", "matmul", "#"});
    Job job;
    job.model = "model.onnx";
    job.model_text = "bytes";
    job.target = "llvm";
    job.trials_total = 64;
    job.client = "key-a";
    job.tasks = {{0, "matmul", "aa", 2, 48, 0, std::nullopt},
                 {1, "softmax", "bb", 1, 16, 0, std::nullopt}};
    id = db.CreateJob(job);
    EXPECT_EQ(job.id, id);
    db.SetJobState(id, JobState::kRunning);
    db.SetTaskProgress(id, 0, 10, 1e-3);
    db.SetTaskProgress(id, 1, 5, std::nullopt);
    EXPECT_THROW(db.SetTaskProgress(id, 7, 1, std::nullopt), Error);
    EXPECT_THROW(db.SetJobState(id + 100, JobState::kDone), Error);
    std::vector<TuningRecord> records = {Record("aa", "cpu-zen4", 1e-3, id, 1),
                                         Failed("aa", MeasureErrorKind::kBuildError, id, 2),
                                         Failed("aa", MeasureErrorKind::kTimeout, id, 3),
                                         Failed("aa", MeasureErrorKind::kTimeout, id, 4)};
    db.CommitRecords(records);
  }
  // A restarted coordinator finds the job where it was.
  SqliteDatabase db(path);
  std::vector<Job> unfinished = db.ListJobs(true);
  ASSERT_EQ(unfinished.size(), 1u);
  EXPECT_EQ(db.CountUnfinishedJobs(), 1);
  EXPECT_EQ(db.CountUnfinishedJobs("key-a"), 1);
  EXPECT_EQ(db.CountUnfinishedJobs("key-b"), 0);
  const Job& job = unfinished[0];
  EXPECT_EQ(job.client, "key-a");
  EXPECT_EQ(job.id, id);
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.model_text, "bytes");
  EXPECT_EQ(job.options_json, "{}");
  EXPECT_EQ(job.trials_done, 15);
  ASSERT_EQ(job.tasks.size(), 2u);
  EXPECT_EQ(job.tasks[0].trials_done, 10);
  EXPECT_DOUBLE_EQ(*job.tasks[0].best_seconds, 1e-3);
  EXPECT_FALSE(job.tasks[1].best_seconds.has_value());
  EXPECT_EQ(job.tasks[1].trials_total, 16);

  JobStatistics stats = db.GetJobStatistics(id);
  EXPECT_EQ(stats.records, 4);
  EXPECT_EQ(stats.ok, 1);
  EXPECT_EQ(stats.max_candidate_id, 4);
  EXPECT_DOUBLE_EQ(*stats.best_seconds, 1e-3);
  using Counts = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(stats.errors_by_kind, (Counts{{"build_error", 1}, {"timeout", 2}}));

  db.SetJobState(id, JobState::kFailed, "no worker for target llvm");
  EXPECT_TRUE(db.ListJobs(true).empty());
  EXPECT_EQ(db.CountUnfinishedJobs(), 0);
  EXPECT_EQ(db.CountUnfinishedJobs("key-a"), 0);
  std::optional<Job> failed = db.GetJob(id);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->state, JobState::kFailed);
  EXPECT_EQ(failed->error, "no worker for target llvm");
  EXPECT_FALSE(db.GetJob(id + 1).has_value());
}

TEST(SqliteDatabase, CostModelsPerTarget) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("t.db"));
  EXPECT_FALSE(db.LoadCostModel("llvm").has_value());
  db.SaveCostModel("llvm", {1, 2, 3, 0, 255});
  db.SaveCostModel("cuda", {});
  db.SaveCostModel("llvm", {9, 8});
  EXPECT_EQ(*db.LoadCostModel("llvm"), (std::vector<uint8_t>{9, 8}));
  EXPECT_EQ(*db.LoadCostModel("cuda"), (std::vector<uint8_t>{}));
}

TEST(SqliteDatabase, TwoConnectionsShareOneFile) {
  ScratchDir dir;
  std::string path = dir.Sub("t.db");
  SqliteDatabase writer(path);
  SqliteDatabase reader(path);
  writer.CommitWorkload({"aa", "matmul", "#"});
  std::vector<TuningRecord> records = {Record("aa", "cpu-zen4", 1e-3)};
  writer.CommitRecords(records);
  EXPECT_EQ(reader.CountRecords(), 1);
  EXPECT_EQ(reader.TopK("aa", "llvm", "cpu-zen4", 1).size(), 1u);
}

TEST(JobState, NamesRoundTrip) {
  for (JobState s : {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kFailed,
                     JobState::kCancelled}) {
    EXPECT_EQ(ParseJobState(JobStateName(s)), s);
  }
  EXPECT_FALSE(ParseJobState("paused").has_value());
  EXPECT_TRUE(IsFinished(JobState::kCancelled));
  EXPECT_FALSE(IsFinished(JobState::kRunning));
}

}  // namespace
}  // namespace kiln::database
