// The dataset tool's random multi-level tiling.
#include "cost_model/tools/random_tiling.h"

#include <vector>

#include "search/schedule/schedule.h"
#include "support/error.h"

namespace kiln::cost_model::tools {

using search::ExprRV;
using search::LoopRV;
using search::Schedule;

namespace {

bool Coin(Schedule& sch, double p) {
  return static_cast<double>(sch.rng().UniformInt(0, 1000)) < p * 1000;
}

std::vector<search::Factor> Factors(const std::vector<ExprRV>& rvs) {
  return std::vector<search::Factor>(rvs.begin(), rvs.end());
}

}  // namespace

std::optional<search::Trace> SampleRandomTiling(const ir::PrimFunc& workload,
                                                const RandomTilingOptions& options, uint64_t seed) {
  Schedule sch(workload, seed);
  try {
    if (!options.inline_block.empty()) sch.ComputeInline(sch.GetBlock(options.inline_block));
    search::BlockRV block = sch.GetBlock(options.block);
    std::vector<ir::IterKind> kinds;
    for (const ir::IterVar& iv : sch.Get(block)->iter_vars) kinds.push_back(iv.kind);
    std::vector<LoopRV> loops = sch.GetLoops(block);
    // levels[l]: the loops of tiling level l, in axis order. Spatial axes use levels
    // 0, 1, 3, 5; reduction axes 2 and 4 (SSRSRS).
    std::vector<std::vector<LoopRV>> levels(6);
    for (size_t a = 0; a < loops.size(); ++a) {
      bool spatial = kinds[a] == ir::IterKind::kSpatial;
      int n = spatial ? 4 : 2;
      std::vector<ExprRV> tiles = sch.SamplePerfectTile(loops[a], n, options.max_innermost);
      std::vector<LoopRV> split = sch.Split(loops[a], Factors(tiles));
      const int spatial_levels[] = {0, 1, 3, 5};
      const int reduce_levels[] = {2, 4};
      for (int i = 0; i < n; ++i) {
        levels[spatial ? spatial_levels[i] : reduce_levels[i]].push_back(split[i]);
      }
    }
    std::vector<LoopRV> order;
    for (const auto& level : levels) order.insert(order.end(), level.begin(), level.end());
    sch.Reorder(order);

    if (Coin(sch, 0.5)) {
      search::BlockRV cache = sch.CacheWrite(block, 0, "local");
      const auto& at = Coin(sch, 0.5) ? levels[1] : levels[3];
      sch.ReverseComputeAt(cache, at.back());
    }
    // Parallel over the fused outermost tiles (or their first axes only).
    std::vector<LoopRV> outer = levels[0];
    if (outer.size() > 2 && Coin(sch, 0.5)) outer.resize(2);
    LoopRV fused = outer.size() > 1 ? sch.Fuse(outer) : outer[0];
    sch.Parallel(fused);
    if (Coin(sch, 0.8)) sch.Vectorize(levels[5].back());
    if (Coin(sch, 0.5)) {
      for (const LoopRV& r : levels[4]) sch.Unroll(r);
    }
    if (Coin(sch, 0.5)) sch.DecomposeReduction(block, levels[2].front());
  } catch (const Error&) {
    return std::nullopt;
  }
  return sch.trace();
}

}  // namespace kiln::cost_model::tools
