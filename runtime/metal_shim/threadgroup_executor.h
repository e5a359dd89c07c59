// ThreadgroupExecutor: runs the threads of one Metal threadgroup on the calling OS thread as
// cooperative fibers (ucontext), so that a barrier is real: a thread that reaches Barrier() is
// suspended until every thread of its threadgroup has reached it or ended (an ended thread
// counts as arrived, as on GPUs whose exited threads no longer hold a barrier up). Fibers are
// resumed in thread order, each until its next barrier or its end. Stacks are mapped once by
// Reserve (before the runner's lockdown) with a guard page each, so a kernel that overflows
// its stack faults instead of writing over its neighbour's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace kiln::runtime::metal_shim {

class ThreadgroupExecutor {
 public:
  explicit ThreadgroupExecutor(size_t stack_bytes = size_t{256} << 10);
  ~ThreadgroupExecutor();
  ThreadgroupExecutor(const ThreadgroupExecutor&) = delete;
  ThreadgroupExecutor& operator=(const ThreadgroupExecutor&) = delete;

  // Maps stacks for `threads` fibers (once; more later when asked for more).
  void Reserve(int threads);

  // Runs body(t) for every t in [0, threads) as fibers; returns how many barriers the
  // threadgroup passed. `body` must not throw.
  int64_t Run(int threads, const std::function<void(int)>& body);

  // Called from inside a body: waits for the other threads of the threadgroup. Calling it
  // outside Run ends the process with a message (a barrier in a kernel the runner runs
  // without fibers).
  static void Barrier();

 private:
  struct Fiber;
  static void Trampoline(unsigned int low, unsigned int high);
  void Resume(int index);

  size_t stack_bytes_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  const std::function<void(int)>* body_ = nullptr;
  int current_ = -1;
  struct Scheduler;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace kiln::runtime::metal_shim
