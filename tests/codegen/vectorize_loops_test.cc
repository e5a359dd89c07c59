// Golden tests of VectorizeLoops: contiguous, strided and broadcast accesses, and the
// fallbacks that keep a loop.
#include "codegen/passes/vectorize_loops.h"

#include <gtest/gtest.h>

#include "ir/op.h"
#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;

class VectorizeLoopsTest : public ::testing::Test {
 protected:
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {256});
  Buffer b = DeclBuffer("B", f32, {256});
  Buffer s = DeclBuffer("S", f32, {4});
  Var i{"i"}, j{"j"};
};

TEST_F(VectorizeLoopsTest, ContiguousStridedAndInvariantAccesses) {
  Expr value = BufferLoad(a, {j * 8 + i}) * BufferLoad(s, {j}) + BufferLoad(a, {i * 4});
  Stmt body = For(j, 0, 4, ForKind::kSerial,
                  For(i, 0, 8, ForKind::kVectorized, BufferStore(b, value, {j * 8 + i})));
  PrimFunc f = testing::MakeFunc("f", {a, b, s}, body);
  EXPECT_EQ(DumpStmt(VectorizeLoops(f)->body),
            "for j in serial(0, 4):\n"
            "  B[ramp(((j * 8) + 0), 1, 8)] = ((A[ramp(((j * 8) + 0), 1, 8)] * "
            "broadcast(S[j], 8)) + A[ramp((0 * 4), (1 * 4), 8)])\n");
}

TEST_F(VectorizeLoopsTest, CastAndMaxAreWidened) {
  Buffer c = DeclBuffer("C", DataType::Int(32), {256});
  Expr value = Max(Cast(f32, BufferLoad(c, {i})), testing::F32(0));
  PrimFunc f = testing::MakeFunc("f", {b, c},
                                 For(i, 0, 4, ForKind::kVectorized, BufferStore(b, value, {i})));
  EXPECT_EQ(DumpStmt(VectorizeLoops(f)->body),
            "B[ramp(0, 1, 4)] = max(float32x4(C[ramp(0, 1, 4)]), broadcast(0f32, 4))\n");
}

TEST_F(VectorizeLoopsTest, ControlFlowFallsBackToAnIvdepLoop) {
  Stmt store = BufferStore(b, BufferLoad(a, {i}), {i});
  PrimFunc f =
      testing::MakeFunc("f", {a, b}, For(i, 0, 8, ForKind::kVectorized, IfThenElse(i < 5, store)));
  EXPECT_EQ(DumpStmt(VectorizeLoops(f)->body),
            "for i in serial(0, 8) pragma_ivdep=1:\n"
            "  if (i < 5):\n"
            "    B[i] = A[i]\n");
}

TEST_F(VectorizeLoopsTest, LaneInvariantConditionStaysScalar) {
  // The init guard of a reduction over j, vectorized over i.
  Stmt init = IfThenElse(j == 0, BufferStore(b, testing::F32(0), {i}));
  Stmt update = BufferStore(b, BufferLoad(b, {i}) + BufferLoad(a, {j * 8 + i}), {i});
  Stmt body =
      For(j, 0, 4, ForKind::kSerial, For(i, 0, 8, ForKind::kVectorized, SeqStmt({init, update})));
  PrimFunc f = testing::MakeFunc("f", {a, b}, body);
  EXPECT_EQ(DumpStmt(VectorizeLoops(f)->body),
            "for j in serial(0, 4):\n"
            "  if (j == 0):\n"
            "    B[ramp(0, 1, 8)] = broadcast(0f32, 8)\n"
            "  B[ramp(0, 1, 8)] = (B[ramp(0, 1, 8)] + A[ramp(((j * 8) + 0), 1, 8)])\n");
}

TEST_F(VectorizeLoopsTest, OddExtentReductionAndDivisionFallBack) {
  Stmt odd = For(i, 0, 6, ForKind::kVectorized, BufferStore(b, BufferLoad(a, {i}), {i}));
  Stmt reduce = For(i, 0, 8, ForKind::kVectorized,
                    BufferStore(s, BufferLoad(s, {0}) + BufferLoad(a, {i}), {0}));
  Stmt divide =
      For(i, 0, 8, ForKind::kVectorized, BufferStore(b, BufferLoad(a, {FloorDiv(i, 2)}), {i}));
  for (const Stmt& body : {odd, reduce, divide}) {
    PrimFunc f = testing::MakeFunc("f", {a, b, s}, body);
    PrimFunc vectorized = VectorizeLoops(f);
    const auto* loop = vectorized->body.as<ForNode>();
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->for_kind, ForKind::kSerial);
    EXPECT_EQ(loop->annotations.count(kPragmaIvdep), 1u);
  }
}

TEST_F(VectorizeLoopsTest, IntrinsicCallsAreWidenedUnlessTurnedOff) {
  Expr value = Call(f32, "erf", {BufferLoad(a, {i}) * BufferLoad(s, {j})}) +
               Call(f32, "exp", {BufferLoad(s, {j})});
  Stmt body = For(j, 0, 4, ForKind::kSerial,
                  For(i, 0, 8, ForKind::kVectorized, BufferStore(b, value, {i})));
  PrimFunc f = testing::MakeFunc("f", {a, b, s}, body);
  // The lane-invariant exp stays one scalar call, broadcast.
  EXPECT_EQ(DumpStmt(VectorizeLoops(f)->body),
            "for j in serial(0, 4):\n"
            "  B[ramp(0, 1, 8)] = (erf((A[ramp(0, 1, 8)] * broadcast(S[j], 8))) + "
            "broadcast(exp(S[j]), 8))\n");
  VectorizeOptions scalar_calls;
  scalar_calls.vectorize_calls = false;
  PrimFunc vectorized = VectorizeLoops(f, scalar_calls);  // owns the loop below
  const auto* loop = vectorized->body.as<ForNode>()->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->annotations.count(kPragmaIvdep), 1u);
}

TEST_F(VectorizeLoopsTest, BoolCallsAndIfThenElseFallBack) {
  Expr isnan = Select(Call(DataType::Bool(), "isnan", {BufferLoad(a, {i})}), testing::F32(0),
                      BufferLoad(a, {i}));
  Expr guarded = IfThenElseCall(i < 4, BufferLoad(a, {i}), testing::F32(0));
  for (const Expr& value : {isnan, guarded}) {
    PrimFunc f = testing::MakeFunc("f", {a, b},
                                   For(i, 0, 8, ForKind::kVectorized, BufferStore(b, value, {i})));
    PrimFunc vectorized = VectorizeLoops(f);  // owns the loop below
    const auto* loop = vectorized->body.as<ForNode>();
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->annotations.count(kPragmaIvdep), 1u);
  }
}

TEST_F(VectorizeLoopsTest, Float16VectorsAreNotFormed) {
  Buffer h = DeclBuffer("H", DataType::Float(16), {8});
  PrimFunc f = testing::MakeFunc(
      "f", {h}, For(i, 0, 8, ForKind::kVectorized, BufferStore(h, BufferLoad(h, {i}), {i})));
  EXPECT_NE(VectorizeLoops(f)->body.as<ForNode>(), nullptr);
}

}  // namespace
}  // namespace kiln::codegen
