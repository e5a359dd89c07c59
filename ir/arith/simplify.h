// The expression simplifier behind Analyzer::Simplify: a bottom-up rewrite that keeps integer
// index arithmetic in canonical linear form (see linear_form.h) and applies the floordiv,
// floormod, min/max, comparison and logic rules that the known variable bounds allow.
// Internal to ir/arith.
#pragma once

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/const_fold.h"
#include "ir/arith/const_int_bound.h"
#include "ir/arith/linear_form.h"

namespace kiln::ir::arith {

// The constant divisor of floordiv/floormod node `e` when it is positive.
inline std::optional<int64_t> PositiveDivisor(const Expr& e, NodeKind kind, Expr* numerator) {
  if (e.kind() != kind) return std::nullopt;
  Expr a, b;
  GetBinaryOperands(e, &a, &b);
  auto c = AsConstInt(b);
  if (!c || *c <= 0) return std::nullopt;
  *numerator = a;
  return c;
}

// The single atom of `f` when f is exactly 1 * atom + 0.
inline const Expr* SingleAtom(const LinearForm& f) {
  if (f.terms.size() == 1 && f.terms[0].coef == 1 && f.constant == 0) return &f.terms[0].atom;
  return nullptr;
}

// Negation that wraps rather than overflows.
inline int64_t Negate(int64_t v) { return static_cast<int64_t>(0 - static_cast<uint64_t>(v)); }

class Simplifier {
 public:
  explicit Simplifier(VarFacts& facts) : facts_(facts) {}
  Expr Simplify(const Expr& e);

 private:
  Expr Visit(const Expr& e);
  Expr VisitVar(const Var& var);
  Expr VisitLet(const LetNode* op);
  // Visits `e` with the conjuncts of `condition` assumed.
  Expr VisitAssuming(const Expr& e, const Expr& condition);
  // Adds scale * e (simplified) to `out`, descending through + - and * by constants.
  void CollectSum(const Expr& e, int64_t scale, LinearForm* out);
  Expr VisitArith(NodeKind kind, const Expr& a, const Expr& b);
  Expr VisitTruncDiv(NodeKind kind, const Expr& a, const Expr& b);
  Expr SimplifyFloorDiv(const Expr& a, const Expr& b);
  Expr SimplifyFloorMod(const Expr& a, const Expr& b);
  // floordiv/floormod by a positive non-constant divisor; undefined when no rule applies.
  Expr SimplifySymbolicDivMod(NodeKind kind, const Expr& a, const Expr& b);
  Expr SimplifyMinMax(NodeKind kind, const Expr& a, const Expr& b);
  Expr SimplifyCompare(NodeKind kind, const Expr& a, const Expr& b);
  Expr SimplifyCompareByBounds(NodeKind kind, const Expr& a, const Expr& b);
  // `cmp` decided by the constraints in scope, or `cmp` itself.
  Expr ApplyConstraints(const Expr& cmp);
  Expr SimplifyLogic(NodeKind kind, const Expr& a, const Expr& b);
  Expr SimplifyNot(const Expr& a);
  Expr Finish(LinearForm form);
  bool RecombineSymbolic(LinearForm* form, size_t index);
  bool RecombineModFromDiv(LinearForm* form, size_t index);
  ConstIntBound DiffBound(const LinearForm& d);
  bool SplitCommon(const Expr& a, const Expr& b, Expr* rest_a, Expr* rest_b, LinearForm* common);
  ConstIntBound Bound(const Expr& e) { return EvalConstIntBound(e, facts_); }

  VarFacts& facts_;
  std::unordered_map<const VarNode*, Expr> value_cache_;
  std::unordered_set<const VarNode*> in_progress_;
  int symbolic_depth_ = 0;
};

}  // namespace kiln::ir::arith
