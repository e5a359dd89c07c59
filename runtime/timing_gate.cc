// The process's timing gate: timings first, work waits.
#include "runtime/timing_gate.h"

namespace kiln::runtime {

TimingGate& TimingGate::Process() {
  static TimingGate gate;
  return gate;
}

TimingGate::Timing::Timing(TimingGate& gate) : gate_(gate) {
  std::unique_lock lock(gate_.mutex_);
  ++gate_.timings_;
  gate_.changed_.wait(lock, [&] { return gate_.working_ == 0; });
}

TimingGate::Timing::~Timing() {
  std::lock_guard lock(gate_.mutex_);
  --gate_.timings_;
  gate_.changed_.notify_all();
}

TimingGate::Work::Work(TimingGate& gate) : gate_(gate) {
  std::unique_lock lock(gate_.mutex_);
  gate_.changed_.wait(lock, [&] { return gate_.timings_ == 0; });
  ++gate_.working_;
}

TimingGate::Work::~Work() {
  std::lock_guard lock(gate_.mutex_);
  --gate_.working_;
  gate_.changed_.notify_all();
}

}  // namespace kiln::runtime
