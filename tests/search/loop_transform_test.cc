// split, fuse, reorder and add_unit_loop: structure after the transform, numeric
// equivalence with the original function, and rejected misuse.
#include <gtest/gtest.h>

#include "ir/substitute.h"
#include "search/schedule/schedule.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::CheckGolden;
using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmul;
using testing::MakeTwoStage;
using testing::Skeleton;

TEST(Split, InferredFactor) {
  ir::PrimFunc f = MakeMatmul(128, 16, 16);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto parts = sch.Split(loops[0], {std::nullopt, 32});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i_0 in 4\n"
            "    for i_1 in 32\n"
            "      for j in 16\n"
            "        for k in 16\n"
            "          block C [((i_0 * 32) + i_1), j, k] init\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("split_inferred", f, sch.func()), "");
}

TEST(Split, ThreeWayAndNonDivisibleAddsPredicate) {
  ir::PrimFunc f = MakeMatmul(10, 8, 8);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Split(loops[0], {2, std::nullopt, 2});
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i_0 in 2\n"
            "    for i_1 in 3\n"
            "      for i_2 in 2\n"
            "        for j in 8\n"
            "          for k in 8\n"
            "            block C [(((i_0 * 6) + (i_1 * 2)) + i_2), j, k] if "
            "((((i_0 * 6) + (i_1 * 2)) + i_2) < 10) init\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("split_predicate", f, sch.func()), "");
}

TEST(Split, RejectsBadFactors) {
  Schedule sch(MakeMatmul(16, 16, 16));
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError(
      [&] {
        sch.Split(loops[0], {2, 4});
      },
      ErrorKind::kSchedule, "multiply to 8, less than its extent 16");
  ExpectError(
      [&] {
        sch.Split(loops[0], {std::nullopt, std::nullopt});
      },
      ErrorKind::kSchedule, "more than one factor of loop i");
  ExpectError(
      [&] {
        sch.Split(loops[0], {0, std::nullopt});
      },
      ErrorKind::kSchedule, "not positive");
  // As in TVM, a parallel loop splits into serial loops.
  sch.Parallel(loops[1]);
  std::vector<LoopRV> parts = sch.Split(loops[1], {4, 4});
  EXPECT_EQ(sch.Get(parts[0])->for_kind, ir::ForKind::kSerial);
}

// MetaSchedule traces set preserve_unit_iters: a unit loop stays a variable of the block
// binding when it is true and becomes the constant 0 when it is false.
TEST(Split, PreserveUnitIters) {
  for (bool preserve : {true, false}) {
    ir::PrimFunc f = MakeMatmul(8, 8, 4);
    Schedule sch(f);
    std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
    std::vector<LoopRV> parts = sch.Split(loops[0], {1, 8}, preserve);
    ir::Var unit = sch.Get(parts[0])->loop_var;
    const ir::BlockRealizeNode* realize = sch.GetRealize(sch.GetBlock("C"));
    EXPECT_EQ(ir::UsesVar(realize->iter_values[0], unit.get()), preserve)
        << testing::ExprText(realize->iter_values[0]);
    EXPECT_EQ(CompareNumerics(f, sch.func()), "");
    // Replayed from its trace, the flag holds.
    EXPECT_EQ(Skeleton(ReplayTrace(f, sch.trace())), Skeleton(sch.func()));
  }
}

TEST(Fuse, PreserveUnitIters) {
  for (bool preserve : {true, false}) {
    ir::PrimFunc f = MakeMatmul(1, 8, 4);
    Schedule sch(f);
    std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
    LoopRV fused = sch.Fuse({loops[0], loops[1]}, preserve);
    ir::Var var = sch.Get(fused)->loop_var;
    const ir::BlockRealizeNode* realize = sch.GetRealize(sch.GetBlock("C"));
    // i has extent 1: without preserve_unit_iters it is bound to 0. (With it, the binding
    // fused // 8 simplifies to 0 all the same, knowing the fused loop's range.)
    EXPECT_FALSE(ir::UsesVar(realize->iter_values[0], var.get()))
        << testing::ExprText(realize->iter_values[0]);
    EXPECT_TRUE(ir::UsesVar(realize->iter_values[1], var.get()));
    EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  }
}

TEST(Fuse, TwoLoops) {
  ir::PrimFunc f = MakeMatmul(8, 6, 4);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  LoopRV fused = sch.Fuse({loops[0], loops[1]});
  EXPECT_EQ(sch.Get(fused)->loop_var.name(), "i_j_fused");
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i_j_fused in 48\n"
            "    for k in 4\n"
            "      block C [(i_j_fused // 6), (i_j_fused % 6), k] init\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("fuse_two", f, sch.func()), "");
}

TEST(Fuse, ThreeLoops) {
  ir::PrimFunc f = MakeMatmul(2, 3, 4);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Fuse(loops);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i_j_k_fused in 24\n"
            "    block C [(i_j_k_fused // 12), ((i_j_k_fused // 4) % 3), (i_j_k_fused % 4)] "
            "init\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("fuse_three", f, sch.func()), "");
}

TEST(Fuse, RejectsLoopsNotNested) {
  Schedule sch(MakeTwoStage(4, 4));
  auto b_loops = sch.GetLoops(sch.GetBlock("B"));
  auto c_loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError(
      [&] {
        sch.Fuse({b_loops[0], c_loops[1]});
      },
      ErrorKind::kSchedule, "only perfectly nested loops can be fused");
  ExpectError(
      [&] {
        sch.Fuse({b_loops[0], b_loops[0]});
      },
      ErrorKind::kSchedule, "not the only statement directly inside loop i");
}

TEST(Reorder, SwapsLoops) {
  ir::PrimFunc f = MakeMatmul(4, 6, 8);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Reorder({loops[2], loops[0]});
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for k in 8\n"
            "    for j in 6\n"
            "      for i in 4\n"
            "        block C [i, j, k] init\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("reorder", f, sch.func()), "");
}

TEST(Reorder, RejectsLoopsOnDifferentChains) {
  Schedule sch(MakeTwoStage(4, 4));
  auto b_loops = sch.GetLoops(sch.GetBlock("B"));
  auto c_loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError(
      [&] {
        sch.Reorder({c_loops[1], b_loops[0]});
      },
      ErrorKind::kSchedule, "must lie on one chain");
  ExpectError(
      [&] {
        sch.Reorder({b_loops[1], b_loops[1]});
      },
      ErrorKind::kSchedule, "appears twice");
}

TEST(Reorder, RejectsSwappingPartsOfAFusedSpatialAndReductionLoop) {
  ir::PrimFunc f = MakeMatmul(4, 4, 6);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  LoopRV jk = sch.Fuse({loops[1], loops[2]});
  // Split at 8, not at the reduction extent 6: both parts feed j and k.
  auto parts = sch.Split(jk, {3, 8});
  ExpectError(
      [&] {
        sch.Reorder({parts[1], parts[0]});
      },
      ErrorKind::kSchedule,
      "reorder: loop j_k_fused_0 and loop j_k_fused_1 are both bound to spatial and "
      "reduction iterations of block \"C\"");
  sch.Reorder({parts[0], loops[0]});  // a pure spatial loop may move around them
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(Split, OfAFusedLoopAtItsInnerExtentGivesBackTheLoops) {
  // Bindings are simplified with the loop ranges: (f_0 * 6 + f_1) // 6 is f_0. Then the two
  // parts are plain j and k, and swapping them is an ordinary reorder.
  ir::PrimFunc f = MakeMatmul(4, 4, 6);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto parts = sch.Split(sch.Fuse({loops[1], loops[2]}), {4, 6});
  sch.Reorder({parts[1], parts[0]});
  EXPECT_NE(Skeleton(sch.func()).find("block C [i, j_k_fused_0, j_k_fused_1]"), std::string::npos)
      << Skeleton(sch.func());
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(AddUnitLoop, AroundBlockAndLoop) {
  ir::PrimFunc f = MakeTwoStage(4, 4);
  Schedule sch(f);
  BlockRV b = sch.GetBlock("B");
  LoopRV u = sch.AddUnitLoop(b);
  EXPECT_EQ(sch.Get(u)->loop_var.name(), "u");
  auto loops = sch.GetLoops(b);
  ASSERT_EQ(loops.size(), 3u);
  sch.AddUnitLoop(loops[0]);
  EXPECT_EQ(sch.GetLoops(b).size(), 4u);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("add_unit_loop", f, sch.func()), "");
  ExpectError([&] { sch.AddUnitLoop(sch.GetBlock("root")); }, ErrorKind::kSchedule,
              "is the root block");
}

}  // namespace
}  // namespace kiln::search
