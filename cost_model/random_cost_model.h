// RandomCostModel: uniform random scores, learning nothing: the search's baseline
// (`tune run --cost-model random`), and a known model for tests that drive the search.
#pragma once

#include <cstdint>
#include <memory>

#include "search/schedule/random.h"
#include "search/strategy/cost_model.h"

namespace kiln::cost_model {

class RandomCostModel : public search::CostModel {
 public:
  explicit RandomCostModel(uint64_t seed = 1) : rng_(seed) {}
  void Update(const search::TuneContext&, const std::vector<search::CostModelCandidate>&,
              const std::vector<double>&) override {}
  // Scores uniform in [0, 1).
  std::vector<double> Predict(const search::TuneContext& context,
                              const std::vector<search::CostModelCandidate>& candidates) override;
  // Nothing is learned: the state is empty.
  std::vector<uint8_t> Save() const override { return {}; }
  void Load(const std::vector<uint8_t>&) override {}

 private:
  search::RandomEngine rng_;
};

std::unique_ptr<search::CostModel> MakeRandomCostModel(uint64_t seed = 1);

}  // namespace kiln::cost_model
