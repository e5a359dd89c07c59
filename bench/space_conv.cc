// Choosing the hand-written conv2d schedule's decisions in the cpu design space.
#include "bench/space_conv.h"

#include "bench/sketch_decisions.h"
#include "search/space/design_space.h"

namespace kiln::bench {

using search::Instruction;
using search::Trace;

std::optional<search::Candidate> HandLikeConvCandidate(const ir::PrimFunc& workload,
                                                       const ConvTiles& tiles, int num_cores,
                                                       int64_t unroll_step) {
  search::TuneContext context;
  context.workload = workload;
  context.task_name = "conv2d";
  context.num_cores = num_cores;
  search::DesignSpace space = search::MakeDesignSpace("cpu");
  space.Initialize(context);
  search::Schedule probe(workload);
  const ir::BlockNode* block = probe.Get(probe.GetBlock("conv"));
  if (block->iter_vars.size() != 7) return std::nullopt;
  int64_t extents[7];
  for (int i = 0; i < 7; ++i) {
    std::optional<int64_t> e = ir::AsConstInt(block->iter_vars[i].dom.extent);
    if (!e) return std::nullopt;
    extents[i] = *e;
  }
  // n, f, y, x spatial; c, r, s reduction.
  if (extents[1] % tiles.channels != 0 || extents[3] % tiles.cols != 0 ||
      tiles.channels % tiles.lanes != 0) {
    return std::nullopt;
  }
  // The output channels are split by the vector lanes first and the rest tiled.
  std::vector<std::vector<int64_t>> decisions = {
      {extents[0], 1, 1, 1}, {extents[1] / tiles.channels, 1, 1, tiles.channels / tiles.lanes},
      {extents[2], 1, 1, 1}, {1, extents[3] / tiles.cols, 1, tiles.cols},
      {extents[4], 1},       {extents[5], 1},
      {extents[6], 1},
  };
  for (const search::Schedule& sketch : space.Sketches(context)) {
    const Trace& trace = sketch.trace();
    const auto& insts = trace.instructions();
    // The channel-last sketch: the only one that lays out a read cache.
    bool channel_last = false;
    for (size_t i = 1; i < insts.size(); ++i) {
      channel_last |= insts[i].kind == "TransformLayout" && insts[i - 1].kind == "CacheRead";
    }
    if (!channel_last) continue;
    // The padding stays a pass of its own at the root.
    std::optional<Trace> chosen =
        WithDecisions(trace, {decisions, unroll_step, search::kComputeLocationRoot});
    if (!chosen) return std::nullopt;
    return search::ApplyTrace(workload, *chosen, space.postprocs, 1, nullptr);
  }
  return std::nullopt;
}

}  // namespace kiln::bench
