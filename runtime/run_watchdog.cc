// RunWatchdog: a thread that waits for disarming or the limit, whichever comes first, and
// again for as long as its function asks.
#include "runtime/run_watchdog.h"

namespace kiln::runtime {

RunWatchdog::RunWatchdog(double limit_seconds, Expiry on_expiry) {
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limit_seconds));
  thread_ = std::thread([this, start, deadline, on_expiry = std::move(on_expiry)] {
    std::unique_lock lock(mutex_);
    auto next = deadline;
    for (;;) {
      if (disarmed_changed_.wait_until(lock, next, [&] { return disarmed_; })) return;
      auto now = std::chrono::steady_clock::now();
      double again = on_expiry(std::chrono::duration<double>(now - start).count());
      if (!(again > 0)) return;
      next = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(again));
    }
  });
}

RunWatchdog::~RunWatchdog() {
  {
    std::lock_guard lock(mutex_);
    disarmed_ = true;
  }
  disarmed_changed_.notify_all();
  thread_.join();
}

}  // namespace kiln::runtime
