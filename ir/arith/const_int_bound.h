// Constant integer bounds by interval arithmetic over what is known of each variable (its
// range or its value), saturating at the infinities. Internal to ir/arith: callers use
// Analyzer::GetConstIntBound.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/arith/analyzer.h"

namespace kiln::ir::arith {

// What an Analyzer knows about its variables. Handles are kept so the keys stay valid.
struct VarFacts {
  std::unordered_map<const VarNode*, std::pair<Var, Range>> ranges;
  std::unordered_map<const VarNode*, std::pair<Var, Expr>> values;
  std::vector<Expr> constraints;         // simplified conjuncts assumed true
  std::vector<size_t> constraint_marks;  // constraints.size() at each EnterConstraint
};

// Bounds of `e`; vars without facts are unbounded (uint and bool vars by their dtype).
ConstIntBound EvalConstIntBound(const Expr& e, const VarFacts& facts);

// Saturating arithmetic on bound endpoints (kNegInf/kPosInf are the infinities).
int64_t BoundAdd(int64_t a, int64_t b);
int64_t BoundMul(int64_t a, int64_t b);
inline int64_t BoundNeg(int64_t a) {
  if (a == ConstIntBound::kNegInf) return ConstIntBound::kPosInf;
  if (a == ConstIntBound::kPosInf) return ConstIntBound::kNegInf;
  return -a;
}

}  // namespace kiln::ir::arith
