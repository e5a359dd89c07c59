// Disallow-dynamic-loop: a loop of symbolic extent cannot be tiled or timed at one size, so
// such a candidate is rejected (as MetaSchedule's DisallowDynamicLoop).
#include "ir/expr.h"
#include "search/space/postprocs/postprocs.h"

namespace kiln::search {

namespace {

class DisallowDynamicLoop : public Postproc {
 public:
  std::string Name() const override { return "disallow_dynamic_loop"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Postproc> Clone() const override {
    return std::make_unique<DisallowDynamicLoop>(*this);
  }
  bool Apply(Schedule& sch) override {
    const ScheduleState& state = sch.state();
    for (size_t i = 0; i < state.size(); ++i) {
      const ir::ForNode* loop = state.entry(static_cast<int>(i)).loop();
      if (loop && !ir::AsConstInt(loop->extent)) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Postproc> MakeDisallowDynamicLoop() {
  return std::make_unique<DisallowDynamicLoop>();
}

}  // namespace kiln::search
