// MergeComparisons: comparisons read as intervals of one expression, intersected or joined.
#include "ir/arith/compare_merge.h"

#include <algorithm>
#include <optional>

#include "ir/arith/analyzer.h"
#include "ir/arith/const_fold.h"
#include "ir/arith/expr_compare.h"

namespace kiln::ir::arith {
namespace {

constexpr int64_t kNegInf = ConstIntBound::kNegInf;
constexpr int64_t kPosInf = ConstIntBound::kPosInf;

// lo <= x <= hi, with kNegInf/kPosInf for an open side.
struct Interval {
  Expr x;
  int64_t lo, hi;
};

std::optional<Interval> Read(const Expr& e) {
  Expr a, b;
  if (!IsCompareKind(e.kind()) || !GetBinaryOperands(e, &a, &b)) return std::nullopt;
  if (!a.dtype().is_int() || !a.dtype().is_scalar()) return std::nullopt;
  auto ca = AsConstInt(a), cb = AsConstInt(b);
  if (ca.has_value() == cb.has_value()) return std::nullopt;
  const int64_t c = ca ? *ca : *cb;
  // Keep clear of the ends so that c +- 1 stays finite.
  if (c <= kNegInf + 2 || c >= kPosInf - 2) return std::nullopt;
  const Expr& x = ca ? b : a;
  switch (e.kind()) {
    case NodeKind::kLT:
      return cb ? Interval{x, kNegInf, c - 1} : Interval{x, c + 1, kPosInf};
    case NodeKind::kLE:
      return cb ? Interval{x, kNegInf, c} : Interval{x, c, kPosInf};
    case NodeKind::kGT:
      return cb ? Interval{x, c + 1, kPosInf} : Interval{x, kNegInf, c - 1};
    case NodeKind::kGE:
      return cb ? Interval{x, c, kPosInf} : Interval{x, kNegInf, c};
    case NodeKind::kEQ:
      return Interval{x, c, c};
    default:
      return std::nullopt;
  }
}

Expr Build(const Interval& s) {
  DataType t = s.x.dtype();
  if (s.lo > s.hi) return BoolImm(false);
  if (s.lo == kNegInf && s.hi == kPosInf) return BoolImm(true);
  if (s.lo == s.hi) return EQ(s.x, MakeIntConst(t, s.lo));
  Expr upper = s.hi == kPosInf ? Expr() : LT(s.x, MakeIntConst(t, s.hi + 1));
  Expr lower = s.lo == kNegInf ? Expr() : LE(MakeIntConst(t, s.lo), s.x);
  if (!upper.defined()) return lower;
  if (!lower.defined()) return upper;
  return And(lower, upper);
}

}  // namespace

Expr MergeComparisons(NodeKind kind, const Expr& a, const Expr& b) {
  auto sa = Read(a), sb = Read(b);
  if (!sa || !sb || !ExprDeepEqual(sa->x, sb->x)) return Expr();
  auto same = [](const Interval& p, const Interval& q) { return p.lo == q.lo && p.hi == q.hi; };
  Interval merged{sa->x, 0, 0};
  if (kind == NodeKind::kAnd) {
    merged.lo = std::max(sa->lo, sb->lo);
    merged.hi = std::min(sa->hi, sb->hi);
  } else {
    // The union is one interval only when the two overlap or touch.
    const bool apart = (sa->hi != kPosInf && sb->lo != kNegInf && sa->hi + 1 < sb->lo) ||
                       (sb->hi != kPosInf && sa->lo != kNegInf && sb->hi + 1 < sa->lo);
    if (apart) return Expr();
    merged.lo = std::min(sa->lo, sb->lo);
    merged.hi = std::max(sa->hi, sb->hi);
  }
  if (same(merged, *sa)) return a;
  if (same(merged, *sb)) return b;
  return Build(merged);
}

}  // namespace kiln::ir::arith
