// CostModel: what the search asks of a learned model: predict a score for candidates (higher
// is faster; comparable within one workload) and learn from measured ones. Declared here so
// that search does not depend on its implementation (cost_model/ implements it with XGBoost
// over per-store features) and so that a test can drive the search with any model.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/function.h"
#include "search/space/tune_context.h"

namespace kiln::search {

// One candidate as the model sees it: the scheduled function after postprocessing.
struct CostModelCandidate {
  const ir::PrimFunc* scheduled = nullptr;
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Adds measured candidates of `context`'s workload: run_seconds[i] is the median time of
  // candidates[i], or a non-positive value when it failed (build error, wrong result...).
  virtual void Update(const TuneContext& context, const std::vector<CostModelCandidate>& candidates,
                      const std::vector<double>& run_seconds) = 0;
  // One score per candidate; higher predicts faster.
  virtual std::vector<double> Predict(const TuneContext& context,
                                      const std::vector<CostModelCandidate>& candidates) = 0;
  // The model's state as bytes (the database keeps it) and back.
  virtual std::vector<uint8_t> Save() const = 0;
  virtual void Load(const std::vector<uint8_t>& bytes) = 0;
};

}  // namespace kiln::search
