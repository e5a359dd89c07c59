// Random scores.
#include "cost_model/random_cost_model.h"

namespace kiln::cost_model {

std::vector<double> RandomCostModel::Predict(
    const search::TuneContext&, const std::vector<search::CostModelCandidate>& candidates) {
  std::vector<double> scores(candidates.size());
  for (double& s : scores) s = static_cast<double>(rng_.Next() >> 11) * 0x1.0p-53;
  return scores;
}

std::unique_ptr<search::CostModel> MakeRandomCostModel(uint64_t seed) {
  return std::make_unique<RandomCostModel>(seed);
}

}  // namespace kiln::cost_model
