// The pack-sum objective's sums, gradients and error.
#include "cost_model/pack_sum.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/error.h"

namespace kiln::cost_model {

std::vector<double> PackSum(const float* row_predictions, const RowGroups& groups) {
  std::vector<double> sums(groups.num_groups(), 0.0);
  for (size_t c = 0; c < sums.size(); ++c) {
    for (size_t r = groups.offsets[c]; r < groups.offsets[c + 1]; ++r)
      sums[c] += row_predictions[r];
  }
  return sums;
}

void PackSumGradients(const float* row_predictions, const RowGroups& groups,
                      const std::vector<float>& labels, const std::vector<float>& weights,
                      std::vector<float>& grad, std::vector<float>& hess) {
  KILN_CHECK(labels.size() == groups.num_groups(), ErrorKind::kInternal,
             "PackSumGradients: " + std::to_string(labels.size()) + " labels for " +
                 std::to_string(groups.num_groups()) + " candidates");
  KILN_CHECK(weights.empty() || weights.size() == labels.size(), ErrorKind::kInternal,
             "PackSumGradients: weights and labels differ in length");
  std::vector<double> sums = PackSum(row_predictions, groups);
  grad.assign(groups.num_rows(), 0.0f);
  hess.assign(groups.num_rows(), 0.0f);
  for (size_t c = 0; c < sums.size(); ++c) {
    float w = weights.empty() ? 1.0f : weights[c];
    float g = static_cast<float>(w * (sums[c] - labels[c]));
    for (size_t r = groups.offsets[c]; r < groups.offsets[c + 1]; ++r) {
      grad[r] = g;
      hess[r] = w;
    }
  }
}

double PackSumRmse(const float* row_predictions, const RowGroups& groups,
                   const std::vector<float>& labels) {
  std::vector<double> sums = PackSum(row_predictions, groups);
  if (sums.empty()) return 0;
  double total = 0;
  for (size_t c = 0; c < sums.size(); ++c) total += (sums[c] - labels[c]) * (sums[c] - labels[c]);
  return std::sqrt(total / static_cast<double>(sums.size()));
}

double PackSumAveragePeakScore(const float* row_predictions, const RowGroups& groups,
                               const std::vector<float>& labels, size_t k) {
  std::vector<double> sums = PackSum(row_predictions, groups);
  k = std::min(k, sums.size());
  if (k == 0) return 0;
  std::vector<size_t> order(sums.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sums[a] > sums[b]; });
  double picked = 0;
  for (size_t i = 0; i < k; ++i) picked += labels[order[i]];
  std::vector<float> best = labels;
  std::sort(best.begin(), best.end(), std::greater<float>());
  double ideal = std::accumulate(best.begin(), best.begin() + k, 0.0);
  return ideal > 0 ? picked / ideal : 0;
}

}  // namespace kiln::cost_model
