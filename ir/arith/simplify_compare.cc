// The simplifier's comparison and logic rules: comparisons decided by bounds or by the
// constraints in scope, put in canonical form (constant on one side, common factor divided
// out), and And/Or/Not with constants, repeats and complements. Part of the Simplifier
// class declared in simplify.h.
#include <optional>

#include "ir/arith/compare_merge.h"
#include "ir/arith/expr_compare.h"
#include "ir/arith/simplify.h"

namespace kiln::ir::arith {

Expr Simplifier::SimplifyCompare(NodeKind kind, const Expr& a, const Expr& b) {
  Expr result = SimplifyCompareByBounds(kind, a, b);
  return facts_.constraints.empty() ? result : ApplyConstraints(result);
}

namespace {

// A comparison read as d <= upper (or d == 0 when `eq`), d linear.
struct LinearFact {
  LinearForm d;
  int64_t upper;
  bool eq;
};

std::optional<LinearFact> ReadLinearFact(const Expr& e) {
  Expr a, b;
  if (!GetBinaryOperands(e, &a, &b) || !IsLinearDtype(a.dtype())) return std::nullopt;
  int64_t upper = 0;
  switch (e.kind()) {
    case NodeKind::kLT:
      upper = -1;
      break;
    case NodeKind::kLE:
    case NodeKind::kEQ:
      break;
    default:
      return std::nullopt;
  }
  LinearForm d = ToLinear(a);
  d.AddForm(ToLinear(b), -1);
  return LinearFact{std::move(d), upper, e.kind() == NodeKind::kEQ};
}

// What fact `c` says of query `q`: true, false, or nothing (nullopt). Works when q's linear
// part equals c's, or its negation, up to a constant.
std::optional<bool> Decide(const LinearFact& c, const LinearFact& q) {
  LinearForm diff = q.d, sum = q.d;
  diff.AddForm(c.d, -1);
  sum.AddForm(c.d, 1);
  __int128 lo = -(static_cast<__int128>(1) << 100), hi = static_cast<__int128>(1) << 100;
  if (diff.IsConst()) {  // q.d = c.d + k
    hi = static_cast<__int128>(c.upper) + diff.constant;
    if (c.eq) lo = hi = diff.constant;
  } else if (sum.IsConst()) {  // q.d = k - c.d
    lo = static_cast<__int128>(sum.constant) - c.upper;
    if (c.eq) lo = hi = sum.constant;
  } else {
    return std::nullopt;
  }
  if (q.eq) {
    if (lo == 0 && hi == 0) return true;
    if (lo > 0 || hi < 0) return false;
    return std::nullopt;
  }
  if (hi <= q.upper) return true;
  if (lo > q.upper) return false;
  return std::nullopt;
}

}  // namespace

Expr Simplifier::ApplyConstraints(const Expr& cmp) {
  if (AsConstInt(cmp)) return cmp;
  std::optional<LinearFact> query = ReadLinearFact(cmp);
  for (const Expr& c : facts_.constraints) {
    if (ExprDeepEqual(c, cmp)) return BoolImm(true);
    if (query) {
      if (auto fact = ReadLinearFact(c)) {
        if (auto decided = Decide(*fact, *query)) return BoolImm(*decided);
      }
    }
    // c && cmp == c: c implies cmp;  c && cmp == false: c excludes it.
    Expr both = MergeComparisons(NodeKind::kAnd, c, cmp);
    if (!both.defined()) continue;
    if (both.same_as(c) || ExprDeepEqual(both, c)) return BoolImm(true);
    if (IsConstInt(both, 0)) return BoolImm(false);
  }
  return cmp;
}

Expr Simplifier::SimplifyCompareByBounds(NodeKind kind, const Expr& a, const Expr& b) {
  if ((AsConstInt(a) && AsConstInt(b)) || a.dtype() != b.dtype() || !IsLinearDtype(a.dtype())) {
    if (a.dtype() == b.dtype() && a.dtype().is_integral() && ExprDeepEqual(a, b)) {
      return BoolImm(kind == NodeKind::kEQ || kind == NodeKind::kLE || kind == NodeKind::kGE);
    }
    return FoldBinary(kind, a, b);
  }
  if (kind == NodeKind::kGT) return SimplifyCompare(NodeKind::kLT, b, a);
  if (kind == NodeKind::kGE) return SimplifyCompare(NodeKind::kLE, b, a);
  DataType t = a.dtype();
  LinearForm d = ToLinear(a);
  d.AddForm(ToLinear(b), -1);
  d = ToLinear(Finish(std::move(d)));
  ConstIntBound db = DiffBound(d);
  switch (kind) {
    case NodeKind::kLT:
      if (db.max_value < 0) return BoolImm(true);
      if (db.min_value >= 0) return BoolImm(false);
      break;
    case NodeKind::kLE:
      if (db.max_value <= 0) return BoolImm(true);
      if (db.min_value > 0) return BoolImm(false);
      break;
    case NodeKind::kEQ:
    case NodeKind::kNE: {
      const bool eq = kind == NodeKind::kEQ;
      if (db.min_value == 0 && db.max_value == 0) return BoolImm(eq);
      if (db.min_value > 0 || db.max_value < 0) return BoolImm(!eq);
      break;
    }
    default:
      break;
  }
  if (d.IsConst()) return FoldBinary(kind, MakeIntConst(t, d.constant), MakeIntConst(t, 0));
  // T + k op 0 with T = g * T': divide through by g, rounding the constant the safe way.
  int64_t g = 0;
  for (const LinearTerm& term : d.terms) g = Gcd(g, term.coef);
  const int64_t k = d.constant;
  int64_t rhs = 0;
  if (kind == NodeKind::kLT) {
    rhs = Negate(FloorDivInt(k, g));  // T' < ceil(-k / g)
  } else if (kind == NodeKind::kLE) {
    rhs = FloorDivInt(Negate(k), g);
  } else {
    if (k % g != 0) return BoolImm(kind == NodeKind::kNE);
    rhs = Negate(k) / g;
  }
  LinearForm pos, neg;
  pos.dtype = neg.dtype = t;
  for (const LinearTerm& term : d.terms) {
    if (term.coef > 0) {
      pos.AddTerm(term.atom, term.coef / g);
    } else {
      neg.AddTerm(term.atom, Negate(term.coef) / g);
    }
  }
  if (pos.terms.empty() && (kind == NodeKind::kEQ || kind == NodeKind::kNE)) {
    std::swap(pos, neg);
    rhs = Negate(rhs);
  }
  const bool ordered = kind == NodeKind::kLT || kind == NodeKind::kLE;
  Expr x;
  const int64_t kLimit = int64_t{1} << 31;
  if (pos.terms.empty()) {
    // k < floordiv(x, c)  <=>  (k + 1) * c <= x;  k <= floordiv(x, c)  <=>  k * c <= x
    const int64_t lhs = Negate(rhs);
    if (auto c = SingleAtom(neg) ? PositiveDivisor(neg.terms[0].atom, NodeKind::kFloorDiv, &x)
                                 : std::nullopt;
        c && ordered && lhs > -kLimit && lhs < kLimit && *c < kLimit) {
      int64_t bound = (kind == NodeKind::kLT ? lhs + 1 : lhs) * *c;
      return SimplifyCompare(NodeKind::kLE, MakeIntConst(t, bound), x);
    }
    return MakeBinary(kind, MakeIntConst(t, lhs), FromLinear(neg));
  }
  // floordiv(x, c) < k  <=>  x < k * c;  floordiv(x, c) <= k  <=>  x < (k + 1) * c
  if (auto c = SingleAtom(pos) && neg.terms.empty()
                   ? PositiveDivisor(pos.terms[0].atom, NodeKind::kFloorDiv, &x)
                   : std::nullopt;
      c && ordered && rhs > -kLimit && rhs < kLimit && *c < kLimit) {
    int64_t bound = (kind == NodeKind::kLT ? rhs : rhs + 1) * *c;
    return SimplifyCompare(NodeKind::kLT, x, MakeIntConst(t, bound));
  }
  neg.AddConst(rhs);
  return MakeBinary(kind, FromLinear(pos), FromLinear(neg));
}

Expr Simplifier::SimplifyLogic(NodeKind kind, const Expr& a, const Expr& b) {
  if (ExprDeepEqual(a, b)) return a;
  const bool is_and = kind == NodeKind::kAnd;
  auto negates = [](const Expr& x, const Expr& y) {
    const auto* n = y.as<NotNode>();
    return n != nullptr && ExprDeepEqual(n->a, x);
  };
  if (a.dtype().is_scalar() && (negates(a, b) || negates(b, a))) return BoolImm(!is_and);
  if (Expr merged = MergeComparisons(kind, a, b); merged.defined()) return merged;
  return FoldBinary(kind, a, b);
}

Expr Simplifier::SimplifyNot(const Expr& a) {
  if (AsConstInt(a)) return FoldNot(a);
  if (const auto* n = a.as<NotNode>()) return n->a;
  Expr x, y;
  if (IsCompareKind(a.kind()) && GetBinaryOperands(a, &x, &y) && x.dtype().is_integral()) {
    switch (a.kind()) {
      case NodeKind::kLT:
        return SimplifyCompare(NodeKind::kLE, y, x);
      case NodeKind::kLE:
        return SimplifyCompare(NodeKind::kLT, y, x);
      case NodeKind::kGT:
        return SimplifyCompare(NodeKind::kLE, x, y);
      case NodeKind::kGE:
        return SimplifyCompare(NodeKind::kLT, x, y);
      case NodeKind::kEQ:
        return SimplifyCompare(NodeKind::kNE, x, y);
      case NodeKind::kNE:
        return SimplifyCompare(NodeKind::kEQ, x, y);
      default:
        break;
    }
  }
  return Not(a);
}
}  // namespace kiln::ir::arith
