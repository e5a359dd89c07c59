// TimingGate: keeps this process's own heavy background work off the cores while a kernel is
// timed here. A parallel kernel whose thread loses its core to another busy thread waits out a
// scheduler slice (about 5 ms) at its next barrier: a kernel of microseconds is then recorded
// at milliseconds, and a tuning job keeps a worse candidate. In `tune run` the tuner's search
// and cost model share the process with the measurer: the measurer holds the gate for each
// timed run (the CPU sandbox's), the tuner holds it around each search and model update, and
// each waits for the other. Builds are already kept apart by the measurers themselves. Across
// processes (a remote worker, another job's process) it does nothing.
#pragma once

#include <condition_variable>
#include <mutex>

namespace kiln::runtime {

class TimingGate {
 public:
  // The gate of this process.
  static TimingGate& Process();

  // Held while a kernel is timed: waits for work in progress to end and keeps new work out
  // until released (timings take precedence, so that work cannot starve them).
  class Timing {
   public:
    explicit Timing(TimingGate& gate);
    ~Timing();
    Timing(const Timing&) = delete;
    Timing& operator=(const Timing&) = delete;

   private:
    TimingGate& gate_;
  };

  // Held around a piece of heavy work: waits while a kernel is timed or waits to be.
  class Work {
   public:
    explicit Work(TimingGate& gate);
    ~Work();
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;

   private:
    TimingGate& gate_;
  };

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int timings_ = 0;  // timed runs holding the gate or waiting for it
  int working_ = 0;  // pieces of work holding it
};

}  // namespace kiln::runtime
