// `tune db list|best|history` as a user runs it, on a database written through
// SqliteDatabase: the JSON shapes scripts rely on, records kept apart by device, and a clear
// error for a database that does not exist.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "database/sqlite_database.h"
#include "tests/integration/process_util.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln {
namespace {

database::TuningRecord Record(const std::string& device, double seconds) {
  database::TuningRecord r;
  r.workload_hash = "00112233aabbccdd";
  r.target = "llvm";
  r.device = device;
  r.trace_json = "[[], []]";
  r.result.median_seconds = seconds;
  r.result.repeat_seconds = {seconds};
  r.worker = "w1";
  return r;
}

TEST(DbCommand, ListBestAndHistoryAsJson) {
  runtime::testing::ScratchDir dir;
  std::string path = dir.Sub("t.db");
  {
    database::SqliteDatabase db(path);
    db.CommitWorkload({"00112233aabbccdd", "fused_matmul", "#"});
    std::vector<database::TuningRecord> records = {
        Record("cpu-zen4", 3e-6), Record("cpu-zen4", 2e-6), Record("cpu-xeon-avx512", 1e-6)};
    db.CommitRecords(records);
  }
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), TUNE_PATH);
    args.push_back("--db");
    args.push_back(path);
    args.push_back("--json");
    auto [code, out] = testing::RunCommand(args, dir.Sub("out.txt"));
    EXPECT_EQ(code, 0) << out;
    return nlohmann::json::parse(testing::LastJsonLine(out));
  };
  nlohmann::json list = run({"db", "list"});
  ASSERT_EQ(list["workloads"].size(), 2u);
  const auto& zen = list["workloads"][1];
  EXPECT_EQ(zen["hash"], "00112233aabbccdd");
  EXPECT_EQ(zen["name"], "fused_matmul");
  EXPECT_EQ(zen["target"], "llvm");
  EXPECT_EQ(zen["device"], "cpu-zen4");
  EXPECT_EQ(zen["records"], 2);
  EXPECT_DOUBLE_EQ(zen["best_latency_s"].get<double>(), 2e-6);

  nlohmann::json best = run({"db", "best", "00112233aabbccdd", "--device", "cpu-zen4", "-k", "1"});
  ASSERT_EQ(best["records"].size(), 1u);
  EXPECT_DOUBLE_EQ(best["records"][0]["latency_s"].get<double>(), 2e-6);
  EXPECT_EQ(best["records"][0]["trace"], nlohmann::json::parse("[[], []]"));

  nlohmann::json history = run({"db", "history", "--limit", "2"});
  EXPECT_EQ(history["records"].size(), 2u);
}

TEST(DbCommand, AMissingDatabaseIsAnErrorNotANewFile) {
  runtime::testing::ScratchDir dir;
  auto [code, out] = testing::RunCommand({TUNE_PATH, "db", "list", "--db", dir.Sub("nope.db")},
                                         dir.Sub("out.txt"));
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out, ::testing::HasSubstr("cannot open the tuning database"));
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("nope.db")));
}

}  // namespace
}  // namespace kiln
