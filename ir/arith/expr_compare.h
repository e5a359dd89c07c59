// Comparison of expressions as the simplifier needs it: equality where a Var or Buffer equals
// only itself (unlike ir/structural.h, which compares up to renaming), and a deterministic
// order used to sort the terms of a canonical sum so equal expressions come out equal.
#pragma once

#include "ir/expr.h"

namespace kiln::ir::arith {

// Same kind, dtype and fields; Vars and Buffers by identity.
bool ExprDeepEqual(const Expr& a, const Expr& b);

// A total preorder: negative, zero or positive. Vars order by name, so two distinct Vars
// with one name compare as 0 (callers break such ties by position).
int ExprOrder(const Expr& a, const Expr& b);

// True when `e` mentions `var`.
bool UsesVar(const Expr& e, const VarNode* var);

}  // namespace kiln::ir::arith
