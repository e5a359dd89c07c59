// Routing by device with real processes on loopback: one kiln-coordinator, a CPU worker and a
// Vulkan worker (lavapipe), and `tune submit` as a user runs it. A job for target vulkan is
// measured only by the Vulkan worker, with candidates of the GPU design space, and a job for
// llvm only by the CPU worker; every record names the device that measured it. A machine
// without a Vulkan device skips, saying so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "database/sqlite_database.h"
#include "tests/integration/process_util.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln {
namespace {

using testing::Process;
using testing::WaitFor;

const std::string kModel =
    std::string(KILN_SOURCE_DIR) + "/tests/integration/testdata/two_tasks.relax";

class GpuRoutingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KILN_TIMEOUT_S", "3", 1);
    address_ = "tcp://127.0.0.1:" + std::to_string(testing::FreePort());
    db_path_ = dir_.Sub("tuning.db");
  }

  std::unique_ptr<Process> StartWorker(const std::string& device) {
    return std::make_unique<Process>(
        std::vector<std::string>{WORKER_PATH, "--coordinator", address_, "--device", device, "--id",
                                 device, "--log-level", "info"},
        dir_.Sub(device + ".log"),
        std::vector<std::string>{"KILN_CACHE_DIR=" + dir_.Sub("cache-" + device)});
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
  int64_t Submit(const std::string& target, int trials) {
    nlohmann::json j =
        Json({"submit", kModel, "--target", target, "--trials", std::to_string(trials), "--json"});
    return j.is_object() ? j.value("job", int64_t{0}) : 0;
  }
  bool Done(int64_t job) {
    nlohmann::json s = Json({"status", std::to_string(job), "--json"});
    return s.is_object() && s["state"] == "done";
  }
  std::string Logs() {
    return testing::ReadText(dir_.Sub("coordinator.log")) + testing::ReadText(dir_.Sub("cpu.log")) +
           testing::ReadText(dir_.Sub("vulkan.log"));
  }

  runtime::testing::ScratchDir dir_;
  std::string address_;
  std::string db_path_;
};

TEST_F(GpuRoutingTest, EachJobIsMeasuredByTheWorkerOfItsDevice) {
  // A machine without the device: the worker says so and exits non-zero at once.
  auto probe = std::make_unique<Process>(
      std::vector<std::string>{WORKER_PATH, "--coordinator", "tcp://127.0.0.1:1", "--device",
                               "vulkan", "--id", "probe"},
      dir_.Sub("probe.log"));
  bool exited = WaitFor([&] { return !probe->Running(); }, 5);
  if (exited) {
    GTEST_SKIP() << "skipped: no Vulkan device: " << testing::ReadText(dir_.Sub("probe.log"));
  }
  probe->Kill(SIGKILL);

  auto coordinator = std::make_unique<Process>(
      std::vector<std::string>{COORDINATOR_PATH, "--listen", address_, "--db", db_path_,
                               "--trials-per-round", "8", "--strategy", "random", "--log-level",
                               "info"},
      dir_.Sub("coordinator.log"));
  auto cpu = StartWorker("cpu");
  auto vulkan = StartWorker("vulkan");
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json j = Json({"workers", "--json"});
        return j.is_object() && j["workers"].size() == 2;
      },
      30))
      << Logs();
  int64_t gpu_job = Submit("vulkan", 4);
  int64_t cpu_job = Submit("llvm", 4);
  ASSERT_GT(gpu_job, 0) << Logs();
  ASSERT_GT(cpu_job, 0) << Logs();
  ASSERT_TRUE(WaitFor([&] { return Done(gpu_job) && Done(cpu_job); }, 240)) << Logs();

  database::SqliteDatabase db(db_path_);
  auto check = [&](int64_t job, const std::string& worker, const std::string& target) {
    std::vector<database::TuningRecord> records = db.History({.job_id = job, .limit = 1000});
    EXPECT_FALSE(records.empty());
    int ok = 0;
    std::set<std::string> devices;
    for (const auto& r : records) {
      EXPECT_EQ(r.worker, worker);
      EXPECT_EQ(r.target, target);
      devices.insert(r.device);
      ok += r.result.ok();
    }
    EXPECT_GT(ok, 0) << "job " << job << ": no correct candidate";
    return devices;
  };
  std::set<std::string> gpu_devices = check(gpu_job, "vulkan", "vulkan");
  std::set<std::string> cpu_devices = check(cpu_job, "cpu", "llvm");
  ASSERT_EQ(gpu_devices.size(), 1u);
  EXPECT_EQ(gpu_devices.begin()->rfind("vulkan-", 0), 0u) << *gpu_devices.begin();
  ASSERT_EQ(cpu_devices.size(), 1u);
  EXPECT_NE(*cpu_devices.begin(), *gpu_devices.begin());
  // The GPU job's candidates came from the GPU design space: every record's trace binds
  // threads.
  for (const auto& r : db.History({.job_id = gpu_job, .limit = 1000})) {
    EXPECT_NE(r.trace_json.find("threadIdx"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln
