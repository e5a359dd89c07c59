// `tune db list|best|history|check|backup` as a user runs it, on a database written through
// SqliteDatabase: the JSON shapes scripts rely on, records kept apart by device, a clear error
// for a database that does not exist, a backup that never overwrites, a damaged file found.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

// A database of `n` records on one device.
void Fill(const std::string& path, int n) {
  database::SqliteDatabase db(path);
  db.CommitWorkload({"00112233aabbccdd", "fused_matmul", "#"});
  std::vector<database::TuningRecord> records;
  for (int i = 0; i < n; ++i) records.push_back(Record("cpu-zen4", 1e-6 * (i + 1)));
  db.CommitRecords(records);
}

TEST(DbCommand, BackupWritesACheckedCopyAndNeverOverwrites) {
  runtime::testing::ScratchDir dir;
  std::string path = dir.Sub("t.db"), copy = dir.Sub("copy.db");
  Fill(path, 300);
  auto [code, out] = testing::RunCommand({TUNE_PATH, "db", "backup", copy, "--db", path, "--json"},
                                         dir.Sub("out.txt"));
  ASSERT_EQ(code, 0) << out;
  nlohmann::json j = nlohmann::json::parse(testing::LastJsonLine(out));
  EXPECT_EQ(j["db"], copy);
  EXPECT_EQ(j["integrity"], "ok");
  EXPECT_EQ(j["records"], 300);
  EXPECT_FALSE(std::filesystem::exists(copy + ".partial"));
  {
    database::SqliteDatabase opened(copy, database::SqliteDatabaseOptions{.create = false});
    EXPECT_EQ(opened.CountRecords(), 300);
  }
  // A second backup to the same file is refused and leaves the first as it was.
  Fill(path, 5);
  auto [again, again_out] =
      testing::RunCommand({TUNE_PATH, "db", "backup", copy, "--db", path}, dir.Sub("out2.txt"));
  EXPECT_EQ(again, 1);
  EXPECT_THAT(again_out, ::testing::HasSubstr(copy + ": exists"));
  database::SqliteDatabase opened(copy, database::SqliteDatabaseOptions{.create = false});
  EXPECT_EQ(opened.CountRecords(), 300);
}

TEST(DbCommand, CheckSaysOkOrNamesTheDamagedFile) {
  runtime::testing::ScratchDir dir;
  std::string path = dir.Sub("t.db");
  Fill(path, 300);
  auto [code, out] =
      testing::RunCommand({TUNE_PATH, "db", "check", "--db", path}, dir.Sub("out.txt"));
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(
      out, ::testing::HasSubstr(path + ": ok (schema " + std::to_string(database::kSchemaVersion) +
                                ", 300 records, 0 jobs)"));

  // Pages past the first overwritten with garbage, as a failing disk or a stray write leaves
  // them: the check fails, naming the file (as an error when SQLite cannot even read it).
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(3 * 4096);
    std::string garbage(4 * 4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto [damaged, damaged_out] =
      testing::RunCommand({TUNE_PATH, "db", "check", "--db", path}, dir.Sub("out2.txt"));
  EXPECT_EQ(damaged, 1) << damaged_out;
  EXPECT_THAT(damaged_out, ::testing::HasSubstr(path));
  EXPECT_THAT(damaged_out, ::testing::Not(::testing::HasSubstr(": ok (")));
}

}  // namespace
}  // namespace kiln
