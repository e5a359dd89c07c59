// The sparse benchmark's matrices by name: the finite-element meshes METIS ships (Debian's
// libmetis-doc), the WormNet v3 gene network networkx ships (python3-networkx), two of the
// Matrix Market files R's Matrix package ships (r-cran-matrix), R-MAT graphs at scales 14 and 17
// (the sizes of SparseTIR's graph inputs) and a BigBird-style attention mask of 4096 tokens in
// blocks of 64. Files are found under $KILN_SPARSE_DATA, else <repo>/.cache/sparse-data, where
// deploy/install-deps.sh unpacks each package into a folder named after it; generated matrices
// need no file and are the same on every machine.
#pragma once

#include <string>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

struct SparseDataset {
  std::string name;         // "metis-4elt", "rmat-14", ...
  std::string kind;         // "mesh", "graph", "matrix", "rmat" or "attention-mask"
  std::string description;  // where it comes from, in a few words
  std::string file;         // relative to the data folder; empty for a generated matrix
};

// Every data set, in a fixed order (files first, then generated ones).
std::vector<SparseDataset> ListSparseDatasets();

// $KILN_SPARSE_DATA when set, else the repository's .cache/sparse-data.
std::string SparseDataDir();

// Whether the data set's file is present (always true for a generated one).
bool SparseDatasetAvailable(const SparseDataset& dataset,
                            const std::string& data_dir = SparseDataDir());

// The data set's matrix. kiln::Error(kUnsupported) for an unknown name (the message lists the
// names); kiln::Error(kIO) for a missing file, naming its path and the install-deps step that
// provides it; the readers' errors for a broken file.
CsrMatrix LoadSparseDataset(const std::string& name, const std::string& data_dir = SparseDataDir());

}  // namespace kiln::ir::sparse
