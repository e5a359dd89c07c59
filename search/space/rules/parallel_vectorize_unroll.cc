// Parallel-vectorize-unroll (MetaSchedule's ParallelizeVectorizeUnroll): the rule only marks
// the root block with how much to parallelize and vectorize and a sampled unroll step; which
// loops that means is decided per candidate by rewrite_parallel_vectorize_unroll, once the
// tile sizes are known.
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"
#include "support/error.h"

namespace kiln::search {

namespace {

class ParallelVectorizeUnroll : public ScheduleRule {
 public:
  explicit ParallelVectorizeUnroll(ParallelVectorizeUnrollConfig config)
      : config_(std::move(config)) {}
  std::string Name() const override { return "parallel_vectorize_unroll"; }
  void Initialize(const TuneContext& context) override {
    num_cores_ = std::max(1, context.num_cores);
  }
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<ParallelVectorizeUnroll>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    int index = sch.state().FindBlock(sch.Get(block)->name);
    if (!IsRootBlock(sch.state(), index)) return {sch};
    Schedule result = sch;
    if (config_.max_jobs_per_core > 0) {
      result.Annotate(block, kParallelAnnotation, int64_t{config_.max_jobs_per_core} * num_cores_);
    }
    if (config_.max_vectorize_extent > 0) {
      result.Annotate(block, kVectorizeAnnotation, int64_t{config_.max_vectorize_extent});
    }
    if (!config_.unroll_max_steps.empty()) {
      std::vector<double> probs(config_.unroll_max_steps.size(),
                                1.0 / static_cast<double>(config_.unroll_max_steps.size()));
      ExprRV step = result.SampleCategorical(config_.unroll_max_steps, probs);
      result.Annotate(
          block, config_.unroll_explicit ? kUnrollExplicitAnnotation : kUnrollImplicitAnnotation,
          step);
    }
    return {std::move(result)};
  }

 private:
  ParallelVectorizeUnrollConfig config_;
  int num_cores_ = 1;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeParallelVectorizeUnroll(ParallelVectorizeUnrollConfig config) {
  return std::make_unique<ParallelVectorizeUnroll>(std::move(config));
}

}  // namespace kiln::search
