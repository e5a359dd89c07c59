// BusyProcesses: child processes that each spin on a core until destroyed: the load that the
// timing tests and bench/bench_measure_load put on the machine (as another job, a build or a
// browser would). Each child only spins; it ends when killed or when its parent is gone.
#pragma once

#include <sys/types.h>

#include <vector>

namespace kiln {

class BusyProcesses {
 public:
  // Starts `count` spinning children; kiln::Error when fork fails.
  explicit BusyProcesses(int count);
  ~BusyProcesses();  // kills and reaps every child
  BusyProcesses(const BusyProcesses&) = delete;
  BusyProcesses& operator=(const BusyProcesses&) = delete;

  int count() const { return static_cast<int>(children_.size()); }

 private:
  void Stop();
  std::vector<pid_t> children_;
};

}  // namespace kiln
