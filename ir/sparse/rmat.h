// R-MAT graphs (Chakrabarti, Zhan and Faloutsos, SDM 2004) with the Graph500 parameters, the
// power-law inputs of sparse benchmarks (SparseTIR's and the graph-learning ones): each edge
// picks one quadrant of the adjacency matrix per level, with probabilities a, b, c, d, over
// `scale` levels. The graph is directed (row = source, column = target), 2^scale vertices and
// edge_factor * 2^scale drawn edges. Self-loops are removed and duplicate edges are merged into
// one nonzero, so every value is 1 and nnz is below the number drawn (RmatInfo counts both).
// Vertex labels are then permuted, as Graph500 does, unless `permute` is off (the heavy rows
// then gather at low indices). Draws come from the seeded splitmix64 stream (seeded_random.h):
// the same options give the same matrix on every machine.
#pragma once

#include <cstdint>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

struct RmatOptions {
  int scale = 14;  // 2^scale vertices, 1..28
  int64_t edge_factor = 16;
  double a = 0.57, b = 0.19, c = 0.19;  // d = 1 - a - b - c = 0.05
  uint64_t seed = 1;
  bool permute = true;
};

struct RmatInfo {
  int64_t drawn = 0;       // edge_factor * 2^scale
  int64_t self_loops = 0;  // drawn edges removed as self-loops
  int64_t duplicates = 0;  // drawn edges merged into an earlier one
};

// Throws kiln::Error(kUnsupported) for a scale outside 1..28, an edge factor outside 1..1024
// or more than 2^31 - 1 drawn edges, and for probabilities that are negative or leave d < 0.
CsrMatrix GenerateRmat(const RmatOptions& options, RmatInfo* info = nullptr);

}  // namespace kiln::ir::sparse
