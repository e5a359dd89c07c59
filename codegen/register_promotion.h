// Register promotion: which thread-private allocations an emitter can keep in variables
// instead of memory. After unrolling, a register tile of accumulators (a cache_write "local"
// buffer under unrolled and vectorized loops) is only ever accessed at constant offsets; as
// named scalar or vector variables the target compiler keeps it in registers across the
// reduction loop, where an array in memory would be loaded and stored on every iteration.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/stmt.h"

namespace kiln::codegen {

// One variable standing for elements [offset, offset + lanes) of the buffer.
struct RegisterSlot {
  int64_t offset = 0;
  int lanes = 1;
};

// The slots for `alloc` (a flattened, one-dimensional allocation) when every load and store
// of its buffer in its body is at a constant index: a scalar index, or a contiguous ramp with a
// constant base. Vector accesses must each match one slot exactly (two that overlap without
// being equal defeat promotion); scalar accesses inside a vector slot read or write one of its
// lanes, others get scalar slots. nullopt when some access is not of that form, the buffer's
// data is used in another way, an access falls outside the buffer, or the slots would hold
// more than `max_bytes`. Slots are ordered by offset.
std::optional<std::vector<RegisterSlot>> PlanRegisterSlots(const ir::AllocateNode* alloc,
                                                           int64_t max_bytes);

}  // namespace kiln::codegen
