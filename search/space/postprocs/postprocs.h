// The postprocessors, one per file in this folder (MetaSchedule's CPU list). Each rewrites a
// sampled candidate and doubles as a validator: Apply returns false to reject it.
#pragma once

#include <memory>

#include "search/space/postproc.h"

namespace kiln::search {

// disallow_dynamic_loop.cc: rejects a candidate with a loop of non-constant extent.
std::unique_ptr<Postproc> MakeDisallowDynamicLoop();
// rewrite_parallel_vectorize_unroll.cc: turns the root block's annotations into loop kinds:
// per block, the outer spatial loops fused and parallel (up to the parallel extent), the
// inner spatial loops fused and vectorized (up to the vector extent), the unroll step as
// pragma_auto_unroll_max_step on the outermost loop. Removes the annotations.
std::unique_ptr<Postproc> MakeRewriteParallelVectorizeUnroll();
// rewrite_reduction_block.cc: decomposes each reduction block's init at its outermost
// reduction loop, so the inner loops hold the update alone.
std::unique_ptr<Postproc> MakeRewriteReductionBlock();
// verify.cc: rejects what the C target would build badly or not at all: a parallel loop
// inside another, a vectorized loop around a loop or of symbolic extent, a "local" tile
// larger than a thread's stack should hold.
std::unique_ptr<Postproc> MakeVerify();

}  // namespace kiln::search
