// CsrMatrix: building from coordinates, the structure hash and the invariant check.
#include "ir/sparse/csr_matrix.h"

#include <algorithm>
#include <limits>

#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::ir::sparse {

uint64_t CsrMatrix::StructureHash() const {
  StableHasher h;
  h.String("csr");
  h.Int(rows);
  h.Int(cols);
  for (int32_t p : indptr) h.Int(p);
  for (int32_t c : indices) h.Int(c);
  return h.value();
}

std::string CsrMatrix::Check() const {
  if (rows < 0 || cols < 0) return "negative shape";
  if (static_cast<int64_t>(indptr.size()) != rows + 1) {
    return "indptr has " + std::to_string(indptr.size()) +
           " entries, expected rows + 1 = " + std::to_string(rows + 1);
  }
  if (indptr[0] != 0) return "indptr starts at " + std::to_string(indptr[0]) + ", not 0";
  if (indptr.back() != nnz()) {
    return "indptr ends at " + std::to_string(indptr.back()) + " but there are " +
           std::to_string(nnz()) + " nonzeros";
  }
  if (values.size() != indices.size()) return "values and indices differ in length";
  for (int64_t r = 0; r < rows; ++r) {
    if (indptr[r + 1] < indptr[r]) return "row " + std::to_string(r) + ": indptr decreases";
    for (int32_t p = indptr[r]; p < indptr[r + 1]; ++p) {
      if (indices[p] < 0 || indices[p] >= cols) {
        return "row " + std::to_string(r) + ": column " + std::to_string(indices[p]) +
               " out of range 0.." + std::to_string(cols - 1);
      }
      if (p > indptr[r] && indices[p] <= indices[p - 1]) {
        return "row " + std::to_string(r) + ": column " + std::to_string(indices[p]) +
               " after column " + std::to_string(indices[p - 1]);
      }
    }
  }
  return "";
}

CsrMatrix CsrFromEntries(int64_t rows, int64_t cols, std::vector<CooEntry> entries,
                         int64_t* duplicates) {
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMaxRows = int64_t{1} << 28;
  KILN_CHECK(rows >= 0 && cols >= 0 && rows <= kMax32 && cols <= kMax32, ErrorKind::kUnsupported,
             "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                 " matrix: sparse matrices need dimensions within 32-bit indices");
  // indptr takes 4 bytes a row, allocated before anything else: a size line may not ask for
  // gigabytes of empty rows (the largest public sparse matrices have some 2^27 rows).
  KILN_CHECK(rows <= kMaxRows, ErrorKind::kUnsupported,
             std::to_string(rows) + " rows: sparse matrices may have at most " +
                 std::to_string(kMaxRows) + " rows");
  KILN_CHECK(static_cast<int64_t>(entries.size()) <= kMax32, ErrorKind::kUnsupported,
             std::to_string(entries.size()) +
                 " nonzeros: sparse matrices need nonzero counts within 32-bit offsets");
  for (const CooEntry& e : entries) {
    KILN_CHECK(e.row >= 0 && e.row < rows && e.col >= 0 && e.col < cols, ErrorKind::kParse,
               "entry (" + std::to_string(e.row) + ", " + std::to_string(e.col) +
                   ") is outside the " + std::to_string(rows) + " x " + std::to_string(cols) +
                   " matrix");
  }
  std::stable_sort(entries.begin(), entries.end(), [](const CooEntry& a, const CooEntry& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.indptr.assign(rows + 1, 0);
  int64_t summed = 0;
  std::vector<double> sums;  // duplicates are summed in double, then rounded once
  for (size_t k = 0; k < entries.size(); ++k) {
    const CooEntry& e = entries[k];
    if (k > 0 && e.row == entries[k - 1].row && e.col == entries[k - 1].col) {
      sums.back() += e.value;
      ++summed;
      continue;
    }
    m.indices.push_back(static_cast<int32_t>(e.col));
    sums.push_back(e.value);
    ++m.indptr[e.row + 1];
  }
  m.values.assign(sums.begin(), sums.end());
  for (int64_t r = 0; r < rows; ++r) m.indptr[r + 1] += m.indptr[r];
  if (duplicates) *duplicates = summed;
  return m;
}

}  // namespace kiln::ir::sparse
