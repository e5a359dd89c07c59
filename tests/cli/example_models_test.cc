// The bundled example models (examples/models, made by make_models.py): the reference
// executor matches ONNX Runtime's outputs stored beside each model, for every test data set
// (the transformer block and the MLP at two sizes of their symbolic dims), the tuning tasks of
// the transformer block show fusion and deduplication at work, and in the CNN each batch norm
// folds into a scale and a shift that fuse with the convolution and the following relu.
#include <gtest/gtest.h>

#include <map>

#include "cli/commands/model_input.h"
#include "cli/commands/onnx_backend_test.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"

namespace kiln::cli {
namespace {

std::string ExampleDir(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + name;
}

class ExampleModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleModel, ReferenceExecutorMatchesOnnxRuntime) {
  OnnxTestResult result = RunOnnxBackendTest(ExampleDir(GetParam()));
  EXPECT_EQ(result.status, "pass") << result.reason;
  EXPECT_GE(result.data_sets, 1);
  // Unfused, the graph computes the same.
  OnnxTestOptions unfused;
  unfused.fuse = false;
  OnnxTestResult plain = RunOnnxBackendTest(ExampleDir(GetParam()), unfused);
  EXPECT_EQ(plain.status, "pass") << plain.reason;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleModel,
                         ::testing::Values("mlp", "transformer_block", "cnn"));

TEST(ExampleModels, TransformerBlockTasksAreFusedAndDeduplicated) {
  ModelInput input = LoadModel(ExampleDir("transformer_block") + "/model.onnx");
  auto tasks = ir::relax::transform::ExtractTasks(
      ir::relax::transform::PrepareModuleForTuning(input.module));
  std::string table = ir::relax::transform::FormatTaskTable(tasks);
  int64_t calls = 0;
  std::map<std::string, int64_t> weight;
  for (const auto& task : tasks) {
    calls += task.weight;
    weight[task.name] = task.weight;
  }
  // 38 ONNX nodes; the shape subgraph folds away and elementwise ops fuse into their kernels.
  EXPECT_LT(tasks.size(), 15u) << table;
  EXPECT_LT(static_cast<int64_t>(tasks.size()), calls) << table;
  // The q, k and v projections are one (seq_len x 64) x (64 x 64) + bias kernel; the output
  // projection differs (the residual add fused into it); both layer norms are one kernel.
  EXPECT_EQ(weight["fused_matmul_add"], 3) << table;
  EXPECT_EQ(weight["layer_norm"], 2) << table;
  EXPECT_EQ(weight["softmax"], 1) << table;
}

TEST(ExampleModels, CnnBatchNormsFuseIntoConvolutionAndRelu) {
  ModelInput input = LoadModel(ExampleDir("cnn") + "/model.onnx");
  auto tasks = ir::relax::transform::ExtractTasks(
      ir::relax::transform::PrepareModuleForTuning(input.module));
  std::string table = ir::relax::transform::FormatTaskTable(tasks);
  int conv_kernels = 0;
  for (const auto& task : tasks) {
    EXPECT_EQ(task.name.find("batch_norm"), std::string::npos) << table;
    EXPECT_NE(task.name.rfind("relu", 0), 0u) << "a relu kernel of its own:\n" << table;
    if (task.name.find("conv2d") == std::string::npos) continue;
    ++conv_kernels;
    // conv2d, bias, scale, shift and relu in one kernel: the convolution's input and weight,
    // the bias, the folded scale and shift, and the output.
    EXPECT_EQ(task.name.rfind("fused_conv2d", 0), 0u) << table;
    EXPECT_EQ(task.name.substr(task.name.rfind('_') + 1, 4), "relu") << table;
    EXPECT_EQ(task.params.size(), 6u) << table;
  }
  EXPECT_EQ(conv_kernels, 2) << table;
}

}  // namespace
}  // namespace kiln::cli
