// The canonical form of integer index arithmetic: a sum of atoms (variables, loads,
// floordiv/floormod and other non-linear subterms) times constant coefficients, plus a
// constant. Coefficients wrap to the dtype, so + - * by constants are exact in it.
// FromLinear prints terms in a fixed order (larger coefficients first, then by the atoms'
// order) with positive terms added, negative ones subtracted and the constant last, so two
// equal sums always come out as the same expression.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/expr.h"

namespace kiln::ir::arith {

struct LinearTerm {
  Expr atom;
  int64_t coef;
};

struct LinearForm {
  DataType dtype;
  std::vector<LinearTerm> terms;  // distinct atoms, non-zero coefficients
  int64_t constant = 0;

  bool IsConst() const { return terms.empty(); }
  void AddTerm(const Expr& atom, int64_t coef);
  void AddConst(int64_t c);
  void AddForm(const LinearForm& other, int64_t scale);
  // The coefficient of `atom` (0 when absent).
  int64_t CoefOf(const Expr& atom) const;
};

// Signed scalar integers: the dtypes the canonical form applies to.
bool IsLinearDtype(DataType dtype);

// Reads an expression (already simplified: its parts canonical) as a linear form. Products of
// two non-constant factors and every other node are atoms.
LinearForm ToLinear(const Expr& e);
Expr FromLinear(const LinearForm& form);

// A product of non-constant factors, flattened and ordered so that x*y and y*x agree.
Expr MakeProduct(const Expr& a, const Expr& b);

int64_t Gcd(int64_t a, int64_t b);

}  // namespace kiln::ir::arith
