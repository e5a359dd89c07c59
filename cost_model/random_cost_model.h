// MakeRandomCostModel: the factory of the random model beside the learned one, so that a
// caller choosing a model by name (`tune run --cost-model random`) finds both here. The
// model itself is search's RandomCostModel (search/strategy/random_cost_model.h): uniform
// scores, nothing learned, an empty saved state.
#pragma once

#include <cstdint>
#include <memory>

#include "search/strategy/cost_model.h"

namespace kiln::cost_model {

std::unique_ptr<search::CostModel> MakeRandomCostModel(uint64_t seed = 1);

}  // namespace kiln::cost_model
