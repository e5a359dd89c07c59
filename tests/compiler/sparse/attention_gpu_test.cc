// Block-sparse attention's kernels on the GPU backends: every sketch of the "sparse-gpu" space
// (and the default GPU schedule) for the SDDMM, the softmax and the SpMM, run through the
// Vulkan (lavapipe) and OpenCL (PoCL) measurers with the naive reference ("skipped: no ...
// device" where one is missing), and a short TuneSparseAttention on each.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "compiler/sparse/attention_tuning.h"
#include "compiler/sparse/attention_workloads.h"
#include "runtime/measurer.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "tests/compiler/sparse/test_devices.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse {
namespace {

using testing::Device;
using testing::DeviceOf;

class AttentionGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    device_ = &DeviceOf(GetParam());
    if (!device_->measurer) {
      GTEST_SKIP() << "skipped: no " << GetParam() << " device: " << device_->missing;
    }
  }
  Device* device_ = nullptr;
};

// Every sketch (at most 10 evenly spread) with its decisions drawn twice, and the default GPU
// schedule, of every kernel match the naive reference on the device.
TEST_P(AttentionGpu, EverySampledScheduleMatchesTheNaiveReference) {
  runtime::testing::ScratchDir dir;
  AttentionProblem p{BigBirdMask(128, 16), 2, 16};
  std::vector<SparseKernel> kernels = AttentionKernels(p, 5, dir.path().string(), /*gpu=*/true);
  for (const SparseKernel& k : kernels) {
    SCOPED_TRACE(k.name);
    search::TuneContext context;
    context.workload = k.workload;
    context.target = GetParam();
    search::DesignSpace space = search::MakeDesignSpace("sparse-gpu");
    space.Initialize(context);
    std::vector<search::Schedule> sketches = space.Sketches(context);
    ASSERT_FALSE(sketches.empty());
    std::vector<std::pair<std::string, ir::PrimFunc>> samples = {
        {"default GPU schedule", search::DefaultGpuSchedule(k.workload)}};
    // The softmax's three blocks multiply their variants (75 sketches): every stride-th.
    const size_t stride = (sketches.size() + 9) / 10;
    size_t taken = 0;
    for (size_t s = 0; s < sketches.size(); s += stride) {
      ++taken;
      for (uint64_t seed = 1; seed <= 2; ++seed) {
        search::RandomEngine rng(seed * 101 + s);
        search::SampleStats stats;
        std::optional<search::Candidate> c =
            search::SampleCandidate(k.workload, sketches[s].trace(), space.postprocs, rng, &stats);
        if (!c) {
          for (const auto& [why, count] : stats.failures) {
            ADD_FAILURE() << "sketch " << s << ": " << count << " x " << why << "\n"
                          << sketches[s].trace().AsPython();
          }
          continue;
        }
        EXPECT_NE(c->trace.AsPython().find("threadIdx.x"), std::string::npos)
            << c->trace.AsPython();
        samples.push_back(
            {"sketch " + std::to_string(s) + " draw " + std::to_string(seed), c->scheduled});
      }
    }
    EXPECT_EQ(samples.size(), 1 + taken * 2);
    for (const auto& [what, scheduled] : samples) {
      runtime::MeasureDetails details;
      runtime::MeasureResult r =
          device_->measurer->Measure({k.workload, scheduled, {}, k.reference}, &details);
      EXPECT_TRUE(r.ok() && r.correctness_checked)
          << what << ": " << runtime::MeasureErrorKindName(r.error_kind) << ": " << r.message
          << "\n"
          << details.source.code;
      EXPECT_NE(r.reference.find("naive block-sparse attention"), std::string::npos);
    }
  }
}

TEST_P(AttentionGpu, ShortTuningFindsCorrectKernels) {
  runtime::testing::ScratchDir dir;
  SparseTuneOptions options;
  options.target = GetParam();
  options.trials = 6;
  options.min_repeat_ms = 2;
  options.cache_dir = dir.path().string();
  AttentionTuneResult r = TuneSparseAttention({BigBirdMask(128, 16), 2, 16}, options);
  EXPECT_TRUE(r.tuned.correct) << r.tuned.failure;
  ASSERT_EQ(r.kernels.size(), 3u);
  for (const AttentionKernelFigure& k : r.kernels) EXPECT_GT(k.best_seconds, 0) << k.name;
  // One trace per kernel: a bound schedule, or null where the default GPU schedule (the
  // untuned figure) stayed the fastest, as on PoCL after a few trials.
  nlohmann::json traces = nlohmann::json::parse(r.tuned.best_trace);
  ASSERT_EQ(traces.size(), 3u) << r.tuned.best_trace;
  for (const nlohmann::json& t : traces) {
    if (!t.is_null()) {
      EXPECT_NE(t.dump().find("Bind"), std::string::npos) << t.dump();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, AttentionGpu, ::testing::Values("vulkan", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::compiler::sparse
