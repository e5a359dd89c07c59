// Small IR rewriting helpers shared by the lowering passes: substituting variables and
// replacing buffers. They are utilities, not passes: each pass header names one pass.
#pragma once

#include <functional>
#include <unordered_map>

#include "ir/function.h"
#include "ir/functor.h"

namespace kiln::codegen {

// Var -> replacement expression, keyed by the Var's node.
using VarMap = std::unordered_map<const ir::VarNode*, ir::Expr>;
// Buffer node -> replacement buffer.
using BufferMap = std::unordered_map<const ir::BufferNode*, ir::Buffer>;

// Replaces every use of a mapped Var (never a defining position).
ir::Expr Substitute(const ir::Expr& e, const VarMap& vars);
ir::Stmt Substitute(const ir::Stmt& s, const VarMap& vars);

// Replaces mapped buffers in loads, stores, Allocate and DeclBuffer; indices are kept.
ir::Stmt RemapBuffers(const ir::Stmt& s, const BufferMap& buffers);

// Applies `fn` to every Var used in `e` (free or not).
void ForEachVar(const ir::Expr& e, const std::function<void(const ir::Var&)>& fn);
// True when `e` uses `var`.
bool UsesVar(const ir::Expr& e, const ir::VarNode* var);
bool UsesVar(const ir::Stmt& s, const ir::VarNode* var);

// `e` converted to `dtype` when its dtype differs (integer immediates are re-typed in place).
ir::Expr CastTo(ir::DataType dtype, const ir::Expr& e);

// A constant-folding add and multiply for index arithmetic built by passes, so that
// `0 + x` and `x * 1` are not produced in the first place.
ir::Expr FoldAdd(const ir::Expr& a, const ir::Expr& b);
ir::Expr FoldMul(const ir::Expr& a, const ir::Expr& b);

}  // namespace kiln::codegen
