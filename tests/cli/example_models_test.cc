// The bundled example models (examples/models, made by make_models.py): the reference
// executor matches ONNX Runtime's outputs stored beside each model, for every test data set
// (the transformer block and the MLP at two sizes of their symbolic dims; the GCN layers, whose
// aggregation is imported as a CSR SpMM kernel), the tuning tasks of
// the transformer block show fusion and deduplication at work, and in the CNN each batch norm
// folds into a scale and a shift that fuse with the convolution and the following relu.
// The models the build makes (make_models.py --out, KILN_MODELS_DIR: the BERT-base layer, too
// big to commit, and the ResNet-18 stage at 8x8) run on their short test data only: the
// reference executor needs minutes for BERT at 128 tokens or the stage at 56x56.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "cli/commands/onnx_backend_test.h"
#include "ir/model/model_file.h"
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

// block_attention is not run here: the reference executor interprets its attention kernels
// (about 20 s of CPU a run at 1024 tokens). compiled_models_test checks its compiled output
// against ONNX Runtime's and the reference executor's, cli_block_attention_model_test `tune
// compile` and `tune infer` against ONNX Runtime's, and onnx_frontend_test (BlockAttention*)
// the imported kernels through the reference executor against a dense masked attention.
INSTANTIATE_TEST_SUITE_P(Examples, ExampleModel,
                         ::testing::Values("mlp", "transformer_block", "cnn", "gcn_layer",
                                           "gcn_layer_nd"));

// A backend test folder in a temporary directory holding `model`'s model.onnx and its
// test_data_set_0 only (links), removed at the end of the test.
class ShortDataSet {
 public:
  explicit ShortDataSet(const std::string& model) {
    namespace fs = std::filesystem;
    dir_ = fs::temp_directory_path() / ("kiln-example-" + fs::path(model).filename().string() +
                                        "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::create_symlink(fs::path(model) / "model.onnx", dir_ / "model.onnx");
    fs::create_directory_symlink(fs::path(model) / "test_data_set_0", dir_ / "test_data_set_0");
  }
  ~ShortDataSet() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

class GeneratedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedModel, ReferenceExecutorMatchesOnnxRuntime) {
  std::string model = std::string(KILN_MODELS_DIR) + "/" + GetParam();
  ASSERT_TRUE(std::filesystem::exists(model + "/model.onnx"))
      << model << ": made by the generated_models test fixture (make_models.py --out)";
  ShortDataSet short_set(model);
  OnnxTestOptions options;
  // Dot products over 768 to 3072 terms summed in another order than ONNX Runtime's: the
  // outputs (of magnitude 1) differ by a few 1e-6.
  options.atol = 2e-5;
  OnnxTestResult result = RunOnnxBackendTest(short_set.dir(), options);
  EXPECT_EQ(result.status, "pass") << result.reason;
  EXPECT_EQ(result.data_sets, 1);
}

INSTANTIATE_TEST_SUITE_P(Examples, GeneratedModel,
                         ::testing::Values("bert_layer", "resnet_stage_8x8"));

// With every 3x3 stride-1 convolution as Winograd F(4,3) (ir/relax/transform/winograd_conv2d.h),
// the CNN and the ResNet-18 stage at 8x8 still match ONNX Runtime, and the rewrite did apply.
TEST(ExampleModels, WinogradConvolutionsMatchOnnxRuntime) {
  for (const std::string& model :
       {ExampleDir("cnn"), std::string(KILN_MODELS_DIR) + "/resnet_stage_8x8"}) {
    SCOPED_TRACE(model);
    ASSERT_TRUE(std::filesystem::exists(model + "/model.onnx"));
    ShortDataSet short_set(model);
    OnnxTestOptions options;
    options.atol = 2e-5;  // sums of 576 products in another order, and the transforms' rounding
    options.pipeline.winograd.mode = ir::relax::transform::WinogradMode::kOn;
    OnnxTestResult result = RunOnnxBackendTest(short_set.dir(), options);
    EXPECT_EQ(result.status, "pass") << result.reason;
    ir::model::ModelInput input = ir::model::LoadModel(model + "/model.onnx");
    auto tasks = ir::relax::transform::ExtractTasks(
        ir::relax::transform::PrepareModuleForTuning(input.module, options.pipeline));
    int transforms = 0;
    for (const auto& task : tasks) transforms += task.name == "winograd_input_transform";
    EXPECT_GE(transforms, 1) << ir::relax::transform::FormatTaskTable(tasks);
  }
}

// Task extraction at the benchmarked sizes: BERT's three projections are one task, its two
// layer norms one, the GELU fuses into the up projection and the residuals into the down and
// output projections; the ResNet stage is two conv-bn-relu kernels used twice each, the
// second with the residual add fused in.
TEST(ExampleModels, BertLayerTasks) {
  ir::model::ModelInput input = ir::model::LoadModel(
      std::string(KILN_MODELS_DIR) + "/bert_layer/model.onnx", {{"seq_len", 128}});
  auto tasks = ir::relax::transform::ExtractTasks(
      ir::relax::transform::PrepareModuleForTuning(input.module));
  std::string table = ir::relax::transform::FormatTaskTable(tasks);
  std::map<std::string, int64_t> weight;
  double flop = 0;
  for (const auto& task : tasks) {
    weight[task.name] = task.weight;
    flop += std::stod(task.FlopsString()) * static_cast<double>(task.weight);
  }
  EXPECT_EQ(weight["fused_matmul_add"], 3) << table;
  EXPECT_EQ(weight["layer_norm"], 2) << table;
  EXPECT_EQ(weight["softmax"], 1) << table;
  int gelu_fused = 0;
  for (const auto& task : tasks) {
    if (task.name.rfind("fused_matmul", 0) == 0 && task.name.find("erf") != std::string::npos) {
      ++gelu_fused;
    }
  }
  EXPECT_EQ(gelu_fused, 1) << table;
  // 128 tokens x (4 x 768^2 + 2 x 768 x 3072) multiply-adds, plus attention: ~1.86 GFLOP.
  EXPECT_GT(flop, 1.8e9) << table;
  EXPECT_LT(flop, 1.95e9) << table;
}

TEST(ExampleModels, ResnetStageTasks) {
  ir::model::ModelInput input = ir::model::LoadModel(ExampleDir("resnet_stage") + "/model.onnx");
  auto tasks = ir::relax::transform::ExtractTasks(
      ir::relax::transform::PrepareModuleForTuning(input.module));
  std::string table = ir::relax::transform::FormatTaskTable(tasks);
  ASSERT_EQ(tasks.size(), 2u) << table;
  for (const auto& task : tasks) {
    EXPECT_EQ(task.name.rfind("fused_conv2d", 0), 0u) << table;
    EXPECT_EQ(task.name.find("batch_norm"), std::string::npos) << table;
    EXPECT_EQ(task.weight, 2) << table;
  }
  // The residual: one kernel takes the block's input as a sixth parameter.
  EXPECT_NE(tasks[0].params.size(), tasks[1].params.size()) << table;
}

TEST(ExampleModels, TransformerBlockTasksAreFusedAndDeduplicated) {
  ir::model::ModelInput input =
      ir::model::LoadModel(ExampleDir("transformer_block") + "/model.onnx");
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
  ir::model::ModelInput input = ir::model::LoadModel(ExampleDir("cnn") + "/model.onnx");
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
