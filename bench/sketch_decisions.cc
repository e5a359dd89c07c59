// Choosing a sketch's decisions by hand.
#include "bench/sketch_decisions.h"

namespace kiln::bench {

std::optional<search::Trace> WithDecisions(const search::Trace& sketch,
                                           const SketchDecisions& decisions) {
  const auto& insts = sketch.instructions();
  search::Trace chosen = sketch;
  size_t tile = 0;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].kind == "SamplePerfectTile" && tile < decisions.tiles.size()) {
      chosen = chosen.WithDecision(i, nlohmann::json(decisions.tiles[tile++]));
    } else if (insts[i].kind == "SampleCategorical") {
      const auto& candidates = insts[i].attrs[0];
      for (size_t c = 0; c < candidates.size(); ++c) {
        if (candidates[c].get<int64_t>() == decisions.unroll_step) {
          chosen = chosen.WithDecision(i, nlohmann::json(static_cast<int64_t>(c)));
        }
      }
    } else if (insts[i].kind == "SampleComputeLocation" && decisions.compute_location) {
      chosen = chosen.WithDecision(i, nlohmann::json(*decisions.compute_location));
    }
  }
  if (tile != decisions.tiles.size()) return std::nullopt;
  return chosen;
}

}  // namespace kiln::bench
