// Small IR rewriting helpers shared by the lowering passes: substituting variables and
// replacing buffers. They are utilities, not passes: each pass header names one pass.
#pragma once

#include <functional>
#include <unordered_map>

#include "ir/arith/const_fold.h"
#include "ir/function.h"
#include "ir/functor.h"
#include "ir/substitute.h"

namespace kiln::codegen {

// Substitution and variable uses come from ir/substitute.h.
using ir::ForEachVar;
using ir::Substitute;
using ir::UsesVar;
using ir::VarMap;

// Buffer node -> replacement buffer.
using BufferMap = std::unordered_map<const ir::BufferNode*, ir::Buffer>;

// Replaces mapped buffers in loads, stores, Allocate and DeclBuffer; indices are kept.
ir::Stmt RemapBuffers(const ir::Stmt& s, const BufferMap& buffers);

// `e` converted to `dtype` when its dtype differs (integer immediates are re-typed in place).
ir::Expr CastTo(ir::DataType dtype, const ir::Expr& e);

// Sums and products folded as they are built (ir/arith/const_fold.h).
using ir::arith::FoldAdd;
using ir::arith::FoldMul;

}  // namespace kiln::codegen
