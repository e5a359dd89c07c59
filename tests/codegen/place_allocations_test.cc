// Golden tests of PlaceAllocations: a buffer moves to the lowest common ancestor of its
// accesses (a loop body or a nested block), never into a loop its writer reduces over.
#include "codegen/passes/place_allocations.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;
using testing::F32;
using testing::MakeBlock;
using testing::Reduce;
using testing::Root;
using testing::Spatial;

const DataType kF32 = DataType::Float(32);

TEST(PlaceAllocationsTest, StageBufferMovesIntoTheLoopThatUsesIt) {
  // T is produced and consumed under loop i only: each iteration gets its own T.
  Buffer a = DeclBuffer("A", kF32, {8, 16});
  Buffer b = DeclBuffer("B", kF32, {8, 16});
  Buffer t = DeclBuffer("T", kF32, {8, 16});
  Var i("i"), j("j"), j2("j2"), vi("vi"), vj("vj"), wi("wi"), wj("wj");
  Stmt produce = MakeBlock("T", {Spatial(vi, 8), Spatial(vj, 16)}, {i, j},
                           BufferStore(t, BufferLoad(a, {vi, vj}) * F32(2), {vi, vj}));
  Stmt consume = MakeBlock("B", {Spatial(wi, 8), Spatial(wj, 16)}, {i, j2},
                           BufferStore(b, BufferLoad(t, {wi, wj}) + F32(1), {wi, wj}));
  Stmt loops = For(i, 0, 8, ForKind::kParallel,
                   SeqStmt({For(j, 0, 16, ForKind::kSerial, produce),
                            For(j2, 0, 16, ForKind::kSerial, consume)}));
  PrimFunc f = PlaceAllocations(testing::MakeFunc("f", {a, b}, Root(loops, {t})));
  EXPECT_EQ(DumpStmt(f->body),
            "block root() where True:\n"
            "  for i in parallel(0, 8):\n"
            "    alloc T: float32[8, 16] global\n"
            "      for j in serial(0, 16):\n"
            "        block T(vi=i, vj=j) where True:\n"
            "          T[vi, vj] = (A[vi, vj] * 2f32)\n"
            "      for j2 in serial(0, 16):\n"
            "        block B(wi=i, wj=j2) where True:\n"
            "          B[wi, wj] = (T[wi, wj] + 1f32)\n");
}

TEST(PlaceAllocationsTest, AccumulatorStaysOutsideTheLoopItsWriterReducesOver) {
  // A running sum: every access of S is under loop k, but S carries values from one k to
  // the next, so it must not be allocated per iteration of k.
  Buffer a = DeclBuffer("A", kF32, {16});
  Buffer b = DeclBuffer("B", kF32, {16});
  Buffer s = DeclBuffer("S", kF32, {1});
  Var k("k"), v0("v0"), vk("vk"), wk("wk");
  Stmt sum = MakeBlock("S", {Spatial(v0, 1), Reduce(vk, 16)}, {0, k},
                       BufferStore(s, BufferLoad(s, {v0}) + BufferLoad(a, {vk}), {v0}),
                       BufferStore(s, F32(0), {v0}));
  Stmt out = MakeBlock("B", {Spatial(wk, 16)}, {k}, BufferStore(b, BufferLoad(s, {0}), {wk}));
  Stmt loops = For(k, 0, 16, ForKind::kSerial, SeqStmt({sum, out}));
  PrimFunc f = PlaceAllocations(testing::MakeFunc("f", {a, b}, Root(loops, {s})));
  EXPECT_EQ(DumpStmt(f->body),
            "block root() where True:\n"
            "  alloc_buffer S: float32[1]\n"
            "  for k in serial(0, 16):\n"
            "    block S(v0=0, vk=k) where True:\n"
            "      init:\n"
            "        S[v0] = 0f32\n"
            "      S[v0] = (S[v0] + A[vk])\n"
            "    block B(wk=k) where True:\n"
            "      B[wk] = S[0]\n");
}

TEST(PlaceAllocationsTest, BufferMovesIntoTheNestedBlockThatUsesIt) {
  Buffer a = DeclBuffer("A", kF32, {4});
  Buffer t = DeclBuffer("T", kF32, {4});
  Buffer u = DeclBuffer("U", kF32, {4});  // never accessed: stays
  Var i("i"), j("j"), vo("vo"), vi("vi"), wi("wi");
  Stmt read = MakeBlock("R", {Spatial(wi, 4)}, {j}, BufferStore(a, BufferLoad(t, {wi}), {wi}));
  Stmt write = MakeBlock("W", {Spatial(vi, 4)}, {i}, BufferStore(t, F32(1), {vi}));
  Stmt nested = MakeBlock(
      "outer", {Spatial(vo, 1)}, {0},
      SeqStmt({For(i, 0, 4, ForKind::kSerial, write), For(j, 0, 4, ForKind::kSerial, read)}));
  PrimFunc f = PlaceAllocations(testing::MakeFunc("f", {a}, Root(nested, {t, u})));
  EXPECT_EQ(DumpStmt(f->body),
            "block root() where True:\n"
            "  alloc_buffer U: float32[4]\n"
            "  block outer(vo=0) where True:\n"
            "    alloc_buffer T: float32[4]\n"
            "    for i in serial(0, 4):\n"
            "      block W(vi=i) where True:\n"
            "        T[vi] = 1f32\n"
            "    for j in serial(0, 4):\n"
            "      block R(wi=j) where True:\n"
            "        A[wi] = T[wi]\n");
}

TEST(PlaceAllocationsTest, SharedMemoryGoesUnderThreadLoopsLikeLocal) {
  // S (shared) and L (local) are both used under threadIdx.x only. Both go to the block that
  // uses them; S still stands for the block of threads' one copy (the GPU lowering hoists it and
  // CompactBuffers relaxes the threadIdx loops around it), while global memory (A's copy G)
  // stays above every bound loop.
  Buffer a = DeclBuffer("A", kF32, {64});
  Buffer s = DeclBuffer("S", kF32, {64}, "shared");
  Buffer l = DeclBuffer("L", kF32, {64}, "local");
  Buffer g = DeclBuffer("G", kF32, {64});
  Var bx("bx"), tx("tx"), vi("vi");
  Stmt body = MakeBlock(
      "B", {Spatial(vi, 64)}, {bx * 32 + tx},
      SeqStmt({BufferStore(s, BufferLoad(a, {vi}), {vi}), BufferStore(l, BufferLoad(s, {vi}), {vi}),
               BufferStore(g, BufferLoad(l, {vi}), {vi}),
               BufferStore(a, BufferLoad(g, {vi}), {vi})}));
  Stmt loops = For(bx, 0, 2, ForKind::kThreadBinding,
                   For(tx, 0, 32, ForKind::kThreadBinding, body, "threadIdx.x"), "blockIdx.x");
  PrimFunc f = PlaceAllocations(testing::MakeFunc("f", {a}, Root(loops, {s, l, g})));
  EXPECT_EQ(DumpStmt(f->body),
            "block root() where True:\n"
            "  alloc_buffer G: float32[64]\n"
            "  for bx in thread_binding(0, 2):\n"
            "    for tx in thread_binding(0, 32):\n"
            "      block B(vi=((bx * 32) + tx)) where True:\n"
            "        alloc_buffer S: float32[64]\n"
            "        alloc_buffer L: float32[64]\n"
            "        S[vi] = A[vi]\n"
            "        L[vi] = S[vi]\n"
            "        G[vi] = L[vi]\n"
            "        A[vi] = G[vi]\n");
}

TEST(PlaceAllocationsTest, BufferUsedByTwoNestsStaysAtTheRoot) {
  Buffer a = DeclBuffer("A", kF32, {4});
  Buffer t = DeclBuffer("T", kF32, {4});
  Var i("i"), j("j"), vi("vi"), wi("wi");
  Stmt write = MakeBlock("W", {Spatial(vi, 4)}, {i}, BufferStore(t, F32(1), {vi}));
  Stmt read = MakeBlock("R", {Spatial(wi, 4)}, {j}, BufferStore(a, BufferLoad(t, {wi}), {wi}));
  PrimFunc f = testing::MakeFunc(
      "f", {a},
      Root(SeqStmt({For(i, 0, 4, ForKind::kSerial, write), For(j, 0, 4, ForKind::kSerial, read)}),
           {t}));
  PrimFunc placed = PlaceAllocations(f);
  EXPECT_TRUE(placed->body.same_as(f->body));
}

}  // namespace
}  // namespace kiln::codegen
