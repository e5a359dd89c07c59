// TaskScheduler: which task of a model the tuner gives the next round of trials to. A pure
// policy over the tasks' progress (trials spent, budgets, the best latency after each round,
// weights): no measurement, no I/O, so the tuner, the coordinator and a test drive the same
// code. Two policies: round robin, and gradient-based (MetaSchedule's: round robin until
// every task has had a round, then the task whose weighted latency is expected to fall the
// most per trial; Kiln's adds catch-up rounds for tasks not yet faster than untuned).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::search {

// What the scheduler knows of one task.
struct TaskProgress {
  double weight = 1;                                         // how often the model calls the kernel
  int64_t trials = 0;                                        // candidates measured so far
  int64_t max_trials = std::numeric_limits<int64_t>::max();  // the task's own budget
  bool exhausted = false;      // the search has no new candidate left for it
  int rounds_in_flight = 0;    // rounds handed out whose results have not all come back
  double untuned_seconds = 0;  // the latency of the kernel as written; 0: not known
  // The best latency (seconds) after each round the task has had; infinity while no
  // candidate has measured correctly.
  std::vector<double> best_history;
};

struct TaskSchedulerOptions {
  double alpha = 0.2;  // weight of the measured (backward) gradient against the forecast
  int window = 3;      // rounds the backward gradient looks back
  // Gradient: rounds beyond its first that a task whose best is still slower than its untuned
  // kernel gets, round robin, before the gradients decide.
  int catch_up_rounds = 2;
  uint64_t seed = 1;  // breaks ties between equal gradients
};

class TaskScheduler {
 public:
  virtual ~TaskScheduler() = default;
  virtual std::string Name() const = 0;
  // The task to tune next, or nullopt when none can take more trials.
  virtual std::optional<size_t> Next(const std::vector<TaskProgress>& tasks) = 0;
};

// True when `task` may take more trials: not exhausted and under its budget.
bool TaskAlive(const TaskProgress& task);

// Trials of the next round of `task`: the round size capped by the task's budget and what
// is left of the global one (which may be 0).
int64_t RoundTrials(const TaskProgress& task, int64_t per_round, int64_t global_left);

// "round-robin" or "gradient"; kiln::Error(kParse) naming the known policies otherwise.
std::unique_ptr<TaskScheduler> CreateTaskScheduler(const std::string& name,
                                                   const TaskSchedulerOptions& options = {});

}  // namespace kiln::search
