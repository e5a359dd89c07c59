// Static memory planning for a compiled graph: every intermediate tensor gets an offset in one
// arena, and two tensors share bytes only when their lifetimes (the steps from the one that
// writes a tensor to the last that reads it) do not overlap. Offsets are chosen greedily by
// size, largest first, each at the lowest offset free over its lifetime (TFLite's "greedy by
// size"), which on the chains and diamonds of real models lands at or near the lower bound:
// the most bytes live at any one step.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::runtime::model {

struct BufferRequest {
  uint64_t bytes = 0;
  int64_t first = 0;  // the step that writes it
  int64_t last = 0;   // the last step that reads it (>= first)
};

struct MemoryPlan {
  std::vector<uint64_t> offsets;   // per request, aligned
  uint64_t arena_bytes = 0;        // the peak: what the arena needs
  uint64_t unshared_bytes = 0;     // what the requests need without reuse
  uint64_t lower_bound_bytes = 0;  // the most aligned bytes live at one step
};

// Offsets are multiples of `alignment` (a power of two). kiln::Error(kRuntime) when the sizes
// overflow 64 bits.
MemoryPlan PlanMemory(const std::vector<BufferRequest>& requests, uint64_t alignment = 64);

}  // namespace kiln::runtime::model
