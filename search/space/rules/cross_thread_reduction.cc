// Cross-thread reduction (MetaSchedule's CrossThreadReduction): a reduction whose spatial
// work is too small to fill a thread block (a row sum, a softmax's max, a matrix-vector
// product) is reduced by the threads of a block together. Kiln's GPU lowering has no
// block-wide reduction intrinsic (TVM lowers one to allreduce), so the rule builds it from
// primitives: the reduction loops are fused and split by a sampled thread count (one that
// divides the reduction, as rfactor needs), the inner
// part is factored out (rfactor) into a "shared" buffer of partial results, one per thread,
// computed under the block's grid loop with the factored loop bound to threadIdx.x; the
// write-back block then sums the partials at block level (one thread, after the barrier the
// lowering inserts). The sketch without it is kept too.
#include <algorithm>

#include "search/space/block_info.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

class CrossThreadReduction : public ScheduleRule {
 public:
  explicit CrossThreadReduction(CrossThreadReductionConfig config) : config_(std::move(config)) {}
  std::string Name() const override { return "cross_thread_reduction"; }
  void Initialize(const TuneContext& context) override {
    if (context.max_threads_per_block > 0) max_threads_ = context.max_threads_per_block;
    if (context.warp_size > 0) warp_size_ = context.warp_size;
  }
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<CrossThreadReduction>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    const ScheduleState& state = sch.state();
    int index = state.FindBlock(sch.Get(block)->name);
    if (!NeedsCrossThreadReduction(state, index)) return {sch};
    // rfactor needs whole partials: thread counts that divide the reduction.
    int64_t reduction = ReductionExtent(state.entry(index).block());
    std::vector<int64_t> extents;
    for (int64_t t : config_.thread_extents) {
      if (t <= max_threads_ && reduction % t == 0) extents.push_back(t);
    }
    if (extents.empty()) return {sch};
    std::vector<LoopUseKind> kinds = LoopUseKinds(state, index);
    Schedule copy = sch;
    try {
      std::vector<LoopRV> loops = copy.GetLoops(block);
      std::vector<LoopRV> spatial, reduce;
      for (size_t i = 0; i < loops.size(); ++i) {
        (kinds[i] == LoopUseKind::kReduce ? reduce : spatial).push_back(loops[i]);
      }
      std::vector<LoopRV> order = spatial;
      order.insert(order.end(), reduce.begin(), reduce.end());
      bool reordered = false;
      for (size_t i = 0; i < order.size(); ++i) reordered |= order[i].id != loops[i].id;
      if (reordered) copy.Reorder(order);
      LoopRV fused = reduce.size() == 1 ? reduce.front() : copy.Fuse(reduce);
      std::vector<double> probs(extents.size(), 1.0 / static_cast<double>(extents.size()));
      ExprRV threads = copy.SampleCategorical(extents, probs);
      std::vector<LoopRV> parts = copy.Split(fused, {std::nullopt, threads});
      BlockRV rf = copy.RFactor(parts[1], 0);
      // The write-back block's spatial loops are the grid; the partials are computed under it.
      std::vector<LoopRV> wb_loops = copy.GetLoops(block);
      std::vector<LoopRV> wb_spatial(wb_loops.begin(), wb_loops.end() - 1);
      LoopRV grid = wb_spatial.empty()       ? copy.AddUnitLoop(wb_loops.front())
                    : wb_spatial.size() == 1 ? wb_spatial.front()
                                             : copy.Fuse(wb_spatial);
      copy.Bind(grid, "blockIdx.x");
      copy.ComputeAt(rf, grid, true);
      copy.SetScope(rf, 0, "shared");
      copy.Bind(FactoredLoop(copy, rf), "threadIdx.x");
      return {sch, std::move(copy)};
    } catch (const Error&) {
      return {sch};
    }
  }

 private:
  // As MetaSchedule's NeedsRFactorOrCrossThreadReduction with a block's threads for cores.
  bool NeedsCrossThreadReduction(const ScheduleState& state, int index) const {
    if (IsRootBlock(state, index)) return false;
    const ir::BlockNode* node = state.entry(index).block();
    if (IsSpatialBlock(node) || node->writes.size() != 1 || !HasTrivialBinding(state, index)) {
      return false;
    }
    for (int loop : state.LoopsAbove(index)) {
      if (state.entry(loop).loop()->for_kind != ir::ForKind::kSerial) return false;
    }
    for (LoopUseKind kind : LoopUseKinds(state, index)) {
      if (kind == LoopUseKind::kMixed) return false;
    }
    int64_t space = SpatialExtent(node);
    int64_t reduce = ReductionExtent(node);
    if (space < 0 || reduce <= 1) return false;
    if (NeedsMultiLevelTiling(state, index)) return space < reduce && space <= max_threads_;
    return reduce > warp_size_;
  }

  // The loop of the rfactor block that iterates the factored dimension (its buffer's first).
  static LoopRV FactoredLoop(Schedule& sch, BlockRV rf) {
    const ir::BlockRealizeNode* realize = sch.GetRealize(rf);
    const ir::BlockNode* node = realize->block_node();
    const ir::Expr& index = node->writes.at(0).region.at(0).min;
    for (size_t i = 0; i < node->iter_vars.size(); ++i) {
      if (index.as<ir::VarNode>() != node->iter_vars[i].var.get()) continue;
      const auto* loop_var = realize->iter_values[i].as<ir::VarNode>();
      for (LoopRV loop : sch.GetLoops(rf)) {
        if (loop_var && sch.Get(loop)->loop_var.get() == loop_var) return loop;
      }
    }
    throw Error(ErrorKind::kSchedule, "cross_thread_reduction: the factored loop of " + node->name +
                                          " is not one of its loops");
  }

  CrossThreadReductionConfig config_;
  int64_t max_threads_ = 1024;
  int64_t warp_size_ = 32;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeCrossThreadReduction(CrossThreadReductionConfig config) {
  return std::make_unique<CrossThreadReduction>(std::move(config));
}

}  // namespace kiln::search
