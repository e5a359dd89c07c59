// Add-rfactor (MetaSchedule's AddRFactor): a reduction with little spatial parallelism (a
// sum over a long row, a matrix-vector product) cannot fill the cores by its spatial loops,
// so its reduction is split in two by a sampled tiling and one of the two parts is factored
// out into a spatial iteration of a new rfactor block, which can then be parallelized. One
// sketch per part, plus the split reduction without rfactor.
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

class AddRFactor : public ScheduleRule {
 public:
  explicit AddRFactor(AddRFactorConfig config) : config_(config) {}
  std::string Name() const override { return "add_rfactor"; }
  void Initialize(const TuneContext& context) override {
    num_cores_ = std::max(1, context.num_cores);
  }
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<AddRFactor>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    const ScheduleState& state = sch.state();
    const ir::BlockNode* node = sch.Get(block);
    int index = state.FindBlock(node->name);
    if (!NeedsRFactor(state, index)) return {sch};
    std::vector<LoopUseKind> kinds = LoopUseKinds(state, index);
    Schedule base = sch;
    std::vector<LoopRV> loops = base.GetLoops(block);
    std::vector<LoopRV> spatial, reduce;
    for (size_t i = 0; i < loops.size(); ++i) {
      (kinds[i] == LoopUseKind::kReduce ? reduce : spatial).push_back(loops[i]);
    }
    try {
      std::vector<LoopRV> order = spatial;
      order.insert(order.end(), reduce.begin(), reduce.end());
      bool reordered = false;
      for (size_t i = 0; i < order.size(); ++i) reordered |= order[i].id != loops[i].id;
      if (reordered) base.Reorder(order);
      LoopRV fused = reduce.size() == 1 ? reduce.front() : base.Fuse(reduce);
      std::vector<ExprRV> factors = base.SamplePerfectTile(fused, 2, config_.max_innermost_factor);
      std::vector<LoopRV> parts = base.Split(fused, {factors[0], factors[1]});
      std::vector<Schedule> result;
      int factor_axis = static_cast<int>(node->writes[0].region.size());
      for (LoopRV part : parts) {
        Schedule copy = base;
        try {
          copy.RFactor(part, factor_axis);
          copy.Annotate(block, kRandomComputeProducer, int64_t{1});
          result.push_back(std::move(copy));
        } catch (const Error&) {
          // This part cannot be factored (an unsupported reducer).
        }
      }
      result.push_back(std::move(base));
      return result;
    } catch (const Error&) {
      return {sch};
    }
  }

 private:
  bool NeedsRFactor(const ScheduleState& state, int index) const {
    if (IsRootBlock(state, index)) return false;
    const ir::BlockNode* node = state.entry(index).block();
    if (IsSpatialBlock(node) || node->writes.size() != 1 || !HasTrivialBinding(state, index)) {
      return false;
    }
    for (LoopUseKind kind : LoopUseKinds(state, index)) {
      if (kind == LoopUseKind::kMixed) return false;
    }
    int64_t space = SpatialExtent(node);
    int64_t reduce = ReductionExtent(node);
    if (space < 0 || reduce <= 1) return false;
    int64_t max_parallel = int64_t{config_.max_jobs_per_core} * num_cores_;
    if (NeedsMultiLevelTiling(state, index)) return space < reduce && space <= max_parallel;
    return reduce > num_cores_;
  }

  AddRFactorConfig config_;
  int num_cores_ = 1;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeAddRFactor(AddRFactorConfig config) {
  return std::make_unique<AddRFactor>(config);
}

}  // namespace kiln::search
