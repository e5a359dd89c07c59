// Replay-trace: the baseline strategy. Every candidate is a sketch replayed with fresh
// random decisions and postprocessed; nothing is learned from measurements. A guided search
// must beat it at equal trials.
#pragma once

#include <unordered_set>

#include "search/schedule/random.h"
#include "search/strategy/search_strategy.h"

namespace kiln::search {

struct ReplayTraceOptions {
  // Draws allowed per wanted candidate before a round gives up (the space may be small).
  int max_draws_per_candidate = 16;
};

class ReplayTraceStrategy : public SearchStrategy {
 public:
  ReplayTraceStrategy(const TuneContext& context, DesignSpace space,
                      ReplayTraceOptions options = {});
  std::string Name() const override { return "random"; }
  std::vector<SearchCandidate> Generate(int n) override;
  void Notify(const std::vector<SearchCandidate>& candidates,
              const std::vector<double>& run_seconds) override;
  const SearchStats& Stats() const override { return stats_; }

 private:
  ir::PrimFunc workload_;
  DesignSpace space_;
  std::vector<Trace> sketches_;
  ReplayTraceOptions options_;
  RandomEngine rng_;
  std::unordered_set<uint64_t> proposed_;
  SearchStats stats_;
};

}  // namespace kiln::search
