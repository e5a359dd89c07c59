// RunWatchdog: calls a function when the code it guards is still running after a time limit.
// The sandbox guards a candidate's first run with it (the early cutoff's abandoned runs,
// runtime/timing.h): the function writes the result and ends the process, which is the only
// safe way to stop a kernel in the middle of a run. A function that returns leaves the run
// to go on, and may ask to be called again later (a run slowed by a busy machine is judged
// again once it has had more time).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kiln::runtime {

class RunWatchdog {
 public:
  // Given the seconds the guarded code has run, returns in how many seconds to be called
  // again; 0 or less: never again.
  using Expiry = std::function<double(double elapsed_seconds)>;

  // Starts the clock; `on_expiry` runs on the watchdog's own thread.
  RunWatchdog(double limit_seconds, Expiry on_expiry);
  // Disarms it: once this returns, `on_expiry` is not running and never will.
  ~RunWatchdog();

  RunWatchdog(const RunWatchdog&) = delete;
  RunWatchdog& operator=(const RunWatchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable disarmed_changed_;
  bool disarmed_ = false;
  std::thread thread_;
};

}  // namespace kiln::runtime
