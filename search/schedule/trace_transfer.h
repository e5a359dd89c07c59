// Carrying a trace from one shape of a workload to another: the best schedule of a matmul at
// sequence 64 is a good start at sequence 128. The instructions replay as they are; a tile
// decision that no longer divides its loop is refitted (each inner factor the largest divisor
// of what is left that is no larger than the one recorded, the outermost taking the rest), the
// other decisions are kept. What the shape bucket search seeds a bucket's task with from the
// best traces of the same operator in its neighbouring buckets (DietCode's idea of sharing work
// across a family of shapes).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/function.h"
#include "search/schedule/trace.h"

namespace kiln::search {

// The trace replayed on `workload` with refitted tile decisions (the replayed trace, its
// decisions those used); none when an instruction does not apply to `workload` (another
// operator, another loop nest).
std::optional<Trace> TransferTrace(const Trace& trace, const ir::PrimFunc& workload);

// `factors` made a perfect tiling of `extent`: from the innermost out, each factor the largest
// divisor of the extent left that is at most the recorded factor (and, for the innermost, at
// most `max_innermost` when it is positive); the outermost is the rest.
std::vector<int64_t> RefitTile(const std::vector<int64_t>& factors, int64_t extent,
                               int64_t max_innermost);

}  // namespace kiln::search
