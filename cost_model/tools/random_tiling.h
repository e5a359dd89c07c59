// A small random design space for the dataset tool: multi-level tiling of one reduction
// block ("SSRSRS": spatial loops in four levels, reduction loops in two), an optional local
// write cache, parallel outer tiles, a vectorized innermost loop and unrolled inner
// reductions, every tile size drawn by SamplePerfectTile so the trace records it. It stands
// in for the search's design space (search/space/) when making the committed datasets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/function.h"
#include "search/schedule/trace.h"

namespace kiln::cost_model::tools {

struct RandomTilingOptions {
  std::string block;           // the reduction block to tile ("C", "conv")
  std::string inline_block;    // a producer to inline first ("pad"), or empty
  int64_t max_innermost = 64;  // the innermost tile's largest factor
};

// One random schedule of `workload` drawn with `seed`; nullopt when the draw was rejected
// by a primitive (the caller draws again).
std::optional<search::Trace> SampleRandomTiling(const ir::PrimFunc& workload,
                                                const RandomTilingOptions& options, uint64_t seed);

}  // namespace kiln::cost_model::tools
