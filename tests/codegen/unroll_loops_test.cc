// Golden tests of UnrollLoops: explicit unrolling, the extent limit, and the auto-unroll
// pragma annotations.
#include "codegen/passes/unroll_loops.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;

TEST(UnrollLoopsTest, UnrolledLoopIsReplicated) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {8});
  Var i("i");
  PrimFunc f = testing::MakeFunc(
      "f", {a}, For(i, 2, 3, ForKind::kUnrolled, BufferStore(a, testing::F32(1), {i * 2})));
  EXPECT_EQ(DumpStmt(UnrollLoops(f)->body),
            "A[(2 * 2)] = 1f32\n"
            "A[(3 * 2)] = 1f32\n"
            "A[(4 * 2)] = 1f32\n");
}

TEST(UnrollLoopsTest, LongOrSymbolicUnrolledLoopStaysForTheCompiler) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {100});
  Var i("i"), j("j"), n("n");
  Stmt body = SeqStmt({For(i, 0, 100, ForKind::kUnrolled, BufferStore(a, testing::F32(1), {i})),
                       For(j, 0, n, ForKind::kUnrolled, BufferStore(a, testing::F32(2), {j}))});
  PrimFunc f = testing::MakeFunc("f", {a}, body, {n});
  UnrollOptions options;
  options.max_explicit_extent = 16;
  EXPECT_EQ(DumpStmt(UnrollLoops(f, options)->body),
            "for i in unroll(0, 100):\n"
            "  A[i] = 1f32\n"
            "for j in unroll(0, n):\n"
            "  A[j] = 2f32\n");
}

Stmt AutoUnrollNest(int64_t max_step, int64_t explicit_unroll) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  Var i("i"), j("j"), k("k");
  Annotations annotations{{"pragma_auto_unroll_max_step", IntImm(DataType::Int(32), max_step)},
                          {"pragma_unroll_explicit", IntImm(DataType::Int(32), explicit_unroll)}};
  Stmt inner = For(k, 0, 2, ForKind::kSerial, BufferStore(a, testing::F32(1), {j * 2 + k}));
  Stmt middle = For(j, 0, 3, ForKind::kSerial, inner);
  return For(i, 0, 16, ForKind::kSerial, middle, "", annotations);
}

TEST(UnrollLoopsTest, AutoUnrollReplicatesLoopsWithinTheStepLimit) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  // 3 * 2 = 6 steps fit in 8; the outer loop (16 * 6 = 96 steps) does not.
  PrimFunc f = testing::MakeFunc("f", {a}, AutoUnrollNest(8, 1));
  EXPECT_EQ(DumpStmt(UnrollLoops(f)->body),
            "for i in serial(0, 16):\n"
            "  A[((0 * 2) + 0)] = 1f32\n"
            "  A[((0 * 2) + 1)] = 1f32\n"
            "  A[((1 * 2) + 0)] = 1f32\n"
            "  A[((1 * 2) + 1)] = 1f32\n"
            "  A[((2 * 2) + 0)] = 1f32\n"
            "  A[((2 * 2) + 1)] = 1f32\n");
}

TEST(UnrollLoopsTest, AutoUnrollWithoutExplicitMarksLoopsForTheCompiler) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  PrimFunc f = testing::MakeFunc("f", {a}, AutoUnrollNest(4, 0));
  // Only the innermost loop (2 steps) fits in 4.
  EXPECT_EQ(DumpStmt(UnrollLoops(f)->body),
            "for i in serial(0, 16):\n"
            "  for j in serial(0, 3):\n"
            "    for k in unroll(0, 2):\n"
            "      A[((j * 2) + k)] = 1f32\n");
}

// Under an unroll pragma, the folds the C target vectorizes stay loops: the sum of one vector of
// contiguous elements (a vector-tree fold) and a fold over 256 bytes or more. A short fold that
// is not a plain load is still replicated, as is everything without the option.
TEST(UnrollLoopsTest, AutoUnrollKeepsTheFoldsTheCTargetVectorizes) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  Buffer s = DeclBuffer("S", DataType::Float(32), {3});
  Var t("t"), l("l"), k("k");
  auto fold = [&](const Var& v, int64_t extent, int64_t slot, Expr value) {
    return For(v, 0, extent, ForKind::kSerial,
               BufferStore(s, BufferLoad(s, {MakeConst(DataType::Int(32), slot)}) + value,
                           {MakeConst(DataType::Int(32), slot)}));
  };
  Annotations unroll{{"pragma_auto_unroll_max_step", IntImm(DataType::Int(32), 512)},
                     {"pragma_unroll_explicit", IntImm(DataType::Int(32), 1)}};
  Stmt body = SeqStmt({fold(t, 16, 0, BufferLoad(a, {t})),
                       fold(l, 64, 1, BufferLoad(a, {l}) * testing::F32(2)),
                       fold(k, 16, 2, BufferLoad(a, {k}) * testing::F32(2))});
  Var once("once");
  PrimFunc f = testing::MakeFunc("f", {a, s}, For(once, 0, 1, ForKind::kSerial, body, "", unroll));
  UnrollOptions options;
  options.keep_vectorized_folds = true;
  std::string kept = DumpStmt(UnrollLoops(f, options)->body);
  EXPECT_NE(kept.find("for t in serial(0, 16)"), std::string::npos) << kept;
  EXPECT_NE(kept.find("for l in serial(0, 64)"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("for k in"), std::string::npos) << kept;
  std::string replicated = DumpStmt(UnrollLoops(f)->body);
  EXPECT_EQ(replicated.find("for "), std::string::npos) << replicated;
}

}  // namespace
}  // namespace kiln::codegen
