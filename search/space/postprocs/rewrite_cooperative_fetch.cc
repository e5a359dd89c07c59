// Rewrite-cooperative-fetch (MetaSchedule's RewriteCooperativeFetch): the GPU tiling rule
// marks the fused loop of each shared-memory copy with a vector length; once the candidate's
// thread count is known, the loop is split into [rest, threads, lanes], the middle bound to
// threadIdx.x (the same index as the compute's threads: every thread copies its share) and
// the lanes vectorized.
#include "ir/expr.h"
#include "search/space/postprocs/postprocs.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

class RewriteCooperativeFetch : public Postproc {
 public:
  std::string Name() const override { return "rewrite_cooperative_fetch"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Postproc> Clone() const override {
    return std::make_unique<RewriteCooperativeFetch>(*this);
  }

  bool Apply(Schedule& sch) override {
    // One loop at a time: each rewrite re-indexes the state.
    while (true) {
      int loop = FindAnnotatedLoop(sch.state());
      if (loop < 0) return true;
      if (!Rewrite(sch, loop)) return false;
    }
  }

 private:
  static int FindAnnotatedLoop(const ScheduleState& state) {
    for (int i = 0; i < static_cast<int>(state.size()); ++i) {
      const ir::ForNode* loop = state.entry(i).loop();
      if (loop && loop->annotations.count(kCooperativeFetchAnnotation)) return i;
    }
    return -1;
  }

  static bool Rewrite(Schedule& sch, int index) {
    const ScheduleState& state = sch.state();
    const ir::ForNode* loop = state.entry(index).loop();
    auto lanes = ir::AsConstInt(loop->annotations.at(kCooperativeFetchAnnotation));
    auto extent = ir::AsConstInt(loop->extent);
    int64_t threads = 0;
    for (int above : state.LoopsAbove(index)) {
      const ir::ForNode* f = state.entry(above).loop();
      if (f->for_kind == ir::ForKind::kThreadBinding && f->thread_tag == "threadIdx.x") {
        auto e = ir::AsConstInt(f->extent);
        if (e) threads = *e;
      }
    }
    std::vector<int> blocks = state.BlocksUnder(index);
    if (!lanes || !extent || threads <= 0 || blocks.empty()) return false;
    BlockRV block = sch.GetBlock(state.entry(blocks.front()).block()->name);
    std::optional<LoopRV> rv;
    for (LoopRV l : sch.GetLoops(block)) {
      if (sch.Get(l) == loop) rv = l;
    }
    if (!rv) return false;
    sch.Unannotate(*rv, kCooperativeFetchAnnotation);
    // A vector must not straddle the edge of the copy: lanes only where they divide evenly.
    if (*lanes > 1 && *extent % (threads * *lanes) == 0) {
      std::vector<LoopRV> parts = sch.Split(*rv, {std::nullopt, threads, *lanes});
      sch.Bind(parts[1], "threadIdx.x");
      sch.Vectorize(parts[2]);
    } else {
      std::vector<LoopRV> parts = sch.Split(*rv, {std::nullopt, threads});
      sch.Bind(parts[1], "threadIdx.x");
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Postproc> MakeRewriteCooperativeFetch() {
  return std::make_unique<RewriteCooperativeFetch>();
}

}  // namespace kiln::search
