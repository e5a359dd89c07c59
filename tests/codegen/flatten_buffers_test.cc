// Golden tests of FlattenBuffers: row-major and strided buffers, element offsets, int64
// shapes and allocations.
#include "codegen/passes/flatten_buffers.h"

#include <gtest/gtest.h>

#include "codegen/passes/lower_blocks.h"
#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;

TEST(FlattenBuffersTest, RowMajorIndicesAreLinearized) {
  PrimFunc f = FlattenBuffers(LowerBlocks(testing::Matmul(4, 5, 6)));
  EXPECT_EQ(
      DumpStmt(f->body),
      "for i in serial(0, 4):\n"
      "  for j in serial(0, 5):\n"
      "    for k in serial(0, 6):\n"
      "      if (k == 0):\n"
      "        C[((i * 5) + j)] = 0f32\n"
      "      C[((i * 5) + j)] = (C[((i * 5) + j)] + (A[((i * 6) + k)] * B[((k * 5) + j)]))\n");
  // The parameters keep their 2-D buffers; the body's buffers are 1-D views of the same data.
  const auto* store = f->body.as<ForNode>()
                          ->body.as<ForNode>()
                          ->body.as<ForNode>()
                          ->body.as<SeqStmtNode>()
                          ->seq[1]
                          .as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->buffer.ndim(), 1u);
  EXPECT_EQ(testing::DumpExpr(store->buffer->shape[0]), "20");
  Buffer c = *f->BufferOf(f->params[2]);
  EXPECT_EQ(c.ndim(), 2u);
  EXPECT_TRUE(store->buffer->data.same_as(c->data));
}

TEST(FlattenBuffersTest, StridesAndOffsetAreUsed) {
  DataType f32 = DataType::Float(32);
  auto node = std::make_shared<BufferNode>(*DeclBuffer("A", f32, {4, 4}).get());
  node->strides = {IntImm(DataType::Int(32), 16), IntImm(DataType::Int(32), 2)};
  node->elem_offset = IntImm(DataType::Int(32), 3);
  Buffer a(node);
  Var i("i"), j("j");
  Stmt body = For(i, 0, 4, ForKind::kSerial,
                  For(j, 0, 4, ForKind::kSerial, BufferStore(a, testing::F32(0), {i, j})));
  PrimFunc f = testing::MakeFunc("strided", {a}, body);
  EXPECT_EQ(DumpStmt(FlattenBuffers(f)->body),
            "for i in serial(0, 4):\n"
            "  for j in serial(0, 4):\n"
            "    A[(3 + ((i * 16) + (j * 2)))] = 0f32\n");
}

TEST(FlattenBuffersTest, Int64ShapeMakesInt64Index) {
  DataType f32 = DataType::Float(32);
  Var n("n", DataType::Int(64));
  Buffer a = DeclBuffer("A", f32, {n, IntImm(DataType::Int(64), 3)});
  Var i("i"), j("j");
  Stmt body = For(i, 0, 2, ForKind::kSerial,
                  For(j, 0, 3, ForKind::kSerial, BufferStore(a, testing::F32(0), {i, j})));
  PrimFunc f = testing::MakeFunc("wide", {a}, body);
  EXPECT_EQ(DumpStmt(FlattenBuffers(f)->body),
            "for i in serial(0, 2):\n"
            "  for j in serial(0, 3):\n"
            "    A[((int64(i) * 3i64) + int64(j))] = 0f32\n");
}

TEST(FlattenBuffersTest, AllocationBecomesOneDimensional) {
  DataType f32 = DataType::Float(32);
  Buffer t = DeclBuffer("T", f32, {2, 3}, "local");
  Buffer a = DeclBuffer("A", f32, {1});
  Stmt body = Allocate(t, SeqStmt({BufferStore(t, testing::F32(1), {1, 2}),
                                   BufferStore(a, BufferLoad(t, {1, 2}), {0})}));
  PrimFunc f = testing::MakeFunc("alloc", {a}, body);
  EXPECT_EQ(DumpStmt(FlattenBuffers(f)->body),
            "alloc T: float32[6] local\n"
            "  T[5] = 1f32\n"
            "  A[0] = T[5]\n");
}

}  // namespace
}  // namespace kiln::codegen
