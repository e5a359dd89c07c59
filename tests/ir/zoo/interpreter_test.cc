// Every zoo function, run by the reference interpreter on seeded random inputs, agrees with
// its hand-written reference implementation, and leaves its inputs alone.
#include "ir/interpreter/interpreter.h"

#include <gtest/gtest.h>

#include "tests/ir/zoo/zoo.h"

namespace kiln::ir::zoo {
namespace {

std::vector<std::string> ZooNames() {
  std::vector<std::string> names;
  for (const ZooEntry& e : Zoo()) names.push_back(e.name);
  return names;
}

class ZooInterpreterTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooInterpreterTest, MatchesReference) {
  const ZooEntry& e = ZooLookup(GetParam());
  PrimFunc f = e.build();
  for (uint64_t seed : {11u, 2024u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<HostTensor> args = MakeArguments(e, f, seed);
    std::vector<HostTensor> expected;
    for (const HostTensor& t : args) expected.push_back(t.Clone());
    e.reference(expected);

    Interpret(f, std::vector<ArgValue>(args.begin(), args.end()));

    for (size_t p = 0; p < args.size(); ++p) {
      SCOPED_TRACE("parameter " + std::to_string(p) + " " + args[p].Describe());
      if (!IsOutput(e, p)) {
        EXPECT_TRUE(CompareTensors(expected[p], args[p], 0, 0).ok) << "an input was written";
        continue;
      }
      bool written = false;
      for (int64_t i = 0; i < expected[p].numel() && !written; ++i) {
        written = expected[p].GetDouble(i) != 0.0;
      }
      EXPECT_TRUE(written) << "the reference left the output zero";
      Tolerance tol = DefaultTolerance(args[p].dtype());
      TensorComparison cmp = CompareTensors(expected[p], args[p], tol.rtol, tol.atol);
      EXPECT_TRUE(cmp.ok) << cmp.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooInterpreterTest, ::testing::ValuesIn(ZooNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln::ir::zoo
