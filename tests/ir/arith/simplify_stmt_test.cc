// SimplifyStmt: loop and block bindings drive expression simplification and branch removal.
#include "ir/arith/simplify_stmt.h"

#include <gtest/gtest.h>

#include "ir/structural.h"

namespace kiln::ir::arith {
namespace {

const DataType kF32 = DataType::Float(32);

TEST(SimplifyStmtTest, LoopRangeDecidesBranches) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Var i("i");
  Stmt store = BufferStore(a, FloatImm(kF32, 1), {i + 0});
  Stmt other = BufferStore(a, FloatImm(kF32, 2), {i});
  Stmt loop = For(i, 0, 128, ForKind::kSerial, IfThenElse(i < 128, store, other));
  Analyzer analyzer;
  Stmt out = SimplifyStmt(loop, analyzer);
  Stmt expected = For(i, 0, 128, ForKind::kSerial, BufferStore(a, FloatImm(kF32, 1), {i}));
  EXPECT_TRUE(StructuralEqual(out, expected));

  Stmt never = For(i, 0, 128, ForKind::kSerial, SeqStmt({IfThenElse(i >= 128, store), other}));
  Analyzer analyzer2;
  EXPECT_TRUE(
      StructuralEqual(SimplifyStmt(never, analyzer2), For(i, 0, 128, ForKind::kSerial, other)));

  Stmt else_taken = For(i, 0, 128, ForKind::kSerial, IfThenElse(i < 0, store, other));
  Analyzer analyzer3;
  EXPECT_TRUE(StructuralEqual(SimplifyStmt(else_taken, analyzer3),
                              For(i, 0, 128, ForKind::kSerial, other)));
}

TEST(SimplifyStmtTest, UndecidedBranchStaysWithSimplifiedCondition) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Var i("i"), n("n");
  Stmt store = BufferStore(a, FloatImm(kF32, 1), {i});
  Stmt loop = For(i, 0, 128, ForKind::kSerial, IfThenElse(i + 1 < n + 1, store));
  Analyzer analyzer;
  Stmt expected = For(i, 0, 128, ForKind::kSerial, IfThenElse(i < n, store));
  EXPECT_TRUE(StructuralEqual(SimplifyStmt(loop, analyzer), expected));
}

TEST(SimplifyStmtTest, BranchConditionsHoldInsideTheBranch) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Var i("i"), n("n");
  Stmt store = BufferStore(a, FloatImm(kF32, 1), {i});
  Stmt other = BufferStore(a, FloatImm(kF32, 2), {i});
  // if i < 10: (if i < 20: store)  else: (if 10 <= i: other else store)
  Stmt s = For(i, 0, 128, ForKind::kSerial,
               IfThenElse(i < 10, IfThenElse(i < 20, store), IfThenElse(i >= 10, other, store)));
  Analyzer analyzer;
  Stmt expected = For(i, 0, 128, ForKind::kSerial, IfThenElse(i < 10, store, other));
  EXPECT_TRUE(StructuralEqual(SimplifyStmt(s, analyzer), expected));
  // Symbolic: inside `if i < n`, the same test again is true and `n <= i` false.
  Stmt t = For(i, 0, 128, ForKind::kSerial,
               IfThenElse(i < n, SeqStmt({IfThenElse(i < n, store), IfThenElse(n <= i, other)})));
  Stmt t_expected = For(i, 0, 128, ForKind::kSerial, IfThenElse(i < n, store));
  EXPECT_TRUE(StructuralEqual(SimplifyStmt(t, analyzer), t_expected));
}

TEST(SimplifyStmtTest, BlockPredicateAndIterDomains) {
  Buffer a = DeclBuffer("A", kF32, {1024});
  Var i("i"), j("j"), vi("vi");
  auto make_block = [&](Expr index) {
    auto node = std::make_shared<BlockNode>();
    node->name = std::string(1, 'B');
    node->iter_vars = {IterVar{vi, Range{0, 1024}, IterKind::kSpatial}};
    node->body = BufferStore(a, FloatImm(kF32, 0), {index});
    return Block(node);
  };
  Stmt realize = BlockRealize({FloorDiv(i * 8 + j, 8) * 8 + FloorMod(j, 8)}, i * 8 + j < 1024,
                              make_block(vi + FloorDiv(vi, 1024)));
  Stmt loops = For(i, 0, 128, ForKind::kSerial, For(j, 0, 8, ForKind::kSerial, realize));
  Analyzer analyzer;
  Stmt out = SimplifyStmt(loops, analyzer);
  Stmt expected =
      For(i, 0, 128, ForKind::kSerial,
          For(j, 0, 8, ForKind::kSerial, BlockRealize({i * 8 + j}, BoolImm(true), make_block(vi))));
  EXPECT_TRUE(StructuralEqual(out, expected));
}

TEST(SimplifyStmtTest, LetStmtBoundsAreUsed) {
  Buffer a = DeclBuffer("A", kF32, {16});
  Var j("j"), v("v");
  Stmt store = BufferStore(a, FloatImm(kF32, 1), {v});
  Stmt s = For(j, 0, 8, ForKind::kSerial, LetStmt(v, j + 1, IfThenElse(v < 9, store)));
  Analyzer analyzer;
  Stmt expected = For(j, 0, 8, ForKind::kSerial, LetStmt(v, j + 1, store));
  EXPECT_TRUE(StructuralEqual(SimplifyStmt(s, analyzer), expected));
}

TEST(SimplifyStmtTest, UnchangedTreeIsShared) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Var i("i");
  Stmt loop = For(i, 0, 128, ForKind::kSerial, BufferStore(a, FloatImm(kF32, 1), {i}));
  Analyzer analyzer;
  EXPECT_TRUE(SimplifyStmt(loop, analyzer).same_as(loop));
}

}  // namespace
}  // namespace kiln::ir::arith
