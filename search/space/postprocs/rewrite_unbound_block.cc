// Rewrite-unbound-block (MetaSchedule's RewriteUnboundBlock): a GPU runs nothing outside a
// kernel, so every block at the top of the root scope that the rules left without a grid (a
// padding stage, a block a rule could not bind) is bound with a fixed thread count.
#include "search/space/block_info.h"
#include "search/space/postprocs/postprocs.h"
#include "search/space/thread_binding.h"

namespace kiln::search {

namespace {

class RewriteUnboundBlock : public Postproc {
 public:
  explicit RewriteUnboundBlock(int64_t threads) : threads_(threads) {}
  std::string Name() const override { return "rewrite_unbound_block"; }
  void Initialize(const TuneContext& context) override {
    max_threads_ = context.max_threads_per_block > 0 ? context.max_threads_per_block : 1024;
  }
  std::unique_ptr<Postproc> Clone() const override {
    return std::make_unique<RewriteUnboundBlock>(*this);
  }

  bool Apply(Schedule& sch) override {
    std::vector<std::string> blocks = BlocksInPostOrder(sch.state());
    if (blocks.empty()) return true;
    std::vector<std::string> top;
    for (int child : sch.state().ChildBlocks(sch.state().FindBlock(blocks.back()))) {
      top.push_back(sch.state().entry(child).block()->name);
    }
    ThreadBindConfig config;
    config.default_threads = std::min(threads_, max_threads_);
    config.max_threads_per_block = max_threads_;
    for (const std::string& name : top) {
      try {
        BindBlockThreads(sch, sch.GetBlock(name), config);
      } catch (const Error&) {
        return false;
      }
    }
    return true;
  }

 private:
  int64_t threads_;
  int64_t max_threads_ = 1024;
};

}  // namespace

std::unique_ptr<Postproc> MakeRewriteUnboundBlock(int64_t threads_per_block) {
  return std::make_unique<RewriteUnboundBlock>(threads_per_block);
}

}  // namespace kiln::search
