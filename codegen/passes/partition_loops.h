// A lowering pass, predicate handling (codegen/lower.h orders them): splits loops so that the
// predicates a split with a non-dividing factor leaves behind run only where they can fail.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

// Block predicates become `if`s inside the loop nest (LowerBlocks); left there they keep the
// innermost loops from being vectorized and unrolled into straight code. For each serial or
// parallel loop (outermost first) and each `if` without else below it whose condition has a
// comparison affine in the loop's variable (the loops between them taken at their extremes),
// this pass finds where that comparison holds for every inner iteration, a prefix or suffix of
// the loop's range, and splits the loop there: the part where it holds loses the `if` (and
// every other condition proven there), the rest keeps the original body. Loops are split
// again while that finds more; a loop whose condition holds everywhere just loses the `if`.
// Unrolled loops are never split (replicating them decides their conditions anyway); a
// vectorized loop is only narrowed, when the `if` fails for every iteration past the cut (the
// tail of a tile that does not divide), and then runs as a plain loop without it.
ir::PrimFunc PartitionLoops(const ir::PrimFunc& f);

}  // namespace kiln::codegen
