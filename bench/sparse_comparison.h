// One sparse kernel tuned by Kiln and timed beside the sparse libraries on the same operands
// and thread count: what `tune sparse` prints and what bench_sparse tabulates. The libraries
// run on the matrix the Kiln kernel ran on (SpMM's empty rows padded with explicit zeros) with
// the same seeded values, after the tuning, one at a time.
#pragma once

#include <string>
#include <vector>

#include "compiler/sparse/sparse_tuning.h"

namespace kiln::bench {

struct LibraryTiming {
  std::string library;  // "graphblas" or "eigen"
  double seconds = 0;   // 0 when it did not run
  std::string error;    // why it did not run
};

struct SparseComparison {
  compiler::sparse::SparseTuneResult kiln;
  std::vector<LibraryTiming> libraries;
  // A library's time over Kiln's best (above 1: Kiln is faster); 0 when either is missing.
  double Ratio(const std::string& library) const;
};

// `libraries`: any of "graphblas", "eigen".
SparseComparison CompareSparse(const ir::sparse::CsrMatrix& matrix, compiler::sparse::SparseOp op,
                               int64_t feat, const compiler::sparse::SparseTuneOptions& options,
                               const std::vector<std::string>& libraries);

}  // namespace kiln::bench
