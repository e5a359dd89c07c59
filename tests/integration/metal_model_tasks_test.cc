// Every task of the bundled models under the default GPU schedule, through the Metal target
// beside Khronos's translator: the MSL emitter's kernels compared, kernel by kernel, with
// `spirv-cross --msl`'s translation of the Vulkan target's SPIR-V of the same task (threadgroup
// arrays, barriers; tests/codegen/metal_spirv_cross.h). What the kernels compute is checked by
// gpu_model_tasks_test, which runs the same tasks on the Metal CPU shim against the interpreter.
// A machine without spirv-cross skips, saying so.
#include <gtest/gtest.h>

#include <iostream>

#include "ir/frontend/onnx/import.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "search/space/thread_binding.h"
#include "tests/codegen/metal_spirv_cross.h"

namespace kiln {
namespace {

TEST(MetalModelTasksTest, EveryTaskAgreesWithSpirvCrossInStructure) {
  std::string tool = codegen::testing::SpirvCrossPath();
  if (tool.empty()) GTEST_SKIP() << "skipped: no spirv-cross (Debian package spirv-cross)";
  codegen::testing::SpirvCrossTally tally;
  int tasks = 0;
  for (const char* model : {"mlp", "cnn", "resnet_stage", "transformer_block"}) {
    ir::frontend::onnx::ImportOptions import;
    import.dim_values = {{"batch", 2}, { "seq_len", 8 }};
    ir::relax::IRModule module = ir::frontend::onnx::ImportOnnx(
        std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx", import);
    ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(module);
    for (const ir::relax::transform::ExtractedTask& task :
         ir::relax::transform::ExtractTasks(prepared)) {
      ir::PrimFunc scheduled = search::DefaultGpuSchedule(task.func);
      EXPECT_EQ(codegen::testing::CompareWithSpirvCross(scheduled, tool, tally), "")
          << model << "/" << task.name;
      ++tasks;
    }
  }
  EXPECT_GE(tasks, 8);
  EXPECT_GE(tally.kernels, tasks);
  std::cout << "[ models ] " << tally.kernels << " Metal kernels of " << tasks
            << " tasks agree with spirv-cross in structure\n";
}

}  // namespace
}  // namespace kiln
