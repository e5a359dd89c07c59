// Auto-inline (MetaSchedule's AutoInline for the CPU, into consumers only): an elementwise
// producer that is not a kernel output disappears into its consumers, which saves a pass
// over memory. It stays when it calls an expensive intrinsic (each consumer would recompute
// it) or selects (a padding block would put a branch in its consumer's inner loop).
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

class AutoInline : public ScheduleRule {
 public:
  std::string Name() const override { return "auto_inline"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<AutoInline>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    const ScheduleState& state = sch.state();
    const ir::BlockNode* node = sch.Get(block);
    int index = state.FindBlock(node->name);
    if (IsRootBlock(state, index) || IsOutputBlock(state, index) || !IsSpatialBlock(node) ||
        node->init.defined() || CallsExpensiveIntrinsic(node) || HasSelect(node) ||
        !HasTrivialBinding(state, index)) {
      return {sch};
    }
    Schedule result = sch;
    try {
      result.ComputeInline(block);
    } catch (const Error&) {
      return {sch};  // not inlinable (several stores, an opaque access...)
    }
    return {std::move(result)};
  }
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeAutoInline() { return std::make_unique<AutoInline>(); }

}  // namespace kiln::search
