// Seeded random arguments and the reference run on them.
#include "ir/interpreter/random_inputs.h"

#include <gtest/gtest.h>

#include "tests/ir/interpreter/ir_builders.h"

namespace kiln::ir::testing {
namespace {

// B[i] = A[i] * scale + A[i] over A of shape [n, 2] seen as [n * 2]; scale is a scalar
// parameter.
PrimFunc ScaledCopy() {
  Var n("n"), scale("scale", kF32), i("i");
  Buffer a2 = DeclBuffer("A2", kF32, {n, 2});
  auto flat = std::make_shared<BufferNode>(*a2.get());  // same data: a view
  flat->name = "A";
  flat->shape = {n * 2};
  Buffer a(flat);
  Buffer b = DeclBuffer("B", kF32, {n * 2});
  Stmt body = Loop(i, n * 2, BufferStore(b, BufferLoad(a, {i}) * scale + BufferLoad(a, {i}), {i}));
  return MakeFunc("scaled_copy", {a2, b}, DeclBufferStmt(a, body), {}, {scale});
}

TEST(RandomInputsTest, ShapesComeFromDimsAndResultsFromTheInterpreter) {
  PrimFunc f = ScaledCopy();
  std::vector<HostTensor> out = RunWithRandomInputs(f, {{"n", 5}, {"scale", 3}}, 42);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{5, 2}));
  for (int64_t e = 0; e < 10; ++e) {
    float a = static_cast<float>(out[0].GetDouble(e));
    EXPECT_EQ(out[1].GetDouble(e), a * 3.0f + a);
  }
}

TEST(RandomInputsTest, SameSeedSameInputsOtherSeedOthers) {
  PrimFunc f = ScaledCopy();
  auto first = MakeRandomArguments(f, {{"n", 4}, {"scale", 1}}, 7);
  auto again = MakeRandomArguments(f, {{"n", 4}, {"scale", 1}}, 7);
  auto other = MakeRandomArguments(f, {{"n", 4}, {"scale", 1}}, 8);
  ASSERT_EQ(first.size(), 3u);
  const auto& a1 = std::get<HostTensor>(first[0]);
  const auto& b1 = std::get<HostTensor>(first[1]);
  EXPECT_TRUE(CompareTensors(a1, std::get<HostTensor>(again[0]), 0, 0).ok);
  EXPECT_FALSE(CompareTensors(a1, std::get<HostTensor>(other[0]), 0, 0).ok);
  EXPECT_FALSE(CompareTensors(a1, b1, 0, 0).ok);  // parameters draw different values
  EXPECT_EQ(std::get<double>(first[2]), 1.0);
}

TEST(RandomInputsTest, MissingDimIsAnErrorNamingIt) {
  try {
    RunWithRandomInputs(ScaledCopy(), {{"scale", 1}}, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(std::string(e.what()).find("parameter A2: no value given for the symbolic "
                                         "dimension n"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::testing
