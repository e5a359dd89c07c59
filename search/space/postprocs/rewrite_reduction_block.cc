// Rewrite-reduction-block (MetaSchedule's RewriteReductionBlock): the init of a reduction
// block is a branch in its innermost loop until it is decomposed; placed before the
// outermost reduction loop, it runs once per output element and the update loop is plain.
#include "search/space/block_info.h"
#include "search/space/postprocs/postprocs.h"

namespace kiln::search {

namespace {

class RewriteReductionBlock : public Postproc {
 public:
  std::string Name() const override { return "rewrite_reduction_block"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Postproc> Clone() const override {
    return std::make_unique<RewriteReductionBlock>(*this);
  }
  bool Apply(Schedule& sch) override {
    // Names first: decomposing renames blocks and re-indexes the state.
    for (const std::string& name : BlocksInPostOrder(sch.state())) {
      int index = sch.state().FindBlock(name);
      if (index < 0 || !sch.state().entry(index).block()->init.defined()) continue;
      std::vector<LoopUseKind> kinds = LoopUseKinds(sch.state(), index);
      size_t first = 0;
      while (first < kinds.size() && kinds[first] != LoopUseKind::kReduce &&
             kinds[first] != LoopUseKind::kMixed) {
        ++first;
      }
      if (first == kinds.size()) continue;  // no reduction loop: the init stays
      BlockRV block = sch.GetBlock(name);
      std::vector<LoopRV> loops = sch.GetLoops(block);
      sch.DecomposeReduction(block, loops[first]);
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Postproc> MakeRewriteReductionBlock() {
  return std::make_unique<RewriteReductionBlock>();
}

}  // namespace kiln::search
