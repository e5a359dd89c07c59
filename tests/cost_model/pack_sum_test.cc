// The pack-sum objective: sums per candidate, gradients against finite differences of the
// loss, and the error.
#include "cost_model/pack_sum.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/error.h"

namespace kiln::cost_model {
namespace {

RowGroups Groups(std::initializer_list<size_t> sizes) {
  RowGroups g;
  for (size_t s : sizes) g.AddGroup(s);
  return g;
}

double Loss(const std::vector<float>& pred, const RowGroups& groups,
            const std::vector<float>& labels, const std::vector<float>& weights) {
  std::vector<double> sums = PackSum(pred.data(), groups);
  double loss = 0;
  for (size_t c = 0; c < sums.size(); ++c) {
    loss += 0.5 * weights[c] * (sums[c] - labels[c]) * (sums[c] - labels[c]);
  }
  return loss;
}

TEST(PackSumTest, SumsEachCandidatesRows) {
  RowGroups groups = Groups({2, 1, 3});
  std::vector<float> pred = {0.5f, 0.25f, 1.0f, 0.125f, 0.125f, 0.25f};
  EXPECT_EQ(PackSum(pred.data(), groups), (std::vector<double>{0.75, 1.0, 0.5}));
  EXPECT_EQ(groups.num_rows(), 6u);
  EXPECT_EQ(groups.num_groups(), 3u);
}

TEST(PackSumTest, GradientsMatchFiniteDifferencesOfTheLoss) {
  RowGroups groups = Groups({2, 1, 3});
  std::vector<float> pred = {0.5f, 0.25f, 1.0f, 0.125f, -0.5f, 0.25f};
  std::vector<float> labels = {1.0f, 0.25f, 0.0f};
  std::vector<float> weights = {1.0f, 2.0f, 0.5f};
  std::vector<float> grad, hess;
  PackSumGradients(pred.data(), groups, labels, weights, grad, hess);
  ASSERT_EQ(grad.size(), 6u);
  // A power of two: the perturbed float32 predictions are exact, and on a quadratic loss
  // central differences are exact too.
  const double h = 0.0625;
  for (size_t r = 0; r < pred.size(); ++r) {
    std::vector<float> up = pred, down = pred;
    up[r] += static_cast<float>(h);
    down[r] -= static_cast<float>(h);
    double numeric =
        (Loss(up, groups, labels, weights) - Loss(down, groups, labels, weights)) / (2 * h);
    EXPECT_NEAR(grad[r], numeric, 1e-4) << "row " << r;
    // The loss is quadratic in each row with curvature w_c.
    double curvature =
        (Loss(up, groups, labels, weights) - 2 * Loss(pred, groups, labels, weights) +
         Loss(down, groups, labels, weights)) /
        (h * h);
    EXPECT_NEAR(hess[r], curvature, 1e-4) << "row " << r;
  }
}

TEST(PackSumTest, UnitWeightsWhenNoneAreGiven) {
  RowGroups groups = Groups({1, 2});
  std::vector<float> pred = {0.5f, 0.25f, 0.25f};
  std::vector<float> grad, hess;
  PackSumGradients(pred.data(), groups, {1.0f, 0.0f}, {}, grad, hess);
  EXPECT_EQ(grad, (std::vector<float>{-0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(hess, (std::vector<float>{1.0f, 1.0f, 1.0f}));
}

TEST(PackSumTest, RmseOfTheSums) {
  RowGroups groups = Groups({2, 1});
  std::vector<float> pred = {0.5f, 0.5f, 0.0f};
  EXPECT_DOUBLE_EQ(PackSumRmse(pred.data(), groups, {0.0f, 1.0f}), 1.0);
  EXPECT_DOUBLE_EQ(PackSumRmse(pred.data(), groups, {1.0f, 0.0f}), 0.0);
}

TEST(PackSumTest, LabelCountMustMatchCandidates) {
  RowGroups groups = Groups({1, 1});
  std::vector<float> pred = {0.0f, 0.0f}, grad, hess;
  try {
    PackSumGradients(pred.data(), groups, {1.0f}, {}, grad, hess);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 labels for 2 candidates"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::cost_model
