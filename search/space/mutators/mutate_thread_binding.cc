// Mutate-thread-binding (MetaSchedule's MutateThreadBinding): another thread count for a
// block bound by auto-bind or reduced across threads, i.e. another choice of a
// SampleCategorical whose value is a split factor (the unroll and vector-length categoricals
// feed annotations, not splits).
#include <unordered_set>

#include "search/space/mutators/mutators.h"

namespace kiln::search {

namespace {

class MutateThreadBinding : public Mutator {
 public:
  std::string Name() const override { return "mutate_thread_binding"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Mutator> Clone() const override {
    return std::make_unique<MutateThreadBinding>(*this);
  }

  std::optional<Trace> Apply(const Trace& trace, RandomEngine& rng) override {
    const auto& insts = trace.instructions();
    std::unordered_set<int64_t> factors;
    for (const Instruction& inst : insts) {
      if (inst.kind != "Split") continue;
      for (size_t i = 1; i < inst.inputs.size(); ++i) {
        if (inst.inputs[i].kind == ArgKind::kExpr) factors.insert(inst.inputs[i].value);
      }
    }
    std::vector<size_t> sites;
    for (const auto& [index, decision] : trace.decisions()) {
      const Instruction& inst = insts[index];
      if (inst.kind == "SampleCategorical" && inst.outputs.size() == 1 &&
          inst.attrs[0].size() >= 2 && factors.count(inst.outputs[0].value)) {
        sites.push_back(index);
      }
    }
    if (sites.empty()) return std::nullopt;
    size_t site = sites[rng.UniformInt(0, static_cast<int64_t>(sites.size()))];
    int64_t count = static_cast<int64_t>(insts[site].attrs[0].size());
    int64_t old = trace.decisions().at(site).get<int64_t>();
    int64_t choice = rng.UniformInt(0, count - 1);
    if (choice >= old) ++choice;
    return trace.WithDecision(site, nlohmann::json(choice));
  }
};

}  // namespace

std::unique_ptr<Mutator> MakeMutateThreadBinding() {
  return std::make_unique<MutateThreadBinding>();
}

}  // namespace kiln::search
