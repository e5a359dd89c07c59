// A lowering pass (codegen/lower.h orders them): removes the block structure, leaving plain loops.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

// Rewrites every BlockRealize into the statement it stands for: the block's iteration
// variables are replaced by their bound values; a predicate that is not `True` becomes an
// `if` around the block; an init statement runs before the body under the condition that
// every reduction iteration value equals its domain minimum (the first visit of each output
// element); the block's alloc_buffers become Allocate statements around it. The root block,
// having no iteration variables, dissolves into its body and allocations. Region, name and
// annotation information of blocks is dropped: nothing after this pass needs it.
ir::PrimFunc LowerBlocks(const ir::PrimFunc& f);

}  // namespace kiln::codegen
