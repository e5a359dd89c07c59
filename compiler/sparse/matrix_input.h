// Where a sparse task's matrix comes from, as a user names it on a command line: a Matrix
// Market file (.mtx), a METIS graph file (.graph), or the name of one of the bundled data sets
// (ir/sparse/sparse_datasets.h: meshes, a gene network, R-MAT graphs, an attention mask).
#pragma once

#include <string>

#include "ir/sparse/csr_matrix.h"

namespace kiln::compiler::sparse {

struct MatrixInput {
  ir::sparse::CsrMatrix matrix;
  std::string source;       // the path or the data set's name
  std::string description;  // "Matrix Market, real general, 3 duplicates summed", ...
};

// kiln::Error(kIO) for a missing file, the reader's kParse error (file and line) for a broken
// one, kUnsupported listing the data sets for a name that is neither a file nor a data set.
MatrixInput LoadMatrixInput(const std::string& argument);

}  // namespace kiln::compiler::sparse
