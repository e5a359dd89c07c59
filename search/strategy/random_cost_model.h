// RandomCostModel: a CostModel that predicts uniform random scores and learns nothing. It
// lets the evolutionary search run without a trained model (and tests drive it with a known
// model); with it, parent selection and ranking are random.
#pragma once

#include "search/schedule/random.h"
#include "search/strategy/cost_model.h"

namespace kiln::search {

class RandomCostModel : public CostModel {
 public:
  explicit RandomCostModel(uint64_t seed = 1) : rng_(seed) {}
  void Update(const TuneContext&, const std::vector<CostModelCandidate>&,
              const std::vector<double>&) override {}
  std::vector<double> Predict(const TuneContext& context,
                              const std::vector<CostModelCandidate>& candidates) override;
  std::vector<uint8_t> Save() const override { return {}; }
  void Load(const std::vector<uint8_t>&) override {}

 private:
  RandomEngine rng_;
};

}  // namespace kiln::search
