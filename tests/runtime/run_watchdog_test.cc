// Tests of RunWatchdog: it calls its function once the guarded code has run past the limit,
// with the time so far, again when the function asks, and never once it is disarmed.
#include "runtime/run_watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kiln::runtime {
namespace {

TEST(RunWatchdogTest, FiresOnceTheGuardedCodeRunsPastTheLimit) {
  std::atomic<bool> fired{false};
  std::atomic<double> elapsed{0};
  auto start = std::chrono::steady_clock::now();
  {
    RunWatchdog watchdog(0.02, [&](double seconds) {
      elapsed = seconds;
      fired = true;
      return 0.0;
    });
    // The guarded "run": going until the watchdog says it is over, or 10 s.
    while (!fired && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
      std::this_thread::yield();
    }
  }
  EXPECT_TRUE(fired);
  EXPECT_GE(elapsed.load(), 0.02);
}

TEST(RunWatchdogTest, CallsAgainAfterTheTimeItAsksFor) {
  std::atomic<int> calls{0};
  std::atomic<double> last{0};
  auto start = std::chrono::steady_clock::now();
  {
    RunWatchdog watchdog(0.01, [&](double seconds) {
      last = seconds;
      return ++calls < 3 ? 0.02 : 0.0;
    });
    while (calls < 3 && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
      std::this_thread::yield();
    }
    // Asked for nothing more after the third call: none comes.
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  EXPECT_EQ(calls.load(), 3);
  EXPECT_GE(last.load(), 0.01 + 2 * 0.02);
}

TEST(RunWatchdogTest, NeverFiresOnceDisarmed) {
  std::atomic<int> calls{0};
  for (int i = 0; i < 50; ++i) {
    RunWatchdog watchdog(0.5, [&](double) {
      ++calls;
      return 0.0;
    });
  }
  // The destructor joins the watchdog's thread: nothing can run after it.
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace kiln::runtime
