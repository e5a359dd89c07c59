// Every zoo function survives printing as TVMScript and parsing back: the parsed function is
// structurally equal to the original, hashes the same, and prints to the same text.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::ir::zoo {
namespace {

std::vector<std::string> ZooNames() {
  std::vector<std::string> names;
  for (const ZooEntry& e : Zoo()) names.push_back(e.name);
  return names;
}

class ZooRoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooRoundTripTest, ParsePrintIsIdentity) {
  const ZooEntry& e = ZooLookup(GetParam());
  PrimFunc f = e.build();
  std::string text = PrintPrimFunc(f);
  PrimFunc g = ParsePrimFunc(text, e.name);
  EXPECT_TRUE(StructuralEqual(f, g))
      << text << "\noriginal: " << CanonicalForm(f) << "\nparsed:   " << CanonicalForm(g);
  EXPECT_EQ(StructuralHashHex(f), StructuralHashHex(g));
  EXPECT_EQ(PrintPrimFunc(g), text);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooRoundTripTest, ::testing::ValuesIn(ZooNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln::ir::zoo
