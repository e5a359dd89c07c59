// Round-robin task scheduling.
#include "search/task_scheduler/round_robin.h"

namespace kiln::search {

std::optional<size_t> RoundRobinScheduler::Next(const std::vector<TaskProgress>& tasks) {
  for (size_t step = 0; step < tasks.size(); ++step) {
    size_t index = (next_ + step) % tasks.size();
    if (TaskAlive(tasks[index])) {
      next_ = index + 1;
      return index;
    }
  }
  return std::nullopt;
}

}  // namespace kiln::search
