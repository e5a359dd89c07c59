// A lowering pass (codegen/lower.h orders them): loop unrolling, as the schedule asked for it.
#pragma once

#include <cstdint>

#include "ir/function.h"

namespace kiln::codegen {

struct UnrollOptions {
  // A loop marked unrolled is replicated when its extent is a constant up to this; a longer
  // or symbolic one stays a loop marked unrolled (the emitter asks the compiler to unroll).
  int64_t max_explicit_extent = 64;
  // A loop the unroll pragma reaches that is a vector-tree fold or a long SIMD fold
  // (codegen/passes/simd_fold.h) stays a loop: the C target vectorizes it, where its copies
  // would be one scalar dependency chain. Loops marked kUnrolled by the schedule itself are
  // still replicated.
  bool keep_vectorized_folds = false;
};

// Unrolls loops. A loop of kind kUnrolled with a constant extent within the limit becomes
// one copy of its body per iteration, the loop variable replaced by its value. A loop
// annotated `pragma_auto_unroll_max_step` = N (the annotation MetaSchedule's unroll rule
// leaves) unrolls every loop nested in it whose constant extent times the iterations of the
// loops inside it is at most N, innermost first; with `pragma_unroll_explicit` = 0 beside it
// such loops are only marked kUnrolled for the compiler instead of replicated. Both
// annotations are removed.
ir::PrimFunc UnrollLoops(const ir::PrimFunc& f, const UnrollOptions& options = {});

}  // namespace kiln::codegen
