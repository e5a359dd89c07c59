// Golden tests: each tests/ir/testdata/tir/golden/NAME.tir, parsed and printed (functions
// separated by a blank line), must equal NAME.expected (TVM 0.24+ dialect, the default) and
// NAME.tvm023.expected (the older dialect) byte for byte. Run with KILN_UPDATE_GOLDEN=1 to
// rewrite the expected files after an intended printer change (that run fails, naming the
// files it rewrote).
#include "tests/testing/golden.h"

#include <gtest/gtest.h>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "tests/ir/text/test_util.h"

namespace kiln::ir {
namespace {

std::string PrintAll(const std::vector<PrimFunc>& funcs, const TirPrintOptions& options) {
  std::string printed;
  for (const PrimFunc& f : funcs) {
    printed += (printed.empty() ? "" : "\n") + PrintPrimFunc(f, options);
  }
  return printed;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, PrintedFormMatches) {
  auto dir = testing::CorpusDir() / "golden";
  std::string input = testing::ReadText(dir / (GetParam() + ".tir"));
  std::vector<PrimFunc> funcs = ParsePrimFuncs(input, GetParam() + ".tir");
  for (TirDialect dialect : {TirDialect::kTvm024, TirDialect::kTvm023}) {
    SCOPED_TRACE(std::string(TirDialectName(dialect)));
    TirPrintOptions options{dialect};
    std::string printed = PrintAll(funcs, options);
    std::string suffix = dialect == TirDialect::kTvm024 ? ".expected" : ".tvm023.expected";
    EXPECT_EQ(kiln::testing::CheckGoldenFile(dir / (GetParam() + suffix), printed), "");
    // The expected text is itself a fixed point of parse and print, and reads back to the
    // same functions.
    std::vector<PrimFunc> again = ParsePrimFuncs(printed, "<printed>");
    EXPECT_EQ(PrintAll(again, options), printed);
    ASSERT_EQ(again.size(), funcs.size());
    for (size_t i = 0; i < funcs.size(); ++i) EXPECT_TRUE(StructuralEqual(again[i], funcs[i]));
  }
}

INSTANTIATE_TEST_SUITE_P(Text, Golden,
                         ::testing::Values("loose_matmul", "lowered_loose", "module_names"));

}  // namespace
}  // namespace kiln::ir
