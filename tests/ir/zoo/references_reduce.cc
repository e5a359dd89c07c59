// References for the reduction zoo functions.
#include <algorithm>

#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

void RefRowSum(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    double sum = 0;
    for (int64_t k = 0; k < Dim(t[0], 1); ++k) sum += Get(t[0], {i, k});
    Set(t[1], {i}, sum);
  }
}

void RefRowSumPositive(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    double sum = 0;
    for (int64_t k = 0; k < Dim(t[0], 1); ++k) sum += std::max(Get(t[0], {i, k}), 0.0);
    Set(t[1], {i}, sum);
  }
}

void RefSumAll(Args& t) {
  double sum = 0;
  for (int64_t i = 0; i < t[0].numel(); ++i) sum += t[0].GetDouble(i);
  t[1].SetDouble(0, sum);
}

void RefSumKeepdims(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    double sum = 0;
    for (int64_t j = 0; j < Dim(t[0], 1); ++j) {
      for (int64_t k = 0; k < Dim(t[0], 2); ++k) sum += Get(t[0], {i, j, k});
    }
    Set(t[1], {i, 0, 0}, sum);
  }
}

void RefRowMean(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    double sum = 0;
    for (int64_t k = 0; k < Dim(t[0], 1); ++k) sum += Get(t[0], {i, k});
    Set(t[1], {i}, sum / static_cast<double>(Dim(t[0], 1)));
  }
}

void RefColumnMax(Args& t) {
  for (int64_t j = 0; j < Dim(t[0], 1); ++j) {
    double best = Get(t[0], {0, j});
    for (int64_t k = 1; k < Dim(t[0], 0); ++k) best = std::max(best, Get(t[0], {k, j}));
    Set(t[1], {j}, best);
  }
}

void RefRowMin(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    double best = Get(t[0], {i, 0});
    for (int64_t k = 1; k < Dim(t[0], 1); ++k) best = std::min(best, Get(t[0], {i, k}));
    Set(t[1], {i}, best);
  }
}

void RefRowProd(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    double prod = 1;
    for (int64_t k = 0; k < Dim(t[0], 1); ++k) prod *= Get(t[0], {i, k});
    Set(t[1], {i}, prod);
  }
}

}  // namespace kiln::ir::zoo
