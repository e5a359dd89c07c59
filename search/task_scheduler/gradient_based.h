// Gradient-based task scheduling (MetaSchedule's GradientBased, after Ansor): round robin
// until every live task has had a round (or has one being measured); then the task with the largest
// expected fall of weighted latency per round, weight * (alpha * backward + (1 - alpha) * forward),
// where backward is the fall of the best latency over the last `window` rounds per round and
// forward the optimistic forecast best / rounds. A task with no correct measurement yet
// goes first: its latency is unknown, not good. Ties go to a seeded random pick. Before the
// gradients, a task whose best is still slower than its untuned kernel gets up to
// `catch_up_rounds` more rounds, round robin: its tuning has no usable result yet, and the
// gradient of a cheap task (a layer_norm of a few microseconds among matmuls) would give it
// none, its first round of a dozen candidates being a lottery over its design space.
#pragma once

#include "search/schedule/random.h"
#include "search/task_scheduler/task_scheduler.h"

namespace kiln::search {

class GradientBasedScheduler : public TaskScheduler {
 public:
  explicit GradientBasedScheduler(const TaskSchedulerOptions& options);
  std::string Name() const override { return "gradient"; }
  std::optional<size_t> Next(const std::vector<TaskProgress>& tasks) override;

  // The expected fall of weighted latency of `task` per round (infinity without a correct
  // measurement); public for tests.
  double Gradient(const TaskProgress& task) const;

 private:
  TaskSchedulerOptions options_;
  RandomEngine rng_;
};

}  // namespace kiln::search
