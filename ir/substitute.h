// Substituting variables and asking which variables an expression uses: the small rewriting
// tools that schedule primitives, lowering passes and the compute builder all need. Only
// uses are rewritten or reported: a Var in a defining position (a loop variable, a block
// iter var, a let variable) is left as it is, as ir/functor.h's mutator does.
#pragma once

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/function.h"

namespace kiln::ir {

// Var -> replacement expression, keyed by the Var's node.
using VarMap = std::unordered_map<const VarNode*, Expr>;

// `e` (or `s`) with every use of a mapped Var replaced; an undefined input stays undefined.
Expr Substitute(const Expr& e, const VarMap& vars);
Stmt Substitute(const Stmt& s, const VarMap& vars);

// Calls `fn` for every use of a Var in `e`.
void ForEachVar(const Expr& e, const std::function<void(const Var&)>& fn);

// True when `e` (or `s`) uses one of `vars`, as a variable or as the data of a buffer it loads
// or stores (lowered code addresses memory through those handles).
bool UsesAnyVar(const Expr& e, const std::unordered_set<const VarNode*>& vars);
bool UsesAnyVar(const Stmt& s, const std::unordered_set<const VarNode*>& vars);
bool UsesVar(const Expr& e, const VarNode* var);
bool UsesVar(const Stmt& s, const VarNode* var);

}  // namespace kiln::ir
