// `tune db import` and `tune db export` run as a user runs them: TVM's tuned database
// (tests/data/tvm_db/) imports into a new file, `tune db best` then lists its records fastest
// first with TVM's run times, export and re-import give the same records, bad input exits
// non-zero with a message that names it, and skipped lines are listed with their reasons.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/tune_process_test.h"
#include "tests/testing/golden.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kTimeLimit = 60;

class DbCommandTest : public testing::TuneProcessTest {
 protected:
  std::string TvmDb() const { return kiln::testing::SourcePath("tests/data/tvm_db").string(); }
  std::string Db(const std::string& name) const { return (dir_ / name).string(); }

  json Run(const std::string& subcommand, std::vector<std::string> args) {
    runtime::ProcessResult run = RunTune(
        "db",
        [&] {
          std::vector<std::string> all = {subcommand};
          all.insert(all.end(), args.begin(), args.end());
          all.push_back("--json");
          return all;
        }(),
        {}, kTimeLimit);
    EXPECT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
    return LastJson(run);
  }
};

TEST_F(DbCommandTest, ImportedRecordsAreListedByBestAndRoundTrip) {
  json imported = Run("import", {TvmDb(), "--device", "cpu-test", "--db", Db("a.db")});
  json manifest = json::parse(kiln::testing::ReadTextFile(fs::path(TvmDb()) / "manifest.json"));
  EXPECT_EQ(imported["records_read"], manifest["records"].size());
  EXPECT_EQ(imported["records_added"], manifest["records"].size());
  EXPECT_EQ(imported["skipped"], json::array());

  json list = Run("list", {"--db", Db("a.db")});
  ASSERT_EQ(list["workloads"].size(), manifest["workloads"].size());
  std::set<double> tvm_times;
  for (const json& r : manifest["records"]) {
    for (const json& s : r["run_secs"]) tvm_times.insert(s.get<double>());
  }
  for (const json& w : list["workloads"]) {
    EXPECT_EQ(w["target"], "llvm");
    EXPECT_EQ(w["device"], "cpu-test");
    json best = Run("best", {w["hash"].get<std::string>(), "--db", Db("a.db"), "-k", "50"});
    ASSERT_EQ(best["records"].size(), w["records"]);
    double previous = 0;
    for (const json& r : best["records"]) {
      EXPECT_GE(r["latency_s"].get<double>(), previous);
      previous = r["latency_s"].get<double>();
      EXPECT_TRUE(tvm_times.count(previous)) << previous << " is not a run time of TVM's";
      EXPECT_EQ(r["worker"], "tvm-json-database");
    }
    EXPECT_EQ(best["records"][0]["latency_s"], w["best_latency_s"]);
  }

  json exported = Run("export", {(dir_ / "out").string(), "--db", Db("a.db")});
  EXPECT_EQ(exported["records"], manifest["records"].size());
  json again = Run("import", {(dir_ / "out").string(), "--device", "cpu-test", "--db", Db("b.db")});
  EXPECT_EQ(again["records_added"], manifest["records"].size());
  json history_a = Run("history", {"--db", Db("a.db"), "--limit", "1000"});
  json history_b = Run("history", {"--db", Db("b.db"), "--limit", "1000"});
  auto contents = [](const json& history) {
    std::multiset<std::string> out;
    for (const json& r : history["records"]) {
      out.insert(r["hash"].dump() + r["trace"].dump() + r["run_seconds"].dump());
    }
    return out;
  };
  EXPECT_EQ(contents(history_b), contents(history_a));
}

TEST_F(DbCommandTest, SkippedLinesAreListedAndBadInputExitsNonZero) {
  fs::create_directories(dir_ / "bad");
  fs::copy_file(fs::path(TvmDb()) / "database_workload.json", dir_ / "bad/database_workload.json");
  Write("bad/database_tuning_record.json", "[0, 5]\nnot json\n");
  runtime::ProcessResult run =
      RunTune("db", {"import", (dir_ / "bad").string(), "--device", "cpu-test", "--db", Db("c.db")},
              {}, kTimeLimit);
  EXPECT_TRUE(run.ok()) << run.output;
  EXPECT_NE(run.output.find("database_tuning_record.json:1: malformed record"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("database_tuning_record.json:2: malformed record"), std::string::npos)
      << run.output;

  // No device key: refused before anything is opened.
  run = RunTune("db", {"import", TvmDb(), "--db", Db("d.db")}, {}, kTimeLimit);
  EXPECT_FALSE(run.ok());
  EXPECT_NE(run.output.find("--device"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(Db("d.db")));

  // A folder without TVM's files.
  run =
      RunTune("db", {"import", dir_.string(), "--device", "x", "--db", Db("e.db")}, {}, kTimeLimit);
  EXPECT_FALSE(run.ok());
  EXPECT_NE(run.output.find("database_workload.json: cannot be read"), std::string::npos)
      << run.output;
  EXPECT_FALSE(fs::exists(Db("e.db")));

  // Export of a database that does not exist.
  run =
      RunTune("db", {"export", (dir_ / "out").string(), "--db", Db("missing.db")}, {}, kTimeLimit);
  EXPECT_FALSE(run.ok());
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

}  // namespace
}  // namespace kiln::cli
