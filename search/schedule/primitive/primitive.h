// The schedule primitives on a ScheduleState, one topic per source file. Blocks and loops
// are named by their entry index in the state; each function checks that the transform is
// valid (throwing kiln::Error(kSchedule) that names the block or loop and why) before it
// changes anything, so a failed call leaves the state as it was. Schedule wraps these with
// random variables and the trace.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "search/schedule/index_map.h"
#include "search/schedule/state.h"

namespace kiln::search {

// get.cc: blocks of the same scope that write a buffer `block` reads (producers) or read a
// buffer it writes (consumers), in program order.
std::vector<int> ProducerBlocks(const ScheduleState& state, int block);
std::vector<int> ConsumerBlocks(const ScheduleState& state, int block);

// loop_transform.cc. Factors: -1 means inferred. Returns the new loop vars, outer first.
// Without preserve_unit_iters, a new loop of extent 1 is bound as its constant (0) in the
// block bindings below instead of as a variable (MetaSchedule's preserve_unit_iters=False).
std::vector<ir::Var> SplitLoop(ScheduleState& state, int loop, std::vector<int64_t> factors,
                               bool preserve_unit_iters = true);
ir::Var FuseLoops(ScheduleState& state, const std::vector<int>& loops,
                  bool preserve_unit_iters = true);
void ReorderLoops(ScheduleState& state, const std::vector<int>& loops);
// A unit loop directly around a block realize or a loop.
ir::Var AddUnitLoopAround(ScheduleState& state, int entry);

// for_kind.cc: parallel, vectorized, unrolled or bound to a thread axis.
void SetLoopKind(ScheduleState& state, int loop, ir::ForKind kind, const std::string& thread);

// annotation.cc: on a loop or a block.
void SetAnnotation(ScheduleState& state, int entry, const std::string& key, ir::Expr value);
void RemoveAnnotation(ScheduleState& state, int entry, const std::string& key);

// compute_inline.cc
void ComputeInlineBlock(ScheduleState& state, int block);
void ReverseComputeInlineBlock(ScheduleState& state, int block);

// compute_at.cc: moves a producer under `loop` of its consumers (or a consumer under `loop`
// of its producers when reverse), recomputing just the region the loop's body needs.
void ComputeAtLoop(ScheduleState& state, int block, int loop, bool reverse,
                   bool preserve_unit_loops);

// cache.cc. Return the name of the new block.
std::string CacheReadBlock(ScheduleState& state, int block, int read_index,
                           const std::string& scope);
std::string CacheWriteBlock(ScheduleState& state, int block, int write_index,
                            const std::string& scope);
void SetBufferScope(ScheduleState& state, int block, int write_index, const std::string& scope);
// Gives dimension `axis` of the buffer `block` writes at `write_index` a stride that is
// factor * k + offset, padding the buffer's rows (explicit strides); the outer strides grow
// to match.
void StorageAlignBuffer(ScheduleState& state, int block, int write_index, int axis, int factor,
                        int offset);

// reduction.cc: splits a reduction block into its init block, placed before `loop`, and
// the update block (renamed NAME_update). Returns the names of the init and update blocks.
std::pair<std::string, std::string> DecomposeReductionBlock(ScheduleState& state, int block,
                                                            int loop);

// rfactor.cc: factors the reduction block under `loop` over that loop (see the file). Returns
// the name of the new rfactor block; the write-back block keeps the original name.
std::string RFactorLoop(ScheduleState& state, int loop, int factor_axis);

// layout.cc: rewrites the buffer that `block` reads (or writes) at `buffer_index` into the
// layout `map`, which must be a bijection onto its new shape.
void TransformLayoutBuffer(ScheduleState& state, int block, int buffer_index, bool is_write,
                           const IndexMap& map);

}  // namespace kiln::search
