// The postprocessors, one per file in this folder (MetaSchedule's CPU and GPU lists). Each rewrites
// a sampled candidate and doubles as a validator: Apply returns false to reject it.
#pragma once

#include <cstdint>
#include <memory>

#include "codegen/gpu/limits.h"
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

// The GPU list (MetaSchedule's cuda postprocessors), with disallow_dynamic_loop,
// rewrite_parallel_vectorize_unroll and rewrite_reduction_block above:
// rewrite_cooperative_fetch.cc: splits each loop that the GPU tiling rule marked for a
// cooperative fetch into [rest, threads, lanes], binding the threads to threadIdx.x and
// vectorizing the lanes (scalar where the lanes do not divide the copy evenly).
std::unique_ptr<Postproc> MakeRewriteCooperativeFetch();
// rewrite_unbound_block.cc: binds every block at the top of the root scope that has no
// blockIdx loop (search/space/thread_binding.h), min(extent, threads_per_block) threads.
std::unique_ptr<Postproc> MakeRewriteUnboundBlock(int64_t threads_per_block = 256);
// verify_gpu_code.cc: rejects a candidate that does not lower to kernels within `limits`
// (the tune context's max_threads_per_block and max_shared_memory_bytes override them), that
// reduces across threads, or whose threads hold too much "local" memory.
std::unique_ptr<Postproc> MakeVerifyGpuCode(const codegen::gpu::GpuLimits& limits);

}  // namespace kiln::search
