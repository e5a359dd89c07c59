// Verify: the last postprocessor, rejecting candidates that the code generator would build
// badly or not at all: a parallel loop inside another (nested thread pools), a vectorized
// loop that holds another loop or is not of constant extent (it cannot become one vector
// statement). Cheap structural checks, so that no build is spent on such a candidate.
#include "ir/expr.h"
#include "search/space/postprocs/postprocs.h"

namespace kiln::search {

namespace {

class Verify : public Postproc {
 public:
  std::string Name() const override { return "verify"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Postproc> Clone() const override { return std::make_unique<Verify>(*this); }
  bool Apply(Schedule& sch) override {
    const ScheduleState& state = sch.state();
    for (int i = 0; i < static_cast<int>(state.size()); ++i) {
      const ir::ForNode* loop = state.entry(i).loop();
      if (loop == nullptr) continue;
      if (loop->for_kind == ir::ForKind::kVectorized) {
        if (!ir::AsConstInt(loop->extent)) return false;
        for (int j = i + 1; j < state.entry(i).end; ++j) {
          if (state.entry(j).loop()) return false;
        }
      }
      if (loop->for_kind == ir::ForKind::kParallel) {
        for (int p = state.entry(i).parent; p >= 0; p = state.entry(p).parent) {
          const ir::ForNode* outer = state.entry(p).loop();
          if (outer && outer->for_kind == ir::ForKind::kParallel) return false;
        }
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Postproc> MakeVerify() { return std::make_unique<Verify>(); }

}  // namespace kiln::search
