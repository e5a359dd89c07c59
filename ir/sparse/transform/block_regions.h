// The read and write regions of a block the SparseTIR passes build or rewrite: arith's region
// analysis, except that a region bounded by a buffer the block itself allocates (a search
// block's lo and hi, which hold positions) covers the whole buffer instead, since that
// buffer does not exist where the regions are read. A body the analysis cannot bound keeps
// no regions (they are a hint for schedules, not part of what the block computes).
#pragma once

#include "ir/stmt.h"

namespace kiln::ir::sparse {

void SetBlockRegions(BlockNode* block);

}  // namespace kiln::ir::sparse
