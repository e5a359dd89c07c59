// CpuWait: how long this process's threads have waited for a core. Each thread's run delay
// (the time it was runnable but not running, from the kernel's schedstat) is summed over the
// process's threads; its growth across a timed repeat, per second of the repeat, is the
// repeat's contention: 0 on a quiet machine, about 1 for a kernel with two threads that share
// two cores with two busy processes (each thread waits half the time). A timing that waited
// that much measured the machine, not the kernel.
#pragma once

#include <optional>

namespace kiln::runtime {

// Seconds the threads of this process have waited runnable for a core since they started;
// none where the kernel does not account for it (no /proc/self/task/*/schedstat).
std::optional<double> ProcessCpuWaitSeconds();

// Opens the schedstat files of the threads this process has now and reads only those from
// then on: for a process that may open no more files (a runner once locked down,
// sandbox_lockdown.h). Threads started later are not counted; start a parallel kernel's
// thread pool first (StartOpenMpThreads, cpu_module.h).
void PinThreadWaitFiles();

// A timing whose contention is at or above this is contended: its time says more about the
// other work on the machine than about the kernel.
inline constexpr double kContendedShare = 0.1;
// Waits up to this much in a stretch are not counted: one wait for a core, which a fresh
// process or a woken thread may meet on a quiet machine, is half of a 5 ms run. A parallel
// kernel whose second thread lost its core waits a scheduler slice or more at every barrier.
inline constexpr double kWaitAllowanceSeconds = 4e-3;

// Measures the contention of a stretch of time: construct before it, Contention() after it.
class ContentionMeter {
 public:
  ContentionMeter();
  // Seconds waited (beyond kWaitAllowanceSeconds) per second since construction, or since the
  // last Contention() call, which also starts the next stretch; 0 where it cannot be measured.
  double Contention();

 private:
  std::optional<double> wait_;
  double start_ = 0;
};

}  // namespace kiln::runtime
