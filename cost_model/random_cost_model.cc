// Random scores.
#include "cost_model/random_cost_model.h"

namespace kiln::cost_model {

std::vector<double> RandomCostModel::Predict(
    const search::TuneContext&, const std::vector<search::CostModelCandidate>& candidates) {
  std::vector<double> scores(candidates.size());
  for (double& s : scores) s = rng_.UniformReal();
  return scores;
}

std::unique_ptr<search::CostModel> MakeRandomCostModel(uint64_t seed) {
  return std::make_unique<RandomCostModel>(seed);
}

}  // namespace kiln::cost_model
