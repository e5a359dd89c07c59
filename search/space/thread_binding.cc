// Binding blocks to GPU threads (auto-bind, rewrite_unbound_block, the default GPU schedule).
#include "search/space/thread_binding.h"

#include <algorithm>

#include "ir/expr.h"
#include "search/schedule/primitive/utils.h"
#include "search/space/block_info.h"

namespace kiln::search {

namespace {

bool DirectlyNested(const ScheduleState& state, int outer, int inner) {
  return state.entry(outer).loop()->body.get() == state.entry(inner).stmt.get();
}

}  // namespace

bool HasBoundLoopAbove(const ScheduleState& state, int block, const char* prefix) {
  for (int loop : state.LoopsAbove(block)) {
    const ir::ForNode* f = state.entry(loop).loop();
    if (f->for_kind == ir::ForKind::kThreadBinding && f->thread_tag.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

bool BindBlockThreads(Schedule& sch, BlockRV block, const ThreadBindConfig& config) {
  const ScheduleState& state = sch.state();
  int index = state.FindBlock(sch.Get(block)->name);
  if (HasBoundLoopAbove(state, index, "blockIdx")) return false;
  bool has_threads = HasBoundLoopAbove(state, index, "threadIdx");
  std::vector<int> loops = state.LoopsAbove(index);
  // The outer loops that may become the grid: serial, constant, perfectly nested, spatial for
  // every block under them.
  size_t n = 0;
  int64_t extent = 1;
  for (size_t i = 0; i < loops.size(); ++i) {
    const ir::ForNode* f = state.entry(loops[i]).loop();
    auto e = ir::AsConstInt(f->extent);
    if (f->for_kind != ir::ForKind::kSerial || !e) break;
    if (i > 0 && !DirectlyNested(state, loops[i - 1], loops[i])) break;
    bool spatial = true;
    for (const LoopUse& use : BlocksUsingLoop(state, loops[i])) spatial &= use.use.only_spatial();
    if (!spatial) break;
    ++n;
    extent *= *e;
  }
  std::vector<LoopRV> rvs = sch.GetLoops(block);
  LoopRV fused = n == 0   ? (rvs.empty() ? sch.AddUnitLoop(block) : sch.AddUnitLoop(rvs.front()))
                 : n == 1 ? rvs.front()
                          : sch.Fuse(std::vector<LoopRV>(rvs.begin(), rvs.begin() + n));
  if (has_threads) {
    sch.Bind(fused, "blockIdx.x");
    return true;
  }
  std::vector<int64_t> candidates;
  for (int64_t t : config.thread_extents) {
    if (t <= config.max_threads_per_block && t <= extent) candidates.push_back(t);
  }
  Factor threads = std::min({extent, config.default_threads, config.max_threads_per_block});
  int64_t max_threads = threads.value;
  if (!candidates.empty()) {
    std::vector<double> probs(candidates.size(), 1.0 / static_cast<double>(candidates.size()));
    threads = sch.SampleCategorical(candidates, probs);
    max_threads = *std::max_element(candidates.begin(), candidates.end());
  }
  if (extent > config.max_threadblocks * max_threads) {
    std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, config.max_threadblocks, threads});
    sch.Reorder({parts[1], parts[2], parts[0]});
    sch.Bind(parts[1], "blockIdx.x");
    sch.Bind(parts[2], "threadIdx.x");
  } else {
    std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, threads});
    sch.Bind(parts[0], "blockIdx.x");
    sch.Bind(parts[1], "threadIdx.x");
  }
  return true;
}

ir::PrimFunc DefaultGpuSchedule(const ir::PrimFunc& func, int64_t threads_per_block) {
  Schedule sch(func);
  std::vector<std::string> blocks = BlocksInPostOrder(sch.state());
  if (blocks.empty()) return func;
  std::vector<std::string> top;
  for (int child : sch.state().ChildBlocks(sch.state().FindBlock(blocks.back()))) {
    top.push_back(sch.state().entry(child).block()->name);
  }
  ThreadBindConfig config;
  config.default_threads = threads_per_block;
  config.max_threads_per_block = threads_per_block;
  for (const std::string& name : top) BindBlockThreads(sch, sch.GetBlock(name), config);
  return sch.func();
}

}  // namespace kiln::search
