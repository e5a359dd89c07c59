// GpuMeasurerSuite: the fixture the GPU measurer tests share. One measurer of a device kind per
// test suite (opening a device and starting its runner cost), over a scratch cache; on a machine
// without the device every test is skipped, saying why. `Kind` names the kind:
//   struct VulkanDevice {
//     static constexpr const char* kKind = "vulkan";
//     static constexpr const char* kMissing = "no Vulkan device";
//     static std::unique_ptr<Measurer> Create(const MeasureOptions& options);
//   };
// Also BoundMatmul, the hand-bound matmul schedule the suites run.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "runtime/gpu/gpu_measurer.h"
#include "runtime/measurer.h"
#include "runtime/sandbox_client.h"
#include "runtime_test_util.h"
#include "search/schedule/schedule.h"

namespace kiln::runtime {

template <typename Kind>
class GpuMeasurerSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new testing::ScratchDir;
    MeasureOptions options;
    options.cache_dir = scratch_->Sub("cache");
    options.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
    options.target = Kind::kKind;
    options.timing = {.number = 1, .repeat = 2, .min_repeat_ms = 0, .warmup = 1};
    options.run_time_limit_s = 60;
    options.build_jobs = 2;
    try {
      measurer_ = Kind::Create(options).release();
    } catch (const Error& e) {
      skip_reason_ = new std::string(e.what());
    }
  }
  static void TearDownTestSuite() {
    delete measurer_;
    delete scratch_;
    delete skip_reason_;
    measurer_ = nullptr;
    scratch_ = nullptr;
    skip_reason_ = nullptr;
  }
  void SetUp() override {
    if (skip_reason_) GTEST_SKIP() << "skipped: " << Kind::kMissing << ": " << *skip_reason_;
  }

  static const gpu::DeviceDescription& Device() {
    return static_cast<gpu::GpuMeasurer*>(measurer_)->device();
  }

  static MeasureResult Measure(const ir::PrimFunc& workload, const ir::PrimFunc& scheduled,
                               MeasureDetails* details = nullptr,
                               std::map<std::string, int64_t> dims = {}) {
    return measurer_->Measure({workload, scheduled, std::move(dims)}, details);
  }

  static inline testing::ScratchDir* scratch_ = nullptr;
  static inline Measurer* measurer_ = nullptr;
  static inline std::string* skip_reason_ = nullptr;
};

// `f` (a matmul whose block is "C") with i and j split by `ti` and `tj`, the outer parts bound
// to blockIdx.y / blockIdx.x and the inner ones to threadIdx.y / threadIdx.x.
inline search::Schedule BoundMatmul(const ir::PrimFunc& f, int64_t ti, int64_t tj) {
  search::Schedule sch(f);
  search::BlockRV c = sch.GetBlock("C");
  std::vector<search::LoopRV> loops = sch.GetLoops(c);
  std::vector<search::LoopRV> i = sch.Split(loops[0], {std::nullopt, ti});
  std::vector<search::LoopRV> j = sch.Split(loops[1], {std::nullopt, tj});
  sch.Reorder({i[0], j[0], i[1], j[1], loops[2]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  return sch;
}

}  // namespace kiln::runtime
