// LoadTuningHistory on the example job (example_job.h): records in measurement order, only
// the job's tasks counted, running-best curves per task (GFLOP/s when the workload's FLOP
// count is known, latency otherwise), and the model's estimated latency from the trial at
// which every task has a correct measurement.
#include "cli/report/tuning_history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "database/sqlite_database.h"
#include "support/error.h"
#include "tests/cli/report/example_job.h"

namespace kiln::cli::report {
namespace {

class TuningHistoryTest : public ::testing::Test {
 protected:
  TuningHistoryTest()
      : path_(std::filesystem::temp_directory_path() /
              ("kiln-history-" + std::to_string(::getpid()) + ".db")),
        db_(path_.string()) {}
  ~TuningHistoryTest() override {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(path_.string() + suffix, ec);
    }
  }
  std::filesystem::path path_;
  database::SqliteDatabase db_;
};

TEST_F(TuningHistoryTest, CurvesFollowTheRecordsInMeasurementOrder) {
  int64_t id = testing::WriteExampleJob(db_);
  ReportData data = LoadTuningHistory(db_, id);
  EXPECT_EQ(data.job.id, id);
  EXPECT_EQ(data.records, 5);
  EXPECT_EQ(data.errors, 1);
  ASSERT_EQ(data.tasks.size(), 2u);

  const TaskHistory& mm = data.tasks[0];
  EXPECT_EQ(mm.name, "matmul");
  EXPECT_EQ(mm.flop, testing::kMatmulFlop);
  EXPECT_EQ(mm.records, 3);
  EXPECT_EQ(mm.ok, 3);
  EXPECT_TRUE(mm.done);
  ASSERT_TRUE(mm.best_seconds);
  EXPECT_DOUBLE_EQ(*mm.best_seconds, 5e-4);
  // Trial 1: 1 ms; trial 2 is slower (no change); trial 3: 0.5 ms.
  ASSERT_EQ(mm.best_curve.size(), 2u);
  EXPECT_EQ(mm.best_curve[0].first, 1);
  EXPECT_DOUBLE_EQ(mm.best_curve[0].second, testing::kMatmulFlop / 1e-3 / 1e9);
  EXPECT_EQ(mm.best_curve[1].first, 3);
  EXPECT_DOUBLE_EQ(mm.best_curve[1].second, testing::kMatmulFlop / 5e-4 / 1e9);

  // No FLOP count: the curve is the best latency in microseconds, from its first correct
  // trial (its first was a build error), held to its last trial.
  const TaskHistory& sm = data.tasks[1];
  EXPECT_EQ(sm.flop, 0);
  EXPECT_EQ(sm.records, 2);
  EXPECT_EQ(sm.ok, 1);
  EXPECT_FALSE(sm.done);
  ASSERT_EQ(sm.best_curve.size(), 1u);
  EXPECT_EQ(sm.best_curve[0].first, 2);
  EXPECT_DOUBLE_EQ(sm.best_curve[0].second, 5.0);

  // Job trials: mm 1 ms (1), sm error (2), mm 2 ms (3), sm 5 us (4): every task measured,
  // 2 x 1 ms + 5 us; mm 0.5 ms (5): 2 x 0.5 ms + 5 us.
  ASSERT_EQ(data.model_latency_ms.size(), 2u);
  EXPECT_EQ(data.model_latency_ms[0].first, 4);
  EXPECT_NEAR(data.model_latency_ms[0].second, 2.005, 1e-12);
  EXPECT_EQ(data.model_latency_ms[1].first, 5);
  EXPECT_NEAR(data.model_latency_ms[1].second, 1.005, 1e-12);
  ASSERT_TRUE(data.total_weighted_seconds);
  EXPECT_NEAR(*data.total_weighted_seconds, 1.005e-3, 1e-15);
}

TEST_F(TuningHistoryTest, JobWithoutRecordsHasEmptyCurves) {
  database::Job job;
  job.model = "m.onnx";
  job.target = "llvm";
  database::JobTask task;
  task.name = "t";
  task.workload_hash = "00000000000000dd";
  task.trials_total = 4;
  job.tasks = {task};
  int64_t id = db_.CreateJob(job);
  ReportData data = LoadTuningHistory(db_, id);
  ASSERT_EQ(data.tasks.size(), 1u);
  EXPECT_TRUE(data.tasks[0].best_curve.empty());
  EXPECT_FALSE(data.tasks[0].best_seconds);
  EXPECT_EQ(data.tasks[0].flop, 0);  // no workload stored
  EXPECT_TRUE(data.model_latency_ms.empty());
  EXPECT_FALSE(data.total_weighted_seconds);
}

TEST_F(TuningHistoryTest, UnknownJobIsAnErrorNamingIt) {
  try {
    LoadTuningHistory(db_, 42);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("job 42"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::cli::report
