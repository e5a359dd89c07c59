// Random compute location (MetaSchedule's RandomComputeLocation): a producer left alone at
// the top of the root scope (a padding block, an rfactor block) is computed under a loop of
// its consumers that the sampler picks, or left where it is (the root mark). Where it goes is
// a decision, so the search and the compute-location mutator explore it.
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

// A block alone under the outermost loop above it, directly in the root scope, not tiled,
// with consumers: one that can move.
bool IsMovable(const ScheduleState& state, int index) {
  if (IsRootBlock(state, index)) return false;
  int scope = state.ScopeOf(index);
  if (!IsRootBlock(state, scope)) return false;
  std::vector<int> loops = state.LoopsAbove(index);
  if (loops.empty() || state.BlocksUnder(loops.front()).size() != 1) return false;
  const ir::BlockNode* node = state.entry(index).block();
  if (node->annotations.count(kTiledAnnotation)) return false;
  return !IsOutputBlock(state, index);
}

class RandomComputeLocation : public ScheduleRule {
 public:
  std::string Name() const override { return "random_compute_location"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<RandomComputeLocation>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    const ScheduleState& state = sch.state();
    const ir::BlockNode* node = sch.Get(block);
    int index = state.FindBlock(node->name);
    Schedule result = sch;
    bool changed = false;
    if (IsMovable(state, index)) changed |= Move(result, block);
    if (node->annotations.count(kRandomComputeProducer)) {
      result.Unannotate(block, kRandomComputeProducer);
      changed = true;
      for (BlockRV producer : result.GetProducers(block)) Move(result, producer);
    }
    if (!changed) return {sch};
    return {std::move(result)};
  }

 private:
  static bool Move(Schedule& sch, BlockRV block) {
    Schedule trial = sch;
    try {
      LoopRV location = trial.SampleComputeLocation(block);
      trial.ComputeAt(block, location, true);
    } catch (const Error&) {
      return false;
    }
    sch = std::move(trial);
    return true;
  }
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeRandomComputeLocation() {
  return std::make_unique<RandomComputeLocation>();
}

}  // namespace kiln::search
