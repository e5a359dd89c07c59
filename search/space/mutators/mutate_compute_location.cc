// Mutate-compute-location: another place for a block that random_compute_location moved.
// The valid places depend on everything before the sampling instruction, so that prefix of
// the trace is replayed on the task's workload to count them.
#include "search/schedule/schedule.h"
#include "search/space/mutators/mutators.h"

namespace kiln::search {

namespace {

class MutateComputeLocation : public Mutator {
 public:
  std::string Name() const override { return "mutate_compute_location"; }
  void Initialize(const TuneContext& context) override { workload_ = context.workload; }
  std::unique_ptr<Mutator> Clone() const override {
    return std::make_unique<MutateComputeLocation>(*this);
  }

  std::optional<Trace> Apply(const Trace& trace, RandomEngine& rng) override {
    std::vector<size_t> sites;
    for (const auto& [index, decision] : trace.decisions()) {
      if (trace.instructions()[index].kind == "SampleComputeLocation") sites.push_back(index);
    }
    while (!sites.empty()) {
      size_t pick = rng.UniformInt(0, static_cast<int64_t>(sites.size()));
      size_t site = sites[pick];
      sites.erase(sites.begin() + static_cast<std::ptrdiff_t>(pick));
      int64_t count = 0;
      try {
        // A fresh schedule numbers random variables as the trace defines them, so the
        // instruction's input names the same block here.
        Schedule sch(workload_);
        trace.Prefix(site).ApplyTo(sch);
        count = sch.NumComputeLocations(trace.instructions()[site].inputs[0].block());
      } catch (const Error&) {
        continue;
      }
      // Decisions -1 (root) .. count - 1, the current one excluded.
      if (count == 0) continue;
      int64_t old = trace.decisions().at(site).get<int64_t>();
      int64_t choice = rng.UniformInt(-1, count - 1);
      if (choice >= old) ++choice;
      return trace.WithDecision(site, nlohmann::json(choice));
    }
    return std::nullopt;
  }

 private:
  ir::PrimFunc workload_;
};

}  // namespace

std::unique_ptr<Mutator> MakeMutateComputeLocation() {
  return std::make_unique<MutateComputeLocation>();
}

}  // namespace kiln::search
