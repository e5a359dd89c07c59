// The bundled example models (examples/models/, opset 17) converted by onnx.version_converter to
// opsets 18 and 21 (make_onnx_node_cases.py writes them into the build folder before this test)
// import to the same tuning tasks as the originals: the same task table (names, FLOP counts,
// weights, shapes) and the same workload hashes, so records tuned for a model stay valid when
// its exporter moves to a newer opset.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ir/frontend/onnx/import.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
using ir::relax::transform::ExtractedTask;

std::vector<ExtractedTask> Tasks(const std::string& path) {
  ir::relax::IRModule module = ir::frontend::onnx::ImportOnnx(path);
  return ir::relax::transform::ExtractTasks(ir::relax::transform::PrepareModuleForTuning(module));
}

class OnnxOpsetConversion : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(OnnxOpsetConversion, SameTaskTable) {
  const auto& [model, opset] = GetParam();
  std::string original = std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx";
  std::string converted = std::string(KILN_ONNX_CASES_DIR) + "/converted/" + model + "_opset" +
                          std::to_string(opset) + ".onnx";
  ASSERT_TRUE(fs::exists(converted))
      << converted << " is missing: ctest runs onnx_node_cases (make_onnx_node_cases.py) first";
  EXPECT_EQ(ir::frontend::onnx::TryImportOnnx(converted).opset, opset);
  std::vector<ExtractedTask> want = Tasks(original);
  std::vector<ExtractedTask> got = Tasks(converted);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(ir::relax::transform::FormatTaskTable(got),
            ir::relax::transform::FormatTaskTable(want));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].workload_hash, want[i].workload_hash) << "task " << i << " " << want[i].name;
  }
}

INSTANTIATE_TEST_SUITE_P(ExampleModels, OnnxOpsetConversion,
                         ::testing::Combine(::testing::Values("mlp", "cnn", "transformer_block"),
                                            ::testing::Values(18, 21)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
                           return std::get<0>(info.param) + "_opset" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace kiln::cli
