// Mutate-parallel: another parallel budget for the root block (how many outer iterations the
// postprocessor fuses into the parallel loop): the cores times a power of two, up to the
// rule's jobs per core. The budget is a constant of the Annotate call, not a decision, as in
// MetaSchedule, so the mutated trace has that input changed.
#include "search/space/mutators/mutators.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

class MutateParallel : public Mutator {
 public:
  std::string Name() const override { return "mutate_parallel"; }
  void Initialize(const TuneContext& context) override {
    num_cores_ = std::max(1, context.num_cores);
  }
  std::unique_ptr<Mutator> Clone() const override {
    return std::make_unique<MutateParallel>(*this);
  }

  std::optional<Trace> Apply(const Trace& trace, RandomEngine& rng) override {
    const auto& insts = trace.instructions();
    for (size_t i = 0; i < insts.size(); ++i) {
      const Instruction& inst = insts[i];
      if (inst.kind != "Annotate" || inst.inputs.size() != 2 ||
          inst.inputs[1].kind != ArgKind::kInt || inst.attrs.empty() ||
          inst.attrs[0] != kParallelAnnotation) {
        continue;
      }
      int64_t old = inst.inputs[1].value;
      std::vector<int64_t> budgets;
      for (int64_t b = num_cores_; b <= std::max<int64_t>(old, int64_t{16} * num_cores_); b *= 2) {
        if (b != old) budgets.push_back(b);
      }
      if (budgets.empty()) return std::nullopt;
      int64_t budget = budgets[rng.UniformInt(0, static_cast<int64_t>(budgets.size()))];
      Trace result;
      for (size_t k = 0; k < insts.size(); ++k) {
        Instruction copy = insts[k];
        if (k == i) copy.inputs[1] = InstArg::Int(budget);
        result.Append(std::move(copy), trace.GetDecision(k));
      }
      return result;
    }
    return std::nullopt;
  }

 private:
  int num_cores_ = 1;
};

}  // namespace

std::unique_ptr<Mutator> MakeMutateParallel() { return std::make_unique<MutateParallel>(); }

}  // namespace kiln::search
