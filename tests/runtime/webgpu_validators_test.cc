// The two WGSL validators (runtime/webgpu/wgsl_validator.h): naga through wgpu-native and Tint
// through Dawn's library, on one webgpu.h code path. Hand-written kernels pass both; the three
// kinds of WGSL naga accepts and Tint rejects are rejected by Tint, naming what is wrong; and
// every WGSL the emitter writes for the zoo and for the tasks of the bundled models under the
// default GPU schedule, and for candidates drawn from the "webgpu" design space, passes both.
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "codegen/lower.h"
#include "codegen/webgpu/wgsl_emitter.h"
#include "ir/frontend/onnx/import.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "runtime/webgpu/wgsl_validator.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "support/error.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/runtime/webgpu_test_kernels.h"

namespace kiln::runtime::webgpu {
namespace {

constexpr WgslValidator kBoth[] = {WgslValidator::kNaga, WgslValidator::kTint};

class WgslValidatorTest : public ::testing::TestWithParam<WgslValidator> {
 protected:
  void SetUp() override {
    std::string why = WgslValidatorUnavailable(GetParam());
    if (!why.empty())
      GTEST_SKIP() << "skipped: no " << WgslValidatorName(GetParam()) << ": " << why;
  }
};

// The emitted WGSL and the kernels' launches of `f` (shape variables from `dims`).
struct Emitted {
  std::string code;
  std::vector<codegen::gpu::ConcreteLaunch> kernels;
};

Emitted EmitWebGpu(const ir::PrimFunc& scheduled, const std::map<std::string, int64_t>& dims) {
  codegen::WebGpuTarget target;
  codegen::EmittedSource source = target.Emit(
      codegen::Lower(scheduled, target.DefaultLowerOptions()), "kiln_" + scheduled->name);
  Emitted emitted{source.code, {}};
  for (const codegen::gpu::KernelLaunch& k : source.launch->kernels) {
    emitted.kernels.push_back(codegen::gpu::Concretize(k, dims));
  }
  return emitted;
}

TEST_P(WgslValidatorTest, AcceptsTheHandWrittenKernels) {
  EXPECT_EQ(ValidateWgsl(GetParam(), test_wgsl::kTiledMatmul, {{"matmul", {6, 4, 1}, {8, 8, 1}}}),
            "");
  EXPECT_EQ(ValidateWgsl(GetParam(), test_wgsl::kAxpy, {{"axpy", {16, 1, 1}, {64, 1, 1}}}), "");
}

TEST_P(WgslValidatorTest, RejectsWgslThatDoesNotParseWithItsPosition) {
  std::string report = ValidateWgsl(GetParam(), "fn f( {\n", {});
  EXPECT_NE(report.find(WgslValidatorName(GetParam())), std::string::npos) << report;
  EXPECT_NE(report.find("1:7"), std::string::npos) << report;
}

TEST_P(WgslValidatorTest, RejectsAnOverriddenWorkgroupPastTheDefaultLimitsOnlyInTint) {
  // 512 invocations on a device with WebGPU's 256: Tint refuses the pipeline; naga takes an
  // overridden workgroup size unchecked (the runner checks it: webgpu_runtime_test).
  std::string report =
      ValidateWgsl(GetParam(), test_wgsl::kTiledMatmul, {{"matmul", {3, 2, 1}, {16, 32, 1}}});
  if (GetParam() == WgslValidator::kTint) {
    EXPECT_NE(report.find("512"), std::string::npos) << report;
    EXPECT_NE(report.find("kernel matmul"), std::string::npos) << report;
  } else {
    EXPECT_EQ(report, "");
  }
}

// The WGSL naga lets through and Chrome's compiler does not: each is an error in Tint, and
// naga's acceptance is pinned so that a wgpu-native release that starts to reject it is noticed.
TEST_P(WgslValidatorTest, TheThreeKindsNagaAcceptsAndTintRejects) {
  struct Case {
    const char* wgsl;
    const char* tint_says;
  };
  const Case cases[] = {
      {test_wgsl::kBarrierInNonUniformControlFlow, "must only be called from uniform control flow"},
      {test_wgsl::kAliasedPointerArguments, "invalid aliased pointer argument"},
      {test_wgsl::kWorkgroupMemoryPastTheLimit, "20480 bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tint_says);
    std::string report = ValidateWgsl(GetParam(), c.wgsl, {{"bad", {1, 1, 1}, {64, 1, 1}}});
    if (GetParam() == WgslValidator::kTint) {
      EXPECT_NE(report.find(c.tint_says), std::string::npos) << report;
    } else {
      EXPECT_EQ(report, "");
    }
  }
}

TEST_P(WgslValidatorTest, EveryEmittedZooFunctionPasses) {
  int validated = 0;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    SCOPED_TRACE(entry.name);
    Emitted emitted;
    try {
      emitted = EmitWebGpu(search::DefaultGpuSchedule(entry.build()), entry.shape_vars);
    } catch (const Error& e) {
      continue;  // refused by the emitter for what WGSL lacks (tests/codegen/webgpu_wgsl_test)
    }
    EXPECT_EQ(ValidateWgsl(GetParam(), emitted.code, emitted.kernels), "") << emitted.code;
    ++validated;
  }
  EXPECT_GE(validated, static_cast<int>(ir::zoo::Zoo().size()) * 3 / 4);
  std::cout << "[ property ] " << WgslValidatorName(GetParam()) << ": " << validated << " of "
            << ir::zoo::Zoo().size() << " zoo functions emitted and validated\n";
}

TEST_P(WgslValidatorTest, EveryTaskOfTheBundledModelsPasses) {
  // What an untuned model runs: each task of examples/models under the default GPU schedule.
  int validated = 0;
  int refused = 0;
  for (const char* model : {"mlp", "cnn", "resnet_stage", "transformer_block"}) {
    ir::frontend::onnx::ImportOptions import;
    import.dim_values = {{"batch", 2}, { "seq_len", 8 }};
    ir::relax::IRModule module = ir::frontend::onnx::ImportOnnx(
        std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx", import);
    ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(module);
    for (const ir::relax::transform::ExtractedTask& task :
         ir::relax::transform::ExtractTasks(prepared)) {
      SCOPED_TRACE(std::string(model) + "/" + task.name);
      Emitted emitted;
      try {
        emitted = EmitWebGpu(search::DefaultGpuSchedule(task.func), {});
      } catch (const Error& e) {
        // A fused task with more tensors than WebGPU's default 8 storage buffers per stage
        // cannot be bound on a device opened with the default limits: refused by name.
        EXPECT_NE(std::string(e.what()).find("maxStorageBuffersPerShaderStage"), std::string::npos)
            << e.what();
        ++refused;
        continue;
      }
      EXPECT_EQ(ValidateWgsl(GetParam(), emitted.code, emitted.kernels), "") << emitted.code;
      ++validated;
    }
  }
  EXPECT_GE(validated, 8);
  std::cout << "[ property ] " << WgslValidatorName(GetParam()) << ": " << validated
            << " tasks of the bundled models validated, " << refused
            << " refused for more than 8 storage buffers\n";
}

TEST(WebGpuDesignSpaceTest, ThePresetIsSizedByWebGpuDefaultLimits) {
  EXPECT_TRUE(search::IsGpuPreset("webgpu"));
  EXPECT_EQ(search::MakeDesignSpace("webgpu").preset, "webgpu");
  codegen::gpu::GpuLimits limits = search::PresetGpuLimits("webgpu");
  EXPECT_EQ(limits.max_threads_per_block, 256);
  EXPECT_EQ(limits.max_shared_bytes, 16 * 1024);
  EXPECT_FALSE(limits.fp16);
  EXPECT_FALSE(limits.fp64);
  EXPECT_FALSE(limits.int64);
}

TEST_P(WgslValidatorTest, RandomSchedulesOfTheWebGpuDesignSpacePass) {
  // Candidates drawn from the "webgpu" design space's sketches (multi-level tiling with
  // workgroup memory, cross-thread reductions, unrolling; postprocessed), each emitted and
  // validated.
  int validated = 0;
  for (const char* name : {"matmul", "softmax", "layer_norm", "conv2d_stride2_pad1"}) {
    const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup(name);
    search::TuneContext context;
    context.workload = entry.build();
    context.task_name = name;
    context.target = "webgpu";
    search::DesignSpace space = search::MakeDesignSpace("webgpu");
    space.Initialize(context);
    search::RandomEngine rng(7);
    for (const search::Schedule& sketch : space.Sketches(context)) {
      for (int draw = 0; draw < 4; ++draw) {
        SCOPED_TRACE(std::string(name) + " draw " + std::to_string(draw));
        std::optional<search::Candidate> candidate = search::SampleCandidate(
            context.workload, sketch.trace(), space.postprocs, rng, nullptr);
        if (!candidate) continue;
        Emitted emitted;
        try {
          emitted = EmitWebGpu(candidate->scheduled, entry.shape_vars);
        } catch (const Error& e) {
          ADD_FAILURE() << "a postprocessed candidate is refused by the emitter: " << e.what();
          continue;
        }
        EXPECT_EQ(ValidateWgsl(GetParam(), emitted.code, emitted.kernels), "") << emitted.code;
        ++validated;
      }
    }
  }
  EXPECT_GT(validated, 4);
  std::cout << "[ property ] " << WgslValidatorName(GetParam()) << ": " << validated
            << " design-space candidates validated\n";
}

INSTANTIATE_TEST_SUITE_P(Validators, WgslValidatorTest, ::testing::ValuesIn(kBoth),
                         [](const ::testing::TestParamInfo<WgslValidator>& info) {
                           return std::string(WgslValidatorName(info.param));
                         });

}  // namespace
}  // namespace kiln::runtime::webgpu
