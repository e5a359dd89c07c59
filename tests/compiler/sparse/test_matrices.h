// Small seeded sparse matrices the sparse task tests share, each with the rows that trouble
// sparse kernels: empty rows and a dense one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::compiler::sparse::testing {

// A seeded rows x cols matrix with about `density` of its entries set, row 1 empty and, when
// `dense_row`, row 0 full; values in (0, 1].
inline ir::sparse::CsrMatrix RandomMatrix(int64_t rows, int64_t cols, double density, uint64_t seed,
                                          bool dense_row = false) {
  std::vector<ir::sparse::CooEntry> entries;
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state % 1000003 + 1) / 1000004.0;
  };
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      if (r == 1) continue;
      if ((dense_row && r == 0) || next() < density) entries.push_back({r, c, next()});
    }
  }
  return ir::sparse::CsrFromEntries(rows, cols, std::move(entries));
}

// A banded n x n matrix (|row - col| <= band) with every seventh row empty and row 0 dense.
inline ir::sparse::CsrMatrix Banded(int64_t n, int64_t band) {
  std::vector<ir::sparse::CooEntry> e;
  for (int64_t r = 0; r < n; ++r) {
    if (r % 7 == 3) continue;
    for (int64_t c = 0; c < n; ++c) {
      if (r == 0 || (c >= r - band && c <= r + band)) e.push_back({r, c, 1.0});
    }
  }
  return ir::sparse::CsrFromEntries(n, n, std::move(e));
}

}  // namespace kiln::compiler::sparse::testing
