// Round-robin task scheduling: every live task in turn, in index order.
#pragma once

#include "search/task_scheduler/task_scheduler.h"

namespace kiln::search {

class RoundRobinScheduler : public TaskScheduler {
 public:
  std::string Name() const override { return "round-robin"; }
  std::optional<size_t> Next(const std::vector<TaskProgress>& tasks) override;

 private:
  size_t next_ = 0;
};

}  // namespace kiln::search
