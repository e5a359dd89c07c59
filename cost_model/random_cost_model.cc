// The random model's factory.
#include "cost_model/random_cost_model.h"

#include "search/strategy/random_cost_model.h"

namespace kiln::cost_model {

std::unique_ptr<search::CostModel> MakeRandomCostModel(uint64_t seed) {
  return std::make_unique<search::RandomCostModel>(seed);
}

}  // namespace kiln::cost_model
