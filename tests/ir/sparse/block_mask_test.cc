// Block-sparse attention masks: the layout holds each block row's band, the global blocks and
// exactly the random blocks asked for; the token mask is the layout's blocks as dense squares
// (a shorter last block included); the seed decides the random blocks and only them.
#include "ir/sparse/block_mask.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "support/error.h"

namespace kiln::ir::sparse {
namespace {

std::set<int32_t> Row(const CsrMatrix& m, int64_t r) {
  return {m.indices.begin() + m.indptr[r], m.indices.begin() + m.indptr[r + 1]};
}

TEST(BlockMaskTest, TheLayoutHasBandGlobalAndRandomBlocks) {
  BlockMaskOptions o;  // 4096 tokens, blocks of 64: 64 blocks
  CsrMatrix layout = BlockMaskLayout(o);
  EXPECT_EQ(layout.Check(), "");
  EXPECT_EQ(layout.rows, 64);
  EXPECT_EQ(layout.cols, 64);
  for (int64_t i = 0; i < layout.rows; ++i) {
    std::set<int32_t> row = Row(layout, i);
    if (i < o.global_blocks) {
      EXPECT_EQ(row.size(), 64u) << "global block row " << i << " attends to every block";
      continue;
    }
    std::set<int32_t> fixed;
    for (int64_t j = std::max<int64_t>(0, i - 1); j <= std::min<int64_t>(63, i + 1); ++j) {
      fixed.insert(static_cast<int32_t>(j));
    }
    fixed.insert(0);
    fixed.insert(1);
    for (int32_t j : fixed) EXPECT_TRUE(row.count(j)) << "block row " << i << " lacks " << j;
    EXPECT_EQ(row.size(), fixed.size() + 3) << "block row " << i << ": 3 random blocks";
  }
  for (float v : layout.values) ASSERT_EQ(v, 1.0f);
  // The seed moves the random blocks, nothing else.
  CsrMatrix same = BlockMaskLayout(o);
  EXPECT_EQ(same.StructureHash(), layout.StructureHash());
  BlockMaskOptions other = o;
  other.seed = 2;
  CsrMatrix moved = BlockMaskLayout(other);
  EXPECT_NE(moved.StructureHash(), layout.StructureHash());
  EXPECT_EQ(moved.nnz(), layout.nnz());
  // Without random blocks, only the band and the global blocks.
  other.random_blocks = 0;
  CsrMatrix fixed_only = BlockMaskLayout(other);
  EXPECT_EQ(Row(fixed_only, 10), (std::set<int32_t>{0, 1, 9, 10, 11}));
  // More random blocks than remain: the row fills up.
  other.random_blocks = 1000;
  EXPECT_EQ(BlockMaskLayout(other).nnz(), 64 * 64);
}

TEST(BlockMaskTest, TheTokenMaskExpandsEachBlock) {
  BlockMaskOptions o;
  o.seq_len = 100;  // blocks of 32: the fourth has 4 tokens
  o.block = 32;
  o.global_blocks = 1;
  o.random_blocks = 1;
  CsrMatrix layout = BlockMaskLayout(o);
  CsrMatrix mask = BlockSparseMask(o);
  EXPECT_EQ(mask.Check(), "");
  EXPECT_EQ(mask.rows, 100);
  EXPECT_EQ(mask.cols, 100);
  auto width = [](int64_t b) { return b == 3 ? 4 : 32; };
  int64_t expected_nnz = 0;
  for (int64_t r = 0; r < 100; ++r) {
    std::set<int32_t> want;
    for (int32_t b : Row(layout, r / 32)) {
      for (int64_t c = b * 32; c < b * 32 + width(b); ++c) want.insert(static_cast<int32_t>(c));
    }
    ASSERT_EQ(Row(mask, r), want) << "token row " << r;
    expected_nnz += static_cast<int64_t>(want.size());
  }
  EXPECT_EQ(mask.nnz(), expected_nnz);
  for (float v : mask.values) ASSERT_EQ(v, 1.0f);

  // The benchmark's mask: 4096 tokens, 64 blocks of 64; block rows 0 and 1 are global.
  CsrMatrix big = BlockSparseMask(BlockMaskOptions{});
  EXPECT_EQ(big.rows, 4096);
  EXPECT_EQ(big.RowLength(0), 4096);
  EXPECT_EQ(big.RowLength(64 * 10 + 5), 64 * (5 + 3));  // band 3 + global 2 + random 3
  EXPECT_EQ(big.nnz(), 64 * BlockMaskLayout(BlockMaskOptions{}).nnz() * 64);
}

TEST(BlockMaskTest, BadOptionsAreRefused) {
  BlockMaskOptions o;
  o.block = 0;
  try {
    BlockSparseMask(o);
    ADD_FAILURE() << "block 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("seq_len 4096 and block 0 must be at least 1"),
              std::string::npos)
        << e.what();
  }
  o = BlockMaskOptions{};
  o.random_blocks = -1;
  EXPECT_THROW(BlockMaskLayout(o), Error);
}

}  // namespace
}  // namespace kiln::ir::sparse
