// Analyzer: the facts about variables, and the queries answered from them.
#include "ir/arith/analyzer.h"

#include <algorithm>

#include "ir/arith/const_int_bound.h"
#include "ir/arith/expr_compare.h"
#include "ir/arith/simplify.h"

namespace kiln::ir::arith {

struct Analyzer::Impl {
  VarFacts facts;
};

Analyzer::Analyzer() : impl_(std::make_unique<Impl>()) {}
Analyzer::~Analyzer() = default;

void Analyzer::Bind(const Var& var, const Range& range) {
  KILN_CHECK(var.defined() && range.min.defined() && range.extent.defined(), ErrorKind::kInvalidIR,
             "Analyzer::Bind: undefined variable or range");
  impl_->facts.values.erase(var.get());
  impl_->facts.ranges[var.get()] = {var, range};
}

void Analyzer::Bind(const Var& var, const Expr& value) {
  KILN_CHECK(var.defined() && value.defined(), ErrorKind::kInvalidIR,
             "Analyzer::Bind: undefined variable or value");
  KILN_CHECK(!UsesVar(value, var.get()), ErrorKind::kInvalidIR,
             "Analyzer::Bind: the value bound to " + var.name() + " mentions it");
  impl_->facts.ranges.erase(var.get());
  impl_->facts.values[var.get()] = {var, value};
}

void Analyzer::EnterConstraint(const Expr& condition) {
  KILN_CHECK(condition.defined() && condition.dtype().is_bool(), ErrorKind::kInvalidIR,
             "Analyzer::EnterConstraint: the condition must be a bool expression");
  Expr simplified = Simplify(condition);
  impl_->facts.constraint_marks.push_back(impl_->facts.constraints.size());
  std::vector<Expr> pending{simplified};
  while (!pending.empty()) {
    Expr c = pending.back();
    pending.pop_back();
    if (const auto* op = c.as<AndNode>()) {
      pending.push_back(op->b);
      pending.push_back(op->a);
    } else if (!AsConstInt(c)) {
      impl_->facts.constraints.push_back(c);
    }
  }
}

void Analyzer::ExitConstraint() {
  KILN_CHECK(!impl_->facts.constraint_marks.empty(), ErrorKind::kInternal,
             "Analyzer::ExitConstraint without a matching EnterConstraint");
  impl_->facts.constraints.resize(impl_->facts.constraint_marks.back());
  impl_->facts.constraint_marks.pop_back();
}

Expr Analyzer::Simplify(const Expr& e) { return Simplifier(impl_->facts).Simplify(e); }

ConstIntBound Analyzer::GetConstIntBound(const Expr& e) {
  ConstIntBound raw = EvalConstIntBound(e, impl_->facts);
  ConstIntBound simplified = EvalConstIntBound(Simplify(e), impl_->facts);
  return {std::max(raw.min_value, simplified.min_value),
          std::min(raw.max_value, simplified.max_value)};
}

bool Analyzer::CanProve(const Expr& condition) {
  if (!condition.defined()) return false;
  Expr s = Simplify(condition);
  if (auto v = AsConstInt(s)) return *v != 0;
  if (const auto* op = s.as<AndNode>()) return CanProve(op->a) && CanProve(op->b);
  if (const auto* op = s.as<OrNode>()) return CanProve(op->a) || CanProve(op->b);
  return false;
}

bool Analyzer::CanProveEqual(const Expr& a, const Expr& b) {
  if (!a.defined() || !b.defined() || a.dtype() != b.dtype()) return false;
  if (a.dtype().is_integral() && a.dtype().is_scalar()) {
    return IsConstInt(Simplify(Sub(a, b)), 0);
  }
  return ExprDeepEqual(Simplify(a), Simplify(b));
}

}  // namespace kiln::ir::arith
