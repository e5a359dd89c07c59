// `tune run` run as a user runs it: the built binary tunes the functions of a temporary .tir
// file for a handful of trials. The --json line reports each task (trials, a checked best
// latency, the untuned one, the best trace) with the job and the database, -o writes one
// record per task whose trace replays, every measurement is stored in the database, a second
// run of the same kernel starts from the first's best, an interrupt cancels the job and keeps
// its measurements, and unusable input exits with code 2 and a message that says where.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "database/sqlite_database.h"
#include "ir/text/parser.h"
#include "runtime/subprocess.h"
#include "search/schedule/trace.h"
#include "support/error.h"
#include "tests/cli/tune_process_test.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kKernels[] = R"(# from tvm.script import tir as T
@T.prim_func
def mm(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "mm", "tir.noalias": True})
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

@T.prim_func
def scale(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)";

constexpr char kSymbolic[] = R"(
@T.prim_func
def double_it(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 8), "float32")
    B = T.match_buffer(b, (n, 8), "float32")
    for i, j in T.grid(n, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)";

class RunCommandTest : public testing::TuneProcessTest {
 protected:
  runtime::ProcessResult Tune(std::vector<std::string> args) {
    return RunTune("run", std::move(args), {}, 240);
  }
};

TEST_F(RunCommandTest, TunesEveryFunctionAndReportsCheckedResults) {
  std::string kernels = Write("kernels.tir", kKernels);
  std::string records = (dir_ / "best.jsonl").string();
  runtime::ProcessResult run =
      Tune({kernels, "--trials", "6", "--trials-per-round", "3", "--population", "16", "--threads",
            "1", "--cost-model", "random", "--min-repeat-ms", "1", "--json", "-o", records});
  ASSERT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
  json out = LastJson(run);
  ASSERT_EQ(out["tasks"].size(), 2u) << out.dump();
  EXPECT_EQ(out["total_trials"], 6);
  EXPECT_GT(out["wall_s"].get<double>(), 0);
  EXPECT_TRUE(out["errors"].is_object());
  int64_t trials = 0;
  for (const json& task : out["tasks"]) {
    SCOPED_TRACE(task["name"].get<std::string>());
    EXPECT_EQ(task["workload_hash"].get<std::string>().size(), 16u);
    EXPECT_GT(task["trials"].get<int64_t>(), 0);
    trials += task["trials"].get<int64_t>();
    EXPECT_GT(task["best_latency_s"].get<double>(), 0);
    EXPECT_GT(task["untuned_latency_s"].get<double>(), 0);
    EXPECT_TRUE(task["best_trace"].is_array());
    EXPECT_EQ(task["weight"], 1.0);
  }
  EXPECT_EQ(trials, 6);
  EXPECT_GT(out["tasks"][0]["best_gflops"].get<double>(), 0);  // mm has FLOP, scale none

  // One record per task; each trace replays on its function.
  std::vector<ir::PrimFunc> funcs = ir::ParsePrimFuncs(kKernels, "kernels.tir");
  std::ifstream in(records);
  std::string line;
  int count = 0;
  while (std::getline(in, line)) {
    json record = json::parse(line);
    search::Trace trace = search::Trace::FromJSON(record["trace"]);
    EXPECT_NO_THROW(search::ReplayTrace(funcs[count], trace)) << record["task"];
    ++count;
  }
  EXPECT_EQ(count, 2);
}

TEST_F(RunCommandTest, MeasurementsAreStoredAndASecondRunStartsFromTheFirstsBest) {
  std::string kernels =
      Write("mm.tir",
            std::string(kKernels).substr(0, std::string(kKernels).find("@T.prim_func\ndef scale")));
  std::string db_path = (dir_ / "runs" / "tuning.db").string();  // its folder is created
  std::vector<std::string> args = {kernels, "--trials",     "6",      "--trials-per-round",
                                   "3",     "--population", "16",     "--threads",
                                   "1",     "--cost-model", "random", "--min-repeat-ms",
                                   "1",     "--json",       "--db",   db_path};
  runtime::ProcessResult first = Tune(args);
  ASSERT_TRUE(first.ok()) << first.Describe() << "\n" << first.output;
  json out = LastJson(first);
  EXPECT_EQ(out["db"], db_path);
  ASSERT_TRUE(out["job"].is_number_integer()) << out.dump();
  ASSERT_EQ(out["tasks"].size(), 1u);
  double first_best = out["tasks"][0]["best_latency_s"].get<double>();
  EXPECT_TRUE(out["tasks"][0]["seeded_latency_s"].is_null());
  {
    // Every candidate measured is a record of the job on this CPU's device key.
    database::SqliteDatabase db(db_path);
    std::vector<database::TuningRecord> records =
        db.History({.job_id = out["job"].get<int64_t>(), .limit = 100});
    ASSERT_EQ(records.size(), 6u);
    double best = 0;
    for (const auto& r : records) {
      EXPECT_EQ(r.device.rfind("cpu-", 0), 0u) << r.device;
      EXPECT_EQ(r.workload_hash, out["tasks"][0]["workload_hash"]);
      if (r.result.ok() && (best == 0 || r.result.median_seconds < best)) {
        best = r.result.median_seconds;
      }
    }
    EXPECT_DOUBLE_EQ(best, first_best);
  }
  // The second run (another seed) starts from the first's best record.
  args[2] = "3";
  args.insert(args.end(), {"--seed", "2"});
  runtime::ProcessResult second = Tune(args);
  ASSERT_TRUE(second.ok()) << second.Describe() << "\n" << second.output;
  json again = LastJson(second);
  EXPECT_NE(again["job"], out["job"]);
  EXPECT_DOUBLE_EQ(again["tasks"][0]["seeded_latency_s"].get<double>(), first_best);
  EXPECT_LE(again["tasks"][0]["best_latency_s"].get<double>(), first_best);
  EXPECT_TRUE(again["tasks"][0]["best_trace"].is_array());
  database::SqliteDatabase db(db_path);
  EXPECT_EQ(db.CountRecords(), 9);
}

TEST_F(RunCommandTest, AnInterruptCancelsTheJobAndKeepsItsMeasurements) {
  std::string kernels =
      Write("mm.tir",
            std::string(kKernels).substr(0, std::string(kKernels).find("@T.prim_func\ndef scale")));
  std::string db_path = (dir_ / "tuning.db").string();
  // A budget far beyond the time allowed: SIGINT arrives while the job runs.
  runtime::ProcessOptions options;
  // --foreground: the one SIGINT goes to tune alone, as a terminal's Ctrl-C does. Without it
  // timeout also signals its own process group, and a second SIGINT that arrives after the
  // first was handled ends the process, as it should for a user who presses Ctrl-C twice.
  options.argv = {"timeout",
                  "--foreground",
                  "--preserve-status",
                  "-s",
                  "INT",
                  "10",
                  TUNE_PATH,
                  "run",
                  kernels,
                  "--trials",
                  "100000",
                  "--threads",
                  "1",
                  "--cost-model",
                  "random",
                  "--min-repeat-ms",
                  "1",
                  "--trials-per-round",
                  "4",
                  "--population",
                  "16",
                  "--db",
                  db_path};
  options.extra_env = {"KILN_CACHE_DIR=" + (dir_ / "cache").string()};
  options.capture_output = true;
  options.time_limit_s = 120;
  runtime::ProcessResult run = runtime::RunProcess(options);
  ASSERT_TRUE(run.exited) << run.Describe() << "\n" << run.output;
  EXPECT_EQ(run.exit_code, 130) << run.output;
  EXPECT_NE(run.output.find("interrupted by SIGINT"), std::string::npos) << run.output;
  database::SqliteDatabase db(db_path);
  std::vector<database::Job> jobs = db.ListJobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, database::JobState::kCancelled);
  EXPECT_EQ(jobs[0].error, "interrupted by SIGINT");
  // What the job measured before the interrupt is there (rounds of 4 are stored as they end).
  EXPECT_GT(db.History({.job_id = jobs[0].id, .limit = 1000000}).size(), 0u);
}

TEST_F(RunCommandTest, JsonLogsNameTheCoordinatorAndTheWorkerThreads) {
  std::string kernels = Write("k.tir", kKernels);
  // Options before the subcommand are tune's own.
  runtime::ProcessResult run =
      RunTune("--log-format",
              {"json", "--log-level", "info", "run", kernels, "--trials", "2", "--population", "8",
               "--threads", "1", "--cost-model", "none", "--min-repeat-ms", "1", "--db",
               (dir_ / "t.db").string()},
              {}, 240);
  ASSERT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
  std::set<std::string> components;
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"component\"") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << line;
    for (const char* key : {"time", "level", "component", "message", "fields"}) {
      EXPECT_TRUE(j.contains(key)) << key << " missing: " << line;
    }
    components.insert(j["component"].get<std::string>());
    if (j["message"].get<std::string>().find("submitted") != std::string::npos) {
      EXPECT_EQ(j["fields"]["tasks"], 2) << line;
    }
  }
  EXPECT_EQ(components, (std::set<std::string>{"coordinator", "tune", "worker"})) << run.output;
}

TEST_F(RunCommandTest, UnusableInputExitsWithTwo) {
  runtime::ProcessResult symbolic = Tune({Write("sym.tir", kSymbolic), "--trials", "2"});
  EXPECT_EQ(symbolic.exit_code, 2) << symbolic.output;
  EXPECT_NE(symbolic.output.find("symbolic dim n"), std::string::npos) << symbolic.output;

  runtime::ProcessResult missing = Tune({(dir_ / "none.tir").string(), "--trials", "2"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("none.tir"), std::string::npos) << missing.output;

  runtime::ProcessResult strategy =
      Tune({Write("k.tir", kKernels), "--trials", "2", "--strategy", "annealing"});
  EXPECT_EQ(strategy.exit_code, 2) << strategy.output;

  runtime::ProcessResult target =
      Tune({Write("k2.tir", kKernels), "--trials", "2", "--target", "cuda"});
  EXPECT_EQ(target.exit_code, 2) << target.output;
  EXPECT_NE(target.output.find("--target"), std::string::npos) << target.output;
}

}  // namespace
}  // namespace kiln::cli
