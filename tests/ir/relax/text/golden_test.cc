// Golden tests: each tests/ir/relax/testdata/golden/NAME.relax, parsed and printed, must equal
// NAME.expected byte for byte (TVM 0.24+ dialect) and NAME.tvm023.expected (the dialect of TVM up
// to 0.23), and each expected text must be a fixed point of parse and print.
// Run with KILN_UPDATE_GOLDEN=1 to rewrite the expected files after an intended printer change.
#include "tests/testing/golden.h"

#include <gtest/gtest.h>

#include "tests/ir/relax/text/test_util.h"

namespace kiln::ir::relax {
namespace {

class RelaxGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RelaxGolden, PrintedFormMatches) {
  auto dir = testing::CorpusDir() / "golden";
  std::string input = testing::ReadText(dir / (GetParam() + ".relax"));
  IRModule module = ParseModule(input, GetParam() + ".relax");
  for (TirDialect dialect : {TirDialect::kTvm024, TirDialect::kTvm023}) {
    PrintOptions options;
    options.dialect = dialect;
    std::string printed = PrintModule(module, options);
    auto expected_path =
        dir / (GetParam() + (dialect == TirDialect::kTvm024 ? ".expected" : ".tvm023.expected"));
    EXPECT_EQ(kiln::testing::CheckGoldenFile(expected_path, printed), "");
    EXPECT_EQ(PrintModule(ParseModule(printed, "<printed>"), options), printed);
  }
}

INSTANTIATE_TEST_SUITE_P(Text, RelaxGolden,
                         ::testing::Values("mlp_inferred", "kernel_module", "constants_metadata"));

}  // namespace
}  // namespace kiln::ir::relax
