// The process's timing gate: work waits while a kernel is timed, a timing waits for work in
// progress to end, and a timing waiting for the gate keeps new work out (timings first).
// Each "still waiting" check gives the other thread 50 ms to get through wrongly.
#include "runtime/timing_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kiln::runtime {
namespace {

constexpr auto kGrace = std::chrono::milliseconds(50);

TEST(TimingGate, WorkWaitsWhileAKernelIsTimed) {
  TimingGate gate;
  std::atomic<bool> worked{false};
  std::thread worker;
  {
    TimingGate::Timing timing(gate);
    worker = std::thread([&] {
      TimingGate::Work work(gate);
      worked = true;
    });
    std::this_thread::sleep_for(kGrace);
    EXPECT_FALSE(worked) << "work ran while a kernel was timed";
  }
  worker.join();
  EXPECT_TRUE(worked);
}

TEST(TimingGate, ATimingWaitsForWorkInProgress) {
  TimingGate gate;
  std::atomic<bool> timed{false};
  std::thread timer;
  {
    TimingGate::Work work(gate);
    timer = std::thread([&] {
      TimingGate::Timing timing(gate);
      timed = true;
    });
    std::this_thread::sleep_for(kGrace);
    EXPECT_FALSE(timed) << "a kernel was timed while work ran";
  }
  timer.join();
  EXPECT_TRUE(timed);
}

TEST(TimingGate, AWaitingTimingKeepsNewWorkOut) {
  TimingGate gate;
  std::atomic<bool> timed{false}, second_worked{false}, timing_done{false};
  std::thread timer, second;
  {
    TimingGate::Work first(gate);
    timer = std::thread([&] {
      TimingGate::Timing timing(gate);
      timed = true;
      std::this_thread::sleep_for(kGrace);
      timing_done = true;
    });
    std::this_thread::sleep_for(kGrace);  // the timing now waits for `first`
    second = std::thread([&] {
      TimingGate::Work work(gate);
      second_worked = true;
      EXPECT_TRUE(timing_done) << "new work got in ahead of a waiting timing";
    });
    std::this_thread::sleep_for(kGrace);
    EXPECT_FALSE(timed);
    EXPECT_FALSE(second_worked);
  }
  timer.join();
  second.join();
  EXPECT_TRUE(timed);
  EXPECT_TRUE(second_worked);
}

TEST(TimingGate, OneGatePerProcess) { EXPECT_EQ(&TimingGate::Process(), &TimingGate::Process()); }

}  // namespace
}  // namespace kiln::runtime
