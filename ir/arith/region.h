// Region analysis: the regions of each buffer a block reads and writes, derived from its body
// and init. Accesses under loops inside the block are relaxed over those loops; regions are
// expressed in the block's iteration variables (and outer variables). Buffers allocated by
// the block itself are not reported. Multiple accesses to one buffer merge into their hull.
#pragma once

#include <vector>

#include "ir/stmt.h"

namespace kiln::ir::arith {

struct BlockAccessRegions {
  std::vector<BufferRegion> reads;   // in order of first access
  std::vector<BufferRegion> writes;  // in order of first access
};

BlockAccessRegions DetectBlockAccessRegions(const BlockNode& block);

}  // namespace kiln::ir::arith
