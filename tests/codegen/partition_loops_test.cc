// Golden tests of PartitionLoops (predicate handling): a loop is split where a predicate is
// known to hold, so that the main part runs without it.
#include "codegen/passes/partition_loops.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;
using testing::F32;

const DataType kF32 = DataType::Float(32);

// for io in kind(0, 4): for ii in vectorized-or-serial(0, 8): if cond: A[io * 8 + ii] = 1
PrimFunc Guarded(const std::function<Expr(const Var&, const Var&)>& cond,
                 ForKind outer = ForKind::kSerial, ForKind inner = ForKind::kSerial) {
  Buffer a = DeclBuffer("A", kF32, {32});
  Var io("io"), ii("ii");
  Stmt store = IfThenElse(cond(io, ii), BufferStore(a, F32(1), {io * 8 + ii}));
  return testing::MakeFunc("f", {a}, For(io, 0, 4, outer, For(ii, 0, 8, inner, store)));
}

TEST(PartitionLoopsTest, UpperBoundSplitsOffATail) {
  PrimFunc f = PartitionLoops(
      Guarded([](const Var& io, const Var& ii) { return io * 8 + ii < 30; }, ForKind::kParallel));
  EXPECT_EQ(DumpStmt(f->body),
            "for io in parallel(0, 3):\n"
            "  for ii in serial(0, 8):\n"
            "    A[((io * 8) + ii)] = 1f32\n"
            // In the tail the inner loop is split too; its rest would never run the store.
            "for io in parallel(3, 1):\n"
            "  for ii in serial(0, (30 - (io * 8))):\n"
            "    A[((io * 8) + ii)] = 1f32\n");
}

TEST(PartitionLoopsTest, LowerBoundSplitsOffAHead) {
  PrimFunc f =
      PartitionLoops(Guarded([](const Var& io, const Var& ii) { return io * 8 + ii >= 5; }));
  EXPECT_EQ(DumpStmt(f->body),
            "for io in serial(0, 1):\n"
            "  for ii in serial((5 - (io * 8)), ((io * 8) + 3)):\n"
            "    A[((io * 8) + ii)] = 1f32\n"
            "for io in serial(1, 3):\n"
            "  for ii in serial(0, 8):\n"
            "    A[((io * 8) + ii)] = 1f32\n");
}

TEST(PartitionLoopsTest, ConditionTrueEverywhereIsDropped) {
  PrimFunc f =
      PartitionLoops(Guarded([](const Var& io, const Var& ii) { return io * 8 + ii < 32; }));
  EXPECT_EQ(DumpStmt(f->body),
            "for io in serial(0, 4):\n"
            "  for ii in serial(0, 8):\n"
            "    A[((io * 8) + ii)] = 1f32\n");
}

TEST(PartitionLoopsTest, SymbolicBoundSplitsAtAnExpression) {
  Var n("n");
  Buffer a = DeclBuffer("A", kF32, {n});
  Var io("io"), ii("ii");
  Stmt store = IfThenElse(io * 8 + ii < n, BufferStore(a, F32(1), {io * 8 + ii}));
  Stmt loops =
      For(io, 0, FloorDiv(n + 7, 8), ForKind::kSerial, For(ii, 0, 8, ForKind::kSerial, store));
  PrimFunc f = PartitionLoops(testing::MakeFunc("f", {a}, loops, {n}));
  // Whole tiles up to n // 8, then at most one partial tile with a shorter inner loop.
  EXPECT_EQ(DumpStmt(f->body),
            "for io in serial(0, min(max((n // 8), 0), ((n + 7) // 8))):\n"
            "  for ii in serial(0, 8):\n"
            "    A[((io * 8) + ii)] = 1f32\n"
            "for io in serial(min(max((n // 8), 0), ((n + 7) // 8)), (((n + 7) // 8) - "
            "min(max((n // 8), 0), ((n + 7) // 8)))):\n"
            "  for ii in serial(0, min(max((n - (io * 8)), 0), 8)):\n"
            "    A[((io * 8) + ii)] = 1f32\n");
}

TEST(PartitionLoopsTest, VectorizedLoopIsOnlyNarrowed) {
  // The tail of a column tile: the vectorized loop is cut short, not duplicated.
  PrimFunc f = PartitionLoops(Guarded([](const Var& io, const Var& ii) { return io * 8 + ii < 30; },
                                      ForKind::kSerial, ForKind::kVectorized));
  EXPECT_EQ(DumpStmt(f->body),
            "for io in serial(0, 3):\n"
            "  for ii in vectorized(0, 8):\n"
            "    A[((io * 8) + ii)] = 1f32\n"
            "for io in serial(3, 1):\n"
            "  for ii in vectorized(0, (30 - (io * 8))):\n"
            "    A[((io * 8) + ii)] = 1f32\n");
}

TEST(PartitionLoopsTest, UnrolledLoopsAndNonAffineConditionsAreLeftAlone) {
  PrimFunc f = Guarded([](const Var&, const Var& ii) { return ii < 5; }, ForKind::kSerial,
                       ForKind::kUnrolled);
  EXPECT_EQ(DumpStmt(PartitionLoops(f)->body), DumpStmt(f->body));
  // Affine in neither loop.
  PrimFunc g = Guarded([](const Var& io, const Var& ii) { return io * io + ii * ii < 9; });
  EXPECT_EQ(DumpStmt(PartitionLoops(g)->body), DumpStmt(g->body));
}

}  // namespace
}  // namespace kiln::codegen
