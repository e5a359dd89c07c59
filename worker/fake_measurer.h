// The device named "fake": a Measurer that builds nothing and "runs" every candidate by
// sleeping a fixed time, then reports that time as an ok result. It exists to measure the
// service's own scaling and overhead (bench/bench_service) and to keep the daemons'
// integration tests fast; its figures say nothing about any kernel.
#pragma once

#include <memory>

#include "runtime/measurer.h"

namespace kiln::worker {

inline constexpr const char* kFakeDeviceKind = "fake";

// Each candidate takes `seconds_per_candidate` (default 10 ms; KILN_FAKE_SECONDS overrides it)
// and reports it as its median.
class FakeMeasurer : public runtime::Measurer {
 public:
  explicit FakeMeasurer(double seconds_per_candidate);
  std::string DeviceKind() const override { return kFakeDeviceKind; }
  runtime::MeasureResult Measure(const runtime::MeasureCandidate& candidate,
                                 runtime::MeasureDetails* details = nullptr) override;

 private:
  double seconds_;
};

// Registers "fake" with runtime::RegisterMeasurer (idempotent).
void RegisterFakeMeasurer();

}  // namespace kiln::worker
