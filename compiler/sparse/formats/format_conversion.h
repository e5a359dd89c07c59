// The conversions of a CsrMatrix into the formats of sparse_format.h: the preprocessing of a
// sparse task in another format. Each is a plain C++ function, run once per matrix on the host
// before the kernels; its caller times it and reports that time apart from the kernels' (the
// preprocessing is its own step, never part of a kernel's time).
//
// Every stored slot records its source: the position (in the CSR arrays) of the nonzero it
// holds, or -1 for a filled zero. Values of the slots are the matrix's values gathered through
// the source (GatherValues), so that any values of the CSR matrix (the seeded ones of a
// reference, sparse_workloads.h's CsrArguments) fill a converted structure without converting
// again.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::compiler::sparse {

// Block sparse rows: the matrix cut into block_rows x block_cols blocks (the last block row and
// column run past the matrix when its size is not a multiple: those cells are zeros); a block
// holding any nonzero is stored whole, row-major, zeros filled. A block row with no nonzero
// stores one zero block in block column 0, so that the SpMM kernel writes every row of C.
struct BsrMatrix {
  int64_t rows = 0, cols = 0;              // the matrix's
  int64_t block_rows = 1, block_cols = 1;  // R x C
  std::vector<int32_t> indptr;             // NumBlockRows() + 1 offsets into indices
  std::vector<int32_t> indices;            // the block column of each stored block, ascending
  std::vector<float> values;               // Blocks() x R x C
  std::vector<int32_t> source;             // per value slot: CSR position or -1

  int64_t NumBlockRows() const { return (rows + block_rows - 1) / block_rows; }
  int64_t NumBlockCols() const { return (cols + block_cols - 1) / block_cols; }
  int64_t Blocks() const { return static_cast<int64_t>(indices.size()); }
  // Over R, C, rows, cols, indptr, indices (never the values).
  uint64_t StructureHash() const;
};

// ELLPACK over a list of rows: stored row s holds up to `width` nonzeros of matrix row
// row_index[s]; the rest of its slots hold 0 with a valid column (the row's last real column,
// or 0 for a row with none), so that a kernel reads them without a bound check. In the ELL
// format every matrix row is stored once, in order; in a hyb part a row appears only when it
// has nonzeros there, and a row longer than the part's width appears several times in a row
// (rows_repeat).
struct EllMatrix {
  int64_t rows = 0, cols = 0;  // the matrix's
  int64_t width = 1;
  std::vector<int32_t> row_index;  // StoredRows() entries
  std::vector<int32_t> indices;    // StoredRows() x width
  std::vector<float> values;       // StoredRows() x width
  std::vector<int32_t> source;     // per slot: CSR position or -1
  bool rows_repeat = false;        // some matrix row is stored more than once

  int64_t StoredRows() const { return static_cast<int64_t>(row_index.size()); }
  int64_t Nnz() const;  // slots holding a nonzero of the matrix
  // Over width, rows, cols, row_index, indices and which slots hold a nonzero.
  uint64_t StructureHash() const;
};

// One part of hyb: the ELL matrix of one column partition and one bucket width.
struct HybPart {
  int64_t partition = 0;               // 0 .. partitions - 1
  int64_t col_begin = 0, col_end = 0;  // the partition's columns [begin, end)
  int64_t bucket = 0;                  // width 2^bucket
  EllMatrix ell;
};

// SparseTIR's hyb (its ColumnPartHyb): parts in (partition, bucket) order, the empty ones left
// out; a matrix with no nonzero has no part.
struct HybMatrix {
  int64_t rows = 0, cols = 0;
  int64_t partitions = 1, buckets = 1;
  std::vector<HybPart> parts;
};

// kiln::Error(kUnsupported) for parameters out of sparse_format.h's ranges and for a result
// past 2^31 - 1 slots; ToEll also for a row longer than `width`, naming the row and its length.
BsrMatrix ToBsr(const ir::sparse::CsrMatrix& a, int64_t block_rows, int64_t block_cols);
EllMatrix ToEll(const ir::sparse::CsrMatrix& a, int64_t width);
HybMatrix ToHyb(const ir::sparse::CsrMatrix& a, int64_t partitions, int64_t buckets);

// The slots' values from the CSR values `csr_values` (one per nonzero): csr_values[source], or
// 0 where source is -1.
std::vector<float> GatherValues(const std::vector<int32_t>& source,
                                const std::vector<float>& csr_values);

// The dense rows x cols matrix a format stores, row-major, each slot added to its cell (so a
// padding slot that is not 0 shows). BSR cells past the matrix must be 0 (checked:
// kiln::Error(kInternal) otherwise).
std::vector<double> Densify(const ir::sparse::CsrMatrix& a);
std::vector<double> Densify(const BsrMatrix& m);
std::vector<double> Densify(const EllMatrix& m);
std::vector<double> Densify(const HybMatrix& m);

}  // namespace kiln::compiler::sparse
