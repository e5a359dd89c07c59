// Golden text: the Relax printed for each testdata/models/NAME.onnx must equal
// testdata/golden/NAME.txt. Run with KILN_UPDATE_GOLDEN=1 to rewrite the expected files after
// an intended change of the importer or the printer.
#include "tests/testing/golden.h"

#include <gtest/gtest.h>

#include "ir/relax/printer.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

class OnnxGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxGolden, PrintedImportMatches) {
  std::string printed =
      relax::DebugPrint(ImportOnnx(testing::TestData("models/" + GetParam() + ".onnx")));
  std::string expected_path = testing::TestData("golden/" + GetParam() + ".txt");
  EXPECT_EQ(kiln::testing::CheckGoldenFile(expected_path, printed), "");
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxGolden,
                         ::testing::Values("mlp_dynamic", "attention_shapes", "conv_block"));

}  // namespace
}  // namespace kiln::ir::frontend::onnx
