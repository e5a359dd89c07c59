// ExprDeepEqual (identity of Vars and Buffers) and ExprOrder (the sort order of canonical sums).
#include "ir/arith/expr_compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/stmt.h"

namespace kiln::ir::arith {
namespace {

TEST(ExprCompareTest, DeepEqualComparesVarsByIdentity) {
  Var x("x"), x2("x"), y("y");
  EXPECT_TRUE(ExprDeepEqual(x + 1, x + 1));
  EXPECT_FALSE(ExprDeepEqual(x + 1, x2 + 1));  // same name, another variable
  EXPECT_FALSE(ExprDeepEqual(x + 1, x + 2));
  EXPECT_FALSE(ExprDeepEqual(x + 1, x - 1));
  EXPECT_FALSE(ExprDeepEqual(IntImm(DataType::Int(32), 1), IntImm(DataType::Int(64), 1)));
  Buffer a = DeclBuffer("A", DataType::Float(32), {8});
  Buffer a2 = DeclBuffer("A", DataType::Float(32), {8});
  EXPECT_TRUE(ExprDeepEqual(BufferLoad(a, {x}), BufferLoad(a, {x})));
  EXPECT_FALSE(ExprDeepEqual(BufferLoad(a, {x}), BufferLoad(a2, {x})));
  Expr nan = FloatImm(DataType::Float(32), NAN);
  EXPECT_TRUE(ExprDeepEqual(nan, FloatImm(DataType::Float(32), NAN)));
  EXPECT_FALSE(
      ExprDeepEqual(FloatImm(DataType::Float(32), 0.0), FloatImm(DataType::Float(32), -0.0)));
  EXPECT_TRUE(ExprDeepEqual(Expr(), Expr()));
  EXPECT_FALSE(ExprDeepEqual(x, Expr()));
}

TEST(ExprCompareTest, OrderIsByNameThenStructure) {
  Var a("a"), b("b"), a2("a");
  EXPECT_LT(ExprOrder(a, b), 0);
  EXPECT_GT(ExprOrder(b, a), 0);
  EXPECT_EQ(ExprOrder(a, a2), 0);  // callers break this tie by position
  EXPECT_LT(ExprOrder(a * b, b * b), 0);
  EXPECT_LT(ExprOrder(FloorDiv(a, 4), FloorDiv(a, 8)), 0);
  EXPECT_NE(ExprOrder(a, FloorDiv(a, 4)), 0);
  EXPECT_EQ(ExprOrder(a + 1, a + 1), 0);
}

TEST(ExprCompareTest, UsesVar) {
  Var x("x"), y("y"), v("v");
  EXPECT_TRUE(UsesVar(FloorDiv(x * 2 + y, 4), y.get()));
  EXPECT_FALSE(UsesVar(x * 2, y.get()));
  EXPECT_TRUE(UsesVar(Let(v, x, v + 1), v.get()));
}

}  // namespace
}  // namespace kiln::ir::arith
