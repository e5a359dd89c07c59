// A lowering pass (codegen/lower.h orders them): arithmetic simplification of the lowered body.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

// Simplifies every expression of the body with the loop ranges in scope (ir/arith's
// SimplifyStmt), then folds what became constant: immediates and the identities x + 0,
// x - 0, x * 1, x * 0, x / 1; an `if` whose condition is a constant keeps only the branch
// taken; a loop of extent 0 or whose body does nothing disappears, and a serial loop of extent
// 1 without annotations becomes its body with the loop variable replaced by its minimum.
ir::PrimFunc Simplify(const ir::PrimFunc& f);

}  // namespace kiln::codegen
