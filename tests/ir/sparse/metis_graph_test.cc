// The METIS graph reader: every fmt (vertex sizes, several vertex weights, edge weights),
// comments and isolated vertices, each malformed input refused with its file and line, and the
// meshes METIS itself ships (Debian's libmetis-doc, unpacked by deploy/install-deps.sh), whose
// vertex and edge counts are checked against their headers.
#include "ir/sparse/metis_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "support/error.h"
#include "support/file.h"

namespace kiln::ir::sparse {
namespace {

std::string ErrorOf(std::string_view text) {
  try {
    ParseMetisGraph(text, "g.graph");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(MetisGraphTest, ReadsAnUnweightedGraphWithCommentsAndAnIsolatedVertex) {
  // A path 1 - 2 - 3 and vertex 4 alone (its line is empty).
  MetisGraphInfo info;
  CsrMatrix m = ParseMetisGraph(
      "% a path and a lone vertex\n"
      "4 2\n"
      "2\n"
      "% between vertex lines\n"
      "1 3\r\n"
      "2\n"
      "\n",
      "g.graph", &info);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(m.rows, 4);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(m.indptr, (std::vector<int32_t>{0, 1, 3, 4, 4}));
  EXPECT_EQ(m.indices, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(info.vertices, 4);
  EXPECT_EQ(info.edges, 2);
  EXPECT_FALSE(info.edge_weights);
  EXPECT_EQ(info.ncon, 0);
}

TEST(MetisGraphTest, ReadsSizesVertexWeightsAndEdgeWeights) {
  // fmt 111: size, ncon = 2 vertex weights, then (neighbour, edge weight) pairs.
  MetisGraphInfo info;
  CsrMatrix m = ParseMetisGraph(
      "3 2 111 2\n"
      "5 1 2 2 7\n"
      "6 3 4 1 7 3 9\n"
      "7 5 6 2 9\n",
      "g.graph", &info);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(m.indices, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<float>{7, 7, 9, 9}));
  EXPECT_TRUE(info.vertex_sizes);
  EXPECT_TRUE(info.vertex_weights);
  EXPECT_TRUE(info.edge_weights);
  EXPECT_EQ(info.ncon, 2);
  EXPECT_EQ(info.vertex_weight_values, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  // fmt 1 (edge weights only) and 10 (one vertex weight): the digits count from the right.
  m = ParseMetisGraph("2 1 1\n2 3\n1 3\n", "g");
  EXPECT_EQ(m.values, (std::vector<float>{3, 3}));
  m = ParseMetisGraph("2 1 010\n4 2\n8 1\n", "g", &info);
  EXPECT_EQ(info.ncon, 1);
  EXPECT_EQ(info.vertex_weight_values, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(m.values, (std::vector<float>{1, 1}));
  // An empty graph.
  m = ParseMetisGraph("0 0\n", "g");
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(m.rows, 0);
}

TEST(MetisGraphTest, MalformedInputIsRefusedWithItsLine) {
  struct Case {
    std::string text;
    std::string message;
  } cases[] = {
      {"", "g.graph:0: the header line 'n m [fmt [ncon]]' is missing"},
      {"% only a comment\n", "g.graph:1: the header line 'n m [fmt [ncon]]' is missing"},
      {"3\n", "g.graph:1: expected the header 'n m [fmt [ncon]]', found '3'"},
      {"3 2 0 1 9\n", "expected the header 'n m [fmt [ncon]]'"},
      {"3 x\n", "g.graph:1: edge count m: 'x' is not an integer"},
      {"-3 2\n", "g.graph:1: the header has a negative count"},
      {"2 1 2\n2\n1\n",
       "g.graph:1: fmt '2': expected up to three digits, each 0 or 1 (vertex sizes, vertex "
       "weights, edge weights)"},
      {"2 1 1011\n", "fmt '1011': expected up to three digits"},
      {"2 1 001 2\n", "g.graph:1: ncon 2 is given but fmt '001' declares no vertex weights"},
      {"2 1 010 0\n", "ncon 0: expected 1..1024 vertex weights per vertex"},
      {"2 1\n2\n3\n", "g.graph:3: vertex 2: neighbour 3 is out of range 1..2"},
      {"2 1\n0\n1\n", "g.graph:2: vertex 1: neighbour 0 is out of range 1..2"},
      {"2 1\n1\n1\n", "g.graph:2: vertex 1 lists itself as a neighbour"},
      {"2 1\n2 x\n1\n", "g.graph:2: vertex 1: neighbour: 'x' is not an integer"},
      {"2 1 1\n2\n1 1\n",
       "g.graph:2: vertex 1: neighbour 2 has no edge weight (fmt 1 declares edge weights)"},
      {"2 1 1\n2 0\n1 1\n", "g.graph:2: vertex 1: edge weight 0 to neighbour 2 is not positive"},
      {"2 1 11\n5 2 1\n-1 1 1\n", "g.graph:3: vertex 2: vertex weight -1 is negative"},
      {"2 1 10 2\n5\n", "g.graph:2: vertex 1: expected 2 vertex weights, found 1"},
      {"2 1 100\n\n", "g.graph:2: vertex 1: the vertex size is missing"},
      {"3 1\n2\n1 3\n2\n", "g.graph:3: more neighbour entries than the 2m = 2"},
      {"3 2\n2\n1\n\n",
       "g.graph: the header declares m = 2 edges (2m = 4 neighbour entries), "
       "the vertex lines list 2"},
      {"3 1\n2\n1\n",
       "g.graph: the header declares 3 vertices, the file ends after 2 vertex lines"},
      {"2 1\n2\n1\n1\n", "g.graph:4: a line after the 2 vertex lines the header declares: '1'"},
      {"300000000 0\n", "vertices, the file ends after 0 vertex lines"},
  };
  for (const Case& c : cases) {
    std::string error = ErrorOf(c.text);
    EXPECT_NE(error.find(c.message), std::string::npos) << "input:\n"
                                                        << c.text << "\ngot: " << error;
  }
}

std::filesystem::path MetisDir() {
  const char* dir = std::getenv("KILN_SPARSE_DATA");
  return std::filesystem::path(dir ? dir : KILN_SPARSE_DATA_DIR) / "libmetis-doc";
}

bool IsSymmetric(const CsrMatrix& m) {
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
      int32_t c = m.indices[p];
      const int32_t* begin = m.indices.data() + m.indptr[c];
      const int32_t* end = m.indices.data() + m.indptr[c + 1];
      if (!std::binary_search(begin, end, static_cast<int32_t>(r))) return false;
    }
  }
  return true;
}

TEST(MetisGraphTest, ReadsTheMeshesMetisShips) {
  std::filesystem::path dir = MetisDir();
  if (!std::filesystem::exists(dir / "4elt.graph")) {
    GTEST_SKIP() << "skipped: no " << dir.string()
                 << " (deploy/install-deps.sh unpacks Debian's libmetis-doc there)";
  }
  // The headers' n and m, as the files declare them.
  struct Mesh {
    const char* file;
    int64_t n, m;
  } meshes[] = {{"4elt.graph", 7434, 43031}, {"copter2.graph", 55476, 352238}};
  for (const Mesh& mesh : meshes) {
    MetisGraphInfo info;
    CsrMatrix g = ReadMetisGraph((dir / mesh.file).string(), &info);
    EXPECT_EQ(g.Check(), "") << mesh.file;
    EXPECT_EQ(info.vertices, mesh.n) << mesh.file;
    EXPECT_EQ(info.edges, mesh.m) << mesh.file;
    EXPECT_EQ(g.rows, mesh.n) << mesh.file;
    EXPECT_EQ(g.nnz(), 2 * mesh.m) << mesh.file;  // each edge from both ends, none repeated
    EXPECT_EQ(info.duplicates, 0) << mesh.file;
    EXPECT_TRUE(IsSymmetric(g)) << mesh.file;
  }
  // The multi-constraint graph: fmt 010, ncon 2, header "766 1314 010 2".
  MetisGraphInfo info;
  CsrMatrix t = ReadMetisGraph((dir / "test.mgraph").string(), &info);
  EXPECT_EQ(info.vertices, 766);
  EXPECT_EQ(info.edges, 1314);
  EXPECT_EQ(info.ncon, 2);
  EXPECT_FALSE(info.edge_weights);
  EXPECT_EQ(info.vertex_weight_values.size(), 2u * 766u);
  EXPECT_EQ(t.nnz(), 2 * 1314);
  EXPECT_TRUE(IsSymmetric(t));
  // A real file cut short: the count check names what is missing.
  std::string text = ReadFile((dir / "4elt.graph").string());
  text.resize(text.size() / 2);
  text.resize(text.rfind('\n') + 1);
  try {
    ParseMetisGraph(text, "4elt-half.graph");
    ADD_FAILURE() << "a truncated 4elt.graph was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4elt-half.graph: the header declares 7434 vertices"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::sparse
