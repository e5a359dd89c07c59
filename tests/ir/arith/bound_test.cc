// Analyzer::GetConstIntBound: interval arithmetic over bound variables.
#include <gtest/gtest.h>

#include "ir/arith/analyzer.h"

namespace kiln::ir::arith {
namespace {

constexpr int64_t kNegInf = ConstIntBound::kNegInf;
constexpr int64_t kPosInf = ConstIntBound::kPosInf;

void ExpectBound(Analyzer& a, const Expr& e, int64_t lo, int64_t hi) {
  ConstIntBound b = a.GetConstIntBound(e);
  EXPECT_EQ(b.min_value, lo);
  EXPECT_EQ(b.max_value, hi);
}

class BoundTest : public ::testing::Test {
 protected:
  BoundTest() {
    analyzer.Bind(i, Range{0, 128});
    analyzer.Bind(j, Range{0, 8});
    analyzer.Bind(s, Range{-4, 9});  // [-4, 4]
  }
  Var i{"i"}, j{"j"}, s{"s"}, x{"x"};
  Analyzer analyzer;
};

TEST_F(BoundTest, Arithmetic) {
  ExpectBound(analyzer, i, 0, 127);
  ExpectBound(analyzer, i * 8 + j, 0, 1023);
  ExpectBound(analyzer, i - j, -7, 127);
  ExpectBound(analyzer, s * -3, -12, 12);
  ExpectBound(analyzer, s * s, -16, 16);
  ExpectBound(analyzer, IntImm(DataType::Int(32), 5), 5, 5);
}

TEST_F(BoundTest, DivisionAndModulo) {
  ExpectBound(analyzer, FloorDiv(i, 8), 0, 15);
  ExpectBound(analyzer, FloorDiv(s, 2), -2, 2);
  ExpectBound(analyzer, Div(s, 3), -1, 1);
  ExpectBound(analyzer, FloorMod(i, 8), 0, 7);
  ExpectBound(analyzer, FloorMod(j, 16), 0, 7);
  ExpectBound(analyzer, FloorMod(s, 16), 0, 15);
  ExpectBound(analyzer, Mod(s, 3), -2, 2);
  ExpectBound(analyzer, FloorMod(x, 8), 0, 7);
  ExpectBound(analyzer, FloorDiv(x, 8), kNegInf, kPosInf);
  ExpectBound(analyzer, FloorMod(i + 8, 8), 0, 7);
}

TEST_F(BoundTest, MinMaxSelectCast) {
  ExpectBound(analyzer, Min(i, 100), 0, 100);
  ExpectBound(analyzer, Max(s, j), 0, 7);
  ExpectBound(analyzer, Select(x < 3, i, s), -4, 127);
  ExpectBound(analyzer, Cast(DataType::Int(64), i), 0, 127);
  ExpectBound(analyzer, Cast(DataType::Int(8), i * 4), -128, 127);
  ExpectBound(analyzer, Cast(DataType::UInt(8), x), 0, 255);
  ExpectBound(analyzer, i < 3, 0, 1);
}

TEST_F(BoundTest, UnboundVarsSaturate) {
  ExpectBound(analyzer, x, kNegInf, kPosInf);
  ExpectBound(analyzer, x + 1, kNegInf, kPosInf);
  ExpectBound(analyzer, Min(x, 5), kNegInf, 5);
  ExpectBound(analyzer, Max(x, i), 0, kPosInf);
  ExpectBound(analyzer, x * 0, 0, 0);
  Var big("big", DataType::Int(64));
  analyzer.Bind(big,
                Range{IntImm(DataType::Int(64), 0), IntImm(DataType::Int(64), int64_t{1} << 62)});
  ExpectBound(analyzer, big * 8, 0, kPosInf);
}

TEST_F(BoundTest, SymbolicRangesAndValues) {
  Var n("n"), k("k"), v("v");
  analyzer.Bind(n, Range{1, 16});  // [1, 16]
  analyzer.Bind(k, Range{0, n});   // [0, n)
  ExpectBound(analyzer, k, 0, 15);
  analyzer.Bind(v, i * 2 + 1);
  ExpectBound(analyzer, v, 1, 255);
  // Simplification first: x - x is 0 even though x is unbounded.
  ExpectBound(analyzer, x - x, 0, 0);
  Var l("l");
  ExpectBound(analyzer, Let(l, j + 1, l * l), 1, 64);
}

}  // namespace
}  // namespace kiln::ir::arith
