// cache_read, cache_write, set_scope and decompose_reduction.
#include <gtest/gtest.h>

#include "search/schedule/schedule.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmul;
using testing::MakeMatmulRelu;
using testing::MakeTwoStage;
using testing::Skeleton;

TEST(CacheRead, CopiesInputIntoScope) {
  ir::PrimFunc f = MakeMatmul(4, 4, 4);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV cache = sch.CacheRead(c, 0, "shared");
  EXPECT_EQ(sch.Get(cache)->name, "A_shared");
  EXPECT_EQ(Skeleton(sch.func()),
            "block root alloc A_shared:shared\n"
            "  for ax0 in 4\n"
            "    for ax1 in 4\n"
            "      block A_shared [ax0, ax1]\n"
            "  for i in 4\n"
            "    for j in 4\n"
            "      for k in 4\n"
            "        block C [i, j, k] init\n");
  EXPECT_EQ(sch.Get(c)->reads[0].buffer->name, "A_shared");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  ExpectError([&] { sch.CacheRead(c, 5, "shared"); }, ErrorKind::kSchedule,
              "cache_read: block \"C\" has 2 read buffers; index 5 is out of range");
}

TEST(CacheWrite, WritesThroughLocalBuffer) {
  ir::PrimFunc f = MakeMatmul(4, 4, 4);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV cache = sch.CacheWrite(c, 0, "local");
  EXPECT_EQ(sch.Get(cache)->name, "C_local");
  EXPECT_EQ(Skeleton(sch.func()),
            "block root alloc C_local:local\n"
            "  for i in 4\n"
            "    for j in 4\n"
            "      for k in 4\n"
            "        block C [i, j, k] init\n"
            "  for ax0 in 4\n"
            "    for ax1 in 4\n"
            "      block C_local [ax0, ax1]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  auto loops = sch.GetLoops(cache);
  ExpectError([&] { sch.ReverseComputeAt(cache, loops[0]); }, ErrorKind::kSchedule,
              "block \"C_local\" is already under loop ax0");
}

TEST(CacheWrite, ThenReverseComputeAt) {
  ir::PrimFunc f = MakeMatmul(8, 8, 4);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV cache = sch.CacheWrite(c, 0, "local");
  auto loops = sch.GetLoops(c);
  auto i = sch.Split(loops[0], {2, 4});
  sch.ReverseComputeAt(cache, i[0]);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root alloc C_local:local\n"
            "  for i_0 in 2\n"
            "    for i_1 in 4\n"
            "      for j in 8\n"
            "        for k in 4\n"
            "          block C [((i_0 * 4) + i_1), j, k] init\n"
            "    for ax0 in 4\n"
            "      for ax1 in 8\n"
            "        block C_local [((i_0 * 4) + ax0), ax1]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(SetScope, MovesIntermediate) {
  ir::PrimFunc f = MakeTwoStage(4, 4);
  Schedule sch(f);
  sch.SetScope(sch.GetBlock("B"), 0, "shared");
  EXPECT_EQ(sch.Get(sch.GetBlock("B"))->writes[0].buffer->scope, "shared");
  EXPECT_EQ(sch.Get(sch.GetBlock("C"))->reads[0].buffer->scope, "shared");
  EXPECT_NE(Skeleton(sch.func()).find("alloc B:shared"), std::string::npos);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  ExpectError([&] { sch.SetScope(sch.GetBlock("C"), 0, "shared"); }, ErrorKind::kSchedule,
              "set_scope: C written by block \"C\" is a parameter");
}

TEST(DecomposeReduction, InitBeforeReductionLoop) {
  ir::PrimFunc f = MakeMatmul(4, 6, 8);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  BlockRV init = sch.DecomposeReduction(c, loops[2]);
  EXPECT_EQ(sch.Get(init)->name, "C_init");
  EXPECT_EQ(sch.Get(c)->name, "C_update");  // the handle follows the renamed block
  EXPECT_FALSE(sch.Get(c)->init.defined());
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i in 4\n"
            "    for j in 6\n"
            "      block C_init [i, j]\n"
            "      for k in 8\n"
            "        block C_update [i, j, k]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(DecomposeReduction, AtOuterLoopRepeatsSpatialLoops) {
  ir::PrimFunc f = MakeMatmul(4, 6, 8);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  sch.Reorder({loops[2], loops[1]});
  sch.DecomposeReduction(c, loops[0]);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i_init in 4\n"
            "    for j_init in 6\n"
            "      block C_init [i_init, j_init]\n"
            "  for i in 4\n"
            "    for k in 8\n"
            "      for j in 6\n"
            "        block C_update [i, j, k]\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(DecomposeReduction, RejectsMisuse) {
  Schedule sch(MakeMatmulRelu(4, 4, 4));
  BlockRV d = sch.GetBlock("D");
  auto d_loops = sch.GetLoops(d);
  ExpectError([&] { sch.DecomposeReduction(d, d_loops[0]); }, ErrorKind::kSchedule,
              "decompose_reduction: block \"D\" has no init");
  ExpectError([&] { sch.DecomposeReduction(sch.GetBlock("C"), d_loops[0]); }, ErrorKind::kSchedule,
              "loop i is not a loop above block \"C\"");
}

}  // namespace
}  // namespace kiln::search
