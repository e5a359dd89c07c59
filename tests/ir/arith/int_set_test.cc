// EvalSet and Union: symbolic intervals of expressions over relaxed variables.
#include "ir/arith/int_set.h"

#include <gtest/gtest.h>

#include "ir/arith/expr_compare.h"
#include "ir/stmt.h"
#include "tests/ir/arith/expr_text.h"

namespace kiln::ir::arith {
namespace {

using testing::ToText;

class IntSetTest : public ::testing::Test {
 protected:
  IntSetTest() {
    dom[k.get()] = IntervalSet::FromRange(Range{0, 16});  // [0, 15]
    dom[r.get()] = IntervalSet::FromRange(Range{0, 3});   // [0, 2]
    dom[s.get()] = IntervalSet::FromRange(Range{-2, 5});  // [-2, 2]
  }

  void Expect(const Expr& e, const Expr& lo, const Expr& hi) {
    IntervalSet set = EvalSet(e, dom, analyzer);
    EXPECT_TRUE(ExprDeepEqual(set.min, lo))
        << ToText(e) << ": min " << ToText(set.min) << " expected " << ToText(lo);
    EXPECT_TRUE(ExprDeepEqual(set.max, hi))
        << ToText(e) << ": max " << ToText(set.max) << " expected " << ToText(hi);
  }

  Var i{"i"}, k{"k"}, r{"r"}, s{"s"};
  VarIntervals dom;
  Analyzer analyzer;
};

TEST_F(IntSetTest, Affine) {
  Expect(k, 0, 15);
  Expect(i, i, i);
  Expect(i * 16 + k, i * 16, i * 16 + 15);
  Expect(i - k, i - 15, i);
  Expect(k * -2 + 1, -29, 1);
  Expect(i * 2 + r, i * 2, i * 2 + 2);
  Expect(k + r, 0, 17);
  Expect(k - k, 0, 0);  // the same variable on both sides cancels before relaxing
}

TEST_F(IntSetTest, DivisionAndModulo) {
  Expect(FloorDiv(k, 4), 0, 3);
  Expect(FloorDiv(i * 16 + k, 16), i, i);
  Expect(FloorMod(k, 4), 0, 3);
  Expect(FloorMod(i * 16 + k, 16), 0, 15);
  Expect(FloorMod(k, 32), 0, 15);
  Expect(FloorMod(i * 32 + k, 32), 0, 15);
  Expect(FloorDiv(s, 2), -1, 1);
  Expect(Div(k, 4), 0, 3);
}

TEST_F(IntSetTest, VectorsCoverTheirLanes) {
  Expect(Ramp(i * 8, 2, 4), i * 8, i * 8 + 6);
  Expect(Ramp(k, 1, 4), 0, 18);
  Expect(Ramp(i, -1, 4), i - 3, i);
  Expect(Broadcast(i, 4) + Ramp(0, 1, 4), i, i + 3);
  Expect(FloorMod(Ramp(k, 1, 4), Broadcast(Expr(8), 4)), 0, 7);
  Expect(Cast(DataType::Int(64, 4), Ramp(i, 1, 4)), Cast(DataType::Int(64), i),
         Cast(DataType::Int(64), i + 3));
}

TEST_F(IntSetTest, MinMaxAndUnbounded) {
  Expect(Min(k, 8), 0, 8);
  Expect(Max(k, i), Max(i, 0), Max(i, 15));
  Var a("a");
  Buffer buf = DeclBuffer("A", DataType::Int(32), {16});
  Expect(BufferLoad(buf, {a}), BufferLoad(buf, {a}), BufferLoad(buf, {a}));
  IntervalSet load = EvalSet(BufferLoad(buf, {k}), dom, analyzer);
  EXPECT_FALSE(load.min.defined());
  EXPECT_FALSE(load.max.defined());
  IntervalSet prod = EvalSet(k * s, dom, analyzer);
  EXPECT_FALSE(prod.min.defined());
  IntervalSet sum = EvalSet(BufferLoad(buf, {k}) + 1, dom, analyzer);
  EXPECT_FALSE(sum.max.defined());
}

TEST_F(IntSetTest, UnionAndRanges) {
  IntervalSet a = IntervalSet::SinglePoint(i);
  IntervalSet b = IntervalSet::SinglePoint(i + 1);
  IntervalSet u = Union(a, b, analyzer);
  EXPECT_TRUE(ExprDeepEqual(u.min, i)) << ToText(u.min);
  EXPECT_TRUE(ExprDeepEqual(u.max, i + 1)) << ToText(u.max);
  Range range = u.ToRange();
  EXPECT_TRUE(ExprDeepEqual(range.extent, 2)) << ToText(range.extent);
  EXPECT_TRUE(a.is_single_point());
  EXPECT_TRUE(IsConstInt(a.ToRange().extent, 1));
  IntervalSet fr = IntervalSet::FromRange(Range{i, 8});
  EXPECT_TRUE(ExprDeepEqual(fr.max, i + 7)) << ToText(fr.max);
  IntervalSet open = Union(a, IntervalSet{}, analyzer);
  EXPECT_FALSE(open.min.defined());
  EXPECT_THROW(open.ToRange(), Error);
}

}  // namespace
}  // namespace kiln::ir::arith
