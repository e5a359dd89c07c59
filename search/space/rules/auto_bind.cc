// Auto-bind (MetaSchedule's AutoBind): every block that no other rule put on the GPU's grid
// (an elementwise stage, a reduction left whole) gets its outer spatial loops fused and split
// into thread blocks and threads, the thread count a sampled choice; a block that already
// has threads (a cross-thread reduction) gets only the grid.
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"
#include "search/space/thread_binding.h"

namespace kiln::search {

namespace {

class AutoBind : public ScheduleRule {
 public:
  explicit AutoBind(AutoBindConfig config) : config_(std::move(config)) {}
  std::string Name() const override { return "auto_bind"; }
  void Initialize(const TuneContext& context) override {
    if (context.max_threads_per_block > 0) max_threads_ = context.max_threads_per_block;
  }
  std::unique_ptr<ScheduleRule> Clone() const override { return std::make_unique<AutoBind>(*this); }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    const ScheduleState& state = sch.state();
    int index = state.FindBlock(sch.Get(block)->name);
    if (IsRootBlock(state, index) || !state.ChildBlocks(index).empty()) return {sch};
    // Only a block at the top of the root scope starts a kernel; one computed under another
    // block's loops runs in that block's kernel.
    std::vector<std::string> order = BlocksInPostOrder(state);
    if (state.ScopeOf(index) != state.FindBlock(order.back())) return {sch};
    Schedule copy = sch;
    try {
      ThreadBindConfig bind;
      bind.thread_extents = config_.thread_extents;
      bind.max_threads_per_block = max_threads_;
      bind.max_threadblocks = config_.max_threadblocks;
      if (BindBlockThreads(copy, block, bind)) return {std::move(copy)};
    } catch (const Error&) {
      // The block's loops cannot be bound this way; rewrite_unbound_block tries again.
    }
    return {sch};
  }

 private:
  AutoBindConfig config_;
  int64_t max_threads_ = 1024;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeAutoBind(AutoBindConfig config) {
  return std::make_unique<AutoBind>(std::move(config));
}

}  // namespace kiln::search
