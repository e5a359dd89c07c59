// The sparse data sets: a table of names, the folder they live in, and a loader per kind.
#include "ir/sparse/sparse_datasets.h"

#include <cstdlib>
#include <filesystem>

#include "ir/sparse/block_mask.h"
#include "ir/sparse/edge_list.h"
#include "ir/sparse/matrix_market.h"
#include "ir/sparse/metis_graph.h"
#include "ir/sparse/rmat.h"
#include "support/error.h"

#ifndef KILN_SPARSE_DATA_DIR
#error "KILN_SPARSE_DATA_DIR must name the repository's .cache/sparse-data"
#endif

namespace kiln::ir::sparse {
namespace {

// The generated matrices' options, fixed: the names stand for these matrices.
RmatOptions Rmat(int scale) {
  RmatOptions o;
  o.scale = scale;
  o.edge_factor = 16;
  o.seed = 1;
  return o;
}

BlockMaskOptions BigBird() {
  BlockMaskOptions o;
  o.seq_len = 4096;
  o.block = 64;
  o.local_blocks = 1;
  o.global_blocks = 2;
  o.random_blocks = 3;
  o.seed = 1;
  return o;
}

// The install-deps step that unpacks a data file's package.
std::string ProvidedBy(const std::string& file) {
  std::string package = std::filesystem::path(file).begin()->string();
  return "deploy/install-deps.sh unpacks Debian's " + package + " there";
}

}  // namespace

std::vector<SparseDataset> ListSparseDatasets() {
  return {
      {"metis-4elt", "mesh", "2-D finite-element mesh, METIS examples (7434 vertices)",
       "libmetis-doc/4elt.graph"},
      {"metis-copter2", "mesh", "3-D helicopter mesh, METIS examples (55476 vertices)",
       "libmetis-doc/copter2.graph"},
      {"metis-mdual", "mesh", "dual of a 3-D mesh, METIS examples (258569 vertices)",
       "libmetis-doc/mdual.graph"},
      {"wormnet", "graph", "WormNet v3 gene network, networkx examples (undirected)",
       "python3-networkx/WormNet.v3.benchmark.txt"},
      {"lund_a", "matrix", "structural mechanics matrix, R Matrix package (symmetric)",
       "r-cran-matrix/lund_a.mtx"},
      {"pores_1", "matrix", "reservoir simulation matrix, R Matrix package",
       "r-cran-matrix/pores_1.mtx"},
      {"rmat-14", "rmat", "R-MAT, Graph500 parameters, scale 14, edge factor 16, seed 1", ""},
      {"rmat-17", "rmat", "R-MAT, Graph500 parameters, scale 17, edge factor 16, seed 1", ""},
      {"bigbird-4096-64", "attention-mask",
       "block-sparse attention mask, 4096 tokens, blocks of 64: band 3, global 2, random 3", ""},
  };
}

std::string SparseDataDir() {
  const char* dir = std::getenv("KILN_SPARSE_DATA");
  return dir && *dir ? std::string(dir) : std::string(KILN_SPARSE_DATA_DIR);
}

bool SparseDatasetAvailable(const SparseDataset& dataset, const std::string& data_dir) {
  return dataset.file.empty() ||
         std::filesystem::is_regular_file(std::filesystem::path(data_dir) / dataset.file);
}

CsrMatrix LoadSparseDataset(const std::string& name, const std::string& data_dir) {
  std::vector<SparseDataset> all = ListSparseDatasets();
  const SparseDataset* found = nullptr;
  std::string names;
  for (const SparseDataset& d : all) {
    if (d.name == name) found = &d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  KILN_CHECK(found, ErrorKind::kUnsupported,
             "sparse data set '" + name + "' is not known; the data sets are " + names);
  if (found->kind == "rmat") return GenerateRmat(Rmat(name == "rmat-14" ? 14 : 17));
  if (found->kind == "attention-mask") return BlockSparseMask(BigBird());
  std::string path = (std::filesystem::path(data_dir) / found->file).string();
  KILN_CHECK(std::filesystem::is_regular_file(path), ErrorKind::kIO,
             "sparse data set '" + name + "': " + path + " is missing (" + ProvidedBy(found->file) +
                 "; set KILN_SPARSE_DATA to use another folder)");
  if (found->kind == "mesh") return ReadMetisGraph(path);
  if (found->kind == "graph") return ReadEdgeList(path, /*undirected=*/true);
  return ReadMatrixMarket(path);
}

}  // namespace kiln::ir::sparse
