// The R-MAT generator: the same seed gives the same matrix (its structure hash pinned, so a
// machine or library that draws differently fails), another seed another; self-loops and
// duplicates are gone and counted; the degrees are skewed as a power law's are.
#include "ir/sparse/rmat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "support/error.h"

namespace kiln::ir::sparse {
namespace {

constexpr int64_t kPinnedNnz = 12129;
constexpr uint64_t kPinnedHash = 7214718374321675246ULL;

TEST(RmatTest, TheSameSeedGivesTheSameMatrixEverywhere) {
  RmatOptions o;
  o.scale = 10;
  RmatInfo info;
  CsrMatrix m = GenerateRmat(o, &info);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(m.rows, 1024);
  EXPECT_EQ(m.cols, 1024);
  EXPECT_EQ(info.drawn, 16 * 1024);
  EXPECT_EQ(m.nnz(), info.drawn - info.self_loops - info.duplicates);
  EXPECT_GT(info.duplicates, 0);                // R-MAT's heavy corner draws some edges twice
  for (float v : m.values) ASSERT_EQ(v, 1.0f);  // merged, not summed
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) ASSERT_NE(m.indices[p], r);
  }
  CsrMatrix again = GenerateRmat(o);
  EXPECT_EQ(again.indptr, m.indptr);
  EXPECT_EQ(again.indices, m.indices);
  // Pinned: splitmix64 and IEEE comparisons only, so every machine draws this matrix.
  EXPECT_EQ(m.nnz(), kPinnedNnz);
  EXPECT_EQ(m.StructureHash(), kPinnedHash);
  o.seed = 2;
  EXPECT_NE(GenerateRmat(o).StructureHash(), m.StructureHash());
}

// The share of all nonzeros held by the top 1% of rows.
double TopPercentShare(const CsrMatrix& m) {
  std::vector<int64_t> degree;
  for (int64_t r = 0; r < m.rows; ++r) degree.push_back(m.RowLength(r));
  std::sort(degree.begin(), degree.end(), std::greater<>());
  int64_t top = 0;
  for (int64_t i = 0; i < m.rows / 100; ++i) top += degree[i];
  return static_cast<double>(top) / static_cast<double>(m.nnz());
}

TEST(RmatTest, DegreesAreSkewed) {
  RmatOptions o;
  o.scale = 14;
  CsrMatrix m = GenerateRmat(o);
  double share = TopPercentShare(m);
  // A uniform random graph of the same size gives the top 1% of rows under 2% (below).
  EXPECT_GT(share, 0.2) << share;  // 0.30 at seed 1
  int64_t empty = 0;
  for (int64_t r = 0; r < m.rows; ++r) empty += m.RowLength(r) == 0;
  EXPECT_GT(empty, m.rows / 10);  // a power law leaves many vertices without an out-edge
  // With a = b = c = d = 1/4 R-MAT is uniform: no skew.
  o.a = o.b = o.c = 0.25;
  double uniform = TopPercentShare(GenerateRmat(o));
  EXPECT_LT(uniform, 0.03) << uniform;
  // Without the permutation the heavy rows gather at the low indices.
  o = RmatOptions{};
  o.scale = 14;
  o.permute = false;
  CsrMatrix unpermuted = GenerateRmat(o);
  EXPECT_EQ(unpermuted.nnz(), m.nnz());
  EXPECT_GT(unpermuted.RowLength(0), 50 * unpermuted.nnz() / unpermuted.rows);
}

TEST(RmatTest, BadOptionsAreRefused) {
  auto error_of = [](RmatOptions o) -> std::string {
    try {
      GenerateRmat(o);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
      return e.what();
    }
    return "no error";
  };
  RmatOptions o;
  o.scale = 0;
  EXPECT_NE(error_of(o).find("scale 0: expected 1..28"), std::string::npos);
  o = RmatOptions{};
  o.edge_factor = 0;
  EXPECT_NE(error_of(o).find("edge factor 0: expected 1..1024"), std::string::npos);
  o = RmatOptions{};
  o.scale = 28;
  o.edge_factor = 16;
  EXPECT_NE(error_of(o).find("at most 2^31 - 1 fit a CsrMatrix"), std::string::npos);
  o = RmatOptions{};
  o.a = 0.9;
  EXPECT_NE(error_of(o).find("expected non-negative with a + b + c <= 1"), std::string::npos);
}

}  // namespace
}  // namespace kiln::ir::sparse
