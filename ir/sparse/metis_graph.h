// METIS graph files (the input of gpmetis and ndmetis; Debian's libmetis-doc ships finite-element
// meshes in it) read into a CsrMatrix. The header line is `n m [fmt [ncon]]`: n vertices, m
// undirected edges; fmt's three digits say whether each vertex line starts with a vertex size
// (hundreds), ncon vertex weights (tens; ncon 1 by default) and whether each neighbour is
// followed by its edge weight (ones). Then n vertex lines (an empty line is a vertex without
// neighbours; lines starting with '%' are comments), neighbours 1-based. Every edge is listed by
// both its ends, so the file holds 2m neighbour entries; the matrix is n x n with one nonzero
// per entry, valued by the edge weight, else 1. Every error is kiln::Error(kParse) naming the
// file and line and what was expected: a bad header or fmt, a vertex out of range or equal to
// its own (METIS graphs have no self-loops), a weight that is not a non-negative integer (edge
// weights positive), fewer or more vertex lines than n, an entry count other than 2m.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

struct MetisGraphInfo {
  int64_t vertices = 0;
  int64_t edges = 0;  // m, as the header declares (each undirected edge once)
  bool vertex_sizes = false;
  bool vertex_weights = false;
  bool edge_weights = false;
  int64_t ncon = 0;  // vertex weights per vertex (0 without vertex weights)
  // ncon weights per vertex, vertex-major, when the file has them.
  std::vector<int64_t> vertex_weight_values;
  // Neighbour entries listed twice within one vertex's line (summed into one nonzero).
  int64_t duplicates = 0;
};

// `text` is the file's content; `name` names it in errors. Throws kiln::Error(kParse), or
// (kUnsupported) for a graph too large for CsrMatrix.
CsrMatrix ParseMetisGraph(std::string_view text, const std::string& name,
                          MetisGraphInfo* info = nullptr);
// Reads the file at `path` (kiln::Error(kIO) when it cannot be read).
CsrMatrix ReadMetisGraph(const std::string& path, MetisGraphInfo* info = nullptr);

}  // namespace kiln::ir::sparse
