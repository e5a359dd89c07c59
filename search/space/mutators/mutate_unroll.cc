// Mutate-unroll: another step for the unroll budget, drawn among the candidates the rule
// offered (the categorical that feeds the root block's unroll annotation).
#include "search/space/mutators/mutators.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

class MutateUnroll : public Mutator {
 public:
  std::string Name() const override { return "mutate_unroll"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Mutator> Clone() const override { return std::make_unique<MutateUnroll>(*this); }

  std::optional<Trace> Apply(const Trace& trace, RandomEngine& rng) override {
    const auto& insts = trace.instructions();
    // Which sampled values feed an unroll annotation.
    std::vector<int64_t> unroll_values;
    for (const Instruction& inst : insts) {
      if (inst.kind != "Annotate" || inst.inputs.size() != 2 || !inst.attrs.is_array() ||
          inst.attrs.empty() || inst.inputs[1].kind != ArgKind::kExpr) {
        continue;
      }
      std::string key = inst.attrs[0].get<std::string>();
      if (key == kUnrollExplicitAnnotation || key == kUnrollImplicitAnnotation) {
        unroll_values.push_back(inst.inputs[1].value);
      }
    }
    std::vector<size_t> sites;
    for (const auto& [index, decision] : trace.decisions()) {
      const Instruction& inst = insts[index];
      if (inst.kind != "SampleCategorical" || inst.outputs.size() != 1 ||
          inst.attrs[0].size() < 2) {
        continue;
      }
      for (int64_t id : unroll_values) {
        if (id == inst.outputs[0].value) sites.push_back(index);
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

std::unique_ptr<Mutator> MakeMutateUnroll() { return std::make_unique<MutateUnroll>(); }

}  // namespace kiln::search
