// The GPU devices the sparse GPU tests run on (lavapipe, PoCL, a CUDA GPU where there is one):
// one measurer per device kind for the whole test program, since discovering a device costs,
// or why there is none (the test then says "skipped: no <kind> device: <why>").
#pragma once

#include <map>
#include <memory>
#include <string>

#include "runtime/measurer.h"
#include "support/error.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse::testing {

struct Device {
  std::unique_ptr<runtime::Measurer> measurer;
  std::string missing;  // why there is none
};

inline Device& DeviceOf(const std::string& kind) {
  static auto* devices = new std::map<std::string, Device>;
  static auto* scratch = new runtime::testing::ScratchDir;
  auto it = devices->find(kind);
  if (it != devices->end()) return it->second;
  Device& d = (*devices)[kind];
  runtime::MeasureOptions o;
  o.target = kind;
  o.cache_dir = scratch->Sub("cache");
  o.timing = {.number = 1, .repeat = 2, .min_repeat_ms = 0, .warmup = 1};
  o.run_time_limit_s = 60;
  o.build_jobs = 2;
  try {
    d.measurer = runtime::CreateMeasurer(kind, o);
  } catch (const Error& e) {
    d.missing = e.what();
  }
  return d;
}

}  // namespace kiln::compiler::sparse::testing
