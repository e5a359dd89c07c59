// The simplifier's rules for floordiv/floormod by a non-constant positive divisor n, the
// shape that fusing loops of symbolic extent produces: floordiv(x * n + y, n) -> x +
// floordiv(y, n), floormod(x * n + y, n) -> floormod(y, n), and both finish when 0 <= y < n
// is provable. Part of the Simplifier class declared in simplify.h.
#include "ir/arith/expr_compare.h"
#include "ir/arith/simplify.h"

namespace kiln::ir::arith {
namespace {

void Factors(const Expr& e, std::vector<Expr>* out) {
  if (const auto* m = e.as<MulNode>(); m && !AsConstInt(m->a) && !AsConstInt(m->b)) {
    Factors(m->a, out);
    Factors(m->b, out);
    return;
  }
  out->push_back(e);
}

// atom == divisor * rest: sets `rest` (undefined for rest == 1) and returns true.
bool DivideOut(const Expr& atom, const Expr& divisor, Expr* rest) {
  if (ExprDeepEqual(atom, divisor)) {
    *rest = Expr();
    return true;
  }
  if (atom.kind() != NodeKind::kMul) return false;
  std::vector<Expr> factors;
  Factors(atom, &factors);
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!ExprDeepEqual(factors[i], divisor)) continue;
    factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(i));
    Expr acc = factors[0];
    for (size_t j = 1; j < factors.size(); ++j) acc = MakeProduct(acc, factors[j]);
    *rest = acc;
    return true;
  }
  return false;
}

}  // namespace

Expr Simplifier::SimplifySymbolicDivMod(NodeKind kind, const Expr& a, const Expr& b) {
  if (!IsLinearDtype(a.dtype()) || a.dtype() != b.dtype() || AsConstInt(b) ||
      b.kind() == NodeKind::kMul || Bound(b).min_value <= 0) {
    return Expr();
  }
  DataType t = a.dtype();
  LinearForm whole = ToLinear(a);
  LinearForm q, r;
  q.dtype = r.dtype = t;
  r.constant = whole.constant;
  bool divided = false;
  for (const LinearTerm& term : whole.terms) {
    Expr rest;
    if (DivideOut(term.atom, b, &rest)) {
      divided = true;
      if (rest.defined()) {
        q.AddTerm(rest, term.coef);
      } else {
        q.AddConst(term.coef);
      }
    } else {
      r.AddTerm(term.atom, term.coef);
    }
  }
  Expr rexpr = Finish(r);
  const bool in_range = IsConstInt(SimplifyCompare(NodeKind::kLE, MakeIntConst(t, 0), rexpr), 1) &&
                        IsConstInt(SimplifyCompare(NodeKind::kLT, rexpr, b), 1);
  if (!divided && !in_range) return Expr();
  if (kind == NodeKind::kFloorMod) return in_range ? rexpr : FloorMod(rexpr, b);
  if (!in_range) q.AddTerm(FloorDiv(rexpr, b), 1);
  return Finish(std::move(q));
}

}  // namespace kiln::ir::arith
