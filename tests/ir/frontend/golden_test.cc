// Golden text: the Relax printed for each testdata/models/NAME.onnx must equal
// testdata/golden/NAME.txt. Run with KILN_UPDATE_GOLDEN=1 to rewrite the expected files after
// an intended change of the importer or the printer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ir/relax/printer.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class OnnxGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxGolden, PrintedImportMatches) {
  std::string printed =
      relax::DebugPrint(ImportOnnx(testing::TestData("models/" + GetParam() + ".onnx")));
  std::string expected_path = testing::TestData("golden/" + GetParam() + ".txt");
  if (std::getenv("KILN_UPDATE_GOLDEN")) std::ofstream(expected_path, std::ios::binary) << printed;
  EXPECT_EQ(printed, ReadText(expected_path));
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxGolden,
                         ::testing::Values("mlp_dynamic", "attention_shapes", "conv_block"));

}  // namespace
}  // namespace kiln::ir::frontend::onnx
