// LocalMeasurer: the AsyncMeasurer of this machine. Builder threads (one per core by
// default) generate code and compile candidates in parallel; one runner thread times them
// one at a time in the sandbox, each checked against the workload's reference by the CPU
// measurer (a wrong kernel is an error result). While a candidate is timed no build is in
// flight (exclusive runs), so compiles do not disturb timings: the runner waits until a few
// candidates are built (or nothing is left to build), then times all that are ready. While
// it waits, the runner computes the reference of each new workload, so that the first
// candidates build meanwhile instead of waiting for it.
// Submit and Collect return at once, so the search samples and mutates the next round while
// this one builds and runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/cpu_measurer.h"
#include "search/measure/async_measurer.h"

namespace kiln::search {

struct LocalMeasurerOptions {
  runtime::MeasureOptions measure = {};
  int build_jobs = 0;          // builder threads; 0: one per hardware thread
  int run_batch = 0;           // built candidates that start a run phase; 0: 2 * build_jobs
  bool exclusive_runs = true;  // no build in flight while a candidate is timed
};

// Where the measurer's time went, summed over candidates.
struct LocalMeasurerStats {
  int64_t built = 0;
  int64_t run = 0;
  int64_t cut_off = 0;       // candidates timed from fewer runs by the early cutoff
  int64_t abandoned = 0;     // of those, stopped in their first run
  double build_seconds = 0;  // code generation and compile, summed over builder threads
  double run_seconds = 0;    // sandboxed runs (timing and the reference check)
  // Parts of run_seconds: the sandbox processes, start to exit; of that, the kernels' runs
  // (checked run, warm-up, timed batches); reading outputs back and comparing them.
  double sandbox_seconds = 0;
  double kernel_seconds = 0;
  double check_seconds = 0;
  // Wall clock since the first Submit with no build and no run in flight (waiting for the
  // search, or for the builds to drain before a run phase).
  double idle_seconds = 0;
};

class LocalMeasurer : public AsyncMeasurer {
 public:
  explicit LocalMeasurer(LocalMeasurerOptions options = {});
  ~LocalMeasurer() override;
  LocalMeasurer(const LocalMeasurer&) = delete;
  LocalMeasurer& operator=(const LocalMeasurer&) = delete;

  void Submit(std::vector<MeasureRequest> requests) override;
  std::vector<MeasureResponse> Collect(double timeout_s) override;
  size_t Pending() const override;

  LocalMeasurerStats Stats() const;
  runtime::CpuMeasurer& measurer() { return *measurer_; }

 private:
  struct Built {
    MeasureRequest request;
    runtime::CpuMeasurer::Prepared prepared;
    std::string machinery_error;
  };
  void BuildLoop();
  void RunLoop();
  bool RunPhaseDue() const;  // with mutex_ held
  // Adds the time since the last call to idle_seconds when nothing was in flight; called
  // with mutex_ held before building_ or running_ changes.
  void AccountIdle();

  LocalMeasurerOptions options_;
  std::unique_ptr<runtime::CpuMeasurer> measurer_;
  int build_jobs_ = 1;
  size_t run_batch_ = 2;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<MeasureRequest> to_build_;
  // Workloads whose reference the runner is to compute before their first run, and those
  // already handed to it (by identity: one task submits one PrimFunc object).
  std::deque<runtime::MeasureCandidate> to_reference_;
  std::set<const ir::PrimFuncNode*> referenced_;
  std::vector<ir::PrimFunc> referenced_alive_;  // keeps the pointers above unique
  std::deque<Built> built_;
  std::vector<MeasureResponse> done_;
  size_t pending_ = 0;
  int building_ = 0;
  bool run_wanted_ = false;
  bool running_ = false;
  bool stop_ = false;
  bool started_ = false;  // a request was submitted
  std::chrono::steady_clock::time_point last_change_;
  LocalMeasurerStats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace kiln::search
