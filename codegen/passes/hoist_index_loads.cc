// Index loads read in every iteration of a constant loop, at an address the loop does not
// change, moved before the loop.
#include "codegen/passes/hoist_index_loads.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "codegen/passes/ir_utils.h"
#include "ir/arith/expr_compare.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// The loads of one loop's body that may move out of it, and what disqualifies others.
class HoistableLoads : public IRVisitor {
 public:
  explicit HoistableLoads(const ForNode* loop) { bound_.insert(loop->loop_var.get()); }

  std::vector<Expr> Collect(const Stmt& body) {
    VisitStmt(body);
    std::vector<Expr> out;
    for (const Expr& load : loads_) {
      const auto* node = load.as<BufferLoadNode>();
      if (stored_.count(node->buffer->data.get())) continue;
      bool uses_bound = false;
      for (const Expr& index : node->indices) {
        ForEachVar(index, [&](const Var& v) { uses_bound |= bound_.count(v.get()) > 0; });
      }
      if (uses_bound) continue;
      bool seen = false;
      for (const Expr& e : out) seen |= arith::ExprDeepEqual(e, load);
      if (!seen) out.push_back(load);
    }
    return out;
  }

  void VisitStmt_(const ForNode* op) override {
    bound_.insert(op->loop_var.get());
    auto extent = AsConstInt(op->extent);
    bool always = extent && *extent > 0;
    Conditional(!always, [&] { IRVisitor::VisitStmt_(op); });
  }
  void VisitStmt_(const LetStmtNode* op) override {
    bound_.insert(op->var.get());
    IRVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    VisitExpr(op->condition);
    Conditional(true, [&] {
      VisitStmt(op->then_case);
      if (op->else_case.defined()) VisitStmt(op->else_case);
    });
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    stored_.insert(op->buffer->data.get());
    IRVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    stored_.insert(op->buffer->data.get());
    IRVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const LetNode* op) override {
    bound_.insert(op->var.get());
    IRVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const SelectNode* op) override {
    VisitExpr(op->condition);
    Conditional(true, [&] {
      VisitExpr(op->true_value);
      VisitExpr(op->false_value);
    });
  }
  void VisitExpr_(const CallNode* op) override {
    // if_then_else evaluates one branch only; any call may be one.
    Conditional(true, [&] { IRVisitor::VisitExpr_(op); });
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    IRVisitor::VisitExpr_(op);
    if (conditional_ == 0 && op->dtype.is_int() && !op->dtype.is_vector()) {
      loads_.push_back(GetRef(op));
    }
  }

 private:
  template <typename F>
  void Conditional(bool conditional, F&& visit) {
    conditional_ += conditional ? 1 : 0;
    visit();
    conditional_ -= conditional ? 1 : 0;
  }
  static Expr GetRef(const BufferLoadNode* op) { return BufferLoad(op->buffer, op->indices); }

  std::unordered_set<const VarNode*> bound_;
  std::unordered_set<const VarNode*> stored_;
  std::vector<Expr> loads_;
  int conditional_ = 0;
};

// Replaces loads deep-equal to one of `loads` by its variable.
class ReplaceLoads : public IRMutator {
 public:
  ReplaceLoads(const std::vector<Expr>& loads, const std::vector<Var>& vars)
      : loads_(loads), vars_(vars) {}
  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr self = BufferLoad(op->buffer, op->indices);
    for (size_t i = 0; i < loads_.size(); ++i) {
      if (arith::ExprDeepEqual(self, loads_[i])) return vars_[i];
    }
    return IRMutator::VisitExpr_(op);
  }

 private:
  const std::vector<Expr>& loads_;
  const std::vector<Var>& vars_;
};

class Hoister : public IRMutator {
 public:
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt visited = IRMutator::VisitStmt_(op);
    const auto* loop = visited.as<ForNode>();
    auto extent = AsConstInt(loop->extent);
    if (!loop || !extent || *extent <= 0 || loop->for_kind == ForKind::kParallel ||
        loop->for_kind == ForKind::kThreadBinding) {
      return visited;
    }
    std::vector<Expr> loads = HoistableLoads(loop).Collect(loop->body);
    if (loads.empty()) return visited;
    std::vector<Var> vars;
    for (const Expr& load : loads) {
      const auto* node = load.as<BufferLoadNode>();
      vars.emplace_back(node->buffer->name + "_at_" + std::to_string(counter_++), load.dtype());
    }
    Stmt body = ReplaceLoads(loads, vars).VisitStmt(loop->body);
    Stmt result = For(loop->loop_var, loop->min, loop->extent, loop->for_kind, body,
                      loop->thread_tag, loop->annotations);
    for (size_t i = loads.size(); i-- > 0;) result = LetStmt(vars[i], loads[i], result);
    return result;
  }

 private:
  int counter_ = 0;
};

}  // namespace

PrimFunc HoistIndexLoads(const PrimFunc& f) { return f.WithBody(Hoister().VisitStmt(f->body)); }

}  // namespace kiln::codegen
