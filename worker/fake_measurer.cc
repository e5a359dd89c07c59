// The fake device: a fixed sleep per candidate, for scaling figures and fast service tests.
#include "worker/fake_measurer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace kiln::worker {

FakeMeasurer::FakeMeasurer(double seconds_per_candidate) : seconds_(seconds_per_candidate) {}

runtime::MeasureResult FakeMeasurer::Measure(const runtime::MeasureCandidate& /*candidate*/,
                                             runtime::MeasureDetails* /*details*/) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
  runtime::MeasureResult result;
  // A zero-time device still reports a positive time: an ok result with no time is malformed.
  double reported = std::max(seconds_, 1e-9);
  result.repeat_seconds = {reported};
  result.median_seconds = reported;
  result.number = 1;
  result.reference = "fake device: nothing compared";
  return result;
}

void RegisterFakeMeasurer() {
  runtime::RegisterMeasurer(kFakeDeviceKind, [](const runtime::MeasureOptions&) {
    double seconds = 0.01;
    if (const char* env = std::getenv("KILN_FAKE_SECONDS"); env != nullptr && *env != '\0') {
      char* end = nullptr;
      double value = std::strtod(env, &end);
      if (end != env && value >= 0 && value < 60) seconds = value;
    }
    return std::make_unique<FakeMeasurer>(seconds);
  });
}

}  // namespace kiln::worker
