// SimplifyStmt: simplifies every expression of a statement tree with what the enclosing
// loops and blocks say about their variables, and removes the branches that this decides.
// Lowering runs it after each pass that rewrites indices.
#pragma once

#include "ir/arith/analyzer.h"
#include "ir/stmt.h"

namespace kiln::ir::arith {

// Binds For loop vars to their ranges and block iter vars to their domains while
// descending (the bindings stay in `analyzer` afterwards), simplifies each expression,
// replaces an IfThenElse whose condition is decided by the branch taken (inside a branch its
// condition, or its negation, is assumed), and simplifies block predicates. A removed branch with
// nothing to run becomes an empty SeqStmt.
Stmt SimplifyStmt(const Stmt& s, Analyzer& analyzer);

}  // namespace kiln::ir::arith
