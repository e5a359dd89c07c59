// cache_read, cache_write, set_scope and decompose_reduction.
#include <gtest/gtest.h>

#include "ir/text/parser.h"
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
  EXPECT_EQ(CheckGolden("cache_read", f, sch.func()), "");
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
  EXPECT_EQ(CheckGolden("cache_write", f, sch.func()), "");
  auto loops = sch.GetLoops(cache);
  ExpectError([&] { sch.ReverseComputeAt(cache, loops[0]); }, ErrorKind::kSchedule,
              "block \"C_local\" is already under loop ax0");
  ExpectError([&] { sch.CacheWrite(c, 1, "local"); }, ErrorKind::kSchedule,
              "cache_write: block \"C\" has 1 written buffers; index 1 is out of range");
  ExpectError([&] { sch.CacheWrite(c, 0, "lo cal"); }, ErrorKind::kSchedule,
              "cache_write: \"lo cal\" is not a storage scope");
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
  EXPECT_EQ(CheckGolden("cache_write_reverse_compute_at", f, sch.func()), "");
}

TEST(SetScope, MovesIntermediate) {
  ir::PrimFunc f = MakeTwoStage(4, 4);
  Schedule sch(f);
  sch.SetScope(sch.GetBlock("B"), 0, "shared");
  EXPECT_EQ(sch.Get(sch.GetBlock("B"))->writes[0].buffer->scope, "shared");
  EXPECT_EQ(sch.Get(sch.GetBlock("C"))->reads[0].buffer->scope, "shared");
  EXPECT_NE(Skeleton(sch.func()).find("alloc B:shared"), std::string::npos);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("set_scope", f, sch.func()), "");
  ExpectError([&] { sch.SetScope(sch.GetBlock("C"), 0, "shared"); }, ErrorKind::kSchedule,
              "set_scope: C written by block \"C\" is a parameter");
}

TEST(CacheRead, OfAnAccumulatorLeavesTheReductionAlone) {
  // C accumulates into C_local, which it reads without declaring it; caching C_local for the
  // copy block must not redirect the accumulation.
  ir::PrimFunc f = MakeMatmul(4, 4, 6);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV copy = sch.CacheWrite(c, 0, "local");
  sch.CacheRead(copy, 0, "global");
  EXPECT_EQ(sch.Get(c)->writes[0].buffer->name, "C_local");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

TEST(CacheRead, RejectsAWriterAfterTheFirstReader) {
  // R reads tmp, then W overwrites it: a copy of tmp taken before R would miss W's values.
  Schedule sch(ir::ParsePrimFunc(R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    tmp = T.alloc_buffer((4,))
    for i in range(4):
        with T.block("P"):
            vi = T.axis.spatial(4, i)
            tmp[vi] = A[vi]
    for i in range(4):
        with T.block("R"):
            vi = T.axis.spatial(4, i)
            B[vi] = tmp[vi]
    for i in range(4):
        with T.block("W"):
            vi = T.axis.spatial(4, i)
            tmp[vi] = A[vi] * T.float32(2)
)"));
  ExpectError([&] { sch.CacheRead(sch.GetBlock("R"), 0, "global"); }, ErrorKind::kSchedule,
              "cache_read: block \"W\" writes tmp after a block reads it; the copy would miss "
              "that write");
  ExpectError([&] { sch.CacheRead(sch.GetBlock("R"), 0, ""); }, ErrorKind::kSchedule,
              "cache_read: \"\" is not a storage scope");
}

TEST(StorageAlign, PadsRowsOfCacheBuffer) {
  ir::PrimFunc f = MakeMatmul(16, 8, 24);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV cache = sch.CacheRead(c, 0, "shared");
  ir::PrimFunc cached = sch.func();
  sch.StorageAlign(cache, 0, 0, 16, 4);
  const ir::Buffer& aligned = sch.Get(cache)->writes[0].buffer;
  ASSERT_EQ(aligned->strides.size(), 2u);
  EXPECT_EQ(ir::AsConstInt(aligned->strides[0]), 36);  // 24 rounded up to 16 * 2 + 4
  EXPECT_EQ(ir::AsConstInt(aligned->strides[1]), 1);
  EXPECT_TRUE(sch.Get(c)->reads[0].buffer.same_as(aligned));
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("storage_align", cached, sch.func()), "");
  ExpectError([&] { sch.StorageAlign(cache, 0, 1, 16, 4); }, ErrorKind::kSchedule,
              "storage_align: A_shared already has explicit strides");
  ExpectError([&] { sch.StorageAlign(c, 0, 0, 16, 4); }, ErrorKind::kSchedule,
              "storage_align: C written by block \"C\" is a parameter of the function");
  Schedule other(f);
  BlockRV cache2 = other.CacheRead(other.GetBlock("C"), 0, "shared");
  ExpectError([&] { other.StorageAlign(cache2, 0, 2, 16, 4); }, ErrorKind::kSchedule,
              "storage_align: axis 2 is out of range for A_shared (2 dimensions)");
  ExpectError([&] { other.StorageAlign(cache2, 0, -2, 16, 16); }, ErrorKind::kSchedule,
              "storage_align: offset 16 is not in [0, factor 16)");
  ExpectError([&] { other.StorageAlign(cache2, 0, 0, 0, 0); }, ErrorKind::kSchedule,
              "storage_align: factor 0 is not positive");
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
  EXPECT_EQ(CheckGolden("decompose_reduction", f, sch.func()), "");
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
  EXPECT_EQ(CheckGolden("decompose_reduction_outer", f, sch.func()), "");
}

TEST(DecomposeReduction, RejectsInitInsideAReductionLoop) {
  Schedule sch(MakeMatmul(4, 4, 8));
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  auto k = sch.Split(loops[2], {2, 4});
  ExpectError([&] { sch.DecomposeReduction(c, k[1]); }, ErrorKind::kSchedule,
              "decompose_reduction: loop k_0, outside loop k_1, is bound to the reduction "
              "iteration vk of block \"C\"; the init must be placed outside every reduction loop");
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
