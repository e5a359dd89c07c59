// arith::Analyzer: what Kiln knows about integer index expressions. It holds facts about
// variables (a var ranges over [min, min + extent), or equals an expression) and answers:
// simplify this expression, give its constant bounds, can this condition be proven.
// Simplification is canonical for affine index arithmetic: sums of products of variables
// with constant coefficients, with floordiv/floormod rules (floordiv(x*8 + y, 8) -> x when
// 0 <= y < 8, floormod(x*8 + y, 8) -> y, floordiv(floordiv(x, a), b) -> floordiv(x, a*b), ...).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>

#include "ir/buffer.h"
#include "ir/expr.h"

namespace kiln::ir::arith {

// Inclusive constant bounds; kNegInf/kPosInf when unbounded.
struct ConstIntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;
};

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // `var` takes values in [range.min, range.min + range.extent).
  void Bind(const Var& var, const Range& range);
  // `var` equals `value` (substituted when simplifying).
  void Bind(const Var& var, const Expr& value);

  // Until the matching ExitConstraint, `condition` is assumed to hold (inside the then-branch
  // of an if): comparisons it implies simplify to true, ones it excludes to false.
  void EnterConstraint(const Expr& condition);
  void ExitConstraint();

  Expr Simplify(const Expr& e);
  ConstIntBound GetConstIntBound(const Expr& e);
  // True only when `condition` (bool) holds for every value of the bound variables.
  bool CanProve(const Expr& condition);
  bool CanProveEqual(const Expr& a, const Expr& b);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Constant folding only (no algebra): folds operations whose operands are immediates.
Expr ConstantFold(const Expr& e);

}  // namespace kiln::ir::arith
