// Round trip over the corpus: every function in every tests/ir/testdata/tir/*.tir file parses,
// prints, and parses back to a structurally equal function with the same hash, and printing
// is a fixed point.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "tests/ir/text/test_util.h"

namespace kiln::ir {
namespace {

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(testing::CorpusDir())) {
    if (entry.path().extension() == ".tir") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class CorpusRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusRoundTrip, ParsePrintParse) {
  const std::string path = (testing::CorpusDir() / GetParam()).string();
  std::vector<PrimFunc> funcs = ParsePrimFuncs(testing::ReadText(path), GetParam());
  ASSERT_FALSE(funcs.empty());
  for (const PrimFunc& f : funcs) {
    SCOPED_TRACE(f->name);
    std::string printed = PrintPrimFunc(f);
    PrimFunc reparsed;
    try {
      reparsed = ParsePrimFunc(printed, "<printed>");
    } catch (const Error& e) {
      FAIL() << e.what() << "\n--- printed ---\n" << printed;
    }
    EXPECT_TRUE(StructuralEqual(f, reparsed)) << printed << "\n"
                                              << CanonicalForm(f) << "\n"
                                              << CanonicalForm(reparsed);
    EXPECT_EQ(StructuralHash(f), StructuralHash(reparsed));
    EXPECT_EQ(f->name, reparsed->name);
    EXPECT_EQ(PrintPrimFunc(reparsed), printed);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusRoundTrip, ::testing::ValuesIn(CorpusFiles()),
                         [](const auto& info) {
                           std::string name = info.param.substr(0, info.param.size() - 4);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(CorpusRoundTrip, HasEnoughFunctions) {
  size_t count = 0;
  for (const std::string& file : CorpusFiles()) {
    count += ParsePrimFuncs(testing::ReadText(testing::CorpusDir() / file), file).size();
  }
  EXPECT_GE(count, 30u);
}

}  // namespace
}  // namespace kiln::ir
