// Expected rewrites of Analyzer::Simplify, CanProve and CanProveEqual.
#include <gtest/gtest.h>

#include "ir/arith/analyzer.h"
#include "ir/arith/expr_compare.h"
#include "tests/ir/arith/expr_text.h"

namespace kiln::ir::arith {
namespace {

using testing::ToText;

class SimplifyTest : public ::testing::Test {
 protected:
  SimplifyTest() {
    analyzer.Bind(i, Range{0, 128});
    analyzer.Bind(j, Range{0, 8});
    analyzer.Bind(k, Range{0, 16});
    analyzer.Bind(f, Range{0, 1024});
  }

  void Check(const Expr& input, const Expr& expected) {
    Expr out = analyzer.Simplify(input);
    EXPECT_TRUE(ExprDeepEqual(out, expected))
        << ToText(input) << "  ->  " << ToText(out) << "  expected  " << ToText(expected);
  }

  Var x{"x"}, y{"y"}, z{"z"}, i{"i"}, j{"j"}, k{"k"}, f{"f"};
  Var b{"b", DataType::Bool()};
  Analyzer analyzer;
};

TEST_F(SimplifyTest, LinearCombination) {
  Check(x + 0, x);
  Check(x * 1, x);
  Check(x * 0, 0);
  Check(x - x, 0);
  Check(x + x, x * 2);
  Check((x + 1) + 2, x + 3);
  Check(3 + x, x + 3);
  Check(y + x, x + y);
  Check(x * 2 + x * 3, x * 5);
  Check((x + y) - y, x);
  Check(x - (y - x), x * 2 - y);
  Check(1 - x, 1 - x);
  Check(0 - x, x * -1);
  Check((0 - x) + (0 - y), x * -1 - y);
  Check((x + 2) * 3, x * 3 + 6);
  Check(x * 2 * 3, x * 6);
  Check(x + y * 2, y * 2 + x);
  Check(x * 8 + y * 16, y * 16 + x * 8);
  Check((x - 5) + (y + 5), x + y);
  Check(x - 3 + 1, x - 2);
  Check(2 * (x + y) - x - y * 2, x);
}

TEST_F(SimplifyTest, Products) {
  Check((x + y) * (x - y), x * x - y * y);
  Check(x * y - y * x, 0);
  Check(x * y * 2 + y * x, x * y * 3);
  Check((x + 1) * y - x * y, y);
}

TEST_F(SimplifyTest, FloorDivMod) {
  Check(FloorDiv(x, 1), x);
  Check(FloorMod(x, 1), 0);
  Check(FloorDiv(x * 8 + j, 8), x);
  Check(FloorMod(x * 8 + j, 8), j);
  Check(FloorDiv(x * 8 + y, 8), x + FloorDiv(y, 8));
  Check(FloorMod(x * 8 + y, 8), FloorMod(y, 8));
  Check(FloorDiv(FloorDiv(x, 4), 8), FloorDiv(x, 32));
  Check(FloorMod(FloorMod(x, 32), 8), FloorMod(x, 8));
  Check(FloorDiv(x * 4, 8), FloorDiv(x, 2));
  Check(FloorMod(x * 4, 8), FloorMod(x, 2) * 4);
  Check(FloorDiv(x + 9, 8), FloorDiv(x + 1, 8) + 1);
  Check(FloorDiv(i, 128), 0);
  Check(FloorMod(i, 128), i);
  Check(FloorDiv(j + 8, 8), 1);
  Check(FloorDiv(i * 4 + 3, 4), i);
  Check(FloorMod(i * 4 + 3, 4), 3);
  Check(FloorDiv(k, 16), 0);
  Check(FloorDiv(x * 6 + 4, 4), FloorDiv(x * 3, 2) + 1);
  Check(FloorMod(x * 6 + 5, 4), FloorMod(x * 3, 2) * 2 + 1);
  Check(FloorMod(x * 16 + j * 2, 16), j * 2);
  Check(FloorDiv(FloorMod(x, 8), 8), 0);
  Check(FloorDiv(x * 8 + y * 8, 8), x + y);
}

TEST_F(SimplifyTest, SplitAndFuseRecombine) {
  Check(FloorDiv(f, 16) * 16 + FloorMod(f, 16), f);
  Check(x - FloorMod(x, 8), FloorDiv(x, 8) * 8);
  Check(x - FloorDiv(x, 8) * 8, FloorMod(x, 8));
  Check(x * 2 + y - FloorDiv(x * 2 + y, 8) * 8, FloorMod(x * 2 + y, 8));
  Check(Min(FloorDiv(x, 8) * 8, x), FloorDiv(x, 8) * 8);
  Check(x * 2 - FloorDiv(x, 8) * 8 - FloorMod(x, 8), x);
  Check(x - FloorDiv(x, 8) * 8 < 3, FloorMod(x, 8) < 3);
  Check(FloorDiv(FloorMod(f, 64), 8) * 8 + FloorMod(f, 8), FloorMod(f, 64));
  Check(FloorDiv(f, 64) * 64 + FloorDiv(FloorMod(f, 64), 8) * 8 + FloorMod(f, 8), f);
  // split(i, 8) then fuse back: io * 8 + ii with io = floordiv(f, 8), ii = floormod(f, 8)
  Check(FloorDiv(f, 8) * 8 + FloorMod(f, 8) + 1, f + 1);
  Check(FloorDiv(FloorDiv(f, 8) * 8 + FloorMod(f, 8), 32), FloorDiv(f, 32));
  Var n("n");
  Check(FloorDiv(x, n) * n + FloorMod(x, n), x);
  Check(n * FloorDiv(x, n) + FloorMod(x, n) + y, x + y);
  Check(FloorDiv(x, n) * n * 2 + FloorMod(x, n) * 2, x * 2);
}

TEST_F(SimplifyTest, TruncDivModOnNonNegative) {
  Check(Div(i, 4), FloorDiv(i, 4));
  Check(Mod(i, 4), FloorMod(i, 4));
  Check(Div(x, 4), Div(x, 4));
  Check(Div(i * 4 + j, 4), i + FloorDiv(j, 4));
  Check(Mod(i * 4 + 2, 4), 2);
}

TEST_F(SimplifyTest, MinMax) {
  Check(Min(x, x + 1), x);
  Check(Max(x, x + 1), x + 1);
  Check(Min(i, 127), i);
  Check(Min(i, 200), i);
  Check(Max(i, 0), i);
  Check(Max(i, 130), 130);
  Check(Min(3, x), Min(x, 3));
  Check(Min(Min(x, 5), 3), Min(x, 3));
  Check(Max(Max(x, 5), 3), Max(x, 5));
  Check(Min(x, y), Min(x, y));
  Check(Min(x, x), x);
  Check(Max(x * 2, x * 2 - 1), x * 2);
}

TEST_F(SimplifyTest, MinMaxCommonTerms) {
  Check(Min(x + 1, y + 1), Min(x, y) + 1);
  Check(Max(x * 8 + y, x * 8 + z), x * 8 + Max(y, z));
  Check(Min(x * 8 + y, x * 8 + y + 3), x * 8 + y);
}

TEST_F(SimplifyTest, SymbolicRanges) {
  Var n("n"), m("m");
  analyzer.Bind(m, Range{0, n});
  Check(m < n, BoolImm(true));
  Check(m + 1 <= n, BoolImm(true));
  Check(m >= n, BoolImm(false));
  Check(Min(m, n - 1), m);
  Check(Max(m + 1, n), n);
  Check(m < n - 1, m < n - 1);
  // Division by a symbolic extent (n >= 1 here).
  Var q("q");
  analyzer.Bind(n, Range{1, 4096});
  analyzer.Bind(q, Range{0, 64});
  Check(FloorDiv(q * n + m, n), q);
  Check(FloorMod(q * n + m, n), m);
  Check(FloorDiv(q * n + x, n), q + FloorDiv(x, n));
  Check(FloorMod(q * n * 2 + x, n), FloorMod(x, n));
  Check(FloorDiv(m, n), 0);
  Check(Div(q * n + m, n), q);
  Check(FloorDiv(x, y), FloorDiv(x, y));
  EXPECT_TRUE(analyzer.CanProve(m * 16 + k < n * 16));
  EXPECT_FALSE(analyzer.CanProve(m * 16 + k < n * 16 - 1));
  // A range that refers to its own variable is not a fact to recurse on.
  Var r("r");
  analyzer.Bind(r, Range{0, r + 1});
  ConstIntBound b = analyzer.GetConstIntBound(r);
  EXPECT_EQ(b.min_value, 0);
  EXPECT_EQ(b.max_value, ConstIntBound::kPosInf);
}

TEST_F(SimplifyTest, FloorDivComparisons) {
  Check(FloorDiv(x, 8) < 2, x < 16);
  Check(FloorDiv(x, 8) <= 2, x < 24);
  Check(2 < FloorDiv(x, 8), LE(24, x));
  Check(FloorDiv(x, 8) >= 2, LE(16, x));
  Check(FloorDiv(f, 16) < 64, BoolImm(true));
}

TEST_F(SimplifyTest, Comparisons) {
  Check(i < 128, BoolImm(true));
  Check(i < 127, i < 127);
  Check(i >= 0, BoolImm(true));
  Check(i < 0, BoolImm(false));
  Check(x + 1 < y + 1, x < y);
  Check(x * 4 < 8, x < 2);
  Check(x * 4 < 7, x < 2);
  Check(x * 2 == 3, BoolImm(false));
  Check(x + 1 == 4, x == 3);
  Check(EQ(3, x), x == 3);
  Check(x > 5, LT(5, x));
  Check(x >= 5, LE(5, x));
  Check(x <= x, BoolImm(true));
  Check(x + 1 <= x, BoolImm(false));
  Check(j * 16 + k < 128, BoolImm(true));
  Check(NE(x, x + 1), BoolImm(true));
}

TEST_F(SimplifyTest, LogicAndSelect) {
  Check(!(x < y), y <= x);
  Check(!(!b), b);
  Check(BoolImm(true) && (x < y), x < y);
  Check((x < y) || BoolImm(true), BoolImm(true));
  Check(b && !b, BoolImm(false));
  Check(b || !b, BoolImm(true));
  Check(b && b, b);
  Check(Select(i < 128, x, y), x);
  Check(Select(i < 0, x, y), y);
  Check(Select(x < y, x, x), x);
  Check(Select(x < y, x + 0, y * 1), Select(x < y, x, y));
}

TEST_F(SimplifyTest, MergedComparisons) {
  Check((x < 8) && (x < 5), x < 5);
  Check((x < 8) || (x < 5), x < 8);
  Check((x < 5) || (x >= 5), BoolImm(true));
  Check((x < 4) && (x >= 6), BoolImm(false));
  Check((x >= 2) && (x <= 2), x == 2);
  Check((x >= 2) && (x < 8), (LE(2, x)) && (x < 8));
  Check((x + 1 < 9) && (x * 2 < 10), x < 5);
  Check((x < 4) || (x >= 6), (x < 4) || LE(6, x));
  Check((x < y) && (x < 5), (x < y) && (x < 5));
}

TEST_F(SimplifyTest, Constraints) {
  Var n("n");
  analyzer.EnterConstraint((x < 10) && (n <= y));
  Check(x < 20, BoolImm(true));
  Check(x >= 10, BoolImm(false));
  Check(x < 5, x < 5);
  Check(n <= y, BoolImm(true));
  Check(y < n, BoolImm(false));
  analyzer.EnterConstraint(b);
  Check(b && (x < 12), BoolImm(true));
  analyzer.ExitConstraint();
  Check(b, b);
  analyzer.ExitConstraint();
  Check(x < 20, x < 20);
  EXPECT_THROW(analyzer.ExitConstraint(), Error);
  // Inside a constraint, min/max decided by it; Select branches assume their condition.
  analyzer.EnterConstraint(x < n);
  Check(Min(x, n - 1), x);
  Check(Max(x + 1, n), n);
  analyzer.ExitConstraint();
  Check(Select(x < n, Min(x, n - 1), 0), Select(x < n, x, 0));
  Check(Select(x < 10, Select(x < 20, y, z), Select(10 <= x, z, y)), Select(x < 10, y, z));
  Check(Select(x < n, Min(x, n - 1), 0), Select(x < n, x, 0));
}

TEST_F(SimplifyTest, CastsAndLets) {
  Check(Cast(DataType::Int(64), 3), IntImm(DataType::Int(64), 3));
  Check(Cast(DataType::Int(32), x), x);
  Check(Cast(DataType::Float(32), 2), FloatImm(DataType::Float(32), 2.0));
  Var v("v");
  Check(Let(v, x + 1, v * 2), x * 2 + 2);
}

TEST_F(SimplifyTest, Int64Expressions) {
  Var a("a", DataType::Int(64)), c("c", DataType::Int(64));
  Check(a + c - a, c);
  Check(FloorDiv(a * 8 + 3, 8), a);  // 3 < 8: the remainder never carries
  Check(a * 2 + a, a * 3);
}

TEST_F(SimplifyTest, BoundValueIsSubstituted) {
  Var v("v");
  analyzer.Bind(v, x * 2);
  Check(v + x, x * 3);
  Var w("w");
  analyzer.Bind(w, FloorDiv(f, 16));
  Check(w * 16 + FloorMod(f, 16), f);
}

TEST_F(SimplifyTest, EqualExpressionsComeOutEqual) {
  Expr a = analyzer.Simplify(x * 3 + y - z + 2 * x);
  Expr c = analyzer.Simplify(y + x * 5 - z);
  EXPECT_TRUE(ExprDeepEqual(a, c)) << ToText(a) << " vs " << ToText(c);
  Expr once = analyzer.Simplify(FloorDiv(x * 6 + y + 9, 4) - Min(x, y));
  EXPECT_TRUE(ExprDeepEqual(analyzer.Simplify(once), once)) << ToText(once);
}

TEST_F(SimplifyTest, NonIntegerExpressionsFoldOnly) {
  Var p("p", DataType::Float(32));
  Expr one = FloatImm(DataType::Float(32), 1.0);
  Check(p * one, p);
  Check(p + p, p + p);
  Check(FloatImm(DataType::Float(32), 1.5) + one, FloatImm(DataType::Float(32), 2.5));
}

TEST_F(SimplifyTest, VectorsCallsAndLoadsAreWalked) {
  Var p("p", DataType::Float(32));
  Expr one = FloatImm(DataType::Float(32), 1.0);
  Check(Call(DataType::Float(32), "exp", {p * one}), Call(DataType::Float(32), "exp", {p}));
  Check(Ramp(i * 1, 1, 4), Ramp(i, 1, 4));
  Buffer buf = DeclBuffer("A", DataType::Float(32), {512});
  Check(BufferLoad(buf, {Ramp(FloorDiv(i * 4 + 3, 4) * 4, 1, 4)}),
        BufferLoad(buf, {Ramp(i * 4, 1, 4)}));
  Check(Broadcast(x + 0, 4) + Broadcast(1, 4), Broadcast(x, 4) + Broadcast(1, 4));
  Check(BufferLoad(buf, {x - x}), BufferLoad(buf, {0}));
  Check(StringImm("s"), StringImm("s"));
}

TEST_F(SimplifyTest, CanProve) {
  EXPECT_TRUE(analyzer.CanProve(i < 128));
  EXPECT_TRUE(analyzer.CanProve(i * 8 + j < 1024));
  EXPECT_FALSE(analyzer.CanProve(i * 8 + j < 1023));
  EXPECT_TRUE(analyzer.CanProve((i >= 0) && (j < 8)));
  EXPECT_TRUE(analyzer.CanProve((x < 0) || (i < 200)));
  EXPECT_FALSE(analyzer.CanProve(x < y));
  EXPECT_TRUE(analyzer.CanProve(FloorMod(x, 8) < 8));
  EXPECT_TRUE(analyzer.CanProveEqual(FloorDiv(f, 16) * 16 + FloorMod(f, 16), f));
  EXPECT_TRUE(analyzer.CanProveEqual((x + y) * 2, x * 2 + y * 2));
  EXPECT_FALSE(analyzer.CanProveEqual(x, y));
}

}  // namespace
}  // namespace kiln::ir::arith
