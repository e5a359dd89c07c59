// A phone's path end to end with real processes on loopback: kiln-device-runner cross-built
// for aarch64 and run under qemu-aarch64-static, a kiln-worker fronting it
// (--device-runner), a kiln-coordinator, and `tune submit` of a three-kernel model for target
// "llvm -mtriple=aarch64-linux-gnu". The job finishes; every kernel has correct records,
// checked against the interpreter on the host; every record is filed under the runner's
// emulated device key and says its times are the emulator's, so that no record of a real
// device comes from qemu. A machine without the cross compiler or qemu skips, saying so.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "database/sqlite_database.h"
#include "runtime/remote_cpu/cross_toolchain.h"
#include "tests/integration/process_util.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln {
namespace {

using testing::Process;
using testing::WaitFor;

const std::string kModel =
    std::string(KILN_SOURCE_DIR) + "/tests/integration/testdata/device_runner_three_tasks.relax";
const std::string kTarget = "llvm -mtriple=aarch64-linux-gnu";

class DeviceRunnerE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_path_ = KILN_DEVICE_RUNNER_AARCH64;
    qemu_ = runtime::remote_cpu::FindProgram("qemu-aarch64-static");
    if (runner_path_.empty() || !std::filesystem::exists(runner_path_)) {
      GTEST_SKIP() << "skipped: no aarch64 kiln-device-runner in this build (no "
                      "aarch64-linux-gnu-g++; deploy/install-deps.sh installs it)";
    }
    if (qemu_.empty()) {
      GTEST_SKIP() << "skipped: no qemu-aarch64-static (deploy/install-deps.sh installs "
                      "qemu-user-static)";
    }
    address_ = "tcp://127.0.0.1:" + std::to_string(testing::FreePort());
    runner_address_ = "127.0.0.1:" + std::to_string(testing::FreePort());
    db_path_ = dir_.Sub("tuning.db");
  }

  std::pair<int, std::string> Tune(std::vector<std::string> args) {
    args.insert(args.begin(), TUNE_PATH);
    args.push_back("--coordinator");
    args.push_back(address_);
    return testing::RunCommand(args, dir_.Sub("tune.out"));
  }
  nlohmann::json Json(const std::vector<std::string>& args) {
    auto [code, out] = Tune(args);
    if (code != 0) return nullptr;
    return nlohmann::json::parse(testing::LastJsonLine(out), nullptr, false);
  }
  std::string Logs() {
    std::string logs;
    for (const char* name : {"coordinator.log", "worker.log", "runner.log", "tune.out"}) {
      logs += std::string("==== ") + name + "\n" + testing::ReadText(dir_.Sub(name));
    }
    return logs;
  }

  runtime::testing::ScratchDir dir_;
  std::string runner_path_, qemu_, address_, runner_address_, db_path_;
};

TEST_F(DeviceRunnerE2eTest, ACoordinatorTunesThreeKernelsThroughAnEmulatedPhone) {
  Process runner({qemu_, "-L", "/usr/aarch64-linux-gnu", runner_path_, "--listen", runner_address_,
                  "--work-dir", dir_.path().string(), "--verbose"},
                 dir_.Sub("runner.log"));
  ASSERT_TRUE(WaitFor(
      [&] {
        return testing::ReadText(dir_.Sub("runner.log")).find("listening on") != std::string::npos;
      },
      30))
      << Logs();
  Process coordinator({COORDINATOR_PATH, "--listen", address_, "--db", db_path_,
                       "--trials-per-round", "6", "--strategy", "random", "--log-level", "info"},
                      dir_.Sub("coordinator.log"));
  Process worker({WORKER_PATH, "--coordinator", address_, "--device-runner", runner_address_,
                  "--id", "phone", "--build-jobs", "2", "--log-level", "info"},
                 dir_.Sub("worker.log"), {"KILN_CACHE_DIR=" + dir_.Sub("cache")});

  // The worker registers what the runner said of its device.
  nlohmann::json workers;
  ASSERT_TRUE(WaitFor(
      [&] {
        workers = Json({"workers", "--json"});
        return workers.is_object() && workers["workers"].size() == 1;
      },
      60))
      << Logs();
  const nlohmann::json& w = workers["workers"][0];
  std::string device_key = w.value("device", std::string());
  EXPECT_EQ(device_key.rfind("aarch64-linux-", 0), 0u) << w.dump();
  EXPECT_EQ(device_key.size() > 9 ? device_key.substr(device_key.size() - 9) : "", "-emulated")
      << w.dump();
  EXPECT_EQ(w.value("target", std::string()), kTarget) << w.dump();

  nlohmann::json submitted = Json({"submit", kModel, "--target", kTarget, "--trials", "9",
                                   "--trials-per-task", "3", "--min-repeat-ms", "1", "--json"});
  ASSERT_TRUE(submitted.is_object()) << Logs();
  int64_t job = submitted.value("job", int64_t{0});
  ASSERT_GT(job, 0) << Logs();
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json s = Json({"status", std::to_string(job), "--json"});
        return s.is_object() && (s["state"] == "done" || s["state"] == "failed");
      },
      420))
      << Logs();
  nlohmann::json status = Json({"status", std::to_string(job), "--json"});
  ASSERT_EQ(status["state"], "done") << status.dump() << Logs();

  database::SqliteDatabase db(db_path_);
  std::vector<database::TuningRecord> records = db.History({.job_id = job, .limit = 1000});
  ASSERT_FALSE(records.empty()) << Logs();
  std::map<std::string, int> correct_by_workload;
  for (const database::TuningRecord& r : records) {
    EXPECT_EQ(r.worker, "phone");
    EXPECT_EQ(r.target, kTarget);
    // Filed under the emulated key only: never a real device's record.
    EXPECT_EQ(r.device, device_key);
    if (!r.result.ok()) continue;
    EXPECT_TRUE(r.result.correctness_checked) << r.result.message;
    EXPECT_NE(r.result.message.find("emulated"), std::string::npos) << r.result.message;
    EXPECT_GT(r.result.median_seconds, 0);
    ++correct_by_workload[r.workload_hash];
  }
  EXPECT_EQ(correct_by_workload.size(), 3u) << "each of the three kernels has a correct record";
  // The worker says where its kernels ran.
  EXPECT_NE(testing::ReadText(dir_.Sub("runner.log")).find(": ok, median"), std::string::npos)
      << Logs();
}

}  // namespace
}  // namespace kiln
