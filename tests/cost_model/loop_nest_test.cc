// Loop nests and access footprints: intervals of index arithmetic, distinct elements touched
// while inner loops vary, and the stride of one loop step.
#include "cost_model/features/loop_nest.h"

#include <gtest/gtest.h>

namespace kiln::cost_model {
namespace {

using namespace ir;

// Loops i (extent 4), j (extent 16), k (extent 8), outermost first.
class LoopNestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto [var, extent] : {std::pair{i, 4}, std::pair{j, 16}, std::pair{k, 8}}) {
      loops.push_back(For(var, 0, extent, ForKind::kSerial, Evaluate(0)));
      nest.Push(loops.back().as<ForNode>());
    }
  }
  Var i{"i"}, j{"j"}, k{"k"};
  std::vector<Stmt> loops;
  LoopNest nest;
};

TEST_F(LoopNestTest, ExtentsAndPositions) {
  EXPECT_EQ(nest.size(), 3u);
  EXPECT_EQ(nest.IndexOf(j.get()), 1);
  EXPECT_EQ(nest.IndexOf(Var("other").get()), -1);
  EXPECT_DOUBLE_EQ(nest.ExtentProduct(), 4.0 * 16 * 8);
  EXPECT_DOUBLE_EQ(nest.ExtentProduct(1), 16.0 * 8);
  nest.Pop();
  EXPECT_EQ(nest.IndexOf(k.get()), -1);
}

TEST_F(LoopNestTest, IntervalsOfIndexArithmetic) {
  std::vector<int64_t> all = {4, 16, 8};
  Interval affine = EvalInterval(i * 16 + j, nest, all);
  EXPECT_EQ(affine.lo, 0);
  EXPECT_EQ(affine.hi, 63);
  // Only k varies: i and j held at 0.
  Interval inner = EvalInterval(i * 16 + k * 2 + 1, nest, {1, 1, 8});
  EXPECT_EQ(inner.lo, 1);
  EXPECT_EQ(inner.hi, 15);
  Interval div = EvalInterval(FloorDiv(j, 4), nest, all);
  EXPECT_EQ(div.lo, 0);
  EXPECT_EQ(div.hi, 3);
  Interval mod = EvalInterval(FloorMod(j, 4), nest, all);
  EXPECT_EQ(mod.lo, 0);
  EXPECT_EQ(mod.hi, 3);
  Interval sub = EvalInterval(j - k, nest, all);
  EXPECT_EQ(sub.lo, -7);
  EXPECT_EQ(sub.hi, 15);
}

TEST_F(LoopNestTest, TouchedElementsPerLevel) {
  Buffer a = DeclBuffer("A", DataType::Float(32),
                        {IntImm(DataType::Int(32), 4), IntImm(DataType::Int(32), 8)});
  std::vector<Expr> idx = {i, k};  // A[i, k]: j does not move it
  std::vector<const std::vector<Expr>*> accesses = {&idx};
  EXPECT_DOUBLE_EQ(TouchedElements(accesses, a, nest, 0), 32);  // all of A
  EXPECT_DOUBLE_EQ(TouchedElements(accesses, a, nest, 1), 8);   // a row
  EXPECT_DOUBLE_EQ(TouchedElements(accesses, a, nest, 2), 8);
  EXPECT_DOUBLE_EQ(TouchedElements(accesses, a, nest, 3), 1);
  // An index read from memory spans the whole dimension.
  Buffer ind = DeclBuffer("ind", DataType::Int(32), {IntImm(DataType::Int(32), 8)});
  std::vector<Expr> gather = {BufferLoad(ind, {k}), k};
  EXPECT_DOUBLE_EQ(TouchedElements({&gather}, a, nest, 2), 4 * 8);
}

TEST_F(LoopNestTest, StrideOfOneLoopStep) {
  Buffer b = DeclBuffer("B", DataType::Float(32),
                        {IntImm(DataType::Int(32), 8), IntImm(DataType::Int(32), 16)});
  std::vector<Expr> idx = {k, j};                // B[k, j]
  EXPECT_EQ(AccessStride(idx, b, nest, 2), 16);  // k walks rows
  EXPECT_EQ(AccessStride(idx, b, nest, 1), 1);   // j walks columns
  EXPECT_EQ(AccessStride(idx, b, nest, 0), 0);   // i does not move it
}

}  // namespace
}  // namespace kiln::cost_model
