// Golden tests of LowerBlocks: bindings substituted, init guarded, predicate kept, root and
// block allocations turned into Allocate.
#include "codegen/passes/lower_blocks.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;

TEST(LowerBlocksTest, MatmulInitRunsWhenReductionIsAtItsMinimum) {
  PrimFunc f = LowerBlocks(testing::Matmul(4, 5, 6));
  EXPECT_EQ(DumpStmt(f->body),
            "for i in serial(0, 4):\n"
            "  for j in serial(0, 5):\n"
            "    for k in serial(0, 6):\n"
            "      if (k == 0):\n"
            "        C[i, j] = 0f32\n"
            "      C[i, j] = (C[i, j] + (A[i, k] * B[k, j]))\n");
  // The buffer map is untouched.
  EXPECT_EQ(f->buffer_map.size(), 3u);
}

TEST(LowerBlocksTest, InitConditionCoversEveryReductionVariable) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {8, 8});
  Buffer s = DeclBuffer("S", f32, {1});
  Var i("i"), j("j"), vi("vi"), vj("vj"), v0("v0");
  // Reduction vars bound to shifted loop values: the init condition compares the bound
  // values with the domain minimum.
  Stmt body = BufferStore(s, BufferLoad(s, {v0}) + BufferLoad(a, {vi, vj}), {v0});
  Stmt block = testing::MakeBlock(
      "S", {testing::Spatial(v0, 1), testing::Reduce(vi, 8), testing::Reduce(vj, 8)}, {0, i, j},
      body, BufferStore(s, testing::F32(0), {v0}));
  PrimFunc f = testing::MakeFunc(
      "sum", {a, s},
      testing::Root(For(i, 0, 8, ForKind::kSerial, For(j, 0, 8, ForKind::kSerial, block))));
  EXPECT_EQ(DumpStmt(LowerBlocks(f)->body),
            "for i in serial(0, 8):\n"
            "  for j in serial(0, 8):\n"
            "    if ((i == 0) and (j == 0)):\n"
            "      S[0] = 0f32\n"
            "    S[0] = (S[0] + A[i, j])\n");
}

TEST(LowerBlocksTest, PredicateAndAllocationsAreKept) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {30});
  Buffer b = DeclBuffer("B", f32, {30});
  Buffer tmp = DeclBuffer("T", f32, {30});
  Buffer local = DeclBuffer("L", f32, {1}, "local");
  Var io("io"), ii("ii"), vi("vi"), wi("wi");
  Expr index = io * 8 + ii;
  Stmt copy = testing::MakeBlock("T", {testing::Spatial(vi, 30)}, {index},
                                 BufferStore(tmp, BufferLoad(a, {vi}), {vi}), Stmt(), index < 30);
  Stmt use =
      testing::MakeBlock("B", {testing::Spatial(wi, 30)}, {index},
                         SeqStmt({BufferStore(local, BufferLoad(tmp, {wi}) * testing::F32(2), {0}),
                                  BufferStore(b, BufferLoad(local, {0}), {wi})}),
                         Stmt(), index < 30, {local});
  Stmt loops =
      For(io, 0, 4, ForKind::kSerial, For(ii, 0, 8, ForKind::kSerial, SeqStmt({copy, use})));
  PrimFunc f = testing::MakeFunc("split", {a, b}, testing::Root(loops, {tmp}));
  EXPECT_EQ(DumpStmt(LowerBlocks(f)->body),
            "alloc T: float32[30] global\n"
            "  for io in serial(0, 4):\n"
            "    for ii in serial(0, 8):\n"
            "      if (((io * 8) + ii) < 30):\n"
            "        T[((io * 8) + ii)] = A[((io * 8) + ii)]\n"
            "      if (((io * 8) + ii) < 30):\n"
            "        alloc L: float32[1] local\n"
            "          L[0] = (T[((io * 8) + ii)] * 2f32)\n"
            "          B[((io * 8) + ii)] = L[0]\n");
}

TEST(LowerBlocksTest, NestedBlocksSubstituteOuterBindings) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {16});
  Var i("i"), j("j"), vo("vo"), vi("vi");
  Stmt inner = testing::MakeBlock("inner", {testing::Spatial(vi, 16)}, {vo * 4 + j},
                                  BufferStore(a, testing::F32(1), {vi}));
  Stmt outer = testing::MakeBlock("outer", {testing::Spatial(vo, 4)}, {i},
                                  For(j, 0, 4, ForKind::kSerial, inner));
  PrimFunc f = testing::MakeFunc("nest", {a}, testing::Root(For(i, 0, 4, ForKind::kSerial, outer)));
  EXPECT_EQ(DumpStmt(LowerBlocks(f)->body),
            "for i in serial(0, 4):\n"
            "  for j in serial(0, 4):\n"
            "    A[((i * 4) + j)] = 1f32\n");
}

TEST(LowerBlocksTest, BlockWithoutRealizeIsRejected) {
  auto block = std::make_shared<BlockNode>();
  block->name = "lonely";
  block->body = Evaluate(0);
  PrimFunc f = testing::MakeFunc("bad", {}, Block(block));
  EXPECT_THROW(LowerBlocks(f), Error);
}

}  // namespace
}  // namespace kiln::codegen
