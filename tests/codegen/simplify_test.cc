// Tests of the Simplify pass: folding of expressions and of statements that became trivial.
#include "codegen/passes/simplify.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;

TEST(SimplifyTest, FoldsIdentitiesAndConstants) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  Var i("i");
  Expr index = (i * 1 + 0) + (2 * 3);
  PrimFunc f = testing::MakeFunc(
      "f", {a}, For(i, 0, 8, ForKind::kSerial, BufferStore(a, testing::F32(1), {index})));
  EXPECT_EQ(DumpStmt(Simplify(f)->body),
            "for i in serial(0, 8):\n"
            "  A[(i + 6)] = 1f32\n");
}

TEST(SimplifyTest, ConstantConditionsAndUnitLoopsDisappear) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  Var i("i"), j("j"), k("k");
  Stmt body = SeqStmt({
      IfThenElse(IntImm(DataType::Int(32), 1) < 2, BufferStore(a, testing::F32(1), {0}),
                 BufferStore(a, testing::F32(2), {0})),
      IfThenElse(IntImm(DataType::Int(32), 3) < 2, BufferStore(a, testing::F32(3), {1})),
      For(j, 5, 1, ForKind::kSerial, BufferStore(a, testing::F32(4), {j})),
      For(k, 0, 0, ForKind::kSerial, BufferStore(a, testing::F32(5), {k})),
  });
  PrimFunc f = testing::MakeFunc("f", {a}, body);
  EXPECT_EQ(DumpStmt(Simplify(f)->body),
            "A[0] = 1f32\n"
            "A[5] = 4f32\n");
}

TEST(SimplifyTest, LoopWhoseBranchesAreDecidedFalseDisappears) {
  // What an unrolled tail leaves: i < 4 is false for the copy at 20 + i.
  Buffer a = DeclBuffer("A", DataType::Float(32), {64});
  Var i("i"), j("j");
  Stmt body = SeqStmt({
      For(i, 0, 16, ForKind::kParallel,
          IfThenElse(20 + i < 4, BufferStore(a, testing::F32(1), {i}))),
      For(j, 0, 16, ForKind::kSerial, IfThenElse(j < 4, BufferStore(a, testing::F32(2), {j}))),
  });
  EXPECT_EQ(DumpStmt(Simplify(testing::MakeFunc("f", {a}, body))->body),
            "for j in serial(0, 16):\n"
            "  if (j < 4):\n"
            "    A[j] = 2f32\n");
}

TEST(SimplifyTest, FloorDivisionOfConstantsRoundsDown) {
  Buffer a = DeclBuffer("A", DataType::Int(32), {4});
  Stmt body = SeqStmt({BufferStore(a, FloorDiv(IntImm(DataType::Int(32), -7), 2), {0}),
                       BufferStore(a, FloorMod(IntImm(DataType::Int(32), -7), 2), {1})});
  EXPECT_EQ(DumpStmt(Simplify(testing::MakeFunc("f", {a}, body))->body),
            "A[0] = -4\n"
            "A[1] = 1\n");
}

}  // namespace
}  // namespace kiln::codegen
