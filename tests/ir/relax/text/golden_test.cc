// Golden tests: each tests/ir/relax/testdata/golden/NAME.relax, parsed and printed, must equal
// NAME.expected byte for byte, and the expected text must be a fixed point of parse and print.
// Run with KILN_UPDATE_GOLDEN=1 to rewrite the expected files after an intended printer change.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/ir/relax/text/test_util.h"

namespace kiln::ir::relax {
namespace {

class RelaxGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RelaxGolden, PrintedFormMatches) {
  auto dir = testing::CorpusDir() / "golden";
  std::string input = testing::ReadText(dir / (GetParam() + ".relax"));
  std::string printed = PrintModule(ParseModule(input, GetParam() + ".relax"));
  auto expected_path = dir / (GetParam() + ".expected");
  if (std::getenv("KILN_UPDATE_GOLDEN")) {
    std::ofstream(expected_path, std::ios::binary) << printed;
  }
  EXPECT_EQ(printed, testing::ReadText(expected_path));
  EXPECT_EQ(PrintModule(ParseModule(printed, "<printed>")), printed);
}

INSTANTIATE_TEST_SUITE_P(Text, RelaxGolden,
                         ::testing::Values("mlp_inferred", "kernel_module", "constants_metadata"));

}  // namespace
}  // namespace kiln::ir::relax
