// Tests of PlanRegisterSlots (which allocations an emitter keeps in variables) and of how the
// C emitter prints a promoted buffer.
#include "codegen/register_promotion.h"

#include <gtest/gtest.h>

#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;

const DataType kF32 = DataType::Float(32);

Expr VecIndex(int64_t base, int lanes) { return Ramp(base, 1, lanes); }

std::string Slots(const Stmt& alloc, int64_t max_bytes = 4096) {
  auto slots = PlanRegisterSlots(alloc.as<AllocateNode>(), max_bytes);
  if (!slots) return "none";
  std::string text;
  for (const RegisterSlot& s : *slots) {
    text += (text.empty() ? "" : " ") + std::to_string(s.offset) + "x" + std::to_string(s.lanes);
  }
  return text;
}

TEST(RegisterPromotionTest, ConstantVectorAndScalarAccessesBecomeSlots) {
  Buffer acc = DeclBuffer("acc", kF32, {40}, "stack");
  Buffer out = DeclBuffer("O", kF32, {64});
  Stmt body = SeqStmt({
      BufferStore(acc, Broadcast(testing::F32(0), 16), {VecIndex(0, 16)}),
      BufferStore(acc, Broadcast(testing::F32(0), 16), {VecIndex(16, 16)}),
      BufferStore(acc, testing::F32(1), {3}),   // a lane of the first vector
      BufferStore(acc, testing::F32(2), {33}),  // a scalar of its own
      BufferStore(out, BufferLoad(acc, {VecIndex(16, 16)}), {VecIndex(0, 16)}),
  });
  EXPECT_EQ(Slots(Allocate(acc, body)), "0x16 16x16 33x1");
  // The same accesses need 33 floats; under a 128-byte limit they stay in memory.
  EXPECT_EQ(Slots(Allocate(acc, body), 128), "none");
}

TEST(RegisterPromotionTest, VariableOrOverlappingAccessesKeepTheArray) {
  Buffer acc = DeclBuffer("acc", kF32, {32}, "stack");
  Buffer out = DeclBuffer("O", kF32, {64});
  Var i("i");
  Stmt variable = For(i, 0, 32, ForKind::kSerial, BufferStore(acc, testing::F32(0), {i}));
  EXPECT_EQ(Slots(Allocate(acc, variable)), "none");
  Stmt overlapping = SeqStmt({BufferStore(acc, Broadcast(testing::F32(0), 16), {VecIndex(0, 16)}),
                              BufferStore(acc, Broadcast(testing::F32(0), 8), {VecIndex(8, 8)})});
  EXPECT_EQ(Slots(Allocate(acc, overlapping)), "none");
  Stmt strided = BufferStore(acc, Broadcast(testing::F32(0), 4), {Ramp(0, 2, 4)});
  EXPECT_EQ(Slots(Allocate(acc, strided)), "none");
  Stmt outside = BufferStore(acc, testing::F32(0), {40});
  EXPECT_EQ(Slots(Allocate(acc, outside)), "none");
}

TEST(RegisterPromotionTest, CEmitterKeepsAnUnrolledAccumulatorInVariables) {
  // acc[4] accumulated over k with constant indices (the inner loop unrolled), then stored.
  Buffer a = DeclBuffer("A", kF32, {16, 4});
  Buffer c = DeclBuffer("C", kF32, {4});
  Buffer acc = DeclBuffer("acc", kF32, {4}, "local");
  Var k("k"), u("u"), w("w"), z("z");
  Stmt init = For(z, 0, 4, ForKind::kUnrolled, BufferStore(acc, testing::F32(0), {z}));
  Stmt update = For(k, 0, 16, ForKind::kSerial,
                    For(u, 0, 4, ForKind::kUnrolled,
                        BufferStore(acc, BufferLoad(acc, {u}) + BufferLoad(a, {k, u}), {u})));
  Stmt store = For(w, 0, 4, ForKind::kUnrolled, BufferStore(c, BufferLoad(acc, {w}), {w}));
  PrimFunc f = testing::MakeFunc("f", {a, c}, Allocate(acc, SeqStmt({init, update, store})));
  std::string code = EmitC(Lower(f), "f_kernel").code;
  EXPECT_NE(code.find("float acc_0 = 0;"), std::string::npos) << code;
  EXPECT_NE(code.find("acc_3 = acc_3 + A[((k * 4) + 3)];"), std::string::npos) << code;
  EXPECT_NE(code.find("C[3] = acc_3;"), std::string::npos) << code;
  EXPECT_EQ(code.find("float acc["), std::string::npos) << code;
}

}  // namespace
}  // namespace kiln::codegen
