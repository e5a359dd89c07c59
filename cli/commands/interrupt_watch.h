// InterruptWatch: while it lives, SIGINT and SIGTERM do not end the process; the first one
// calls `on_interrupt` (from a watcher thread, never from the signal handler) so that the
// command can stop its work cleanly, e.g. cancel a tuning job whose measurements must stay
// stored. A second signal ends the process as usual. The destructor restores the handlers.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace kiln::cli {

class InterruptWatch {
 public:
  explicit InterruptWatch(std::function<void(int signal)> on_interrupt);
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // The signal that arrived (SIGINT, SIGTERM), or 0.
  int signal() const;

 private:
  std::function<void(int)> on_interrupt_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

}  // namespace kiln::cli
