// CsrMatrix: a sparse matrix in compressed sparse row form, the form every sparse workload of
// Kiln starts from (readers in this folder produce it; format decompositions and sparse tasks
// take it). Rows are sorted by column with no duplicate column; indptr has rows + 1 entries.
// The structure hash covers the shape and the nonzero pattern, never the values: tuning records
// of a sparse task are reused only for the same structure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::ir::sparse {

struct CsrMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int32_t> indptr;   // rows + 1 offsets into indices and values
  std::vector<int32_t> indices;  // column of each nonzero, ascending within a row
  std::vector<float> values;

  int64_t nnz() const { return static_cast<int64_t>(indices.size()); }
  int64_t RowLength(int64_t row) const { return indptr[row + 1] - indptr[row]; }
  // FNV-1a (support/stable_hash.h) over rows, cols, indptr and indices.
  uint64_t StructureHash() const;
  // Empty when the invariants hold, else what is wrong ("row 3: column 7 after column 9").
  std::string Check() const;
};

// One (row, column, value) entry of a matrix in coordinate form, 0-based.
struct CooEntry {
  int64_t row = 0;
  int64_t col = 0;
  double value = 0;
};

// The CSR form of `entries` of a rows x cols matrix: sorted, duplicates summed (their number
// in *duplicates when given). Throws kiln::Error(kParse) for an entry out of range, kUnsupported
// for a matrix whose nonzeros or dimensions do not fit 32-bit offsets, or of more than 2^28 rows.
CsrMatrix CsrFromEntries(int64_t rows, int64_t cols, std::vector<CooEntry> entries,
                         int64_t* duplicates = nullptr);

}  // namespace kiln::ir::sparse
