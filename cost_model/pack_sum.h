// MetaSchedule's "pack-sum" objective: the model predicts one value per store (a row of
// per-store features) and a candidate's score is the sum over its stores; training minimizes
// the squared error between that sum and the candidate's label (its normalized throughput).
// The gradients are taken with respect to each row's prediction, which is what XGBoost's
// custom-objective update (XGBoosterBoostOneIter) takes.
#pragma once

#include <cstddef>
#include <vector>

namespace kiln::cost_model {

// Candidate c owns rows [offsets[c], offsets[c + 1]); offsets has one more entry than there
// are candidates, starts at 0 and never decreases.
struct RowGroups {
  std::vector<size_t> offsets = {0};
  size_t num_groups() const { return offsets.size() - 1; }
  size_t num_rows() const { return offsets.back(); }
  void AddGroup(size_t rows) { offsets.push_back(offsets.back() + rows); }
};

// The per-candidate sums of `row_predictions` (num_rows values).
std::vector<double> PackSum(const float* row_predictions, const RowGroups& groups);

// Gradient and hessian of 1/2 sum_c w_c (s_c - y_c)^2 with respect to every row prediction:
// row r of candidate c gets w_c (s_c - y_c) and w_c. `weights` may be empty (all 1).
void PackSumGradients(const float* row_predictions, const RowGroups& groups,
                      const std::vector<float>& labels, const std::vector<float>& weights,
                      std::vector<float>& grad, std::vector<float>& hess);

// Root mean squared error of the per-candidate sums against `labels`.
double PackSumRmse(const float* row_predictions, const RowGroups& groups,
                   const std::vector<float>& labels);

// Ansor's "average peak score" at k: the true labels of the k best-predicted candidates over
// those of the k best candidates (1 when the model's top k are the true top k). What the
// search needs from the model is this ranking of the best, not the scale of the slow ones
// that dominate the squared error, so early stopping watches it.
double PackSumAveragePeakScore(const float* row_predictions, const RowGroups& groups,
                               const std::vector<float>& labels, size_t k);

}  // namespace kiln::cost_model
