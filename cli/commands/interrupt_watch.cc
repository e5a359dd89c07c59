// The signal handler only records the signal; the watcher thread polls for it, so the
// callback may take locks and touch the database.
#include "cli/commands/interrupt_watch.h"

#include <chrono>
#include <csignal>

namespace kiln::cli {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void RecordSignal(int signal) {
  g_signal = signal;
  std::signal(signal, SIG_DFL);  // a second one ends the process
}

}  // namespace

InterruptWatch::InterruptWatch(std::function<void(int)> on_interrupt)
    : on_interrupt_(std::move(on_interrupt)) {
  g_signal = 0;
  std::signal(SIGINT, RecordSignal);
  std::signal(SIGTERM, RecordSignal);
  watcher_ = std::thread([this] {
    while (!done_.load()) {
      if (int s = g_signal; s != 0) {
        on_interrupt_(s);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
}

InterruptWatch::~InterruptWatch() {
  done_ = true;
  if (watcher_.joinable()) watcher_.join();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

int InterruptWatch::signal() const { return g_signal; }

}  // namespace kiln::cli
