// The naive CSR SpMM and SDDMM, accumulated in double.
#include "ir/sparse/sparse_reference.h"

#include <cmath>
#include <limits>

#include "support/error.h"

namespace kiln::ir::sparse {

std::vector<float> ReferenceSpmm(const CsrMatrix& a, const std::vector<float>& b, int64_t feat) {
  KILN_CHECK(static_cast<int64_t>(b.size()) == a.cols * feat, ErrorKind::kType,
             "SpMM reference: B has " + std::to_string(b.size()) + " elements, expected cols " +
                 std::to_string(a.cols) + " x feat " + std::to_string(feat));
  std::vector<float> c(static_cast<size_t>(a.rows * feat));
  std::vector<double> row(static_cast<size_t>(feat));
  for (int64_t i = 0; i < a.rows; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      const float* b_row = &b[static_cast<size_t>(a.indices[p] * feat)];
      for (int64_t k = 0; k < feat; ++k) row[k] += double{a.values[p]} * b_row[k];
    }
    for (int64_t k = 0; k < feat; ++k) c[i * feat + k] = static_cast<float>(row[k]);
  }
  return c;
}

std::vector<float> ReferenceSddmm(const CsrMatrix& a, const std::vector<float>& x,
                                  const std::vector<float>& y, int64_t feat) {
  KILN_CHECK(static_cast<int64_t>(x.size()) == a.rows * feat &&
                 static_cast<int64_t>(y.size()) == a.cols * feat,
             ErrorKind::kType,
             "SDDMM reference: X must be rows x feat and Y cols x feat (" + std::to_string(a.rows) +
                 ", " + std::to_string(a.cols) + ", " + std::to_string(feat) + ")");
  std::vector<float> out(a.indices.size());
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      double dot = 0;
      for (int64_t k = 0; k < feat; ++k) {
        dot += double{x[i * feat + k]} * y[static_cast<size_t>(a.indices[p] * feat + k)];
      }
      out[p] = static_cast<float>(a.values[p] * dot);
    }
  }
  return out;
}

double MaxRelativeError(const std::vector<float>& got, const std::vector<float>& want) {
  KILN_CHECK(got.size() == want.size(), ErrorKind::kType,
             "compared tensors differ in size: " + std::to_string(got.size()) + " and " +
                 std::to_string(want.size()));
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) != std::isnan(want[i])) return std::numeric_limits<double>::quiet_NaN();
    double err = std::abs(double{got[i]} - want[i]) / std::max(std::abs(double{want[i]}), 1.0);
    worst = std::max(worst, err);
  }
  return worst;
}

}  // namespace kiln::ir::sparse
