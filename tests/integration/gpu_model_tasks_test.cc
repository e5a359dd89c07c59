// Every task of the bundled models, under the default GPU schedule (what an untuned model runs:
// each top-level block's spatial loops fused, split by the thread count, bound), built for each
// GPU API that runs here, run on this machine's device (PoCL for OpenCL and lavapipe for Vulkan
// without a GPU; Metal on its CPU shim without a Mac; WebGPU through wgpu-native on lavapipe) by
// its measurer and compared with the reference interpreter on random inputs. WebGPU opens the
// device with the adapter's limits: under WebGPU's portable ones (8 storage buffers a stage)
// the fused tasks that bind more are refused by name (tests/codegen/webgpu_wgsl_test.cc).
// A machine without the device skips, saying so.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <iostream>

#include "ir/frontend/onnx/import.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "runtime/measurer.h"
#include "search/space/thread_binding.h"

namespace kiln {
using namespace ir;
namespace {

class GpuModelTasksTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuModelTasksTest, EveryTaskUnderTheDefaultGpuScheduleMatchesTheInterpreter) {
  const std::string device = GetParam();
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("kiln-" + device + "-models-XXXXXX")).string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{pattern};

  struct ScopedEnv {
    bool set = false;
    ~ScopedEnv() {
      if (set) unsetenv("KILN_WEBGPU_LIMITS");
    }
  } env;
  if (device == "webgpu") env.set = setenv("KILN_WEBGPU_LIMITS", "adapter", 1) == 0;

  runtime::MeasureOptions options;
  options.target = device;
  options.cache_dir = pattern;
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 0};
  options.run_time_limit_s = 120;
  options.build_jobs = 2;  // two runner processes build ahead at once
  std::unique_ptr<runtime::Measurer> measurer;
  try {
    measurer = runtime::CreateMeasurer(device, options);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kUnsupported) GTEST_SKIP() << "skipped: " << e.what();
    throw;
  }

  std::vector<runtime::MeasureCandidate> candidates;
  std::vector<std::string> names;
  for (const char* model : {"mlp", "cnn", "resnet_stage", "transformer_block"}) {
    frontend::onnx::ImportOptions import;
    import.dim_values = {{"batch", 2}, { "seq_len", 8 }};
    relax::IRModule module = frontend::onnx::ImportOnnx(
        std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx", import);
    relax::IRModule prepared = relax::transform::PrepareModuleForTuning(module);
    for (const relax::transform::ExtractedTask& task : relax::transform::ExtractTasks(prepared)) {
      names.push_back(std::string(model) + "/" + task.name);
      candidates.push_back({task.func, search::DefaultGpuSchedule(task.func)});
    }
  }
  std::vector<runtime::MeasureResult> results = measurer->MeasureBatch(candidates);
  ASSERT_EQ(results.size(), candidates.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const runtime::MeasureResult& r = results[i];
    if (r.ok()) continue;
    runtime::MeasureDetails details;
    measurer->Measure(candidates[i], &details);
    ADD_FAILURE() << names[i] << ": " << runtime::MeasureErrorKindName(r.error_kind) << ": "
                  << r.message << "\n"
                  << details.source.code;
  }
  int tasks = static_cast<int>(results.size());
  EXPECT_GE(tasks, 8);
  std::cout << "[ models ] " << tasks << " tasks ran on " << device
            << " and matched the interpreter\n";
}

INSTANTIATE_TEST_SUITE_P(Devices, GpuModelTasksTest,
                         ::testing::Values("opencl", "vulkan", "metal", "webgpu"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln
