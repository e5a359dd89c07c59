// Merging of two comparisons that bound one expression by constants, as the simplifier
// meets them in And/Or: (x < 8 && x < 5) -> x < 5, (x < 5 || 5 <= x) -> true,
// (x < 4 && 6 <= x) -> false. The comparisons must be in the simplifier's canonical form
// (x < c, x <= c, c < x, c <= x, x == c); anything else is left alone.
#pragma once

#include "ir/expr.h"

namespace kiln::ir::arith {

// The merged condition for `kind` (And or Or) of `a` and `b`; undefined when the two do not
// bound the same expression by constants, or their union is not one interval.
Expr MergeComparisons(NodeKind kind, const Expr& a, const Expr& b);

}  // namespace kiln::ir::arith
