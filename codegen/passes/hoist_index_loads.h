// Hoisting of index loads: an integer load that a constant-extent loop reads in every
// iteration at the same address (a column index `indices[p]` read inside a sparse kernel's
// feature loop, an embedding id inside its row copy) is read once before the loop, into a
// LetStmt variable. In C the load left inside made GCC treat the address it feeds as varying:
// a SIMD reduction over `y[indices[p] * K + k]` became a gather per vector (SDDMM's dot product
// ran at a sixth of its speed).
//
// A load moves out of loop L only when L has a positive constant extent, the load runs in
// every iteration (not under an `if`, a select or a loop that may run zero times), its indices
// use no variable L or its body binds, and L's body stores nothing to its buffer: it reads the
// same value, at an address the loop itself would have read, once instead of every time.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

ir::PrimFunc HoistIndexLoads(const ir::PrimFunc& f);

}  // namespace kiln::codegen
