// Golden tests: each tests/ir/relax/testdata/golden/NAME.relax, parsed and printed, must equal
// NAME.expected byte for byte, and the expected text must be a fixed point of parse and print.
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
  std::string printed = PrintModule(ParseModule(input, GetParam() + ".relax"));
  auto expected_path = dir / (GetParam() + ".expected");
  EXPECT_EQ(kiln::testing::CheckGoldenFile(expected_path, printed), "");
  EXPECT_EQ(PrintModule(ParseModule(printed, "<printed>")), printed);
}

INSTANTIATE_TEST_SUITE_P(Text, RelaxGolden,
                         ::testing::Values("mlp_inferred", "kernel_module", "constants_metadata"));

}  // namespace
}  // namespace kiln::ir::relax
