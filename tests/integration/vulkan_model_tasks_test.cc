// Every task of the bundled models, under the default GPU schedule (what an untuned model runs:
// each top-level block's spatial loops fused, split by the thread count, bound), emitted as
// GLSL, run on this machine's Vulkan device (lavapipe without a GPU) by the Vulkan measurer and
// compared with the reference interpreter on random inputs. A machine without a Vulkan device
// skips, saying so.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "ir/frontend/onnx/import.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "runtime/vulkan/vulkan_measurer.h"
#include "search/space/thread_binding.h"

namespace kiln {
namespace {

TEST(VulkanModelTasksTest, EveryTaskUnderTheDefaultGpuScheduleMatchesTheInterpreter) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "kiln-vulkan-models-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{pattern};

  runtime::MeasureOptions options;
  options.target = "vulkan";
  options.cache_dir = pattern;
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 0};
  options.run_time_limit_s = 120;
  std::unique_ptr<runtime::Measurer> measurer;
  try {
    measurer = runtime::vulkan::CreateVulkanMeasurer(options);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kUnsupported) GTEST_SKIP() << "skipped: " << e.what();
    throw;
  }

  int tasks = 0;
  // Every bundled model (examples/models/NAME/model.onnx), in name order.
  std::vector<std::filesystem::path> models;
  for (const auto& dir :
       std::filesystem::directory_iterator(std::string(KILN_SOURCE_DIR) + "/examples/models")) {
    if (std::filesystem::exists(dir.path() / "model.onnx")) models.push_back(dir.path());
  }
  std::sort(models.begin(), models.end());
  for (const std::filesystem::path& model : models) {
    ir::frontend::onnx::ImportOptions import_options;
    import_options.dim_values = {{"batch", 2}, {"seq_len", 8}};
    ir::relax::IRModule module =
        ir::frontend::onnx::ImportOnnx((model / "model.onnx").string(), import_options);
    ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(module);
    for (const ir::relax::transform::ExtractedTask& task :
         ir::relax::transform::ExtractTasks(prepared)) {
      std::string name = model.filename().string() + "/" + task.name;
      SCOPED_TRACE(name);
      ++tasks;
      runtime::MeasureDetails details;
      runtime::MeasureResult r =
          measurer->Measure({task.func, search::DefaultGpuSchedule(task.func)}, &details);
      EXPECT_TRUE(r.ok()) << name << ": " << runtime::MeasureErrorKindName(r.error_kind) << ": "
                          << r.message << "\n"
                          << details.source.code;
    }
  }
  EXPECT_GE(tasks, 8);
  std::cout << "[ models ] " << tasks << " tasks ran on Vulkan and matched the interpreter\n";
}

}  // namespace
}  // namespace kiln
