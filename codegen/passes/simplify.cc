// Simplification: the arith simplifier, then statement-level folding.
#include "codegen/passes/simplify.h"

#include "codegen/passes/ir_utils.h"
#include "ir/arith/simplify_stmt.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// Folds integer and float immediates and the neutral-element identities.
class ConstantFolder : public IRMutator {
 public:
  Expr VisitExpr_(const AddNode* op) override {
    return Fold(op, [](auto x, auto y) { return x + y; });
  }
  Expr VisitExpr_(const SubNode* op) override {
    return Fold(op, [](auto x, auto y) { return x - y; });
  }
  Expr VisitExpr_(const MulNode* op) override {
    return Fold(op, [](auto x, auto y) { return x * y; });
  }
  Expr VisitExpr_(const DivNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* d = e.as<DivNode>();
    if (d && d->dtype.is_integral() && IsConstInt(d->b, 1)) return d->a;
    return e;
  }
  Expr VisitExpr_(const FloorDivNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* d = e.as<FloorDivNode>();
    if (!d) return e;
    if (IsConstInt(d->b, 1)) return d->a;
    auto a = AsConstInt(d->a);
    auto b = AsConstInt(d->b);
    if (a && b && *b != 0) {
      int64_t q = *a / *b;
      if ((*a % *b != 0) && ((*a < 0) != (*b < 0))) --q;
      return IntImm(d->dtype, q);
    }
    return e;
  }
  Expr VisitExpr_(const FloorModNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* d = e.as<FloorModNode>();
    if (!d) return e;
    if (IsConstInt(d->b, 1)) return IntImm(d->dtype, 0);
    auto a = AsConstInt(d->a);
    auto b = AsConstInt(d->b);
    if (a && b && *b != 0) {
      int64_t r = *a % *b;
      if (r != 0 && ((r < 0) != (*b < 0))) r += *b;
      return IntImm(d->dtype, r);
    }
    return e;
  }
  Expr VisitExpr_(const EQNode* op) override {
    return Compare(op, [](auto x, auto y) { return x == y; });
  }
  Expr VisitExpr_(const NENode* op) override {
    return Compare(op, [](auto x, auto y) { return x != y; });
  }
  Expr VisitExpr_(const LTNode* op) override {
    return Compare(op, [](auto x, auto y) { return x < y; });
  }
  Expr VisitExpr_(const LENode* op) override {
    return Compare(op, [](auto x, auto y) { return x <= y; });
  }
  Expr VisitExpr_(const GTNode* op) override {
    return Compare(op, [](auto x, auto y) { return x > y; });
  }
  Expr VisitExpr_(const GENode* op) override {
    return Compare(op, [](auto x, auto y) { return x >= y; });
  }
  Expr VisitExpr_(const AndNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* n = e.as<AndNode>();
    if (!n || !n->dtype.is_scalar()) return e;
    if (IsConstInt(n->a, 0) || IsConstInt(n->b, 0)) return BoolImm(false);
    if (IsConstInt(n->a, 1)) return n->b;
    if (IsConstInt(n->b, 1)) return n->a;
    return e;
  }
  Expr VisitExpr_(const OrNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* n = e.as<OrNode>();
    if (!n || !n->dtype.is_scalar()) return e;
    if (IsConstInt(n->a, 1) || IsConstInt(n->b, 1)) return BoolImm(true);
    if (IsConstInt(n->a, 0)) return n->b;
    if (IsConstInt(n->b, 0)) return n->a;
    return e;
  }

 private:
  template <typename NodeT, typename F>
  Expr Fold(const NodeT* op, F f) {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* n = e.as<NodeT>();
    if (!n || !n->dtype.is_scalar()) return e;
    auto a = AsConstInt(n->a);
    auto b = AsConstInt(n->b);
    if (a && b && n->dtype.is_int()) return IntImm(n->dtype, f(*a, *b));
    if (n->dtype.is_integral()) {
      constexpr bool kIsAdd = std::is_same_v<NodeT, AddNode>;
      constexpr bool kIsSub = std::is_same_v<NodeT, SubNode>;
      constexpr bool kIsMul = std::is_same_v<NodeT, MulNode>;
      if ((kIsAdd || kIsSub) && b && *b == 0) return n->a;
      if (kIsAdd && a && *a == 0) return n->b;
      if (kIsMul && ((a && *a == 0) || (b && *b == 0))) return IntImm(n->dtype, 0);
      if (kIsMul && b && *b == 1) return n->a;
      if (kIsMul && a && *a == 1) return n->b;
    }
    return e;
  }

  template <typename NodeT, typename F>
  Expr Compare(const NodeT* op, F f) {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* n = e.as<NodeT>();
    if (!n || !n->dtype.is_scalar()) return e;
    auto a = AsConstInt(n->a);
    auto b = AsConstInt(n->b);
    if (a && b) return BoolImm(f(*a, *b));
    return e;
  }
};

// An empty sequence or the evaluation of a constant: a statement that does nothing.
bool IsNoOp(const Stmt& s) {
  if (const auto* seq = s.as<SeqStmtNode>()) return seq->seq.empty();
  const auto* eval = s.as<EvaluateNode>();
  return eval && eval->value.as<IntImmNode>() != nullptr;
}

// Statement folding after the expressions are simplified.
class StmtFolder : public ConstantFolder {
 public:
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    Expr cond = VisitExpr(op->condition);
    if (auto c = AsConstInt(cond)) {
      if (*c != 0) return VisitStmt(op->then_case);
      return op->else_case.defined() ? VisitStmt(op->else_case)
                                     : Evaluate(IntImm(DataType::Int(32), 0));
    }
    Stmt then_case = VisitStmt(op->then_case);
    Stmt else_case = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    return IfThenElse(cond, then_case, else_case);
  }

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* loop = s.as<ForNode>();
    if (!loop) return s;
    // Nothing to run (no iterations, or a body whose branches were all decided false).
    if (IsConstInt(loop->extent, 0) || IsNoOp(loop->body)) {
      return Evaluate(IntImm(DataType::Int(32), 0));
    }
    if (IsConstInt(loop->extent, 1) && loop->for_kind == ForKind::kSerial &&
        loop->annotations.empty()) {
      return VisitStmt(Substitute(loop->body, {{loop->loop_var.get(), loop->min}}));
    }
    return s;
  }

  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      Stmt n = VisitStmt(s);
      changed |= !n.same_as(s);
      if (IsNoOp(n)) {
        changed = true;
        continue;
      }
      seq.push_back(n);
    }
    if (!changed) return GetRef<Stmt>(op);
    if (seq.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
    return SeqStmt(std::move(seq));
  }
};

}  // namespace

PrimFunc Simplify(const PrimFunc& f) {
  Stmt body = f->body;
  arith::Analyzer analyzer;
  body = arith::SimplifyStmt(body, analyzer);
  return f.WithBody(StmtFolder().VisitStmt(body));
}

}  // namespace kiln::codegen
