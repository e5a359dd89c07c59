// GPU design-space candidates run on a real GPU device kind (OpenCL on PoCL, Vulkan on
// lavapipe, each where its measurer is registered and the machine has the device): sampled
// candidates of the "gpu" preset, sized by the device's own limits, and the default GPU
// schedule of each workload are built, run and compared with the reference interpreter by the
// device's measurer. A machine without the device skips, saying so.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ir/text/parser.h"
#include "runtime/gpu/gpu_measurer.h"
#include "runtime/measurer.h"
#include "runtime/sandbox_client.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

class GpuSpaceMeasureTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    runtime::MeasureOptions options;
    options.target = GetParam();
    options.sandbox_path = runtime::FindSandboxExecutable(KILN_SANDBOX_PATH);
    options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 1};
    options.run_time_limit_s = 60;
    try {
      measurer_ = runtime::CreateMeasurer(GetParam(), options);
    } catch (const Error& e) {
      GTEST_SKIP() << "skipped: no " << GetParam() << " device: " << e.what();
    }
    if (auto* gpu = dynamic_cast<runtime::gpu::GpuMeasurer*>(measurer_.get())) {
      limits_ = gpu->device().limits;
    }
  }

  TuneContext Context(const ir::PrimFunc& f) const {
    TuneContext context;
    context.workload = f;
    context.task_name = f->name;
    context.target = GetParam();
    context.max_threads_per_block = static_cast<int>(limits_.max_threads_per_block);
    context.max_shared_memory_bytes = limits_.max_shared_bytes;
    return context;
  }

  std::string Measure(const ir::PrimFunc& workload, const ir::PrimFunc& scheduled) {
    runtime::MeasureResult result = measurer_->Measure({workload, scheduled});
    return result.ok() ? "" : result.message;
  }

  std::unique_ptr<runtime::Measurer> measurer_;
  codegen::gpu::GpuLimits limits_ = PresetGpuLimits("gpu");
};

TEST_P(GpuSpaceMeasureTest, SampledCandidatesRunAndMatchTheInterpreter) {
  struct Case {
    std::string name;
    ir::PrimFunc f;
  };
  std::vector<Case> cases = {{"matmul", testing::MakeMatmul(64, 48, 32)}};
  for (const char* zoo : {"conv2d_stride2_pad1", "dense_bias_relu", "sum_keepdims"}) {
    cases.push_back({zoo, ir::zoo::ZooLookup(zoo).build()});
  }
  RandomEngine rng(17);
  int measured = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DesignSpace space = MakeDesignSpace(GetParam());
    TuneContext context = Context(c.f);
    space.Initialize(context);
    for (const Schedule& sketch : space.Sketches(context)) {
      // One candidate per sketch: device builds take a second or more each on PoCL.
      int kept = 0;
      for (int draw = 0; draw < 16 && kept < 1; ++draw) {
        std::optional<Candidate> candidate =
            SampleCandidate(c.f, sketch.trace(), space.postprocs, rng, nullptr);
        if (!candidate) continue;
        ++kept;
        ++measured;
        EXPECT_EQ(Measure(c.f, candidate->scheduled), "") << candidate->postprocessed.AsPython();
      }
      EXPECT_GT(kept, 0) << sketch.trace().AsPython();
    }
  }
  EXPECT_GE(measured, 5);
}

TEST_P(GpuSpaceMeasureTest, TheDefaultScheduleOfEveryWorkloadRuns) {
  for (const char* zoo : {"conv2d_stride2_pad1", "softmax", "mean"}) {
    SCOPED_TRACE(zoo);
    ir::PrimFunc f = ir::zoo::ZooLookup(zoo).build();
    EXPECT_EQ(
        Measure(f, DefaultGpuSchedule(f, std::min<int64_t>(256, limits_.max_threads_per_block))),
        "");
  }
}

// A candidate found by `tune run` on the transformer block (fused dense + bias + GELU, a 2-lane
// cooperative fetch of one operand, a guarded one of the other). lavapipe took the guard
// `thread < 32` wrongly while it was a 64-bit comparison; the GLSL target now compares (and
// indexes) in 32 bits wherever the values fit.
TEST_P(GpuSpaceMeasureTest, ACandidateFoundOnTheTransformerBlock) {
  auto read = [](const std::string& name) {
    std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/search/testdata/gpu/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  ir::PrimFunc f = ir::ParsePrimFunc(read("fused_dense_gelu_128x256x64.tir"));
  Trace trace =
      Trace::FromJSON(nlohmann::json::parse(read("fused_dense_gelu_128x256x64.trace.json")));
  EXPECT_EQ(Measure(f, ReplayTrace(f, trace)), "");
}

INSTANTIATE_TEST_SUITE_P(Devices, GpuSpaceMeasureTest, ::testing::Values("opencl", "vulkan"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln::search
