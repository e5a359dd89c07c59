// A lowering pass (the first; codegen/lower.h orders them): moves each block allocation down to
// where it is used, as TVM's PlanAndUpdateBufferAllocationLocation does.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

// Schedule primitives put every new buffer (cache_read, cache_write, ...) in the root
// block's alloc_buffers. This pass moves each buffer allocated by a block to the lowest
// common ancestor of the statements that load or store it: into the alloc_buffers of a
// nested block, or, when that ancestor is a loop, as an Allocate around the loop's body, so
// that each iteration (each thread, for a parallel loop) has its own copy, which
// CompactBuffers then shrinks to what one iteration touches. The new place is never inside a
// loop that a block writing the buffer reduces over (its binding of a reduction iteration
// variable uses the loop), since the value must survive across that loop's iterations; nor,
// for GPU targets, inside loops bound to threads for "global" scopes ("local" and "shared" may
// go anywhere: a shared buffer under threadIdx loops is still one per block, which
// CompactBuffers sizes for every thread of the block). A buffer nothing accesses stays
// where it is.
ir::PrimFunc PlaceAllocations(const ir::PrimFunc& f);

}  // namespace kiln::codegen
