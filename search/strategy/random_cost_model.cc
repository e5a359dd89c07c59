// RandomCostModel: uniform scores.
#include "search/strategy/random_cost_model.h"

namespace kiln::search {

std::vector<double> RandomCostModel::Predict(const TuneContext&,
                                             const std::vector<CostModelCandidate>& candidates) {
  std::vector<double> scores(candidates.size());
  for (double& s : scores) s = rng_.UniformReal();
  return scores;
}

}  // namespace kiln::search
