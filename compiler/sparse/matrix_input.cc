// A sparse matrix from a file, by its extension, or from a bundled data set, by its name.
#include "compiler/sparse/matrix_input.h"

#include <filesystem>

#include "ir/sparse/matrix_market.h"
#include "ir/sparse/metis_graph.h"
#include "ir/sparse/sparse_datasets.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

namespace fs = std::filesystem;

MatrixInput LoadMatrixInput(const std::string& argument) {
  MatrixInput input;
  input.source = argument;
  const std::string ext = fs::path(argument).extension().string();
  if (ext == ".mtx") {
    ir::sparse::MatrixMarketInfo info;
    input.matrix = ir::sparse::ReadMatrixMarket(argument, &info);
    input.description = "Matrix Market, " + info.field + " " + info.symmetry;
    if (info.duplicates > 0) {
      input.description += ", " + std::to_string(info.duplicates) + " duplicate entries summed";
    }
    return input;
  }
  if (ext == ".graph") {
    ir::sparse::MetisGraphInfo info;
    input.matrix = ir::sparse::ReadMetisGraph(argument, &info);
    input.description = "METIS graph, " + std::to_string(info.vertices) + " vertices, " +
                        std::to_string(info.edges) + " edges";
    return input;
  }
  std::error_code ec;
  KILN_CHECK(!fs::exists(argument, ec), ErrorKind::kUnsupported,
             argument +
                 ": a sparse matrix is read from a .mtx (Matrix Market) or .graph (METIS) "
                 "file, or named as a bundled data set");
  for (const ir::sparse::SparseDataset& d : ir::sparse::ListSparseDatasets()) {
    if (d.name == argument) {
      input.matrix = ir::sparse::LoadSparseDataset(argument);
      input.description = d.description;
      return input;
    }
  }
  std::string names;
  for (const ir::sparse::SparseDataset& d : ir::sparse::ListSparseDatasets()) {
    names += (names.empty() ? "" : ", ") + d.name;
  }
  throw Error(ErrorKind::kIO, argument +
                                  ": no such file, and no data set of that name (the data "
                                  "sets: " +
                                  names + ")");
}

}  // namespace kiln::compiler::sparse
