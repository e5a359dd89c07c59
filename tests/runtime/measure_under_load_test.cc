// Measuring on a busy machine: busy processes take every core (support/busy_processes.h), and
// this process's wait for a core (runtime/cpu_wait.h) says so; a kernel timed among them is
// flagged as contended with each repeat still bounded by time, and the CPU measurer times a
// contended candidate again and says so in its record; a first run is abandoned by the early
// cutoff for its own slowness, once it has had a core for the abandon limit, not for the time
// it waited for one. These tests load the machine: they run
// alone (RUN_SERIAL), so that the load is theirs and no other test's timing suffers from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "ir/text/parser.h"
#include "runtime/cpu_measurer.h"
#include "runtime/cpu_wait.h"
#include "runtime/timing.h"
#include "runtime_test_util.h"
#include "support/busy_processes.h"
#include "tests/testing/golden.h"

namespace kiln::runtime {
namespace {

void Spin(double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

int Cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

class MeasureUnderLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ProcessCpuWaitSeconds()) {
      GTEST_SKIP() << "skipped: this kernel gives no /proc/self/task/*/schedstat";
    }
  }
};

TEST_F(MeasureUnderLoad, ThisProcessWaitsWhenBusyProcessesTakeTheCores) {
  // Three spinning processes a core and this thread: it gets about a quarter of a core.
  BusyProcesses busy(3 * Cores());
  ContentionMeter meter;
  Spin(0.3);
  EXPECT_GE(meter.Contention(), kContendedShare);
}

TEST_F(MeasureUnderLoad, AKernelTimedAmongBusyProcessesSaysSo) {
  TimingConfig config{.number = 1, .repeat = 3, .min_repeat_ms = 50, .warmup = 1};
  BusyProcesses busy(3 * Cores());
  auto start = std::chrono::steady_clock::now();
  TimingResult r = TimeFunction([] { Spin(0.2e-3); }, config);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(r.contention, kContendedShare);
  ASSERT_EQ(r.seconds_per_run.size(), 3u);
  // Bounded by time: three repeats of about 50 ms (growth included), not minutes.
  EXPECT_LT(wall, 5.0);
}

// The 128x128x128 matmul as TVM printed it (tests/data/tvm/database): a correct candidate timed
// among busy processes is timed again, max_retimes times, and its record says so; with
// max_retimes 0 it is kept as first timed, contention and all.
TEST_F(MeasureUnderLoad, ACandidateTimedOnABusyMachineIsTimedAgainAndSaysSo) {
  std::string path = kiln::testing::SourcePath("tests/data/tvm/database/workload_0.tir").string();
  ir::PrimFunc workload = ir::ParsePrimFunc(kiln::testing::ReadTextFile(path), path);
  testing::ScratchDir dir;
  MeasureOptions options;
  options.cache_dir = dir.Sub("cache");
  options.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
  options.timing = {.number = 1, .repeat = 2, .min_repeat_ms = 30, .warmup = 1};
  options.num_threads = 1;
  options.max_retimes = 2;
  BusyProcesses busy(3 * Cores());
  CpuMeasurer measurer(options);
  MeasureResult r = measurer.Measure({workload, workload});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.correctness_checked);
  EXPECT_GE(r.contention, kContendedShare);  // busy all along: the fastest timing is kept
  EXPECT_NE(r.message.find("timed 3 times: the machine was busy (contention "), std::string::npos)
      << r.message;
  EXPECT_EQ(r.repeat_seconds.size(), 2u);

  options.max_retimes = 0;
  options.cache_dir = dir.Sub("cache_once");
  CpuMeasurer once(options);
  MeasureResult kept = once.Measure({workload, workload});
  ASSERT_TRUE(kept.ok()) << kept.message;
  EXPECT_GE(kept.contention, kContendedShare);
  EXPECT_EQ(kept.message, "");
}

// The matmul at 384^3 (tens of milliseconds a run) with a cutoff of a tenth of its best time:
// its checked run passes the abandon limit (0.4 of a run) in core time alone, so among busy
// processes, where it waits for a core most of the time, it is still abandoned (later in wall
// time than on a quiet machine), where a watchdog that spared every contended run kept it.
TEST_F(MeasureUnderLoad, ASlowFirstRunIsStillAbandonedOnABusyMachine) {
  std::string path = kiln::testing::SourcePath("tests/data/tvm/database/workload_0.tir").string();
  std::string text = kiln::testing::ReadTextFile(path);
  for (size_t at = text.find("128"); at != std::string::npos; at = text.find("128", at)) {
    text.replace(at, 3, "384");
  }
  ir::PrimFunc workload = ir::ParsePrimFunc(text, path);
  testing::ScratchDir dir;
  MeasureOptions options;
  options.cache_dir = dir.Sub("cache");
  options.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 1};
  options.num_threads = 1;
  options.max_retimes = 0;
  options.cutoff_factor = 0.1;
  options.cutoff_min_seconds = 0;
  CpuMeasurer measurer(options);
  MeasureResult first = measurer.Measure({workload, workload});  // quiet: sets the best
  ASSERT_TRUE(first.ok()) << first.message;
  BusyProcesses busy(3 * Cores());
  MeasureResult slow = measurer.Measure({workload, workload});
  EXPECT_EQ(slow.error_kind, MeasureErrorKind::kTimeout) << slow.message;
  EXPECT_NE(slow.message.find("abandoned by the early cutoff"), std::string::npos) << slow.message;
}

}  // namespace
}  // namespace kiln::runtime
