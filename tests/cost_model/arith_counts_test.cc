// Arithmetic counts by kind: multiply-add fusion, compares, math and other functions,
// selects and boolean operations, integer index arithmetic, vector lanes.
#include "cost_model/features/arith_counts.h"

#include <gtest/gtest.h>

namespace kiln::cost_model {
namespace {

using namespace ir;

ArithCounts Count(const Buffer& out, const Expr& value, std::vector<Expr> indices) {
  Stmt store = BufferStore(out, value, std::move(indices));
  return CountArith(store.as<BufferStoreNode>());
}

class ArithCountsTest : public ::testing::Test {
 protected:
  Buffer a = DeclBuffer("A", DataType::Float(32), {IntImm(DataType::Int(32), 64)});
  Buffer c = DeclBuffer("C", DataType::Float(32), {IntImm(DataType::Int(32), 64)});
  Var i{"i"};
  Expr Load(const Expr& index) { return BufferLoad(a, {index}); }
};

TEST_F(ArithCountsTest, MultiplyAddIsOneMad) {
  ArithCounts n = Count(c, BufferLoad(c, {i}) + Load(i) * Load(i + 1), {i});
  EXPECT_EQ(n[ArithKind::kFloatMad], 1);
  EXPECT_EQ(n[ArithKind::kFloatMul], 0);
  EXPECT_EQ(n[ArithKind::kFloatAddSub], 0);
  EXPECT_EQ(n[ArithKind::kIntAddSub], 1);  // i + 1
  EXPECT_EQ(n.FloatOps(), 2);
}

TEST_F(ArithCountsTest, KindsOfFloatOperations) {
  Expr one = FloatImm(DataType::Float(32), 1);
  Expr v = Call(DataType::Float(32), "exp", {Load(i)}) / (Load(i) - one) +
           Call(DataType::Float(32), "fabs", {Max(Load(i), one)});
  ArithCounts n = Count(c, v, {i});
  EXPECT_EQ(n[ArithKind::kFloatMathFunc], 1);
  EXPECT_EQ(n[ArithKind::kFloatOtherFunc], 1);
  EXPECT_EQ(n[ArithKind::kFloatDivMod], 1);
  EXPECT_EQ(n[ArithKind::kFloatCmp], 1);
  EXPECT_EQ(n[ArithKind::kFloatAddSub], 2);
}

TEST_F(ArithCountsTest, SelectsBooleansAndIntegerIndices) {
  Expr zero = FloatImm(DataType::Float(32), 0);
  Expr cond = (i < 32) && !(i == 3);
  ArithCounts n = Count(c, Select(cond, Load(FloorDiv(i, 2)), zero), {FloorMod(i * 4, 64)});
  EXPECT_EQ(n[ArithKind::kSelectOp], 1);
  EXPECT_EQ(n[ArithKind::kBoolOp], 2);
  EXPECT_EQ(n[ArithKind::kIntCmp], 2);
  EXPECT_EQ(n[ArithKind::kIntDivMod], 2);
  EXPECT_EQ(n[ArithKind::kIntMul], 1);
  EXPECT_EQ(n.FloatOps(), 0);
}

TEST_F(ArithCountsTest, VectorLanesCount) {
  Expr v = BufferLoad(a, {Ramp(i, 1, 8)}) * Broadcast(FloatImm(DataType::Float(32), 2), 8);
  ArithCounts n = Count(c, v, {Ramp(i, 1, 8)});
  EXPECT_EQ(n[ArithKind::kFloatMul], 8);
}

}  // namespace
}  // namespace kiln::cost_model
