// Edge lists as networkx writes and reads them (read_edgelist; Debian's python3-networkx ships
// its example graphs so, among them the WormNet v3 gene network): one edge a line, `source
// target [weight]`, whitespace-separated, '#' starting a comment anywhere on a line. Vertex
// names are arbitrary words, numbered in the order they first appear. As a networkx Graph, an
// undirected list gives both (u, v) and (v, u); an edge listed again (in either direction when
// undirected) is one nonzero holding the last weight given (1 without weights). Errors are
// kiln::Error(kParse) naming the file and line: a line with one word or more than three, a
// weight that is not a finite number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

struct EdgeListInfo {
  std::vector<std::string> names;  // vertex i's name
  int64_t edge_lines = 0;
  // Entries dropped because their edge was listed again (two per repeat when undirected).
  int64_t repeated = 0;
};

CsrMatrix ParseEdgeList(std::string_view text, const std::string& name, bool undirected,
                        EdgeListInfo* info = nullptr);
// Reads the file at `path` (kiln::Error(kIO) when it cannot be read).
CsrMatrix ReadEdgeList(const std::string& path, bool undirected, EdgeListInfo* info = nullptr);

}  // namespace kiln::ir::sparse
