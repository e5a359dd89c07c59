// Golden tests of CompactBuffers: an allocation shrinks to the region its body touches, with
// indices shifted by the region's start; what cannot be bounded keeps its size.
#include "codegen/passes/compact_buffers.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;
using testing::F32;

const DataType kF32 = DataType::Float(32);

TEST(CompactBuffersTest, PanelShrinksToTheColumnsOfOneIteration) {
  // A 64 x 32 copy of B allocated per iteration of jo, which only touches 8 columns.
  Buffer b = DeclBuffer("B", kF32, {64, 32});
  Buffer c = DeclBuffer("C", kF32, {32});
  Buffer p = DeclBuffer("P", kF32, {64, 32});
  Var jo("jo"), k("k"), jj("jj"), k2("k2"), j2("j2");
  Stmt pack = For(k, 0, 64, ForKind::kSerial,
                  For(jj, 0, 8, ForKind::kSerial,
                      BufferStore(p, BufferLoad(b, {k, jo * 8 + jj}), {k, jo * 8 + jj})));
  Stmt use = For(k2, 0, 64, ForKind::kSerial,
                 For(j2, 0, 8, ForKind::kSerial,
                     BufferStore(c, BufferLoad(c, {jo * 8 + j2}) + BufferLoad(p, {k2, jo * 8 + j2}),
                                 {jo * 8 + j2})));
  Stmt body = For(jo, 0, 4, ForKind::kParallel, Allocate(p, SeqStmt({pack, use})));
  PrimFunc f = CompactBuffers(testing::MakeFunc("f", {b, c}, body));
  EXPECT_EQ(
      DumpStmt(f->body),
      "for jo in parallel(0, 4):\n"
      "  alloc P: float32[64, 8] global\n"
      "    for k in serial(0, 64):\n"
      "      for jj in serial(0, 8):\n"
      "        P[k, (((jo * 8) + jj) - (jo * 8))] = B[k, ((jo * 8) + jj)]\n"
      "    for k2 in serial(0, 64):\n"
      "      for j2 in serial(0, 8):\n"
      "        C[((jo * 8) + j2)] = (C[((jo * 8) + j2)] + P[k2, (((jo * 8) + j2) - (jo * 8))])\n");
}

TEST(CompactBuffersTest, RegisterTileOfAccumulators) {
  // C_local[128] touched at io * 4 + ii only: four elements per iteration of io.
  Buffer c = DeclBuffer("C", kF32, {128});
  Buffer acc = DeclBuffer("acc", kF32, {128}, "local");
  Var io("io"), ii("ii"), k("k"), ij("ij");
  Stmt init = For(ii, 0, 4, ForKind::kUnrolled, BufferStore(acc, F32(0), {io * 4 + ii}));
  Stmt update = For(k, 0, 16, ForKind::kSerial,
                    For(ij, 0, 4, ForKind::kUnrolled,
                        BufferStore(acc, BufferLoad(acc, {io * 4 + ij}) + F32(1), {io * 4 + ij})));
  Stmt body = For(io, 0, 32, ForKind::kSerial, Allocate(acc, SeqStmt({init, update})));
  PrimFunc f = CompactBuffers(testing::MakeFunc("f", {c}, body));
  EXPECT_EQ(
      DumpStmt(f->body),
      "for io in serial(0, 32):\n"
      "  alloc acc: float32[4] local\n"
      "    for ii in unroll(0, 4):\n"
      "      acc[(((io * 4) + ii) - (io * 4))] = 0f32\n"
      "    for k in serial(0, 16):\n"
      "      for ij in unroll(0, 4):\n"
      "        acc[(((io * 4) + ij) - (io * 4))] = (acc[(((io * 4) + ij) - (io * 4))] + 1f32)\n");
}

TEST(CompactBuffersTest, PaddedRowsKeepTheirStride) {
  // T[16, 16] with rows padded to 20 floats; each iteration of io uses 4 rows.
  Buffer out = DeclBuffer("O", kF32, {16, 16});
  auto node = std::make_shared<BufferNode>(*DeclBuffer("T", kF32, {16, 16}).get());
  node->strides = {IntImm(DataType::Int(32), 20), IntImm(DataType::Int(32), 1)};
  Buffer t(std::move(node));
  Var io("io"), ii("ii"), j("j");
  Stmt body = For(
      io, 0, 4, ForKind::kSerial,
      Allocate(t, For(ii, 0, 4, ForKind::kSerial,
                      For(j, 0, 16, ForKind::kSerial, BufferStore(t, F32(1), {io * 4 + ii, j})))));
  PrimFunc f = CompactBuffers(testing::MakeFunc("f", {out}, body));
  const auto* alloc = f->body.as<ForNode>()->body.as<AllocateNode>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(testing::DumpExpr(alloc->buffer->shape[0]), "4");
  EXPECT_EQ(testing::DumpExpr(alloc->buffer->shape[1]), "16");
  ASSERT_EQ(alloc->buffer->strides.size(), 2u);
  EXPECT_EQ(testing::DumpExpr(alloc->buffer->strides[0]), "20");
}

TEST(CompactBuffersTest, UnboundedOrFullDimensionsKeepTheirSize) {
  // T[i, x[i]]: the data-dependent column cannot be bounded; the rows span the whole buffer.
  Buffer x = DeclBuffer("X", DataType::Int(32), {8});
  Buffer t = DeclBuffer("T", kF32, {8, 8});
  Var i("i");
  Stmt body =
      Allocate(t, For(i, 0, 8, ForKind::kSerial, BufferStore(t, F32(1), {i, BufferLoad(x, {i})})));
  PrimFunc f = testing::MakeFunc("f", {x}, body);
  PrimFunc g = CompactBuffers(f);
  EXPECT_TRUE(g->body.same_as(f->body)) << DumpStmt(g->body);
}

TEST(CompactBuffersTest, SymbolicExtentIsBoundedByAConstant) {
  // Rows io * 4 + ii with ii < min(4, n - io * 4): at most 4 rows.
  Var n("n");
  Buffer out = DeclBuffer("O", kF32, {n});
  Buffer t = DeclBuffer("T", kF32, {n});
  Var io("io"), ii("ii");
  Stmt inner =
      For(ii, 0, Min(4, n - io * 4), ForKind::kSerial, BufferStore(t, F32(1), {io * 4 + ii}));
  Stmt body = For(io, 0, FloorDiv(n + 3, 4), ForKind::kSerial, Allocate(t, inner));
  PrimFunc f = CompactBuffers(testing::MakeFunc("f", {out}, body, {n}));
  const auto* loop = f->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  const auto* alloc = loop->body.as<AllocateNode>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(testing::DumpExpr(alloc->buffer->shape[0]), "4") << DumpStmt(f->body);
}

}  // namespace
}  // namespace kiln::codegen
