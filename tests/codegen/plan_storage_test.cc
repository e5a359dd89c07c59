// Tests of PlanStorage: stack for small constant allocations, heap otherwise, alignment.
#include "codegen/passes/plan_storage.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;

TEST(PlanStorageTest, SmallOnStackLargeAndSymbolicOnHeap) {
  DataType f32 = DataType::Float(32);
  Var n("n");
  Buffer out = DeclBuffer("O", f32, {1});
  Buffer small = DeclBuffer("S", f32, {16384}, "local");   // 64 KiB: fits
  Buffer large = DeclBuffer("L", f32, {16385}, "shared");  // just over
  Buffer dyn = DeclBuffer("D", f32, {n});
  Stmt use =
      BufferStore(out, BufferLoad(small, {0}) + BufferLoad(large, {0}) + BufferLoad(dyn, {0}), {0});
  Stmt body = Allocate(small, Allocate(large, Allocate(dyn, use)));
  PrimFunc f = PlanStorage(testing::MakeFunc("f", {out}, body, {n}));
  EXPECT_EQ(DumpStmt(f->body),
            "alloc S: float32[16384] stack align=64\n"
            "  alloc L: float32[16385] heap align=64\n"
            "    alloc D: float32[n] heap align=64\n"
            "      O[0] = ((S[0] + L[0]) + D[0])\n");
  // Every access refers to the planned buffer, not the original one.
  const auto* alloc = f->body.as<AllocateNode>();
  const auto* inner = alloc->body.as<AllocateNode>()->body.as<AllocateNode>();
  const auto* store = inner->body.as<BufferStoreNode>();
  const auto* load = store->value.as<AddNode>()->a.as<AddNode>()->a.as<BufferLoadNode>();
  EXPECT_TRUE(load->buffer.same_as(alloc->buffer));
}

TEST(PlanStorageTest, LimitIsAnOption) {
  Buffer out = DeclBuffer("O", DataType::Float(32), {1});
  Buffer t = DeclBuffer("T", DataType::Float(32), {64}, "local");
  StorageOptions options;
  options.stack_limit_bytes = 128;
  options.alignment = 32;
  PrimFunc f = PlanStorage(
      testing::MakeFunc("f", {out}, Allocate(t, BufferStore(out, BufferLoad(t, {0}), {0}))),
      options);
  EXPECT_EQ(DumpStmt(f->body),
            "alloc T: float32[64] heap align=32\n"
            "  O[0] = T[0]\n");
}

}  // namespace
}  // namespace kiln::codegen
