// Tests of IR construction: dtype names, builder type rules, visitor and mutator.
#include <gtest/gtest.h>

#include "ir/functor.h"
#include "ir/structural.h"

namespace kiln::ir {
namespace {

TEST(DataTypeTest, NamesRoundTrip) {
  for (const char* name : {"bool", "int8", "int16", "int32", "int64", "uint8", "float16",
                           "bfloat16", "float32", "float64", "handle", "float32x4", "int32x8"}) {
    auto t = DataType::Parse(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(t->ToString(), name);
  }
  for (const char* bad : {"", "float", "int7", "float32x", "float32x1", "floaty", "bfloat32"}) {
    EXPECT_FALSE(DataType::Parse(bad).has_value()) << bad;
  }
}

TEST(BuilderTest, ImmediateTakesOperandType) {
  Var i("i", DataType::Int(64));
  Expr e = i + 1;
  EXPECT_EQ(e.dtype(), DataType::Int(64));
  EXPECT_EQ(e.as<AddNode>()->b.dtype(), DataType::Int(64));
  Var x("x", DataType::Float(32));
  EXPECT_EQ((x * 2).dtype(), DataType::Float(32));
  EXPECT_EQ((x < FloatImm(DataType::Float(32), 1.0)).dtype(), DataType::Bool());
}

TEST(BuilderTest, MismatchedTypesAreRejected) {
  Var i("i", DataType::Int(32));
  Var x("x", DataType::Float(32));
  try {
    (void)(i + x);
    FAIL() << "expected a type error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kType);
    EXPECT_NE(std::string(e.what()).find("int32 vs float32"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)(i && i), Error);
}

TEST(BuilderTest, StoreChecksIndexCountAndType) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {16, 16});
  EXPECT_THROW(BufferStore(a, FloatImm(DataType::Float(32), 0), {0}), Error);
  EXPECT_THROW(BufferStore(a, IntImm(DataType::Int(32), 0), {0, 0}), Error);
  EXPECT_NO_THROW(BufferStore(a, FloatImm(DataType::Float(32), 0), {0, 1}));
}

TEST(BuilderTest, SeqStmtFlattens) {
  Buffer a = DeclBuffer("A", DataType::Int(32), {4});
  Stmt s0 = BufferStore(a, 0, {0});
  Stmt s1 = BufferStore(a, 1, {1});
  Stmt nested = SeqStmt({SeqStmt({s0, s1}), s0});
  ASSERT_NE(nested.as<SeqStmtNode>(), nullptr);
  EXPECT_EQ(nested.as<SeqStmtNode>()->seq.size(), 3u);
  EXPECT_TRUE(SeqStmt({s0}).same_as(s0));
}

// Counts loads and replaces one buffer's loads by a constant.
class CountLoads : public IRVisitor {
 public:
  int loads = 0;
  void VisitExpr_(const BufferLoadNode* op) override {
    ++loads;
    IRVisitor::VisitExpr_(op);
  }
};

class ZeroLoads : public IRMutator {
 public:
  Expr VisitExpr_(const BufferLoadNode* op) override {
    return MakeConst(op->dtype, 0);
  }
};

TEST(FunctorTest, VisitorReachesNestedLoadsAndMutatorSharesUnchanged) {
  Buffer a = DeclBuffer("A", DataType::Float(32), {8});
  Buffer b = DeclBuffer("B", DataType::Float(32), {8});
  Var i("i");
  Stmt store = BufferStore(b, BufferLoad(a, {i}) + BufferLoad(a, {FloorMod(i + 1, 8)}), {i});
  Stmt loop = For(i, 0, 8, ForKind::kSerial, store);
  CountLoads counter;
  counter.VisitStmt(loop);
  EXPECT_EQ(counter.loads, 2);

  Stmt zeroed = ZeroLoads().VisitStmt(loop);
  EXPECT_FALSE(zeroed.same_as(loop));
  CountLoads after;
  after.VisitStmt(zeroed);
  EXPECT_EQ(after.loads, 0);
  // The loop variable is kept: it is a definition, not rewritten by the mutator.
  EXPECT_TRUE(zeroed.as<ForNode>()->loop_var.same_as(i));

  class Identity : public IRMutator {};
  EXPECT_TRUE(Identity().VisitStmt(loop).same_as(loop));
}

}  // namespace
}  // namespace kiln::ir
