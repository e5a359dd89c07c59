// ConstantFold: every operator on immediates, with the dtype's semantics.
#include "ir/arith/const_fold.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/arith/analyzer.h"
#include "ir/arith/expr_compare.h"
#include "tests/ir/arith/expr_text.h"

namespace kiln::ir::arith {
namespace {

using testing::ToText;

const DataType kI8 = DataType::Int(8);
const DataType kI32 = DataType::Int(32);
const DataType kI64 = DataType::Int(64);
const DataType kU8 = DataType::UInt(8);
const DataType kF16 = DataType::Float(16);
const DataType kF32 = DataType::Float(32);
const DataType kF64 = DataType::Float(64);

void ExpectFold(const Expr& input, const Expr& expected) {
  Expr out = ConstantFold(input);
  EXPECT_TRUE(ExprDeepEqual(out, expected))
      << ToText(input) << "  ->  " << ToText(out) << "  expected  " << ToText(expected);
}

Expr I(DataType t, int64_t v) { return IntImm(t, v); }
Expr F(DataType t, double v) { return FloatImm(t, v); }

TEST(ConstFoldTest, IntegerArithmetic) {
  ExpectFold(Add(3, 4), 7);
  ExpectFold(Sub(3, 4), -1);
  ExpectFold(Mul(6, 7), 42);
  ExpectFold(Min(6, 7), 6);
  ExpectFold(Max(6, 7), 7);
  ExpectFold(Add(Mul(2, 3), Sub(10, 4)), 12);
}

TEST(ConstFoldTest, DivisionKinds) {
  ExpectFold(Div(7, 2), 3);
  ExpectFold(Div(-7, 2), -3);
  ExpectFold(Mod(-7, 2), -1);
  ExpectFold(FloorDiv(-7, 2), -4);
  ExpectFold(FloorMod(-7, 2), 1);
  ExpectFold(FloorDiv(7, -2), -4);
  ExpectFold(FloorMod(7, -2), -1);
  ExpectFold(Mod(7, -2), 1);
  // Division by zero is left for the target to report.
  Expr by_zero = FloorDiv(7, 0);
  EXPECT_TRUE(ExprDeepEqual(ConstantFold(by_zero), by_zero));
}

TEST(ConstFoldTest, WrapsToWidth) {
  ExpectFold(Add(I(kI8, 127), I(kI8, 1)), I(kI8, -128));
  ExpectFold(Mul(I(kI8, 16), I(kI8, 16)), I(kI8, 0));
  ExpectFold(Sub(I(kU8, 0), I(kU8, 1)), I(kU8, 255));
  ExpectFold(Add(I(kI32, 2147483647), I(kI32, 1)), I(kI32, -2147483648LL));
  ExpectFold(Mul(I(kI64, int64_t{1} << 62), I(kI64, 4)), I(kI64, 0));
  ExpectFold(Div(I(kI64, INT64_MIN), I(kI64, -1)), I(kI64, INT64_MIN));
  // Unsigned comparison and division see 255, not -1.
  ExpectFold(LT(I(kU8, 1), I(kU8, 255)), BoolImm(true));
  ExpectFold(Div(I(kU8, 255), I(kU8, 2)), I(kU8, 127));
}

TEST(ConstFoldTest, FloatsRoundInTheirDtype) {
  ExpectFold(Add(F(kF32, 1.5), F(kF32, 2.25)), F(kF32, 3.75));
  ExpectFold(Div(F(kF64, 1.0), F(kF64, 3.0)), F(kF64, 1.0 / 3.0));
  ExpectFold(Div(F(kF32, 1.0), F(kF32, 3.0)), F(kF32, static_cast<float>(1.0 / 3.0)));
  // float16 has 11 significant bits: 2049 rounds to even 2048.
  ExpectFold(Add(F(kF16, 2048), F(kF16, 1)), F(kF16, 2048));
  ExpectFold(FloorDiv(F(kF32, -7), F(kF32, 2)), F(kF32, -4));
  ExpectFold(Min(F(kF32, -1), F(kF32, 2)), F(kF32, -1));
  ExpectFold(LT(F(kF32, 1), F(kF32, 2)), BoolImm(true));
  ExpectFold(EQ(F(kF32, 1), F(kF32, 2)), BoolImm(false));
}

TEST(ConstFoldTest, ComparisonsAndLogic) {
  ExpectFold(LT(3, 4), BoolImm(true));
  ExpectFold(LE(4, 4), BoolImm(true));
  ExpectFold(GT(3, 4), BoolImm(false));
  ExpectFold(GE(3, 4), BoolImm(false));
  ExpectFold(EQ(3, 3), BoolImm(true));
  ExpectFold(NE(3, 3), BoolImm(false));
  ExpectFold(And(BoolImm(true), BoolImm(false)), BoolImm(false));
  ExpectFold(Or(BoolImm(true), BoolImm(false)), BoolImm(true));
  ExpectFold(Not(BoolImm(true)), BoolImm(false));
  ExpectFold(Not(LT(3, 4)), BoolImm(false));
}

TEST(ConstFoldTest, SelectAndCast) {
  Var x("x"), y("y");
  ExpectFold(Select(LT(1, 2), x, y), x);
  ExpectFold(Select(BoolImm(false), x, y), y);
  ExpectFold(Cast(kI8, 300), I(kI8, 44));
  ExpectFold(Cast(kF32, 3), F(kF32, 3));
  ExpectFold(Cast(kI32, F(kF32, -2.75)), -2);
  ExpectFold(Cast(DataType::Bool(), 5), BoolImm(true));
  ExpectFold(Cast(kI32, BoolImm(true)), 1);
  ExpectFold(Cast(kF16, F(kF32, 65520)), F(kF16, INFINITY));
  ExpectFold(Cast(kI32, x), x);
}

TEST(ConstFoldTest, Identities) {
  Var x("x"), y("y");
  Var p("p", kF32);
  Var c("c", DataType::Bool());
  ExpectFold(x + 0, x);
  ExpectFold(0 + x, x);
  ExpectFold(x - 0, x);
  ExpectFold(x * 1, x);
  ExpectFold(1 * x, x);
  ExpectFold(x * 0, 0);
  ExpectFold(FloorDiv(x, 1), x);
  ExpectFold(FloorMod(x, 1), 0);
  ExpectFold(p * F(kF32, 1), p);
  ExpectFold(c && BoolImm(true), c);
  ExpectFold(c || BoolImm(true), BoolImm(true));
  ExpectFold(c && BoolImm(false), BoolImm(false));
  // No algebra: x - x and x + y stay.
  Expr diff = x - x;
  EXPECT_TRUE(ExprDeepEqual(ConstantFold(diff), diff));
  ExpectFold((x + (2 + 3)) * (y * 1), (x + 5) * y);
}

TEST(ConstFoldTest, UnchangedTreesAreShared) {
  Var x("x");
  Expr e = (x + 1) * x;
  EXPECT_TRUE(ConstantFold(e).same_as(e));
}

}  // namespace
}  // namespace kiln::ir::arith
