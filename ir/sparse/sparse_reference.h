// Naive CSR kernels: the reference every sparse kernel of Kiln is checked against (after the
// reference interpreter, which is too slow for the matrices a benchmark uses). One loop per
// nonzero, accumulated in double, in the matrix's own order: no format conversion, no tiling,
// nothing that the kernels under test share.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

// C = A * B: B is a.cols x feat and C a.rows x feat, both row-major.
std::vector<float> ReferenceSpmm(const CsrMatrix& a, const std::vector<float>& b, int64_t feat);

// out[p] = a.values[p] * dot(x[row(p), :], y[a.indices[p], :]) for every nonzero p, in A's
// order: x is a.rows x feat and y a.cols x feat, both row-major.
std::vector<float> ReferenceSddmm(const CsrMatrix& a, const std::vector<float>& x,
                                  const std::vector<float>& y, int64_t feat);

// The largest |got - want| / max(|want|, 1) over the elements (sizes must match; a NaN in
// `got` gives NaN).
double MaxRelativeError(const std::vector<float>& got, const std::vector<float>& want);

}  // namespace kiln::ir::sparse
