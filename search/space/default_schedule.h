// The schedule a CPU kernel gets when no tuning record applies, instead of the loops as
// legalization wrote them: the "cpu" design space's sketches with fixed decisions instead of
// sampled ones, rewritten by the CPU postprocessors. A contraction is tiled for registers (the
// innermost spatial loop by two vectors of lanes, the loop whose rows reuse that vector by
// eight rows, the reduction by a cache-sized step) and accumulates in a local tile; a
// convolution first gets its channel-last layout sketch (output channels as the lanes, the
// weights packed); every block's outer spatial loops run in parallel, its innermost
// spatial loop is vectorized where that is legal, elementwise stages are inlined. The sketch
// and decisions are fixed, so the same workload always gets the same kernel.
#pragma once

#include <optional>
#include <vector>

#include "ir/function.h"
#include "search/space/candidate.h"

namespace kiln::search {

struct DefaultScheduleOptions {
  int num_cores = 1;
  int vector_bytes = 64;         // the widest SIMD register of the machine
  int64_t unroll_max_step = 64;  // pragma_auto_unroll_max_step of the outer loops
};

// The default's variants, distinct, in this order: an NCHW pointwise convolution's two matmul
// tiles and a depthwise convolution's per-plane schedule (search/space/conv_schedules.h), a
// convolution's channel-last layout sketch,
// the register-tiled sketch reading its operands in place, the tiled sketch that packs an
// operand through a cache (the better one for a transposed operand), the untiled one (inlined
// stages, the root's parallel / vectorize / unroll marks alone), and the untiled one with each
// row's reductions computed under the loop of the row that reads them (softmax, layer norm: a
// row is reduced while it is in cache). Which is fastest depends on the shapes and layouts: the
// compiler times them. Empty when none applies (a symbolic loop extent, ...).
std::vector<Candidate> DefaultCpuSchedules(const ir::PrimFunc& workload,
                                           const DefaultScheduleOptions& options);

// The first of them (what the tuner times as the untuned kernel); nullopt when none applies:
// the loops as written are then the kernel.
std::optional<Candidate> DefaultCpuSchedule(const ir::PrimFunc& workload,
                                            const DefaultScheduleOptions& options);

}  // namespace kiln::search
