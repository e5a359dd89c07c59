// Binding a block's loops to GPU threads: what auto-bind (the rule), rewrite_unbound_block (the
// postprocessor) and the default GPU schedule of an untuned task share. A block that no
// thread-bound loop covers has its outer spatial loops fused and split into a grid of blocks
// and the threads of each (MetaSchedule's BindBlockThreadIdx); a block whose loops already
// hold threads (a cross-thread reduction) gets only the grid.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/function.h"
#include "search/schedule/schedule.h"

namespace kiln::search {

struct ThreadBindConfig {
  // Thread counts per block to sample from (those up to max_threads_per_block); empty: the
  // count is fixed, min(fused extent, default_threads).
  std::vector<int64_t> thread_extents;
  int64_t default_threads = 256;
  int64_t max_threads_per_block = 1024;
  // Beyond max_threadblocks * threads iterations, each thread runs an inner serial loop.
  int64_t max_threadblocks = 256;
};

// True when a loop above the block (entry index) is bound to a GPU axis of `prefix`
// ("blockIdx", "threadIdx", "vthread").
bool HasBoundLoopAbove(const ScheduleState& state, int block, const char* prefix);

// Binds `block` of `sch` as above; false (the schedule untouched) when a blockIdx-bound loop
// already covers it. The loops fused are the outer ones that every block under them uses as
// spatial iterations only; without any, a unit loop is added so that a kernel exists.
bool BindBlockThreads(Schedule& sch, BlockRV block, const ThreadBindConfig& config);

// The default GPU schedule of an untuned function: every block at the top of the root scope
// bound by BindBlockThreads with a fixed thread count (min(extent, threads_per_block)). Each
// such block becomes one kernel launch.
ir::PrimFunc DefaultGpuSchedule(const ir::PrimFunc& func, int64_t threads_per_block = 256);

}  // namespace kiln::search
