// SimplifyStmt as an IRMutator over statements.
#include "ir/arith/simplify_stmt.h"

#include "ir/arith/expr_compare.h"
#include "ir/functor.h"

namespace kiln::ir::arith {
namespace {

class StmtSimplifier : public IRMutator {
 public:
  explicit StmtSimplifier(Analyzer& analyzer) : analyzer_(analyzer) {}

  // Expressions are simplified whole rather than node by node.
  Expr VisitExpr(const Expr& e) override {
    Expr s = analyzer_.Simplify(e);
    return ExprDeepEqual(s, e) ? e : s;
  }

  Stmt VisitStmt_(const ForNode* op) override {
    Expr min = VisitExpr(op->min);
    Expr extent = VisitExpr(op->extent);
    analyzer_.Bind(op->loop_var, Range{min, extent});
    Stmt body = VisitStmt(op->body);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
      return GetRef<Stmt>(op);
    }
    auto node = std::make_shared<ForNode>(*op);
    node->min = min;
    node->extent = extent;
    node->body = body;
    return Stmt(std::move(node));
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) {
      analyzer_.Bind(iv.var,
                     Range{analyzer_.Simplify(iv.dom.min), analyzer_.Simplify(iv.dom.extent)});
    }
    return IRMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const IfThenElseNode* op) override {
    Expr cond = VisitExpr(op->condition);
    if (auto v = AsConstInt(cond)) {
      if (*v) return VisitStmt(op->then_case);
      if (op->else_case.defined()) return VisitStmt(op->else_case);
      return SeqStmt({});
    }
    analyzer_.EnterConstraint(cond);
    Stmt then_case = VisitStmt(op->then_case);
    analyzer_.ExitConstraint();
    Stmt else_case;
    if (op->else_case.defined()) {
      analyzer_.EnterConstraint(analyzer_.Simplify(Not(cond)));
      else_case = VisitStmt(op->else_case);
      analyzer_.ExitConstraint();
    }
    if (cond.same_as(op->condition) && then_case.same_as(op->then_case) &&
        else_case.same_as(op->else_case)) {
      return GetRef<Stmt>(op);
    }
    return IfThenElse(cond, then_case, else_case);
  }

  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      seq.push_back(VisitStmt(s));
      changed |= !seq.back().same_as(s);
    }
    // Rebuilding flattens the empty sequences left by removed branches.
    return changed ? SeqStmt(std::move(seq)) : GetRef<Stmt>(op);
  }

  Stmt VisitStmt_(const LetStmtNode* op) override {
    Expr value = VisitExpr(op->value);
    if (value.dtype().is_int() && value.dtype().is_scalar()) {
      ConstIntBound b = analyzer_.GetConstIntBound(value);
      if (b.min_value != ConstIntBound::kNegInf && b.max_value != ConstIntBound::kPosInf &&
          b.max_value - b.min_value < ConstIntBound::kPosInf / 2) {
        DataType t = value.dtype();
        analyzer_.Bind(op->var,
                       Range{IntImm(t, b.min_value), IntImm(t, b.max_value - b.min_value + 1)});
      }
    }
    Stmt body = VisitStmt(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<Stmt>(op);
    return LetStmt(op->var, value, body);
  }

 private:
  Analyzer& analyzer_;
};

}  // namespace

Stmt SimplifyStmt(const Stmt& s, Analyzer& analyzer) {
  if (!s.defined()) return s;
  return StmtSimplifier(analyzer).VisitStmt(s);
}

}  // namespace kiln::ir::arith
