// compute_at, reverse_compute_at, compute_inline, reverse_compute_inline and
// sample_compute_location: structure, numeric equivalence and rejected misuse.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "search/schedule/schedule.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::CheckGolden;
using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmulRelu;
using testing::MakeTwoStage;
using testing::Skeleton;

TEST(ComputeInline, InlinesElementwiseProducer) {
  ir::PrimFunc f = MakeTwoStage(4, 6);
  Schedule sch(f);
  sch.ComputeInline(sch.GetBlock("B"));
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i in 4\n"
            "    for j in 6\n"
            "      block C [i, j]\n");
  EXPECT_EQ(sch.func()->body.as<ir::BlockRealizeNode>()->block_node()->alloc_buffers.size(), 0u);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("compute_inline", f, sch.func()), "");
}

TEST(ComputeInline, RejectsReductionAndOutputs) {
  Schedule sch(MakeMatmulRelu(4, 4, 4));
  ExpectError([&] { sch.ComputeInline(sch.GetBlock("C")); }, ErrorKind::kSchedule,
              "compute_inline: block \"C\" is a reduction");
  ExpectError([&] { sch.ComputeInline(sch.GetBlock("D")); }, ErrorKind::kSchedule,
              "writes D, a parameter of the function");
  ExpectError([&] { sch.ComputeInline(sch.GetBlock("root")); }, ErrorKind::kSchedule,
              "root block cannot be inlined");
}

TEST(ReverseComputeInline, InlinesConsumer) {
  ir::PrimFunc f = MakeTwoStage(4, 6);
  Schedule sch(f);
  sch.ReverseComputeInline(sch.GetBlock("C"));
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i in 4\n"
            "    for j in 6\n"
            "      block B [i, j]\n");
  const ir::BlockNode* b = sch.Get(sch.GetBlock("B"));
  ASSERT_EQ(b->writes.size(), 1u);
  EXPECT_EQ(b->writes[0].buffer->name, "C");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("reverse_compute_inline", f, sch.func()), "");
}

TEST(ReverseComputeInline, RejectsReductionProducer) {
  Schedule sch(MakeMatmulRelu(4, 4, 4));
  ExpectError([&] { sch.ReverseComputeInline(sch.GetBlock("D")); }, ErrorKind::kSchedule,
              "reverse_compute_inline: block \"C\" is a reduction");
}

TEST(ComputeAt, ProducerUnderConsumerTile) {
  ir::PrimFunc f = MakeTwoStage(8, 8);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto i = sch.Split(loops[0], {std::nullopt, 4});
  sch.ComputeAt(sch.GetBlock("B"), i[0]);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root alloc B:global\n"
            "  for i_0 in 2\n"
            "    for ax0 in 4\n"
            "      for ax1 in 8\n"
            "        block B [((i_0 * 4) + ax0), ax1]\n"
            "    for i_1 in 4\n"
            "      for j in 8\n"
            "        block C [((i_0 * 4) + i_1), j]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("compute_at", f, sch.func()), "");
}

TEST(ComputeAt, ReductionProducerAtInnermostLoop) {
  ir::PrimFunc f = MakeMatmulRelu(6, 4, 5);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("D"));
  sch.ComputeAt(sch.GetBlock("C"), loops[1]);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root alloc C:global\n"
            "  for i in 6\n"
            "    for j in 4\n"
            "      for ax0 in 5\n"
            "        block C [i, j, ax0] init\n"
            "      block D [i, j]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("compute_at_reduction", f, sch.func()), "");
}

TEST(ComputeAt, NonDivisibleTileIsGuarded) {
  ir::PrimFunc f = MakeTwoStage(10, 3);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto i = sch.Split(loops[0], {std::nullopt, 4});
  sch.ComputeAt(sch.GetBlock("B"), i[0]);
  EXPECT_NE(Skeleton(sch.func()).find("block B [((i_0 * 4) + ax0), ax1] if"), std::string::npos)
      << Skeleton(sch.func());
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("compute_at_guarded", f, sch.func()), "");
}

TEST(ComputeAt, RejectsInvalidLocations) {
  Schedule sch(MakeTwoStage(8, 8));
  BlockRV b = sch.GetBlock("B");
  auto own = sch.GetLoops(b);
  ExpectError([&] { sch.ComputeAt(b, own[1]); }, ErrorKind::kSchedule,
              "compute_at: block \"B\" is already under loop j");
  BlockRV c = sch.GetBlock("C");
  auto c_loops = sch.GetLoops(c);
  ExpectError([&] { sch.ComputeAt(c, c_loops[0]); }, ErrorKind::kSchedule, "already under loop i");
  ExpectError([&] { sch.ReverseComputeAt(b, c_loops[0]); }, ErrorKind::kSchedule,
              "reverse_compute_at: block \"B\" must come after loop i");
}

TEST(ComputeAt, RejectsMovingOneOfTwoWriters) {
  // After decompose_reduction, C is written by C_init and C_update: neither may move alone.
  Schedule sch(MakeMatmulRelu(4, 4, 4));
  BlockRV c = sch.GetBlock("C");
  BlockRV init = sch.DecomposeReduction(c, sch.GetLoops(c)[0]);
  auto d_loops = sch.GetLoops(sch.GetBlock("D"));
  ExpectError([&] { sch.ComputeAt(init, d_loops[0]); }, ErrorKind::kSchedule,
              "compute_at: C is written by both block \"C_init\" and block \"C_update\"; only "
              "the single producer of a buffer can move");
}

TEST(ReverseComputeAt, RejectsConsumerInsideProducersReduction) {
  Schedule sch(MakeMatmulRelu(4, 4, 4));
  auto c_loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError([&] { sch.ReverseComputeAt(sch.GetBlock("D"), c_loops[2]); }, ErrorKind::kSchedule,
              "reverse_compute_at: loop k is bound to the reduction iteration vk of block \"C\", "
              "which produces C; its values are not final inside loop k");
  // At the spatial loop j the values are final: allowed.
  ir::PrimFunc f = sch.func();
  sch.ReverseComputeAt(sch.GetBlock("D"), c_loops[1]);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(ReverseComputeAt, ConsumerUnderProducerTile) {
  ir::PrimFunc f = MakeTwoStage(8, 6);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("B"));
  auto j = sch.Split(loops[1], {2, 3});
  sch.ReverseComputeAt(sch.GetBlock("C"), j[0]);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root alloc B:global\n"
            "  for i in 8\n"
            "    for j_0 in 2\n"
            "      for j_1 in 3\n"
            "        block B [i, ((j_0 * 3) + j_1)]\n"
            "      for ax0 in 3\n"
            "        block C [i, ((j_0 * 3) + ax0)]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("reverse_compute_at", f, sch.func()), "");
}

TEST(ReverseComputeAt, RejectsStridedProducedRegion) {
  // j_1 outside j_0: each iteration of j_1 writes columns j_1, j_1 + 3 of B, whose hull also
  // holds column j_1 + 1, not written yet. The consumer may not read it.
  ir::PrimFunc f = MakeTwoStage(8, 6);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("B"));
  auto j = sch.Split(loops[1], {2, 3});
  sch.Reorder({j[1], j[0]});
  ExpectError([&] { sch.ReverseComputeAt(sch.GetBlock("C"), j[1]); }, ErrorKind::kSchedule,
              "reverse_compute_at: the part of B that block \"B\" writes under loop j_1 is not a "
              "dense box (its index j_0 * 3 + j_1 in dimension 1 steps by 3 over the loops "
              "under it, leaving gaps); block \"C\" would read elements no iteration of the loop "
              "has written");
  // Under i, outside both halves, the region is whole rows: allowed and equivalent.
  sch.ReverseComputeAt(sch.GetBlock("C"), loops[0]);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(SampleComputeLocation, CandidatesAreValidAndReplayable) {
  ir::PrimFunc f = MakeTwoStage(8, 8);
  for (uint64_t seed = 0; seed < 6; ++seed) {
    Schedule sch(f, seed);
    BlockRV b = sch.GetBlock("B");
    LoopRV at = sch.SampleComputeLocation(b);
    sch.ComputeAt(b, at);
    EXPECT_EQ(CompareNumerics(f, sch.func()), "");
    ir::PrimFunc replayed = ReplayTrace(f, Trace::FromJSON(sch.trace().ToJSON()));
    EXPECT_TRUE(ir::StructuralEqual(replayed, sch.func()));
  }
  {
    Schedule sch(f);
    BlockRV b = sch.GetBlock("B");
    LoopRV at = sch.SampleComputeLocation(b, 1);
    sch.ComputeAt(b, at);
    EXPECT_EQ(CheckGolden("sample_compute_location", f, sch.func()), "");
  }
  Schedule sch(f);
  LoopRV root = sch.SampleComputeLocation(sch.GetBlock("B"), -1);
  EXPECT_TRUE(sch.IsRootMark(root));
  ExpectError([&] { sch.SampleComputeLocation(sch.GetBlock("B"), 7); }, ErrorKind::kSchedule,
              "is neither -1 (root) nor one of its 2 candidate loops");
}

}  // namespace
}  // namespace kiln::search
