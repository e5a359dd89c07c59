// The edge-list reader: names numbered on first sight, undirected lists mirrored, repeated edges
// merged with the last weight, comments, errors with their line; and networkx's WormNet gene
// network (Debian's python3-networkx, unpacked by deploy/install-deps.sh).
#include "ir/sparse/edge_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "support/error.h"

namespace kiln::ir::sparse {
namespace {

TEST(EdgeListTest, NamesAreNumberedAndRepeatsMerged) {
  EdgeListInfo info;
  CsrMatrix m = ParseEdgeList(
      "# source target\n"
      "b a\n"
      "a c 2.5  # a comment after an edge\n"
      "\n"
      "c a 4\r\n",
      "e.txt", /*undirected=*/true, &info);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(info.names, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(info.edge_lines, 3);
  EXPECT_EQ(info.repeated, 2);  // (a, c) and (c, a) listed twice
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.indptr, (std::vector<int32_t>{0, 1, 3, 4}));
  EXPECT_EQ(m.indices, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<float>{1, 1, 4, 4}));  // the last weight given wins

  CsrMatrix directed = ParseEdgeList("1 2\n2 3\n1 2\n", "d", /*undirected=*/false, &info);
  EXPECT_EQ(directed.nnz(), 2);
  EXPECT_EQ(info.repeated, 1);
  CsrMatrix loop = ParseEdgeList("x x\n", "l", /*undirected=*/true);
  EXPECT_EQ(loop.nnz(), 1);
}

TEST(EdgeListTest, MalformedLinesAreRefusedWithTheirLine) {
  auto error_of = [](std::string_view text) -> std::string {
    try {
      ParseEdgeList(text, "e.txt", true);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(
      error_of("a b\nlonely\n").find("e.txt:2: expected 'source target [weight]', found 1 word"),
      std::string::npos);
  EXPECT_NE(error_of("a b 1 2\n").find("e.txt:1: expected 'source target [weight]', found 4 words"),
            std::string::npos);
  EXPECT_NE(error_of("a b heavy\n").find("e.txt:1: weight: 'heavy' is not a finite number"),
            std::string::npos);
  EXPECT_NE(error_of("a b inf\n").find("is not a finite number"), std::string::npos);
}

TEST(EdgeListTest, ReadsNetworkxsGeneNetwork) {
  const char* env = std::getenv("KILN_SPARSE_DATA");
  std::filesystem::path file = std::filesystem::path(env ? env : KILN_SPARSE_DATA_DIR) /
                               "python3-networkx" / "WormNet.v3.benchmark.txt";
  if (!std::filesystem::exists(file)) {
    GTEST_SKIP() << "skipped: no " << file.string()
                 << " (deploy/install-deps.sh unpacks Debian's python3-networkx there)";
  }
  EdgeListInfo info;
  CsrMatrix m = ReadEdgeList(file.string(), /*undirected=*/true, &info);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(info.edge_lines, 78736);  // one edge a line, no comments
  EXPECT_EQ(m.rows, static_cast<int64_t>(info.names.size()));
  EXPECT_EQ(info.names.size(), 2445u);  // distinct gene names in the two columns
  // Undirected: the pattern is symmetric, each listed edge twice less the repeats.
  EXPECT_EQ(m.nnz(), 2 * info.edge_lines - info.repeated);
  EXPECT_EQ(info.repeated, 0);  // no edge of the file is listed twice, in either direction
  EXPECT_EQ(m.nnz(), 2 * 78736);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
      const int32_t* begin = m.indices.data() + m.indptr[m.indices[p]];
      const int32_t* end = m.indices.data() + m.indptr[m.indices[p] + 1];
      ASSERT_TRUE(std::binary_search(begin, end, static_cast<int32_t>(r))) << r;
    }
  }
}

}  // namespace
}  // namespace kiln::ir::sparse
