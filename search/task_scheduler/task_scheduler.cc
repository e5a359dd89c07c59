// Budgets shared by the task schedulers, and the factory.
#include "search/task_scheduler/task_scheduler.h"

#include <algorithm>

#include "search/task_scheduler/gradient_based.h"
#include "search/task_scheduler/round_robin.h"
#include "support/error.h"

namespace kiln::search {

bool TaskAlive(const TaskProgress& task) {
  return !task.exhausted && task.trials < task.max_trials;
}

int64_t RoundTrials(const TaskProgress& task, int64_t per_round, int64_t global_left) {
  int64_t task_left = std::max<int64_t>(0, task.max_trials - task.trials);
  return std::max<int64_t>(0, std::min({per_round, task_left, global_left}));
}

std::unique_ptr<TaskScheduler> CreateTaskScheduler(const std::string& name,
                                                   const TaskSchedulerOptions& options) {
  if (name == "round-robin") return std::make_unique<RoundRobinScheduler>();
  if (name == "gradient") return std::make_unique<GradientBasedScheduler>(options);
  throw Error(ErrorKind::kParse, "task scheduler '" + name + "': expected round-robin or gradient");
}

}  // namespace kiln::search
