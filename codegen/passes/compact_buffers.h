// A lowering pass (after LowerBlocks; codegen/lower.h orders them): shrinks each allocation to the
// region its body touches, as TVM's CompactBufferAllocation does.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

// For each Allocate, finds per dimension the
// interval of indices its loads and stores use when the loops inside the Allocate range over
// their extents (interval analysis over affine index arithmetic; conditions are ignored, which
// only widens the interval). A dimension whose interval has a constant size smaller than the
// buffer's becomes that size, its indices shifted by the interval's start (an expression of the
// loops outside the Allocate). After PlaceAllocations has put a cache stage's buffer inside the
// loop it was computed at, this turns a full-size copy into the tile one iteration uses: a
// packed panel, a register tile of accumulators. Dimensions that cannot be bounded keep their
// size. Explicit strides (storage_align's padded rows) are kept: the tile keeps its padding.
// A "shared" buffer is one per block of GPU threads: the threadIdx loops around it are relaxed
// too, so its region covers what every thread of the block touches.
ir::PrimFunc CompactBuffers(const ir::PrimFunc& f);

}  // namespace kiln::codegen
