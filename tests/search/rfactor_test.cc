// rfactor: the partial-result block and the write-back block, on matmul (sum), a max
// reduction and a split reduction loop; golden text, numeric equivalence, the factored loop
// made parallel, trace replay, and rejected misuse.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "search/schedule/schedule.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::CheckGolden;
using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmul;
using testing::MakeMatmulRelu;
using testing::MakeTwoStage;

TEST(RFactor, SplitReductionLoopOfMatmul) {
  ir::PrimFunc f = MakeMatmul(4, 6, 16);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  auto k = sch.Split(loops[2], {std::nullopt, 4});
  BlockRV rf = sch.RFactor(k[1], 0);
  EXPECT_EQ(sch.Get(rf)->name, "C_rf");
  EXPECT_EQ(sch.Get(c)->name, "C");  // the handle follows the write-back block
  // The factored loop is a spatial iteration of the rfactor block now.
  auto rf_loops = sch.GetLoops(rf);
  ASSERT_EQ(rf_loops.size(), 4u);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("rfactor", f, sch.func()), "");
  ir::PrimFunc replayed = ReplayTrace(f, Trace::FromJSON(sch.trace().ToJSON()));
  EXPECT_TRUE(ir::StructuralEqual(replayed, sch.func()));
}

TEST(RFactor, FactoredLoopCanRunInParallel) {
  ir::PrimFunc f = MakeMatmul(4, 4, 32);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto k = sch.Split(loops[2], {4, std::nullopt});
  BlockRV rf = sch.RFactor(k[0], 1);
  auto rf_loops = sch.GetLoops(rf);
  sch.Reorder({rf_loops[2], rf_loops[0], rf_loops[1]});
  sch.Parallel(rf_loops[2]);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  const ir::BlockNode* block = sch.Get(rf);
  ASSERT_EQ(block->writes.size(), 1u);
  EXPECT_EQ(block->writes[0].buffer->shape.size(), 3u);
  EXPECT_EQ(ir::AsConstInt(block->writes[0].buffer->shape[1]), 4);  // factor_axis 1
}

TEST(RFactor, WholeReductionLoopOfMaxReduction) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("max_reduce");
  ir::PrimFunc f = entry.build();
  Schedule sch(f);
  std::vector<BlockRV> blocks = sch.GetChildBlocks(sch.GetBlock("root"));
  ASSERT_EQ(blocks.size(), 1u);
  auto loops = sch.GetLoops(blocks[0]);
  sch.RFactor(loops.back(), -1);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("rfactor_max", f, sch.func()), "");
}

TEST(RFactor, RejectsMisuse) {
  Schedule sch(MakeMatmulRelu(4, 4, 8));
  auto c_loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError([&] { sch.RFactor(c_loops[0]); }, ErrorKind::kSchedule,
              "rfactor: loop i is not bound to a reduction iteration of block \"C\"");
  auto d_loops = sch.GetLoops(sch.GetBlock("D"));
  ExpectError([&] { sch.RFactor(d_loops[1]); }, ErrorKind::kSchedule,
              "rfactor: block \"D\" has no init; only a reduction block can be factored");
  ExpectError([&] { sch.RFactor(c_loops[2], 3); }, ErrorKind::kSchedule,
              "rfactor: factor_axis 3 is out of range for C (2 dimensions: expected -3 to 2)");
  // After compute_at, the loops of D hold C too.
  sch.ComputeAt(sch.GetBlock("C"), d_loops[1]);
  ExpectError([&] { sch.RFactor(d_loops[0]); }, ErrorKind::kSchedule,
              "rfactor: loop i holds 2 blocks; it must hold exactly one reduction block");
  Schedule two(MakeTwoStage(4, 4));
  ExpectError([&] { two.RFactor(two.GetLoops(two.GetBlock("B"))[0]); }, ErrorKind::kSchedule,
              "has no init");
}

TEST(RFactor, RejectsPredicatedReductionSplit) {
  Schedule sch(MakeMatmul(4, 4, 10));
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto k = sch.Split(loops[2], {std::nullopt, 4});
  ExpectError([&] { sch.RFactor(k[1]); }, ErrorKind::kSchedule,
              "the predicate of block \"C\" depends on loop k_0");
}

}  // namespace
}  // namespace kiln::search
