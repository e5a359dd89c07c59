// Golden tests: each tests/ir/testdata/tir/golden/NAME.tir, parsed and printed (functions
// separated by a blank line), must equal NAME.expected byte for byte. Run with
// KILN_UPDATE_GOLDEN=1 to rewrite the expected files after an intended printer change (that run
// fails, naming the files it rewrote).
#include "tests/testing/golden.h"

#include <gtest/gtest.h>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "tests/ir/text/test_util.h"

namespace kiln::ir {
namespace {

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, PrintedFormMatches) {
  auto dir = testing::CorpusDir() / "golden";
  std::string input = testing::ReadText(dir / (GetParam() + ".tir"));
  std::string printed;
  for (const PrimFunc& f : ParsePrimFuncs(input, GetParam() + ".tir")) {
    printed += (printed.empty() ? "" : "\n") + PrintPrimFunc(f);
  }
  auto expected_path = dir / (GetParam() + ".expected");
  EXPECT_EQ(kiln::testing::CheckGoldenFile(expected_path, printed), "");
  // The expected text is itself a fixed point of parse and print.
  std::string reprinted;
  for (const PrimFunc& f : ParsePrimFuncs(printed, "<printed>")) {
    reprinted += (reprinted.empty() ? "" : "\n") + PrintPrimFunc(f);
  }
  EXPECT_EQ(reprinted, printed);
}

INSTANTIATE_TEST_SUITE_P(Text, Golden,
                         ::testing::Values("loose_matmul", "lowered_loose", "module_names"));

}  // namespace
}  // namespace kiln::ir
