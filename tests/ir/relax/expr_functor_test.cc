// ExprVisitor and ExprMutator: traversal order, sharing of unchanged nodes, re-inference of
// struct info after a rewrite, and redirection of later uses to re-typed variables.
#include "ir/relax/expr_functor.h"

#include <gtest/gtest.h>

#include "ir/relax/block_builder.h"
#include "ir/relax/printer.h"
#include "ir/relax/well_formed.h"
#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

struct Mlp {
  PrimVar n = SymbolicDim("n");
  Var x = Tensor("x", {n, 784});
  Var w1 = Tensor("w1", {784, 128});
  Var w2 = Tensor("w2", {128, 10});
  Function func;

  Mlp() {
    BlockBuilder bb;
    bb.BeginFunction("main", {x, w1, w2});
    bb.BeginDataflow();
    Var h = bb.Emit(Call("matmul", {x, w1}));
    Var a = bb.Emit(Call("nn.relu", {h}));
    Var gv = bb.EmitOutput(Call("matmul", {a, w2}));
    bb.EndDataflow();
    bb.EndFunction(gv);
    func = *bb.module().LookupFunction("main");
  }
};

class OpCounter : public ExprVisitor {
 public:
  void VisitExpr_(const CallNode* op) override {
    ops.push_back(op->op);
    ExprVisitor::VisitExpr_(op);
  }
  void VisitVarDef(const Var& v) override { defs.push_back(v.name()); }
  std::vector<std::string> ops, defs;
};

TEST(RelaxExprFunctorTest, VisitorSeesCallsAndDefinitionsInOrder) {
  Mlp mlp;
  OpCounter counter;
  counter.VisitExpr(mlp.func);
  EXPECT_EQ(counter.ops, (std::vector<std::string>{"matmul", "nn.relu", "matmul"}));
  EXPECT_EQ(counter.defs, (std::vector<std::string>{"x", "w1", "w2", "lv", "lv1", "gv"}));
}

class ReluToGelu : public ExprMutator {
 public:
  using ExprMutator::VisitExpr_;
  Expr VisitExpr_(const CallNode* op) override {
    Expr e = ExprMutator::VisitExpr_(op);
    const auto* call = e.as<CallNode>();
    if (call->op == "nn.relu") return Call("nn.gelu", call->args);
    return e;
  }
};

TEST(RelaxExprFunctorTest, MutatorRewritesAndSharesTheRest) {
  Mlp mlp;
  Expr out = ReluToGelu().VisitExpr(mlp.func);
  ASSERT_FALSE(out.same_as(mlp.func));
  const auto* before = mlp.func->body.as<SeqExprNode>();
  const auto* after = out.as<FunctionNode>()->body.as<SeqExprNode>();
  ASSERT_EQ(after->blocks[0].bindings.size(), 3u);
  // The first binding is untouched, so it is the same object; the types did not change, so
  // the variables are kept.
  EXPECT_TRUE(after->blocks[0].bindings[0].value.same_as(before->blocks[0].bindings[0].value));
  EXPECT_TRUE(after->blocks[0].bindings[1].var.same_as(before->blocks[0].bindings[1].var));
  EXPECT_EQ(after->blocks[0].bindings[1].value.as<CallNode>()->op, "nn.gelu");
  IRModule mod;
  mod.Add("main", Function(out.ptr()));
  EXPECT_NO_THROW(CheckWellFormed(mod));

  // Nothing to rewrite: the very same function comes back.
  Expr same = ExprMutator().VisitExpr(mlp.func);
  EXPECT_TRUE(same.same_as(mlp.func));
}

// Replaces the input by one of a concrete batch size; every shape downstream follows.
class Specialize : public ExprMutator {
 public:
  Specialize(const Var& from, const Var& to) { var_remap_[from.get()] = to; }
};

TEST(RelaxExprFunctorTest, RetypedBindingsRedirectLaterUses) {
  Mlp mlp;
  Var x16 = Tensor("x", {16, 784});
  Expr out = Specialize(mlp.x, x16).VisitExpr(mlp.func);
  const auto* f = out.as<FunctionNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->params[0].same_as(x16));
  EXPECT_EQ(f->ret_struct_info.ToString(), "R.Tensor((16, 10), \"float32\")");
  const auto* seq = f->body.as<SeqExprNode>();
  EXPECT_EQ(Info(seq->blocks[0].bindings[1].var), "R.Tensor((16, 128), \"float32\")");
  EXPECT_TRUE(seq->blocks[0].bindings[1].var.is_dataflow());
  IRModule mod;
  mod.Add("main", Function(out.ptr()));
  EXPECT_NO_THROW(CheckWellFormed(mod));
}

}  // namespace
}  // namespace kiln::ir::relax
