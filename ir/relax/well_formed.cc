// The module well-formedness check.
#include "ir/relax/well_formed.h"

#include <set>
#include <string>

namespace kiln::ir::relax {

namespace {

class Checker {
 public:
  Checker(const IRModule& module, const std::string& func) : module_(module), func_(func) {}

  void CheckFunction(const Function& f) {
    for (const Var& p : f->params) Define(p);
    CheckExpr(f->body, "the body");
  }

 private:
  [[noreturn]] void Fail(const std::string& where, const std::string& message) const {
    throw Error(ErrorKind::kInvalidIR, "function " + func_ + ", " + where + ": " + message);
  }

  void Define(const Var& v) { defined_.insert(v.get()); }

  void CheckExpr(const Expr& e, const std::string& where) {
    if (!e.defined()) Fail(where, "undefined expression");
    switch (e.kind()) {
      case ExprKind::kVar:
      case ExprKind::kDataflowVar: {
        const auto* v = e.as<VarNode>();
        if (defined_.count(v) == 0) {
          Fail(where, "variable " + v->name + " is used before it is defined");
        }
        if (e.kind() == ExprKind::kDataflowVar && !in_dataflow_) {
          Fail(where, "dataflow variable " + v->name + " is used outside its dataflow block");
        }
        break;
      }
      case ExprKind::kTuple:
        for (const Expr& f : e.as<TupleNode>()->fields) CheckExpr(f, where);
        break;
      case ExprKind::kTupleGetItem:
        CheckExpr(e.as<TupleGetItemNode>()->tuple, where);
        break;
      case ExprKind::kCall:
        CheckCall(*e.as<CallNode>(), where);
        break;
      case ExprKind::kGlobalVar: {
        const std::string& name = e.as<GlobalVarNode>()->name;
        if (!module_.Contains(name)) Fail(where, "no function named " + name + " in the module");
        break;
      }
      case ExprKind::kSeqExpr: {
        const auto* seq = e.as<SeqExprNode>();
        for (const BindingBlock& block : seq->blocks) CheckBlock(block);
        CheckExpr(seq->body, "the returned value");
        break;
      }
      default:
        break;
    }
  }

  void CheckBlock(const BindingBlock& block) {
    in_dataflow_ = block.is_dataflow;
    for (const Binding& b : block.bindings) {
      std::string where = "binding of " + b.var.name();
      if (b.var.is_dataflow() && !block.is_dataflow) {
        Fail(where, "a dataflow variable is bound outside a dataflow block");
      }
      CheckExpr(b.value, where);
      if (defined_.count(b.var.get()) != 0) Fail(where, "the variable is bound twice");
      Define(b.var);
    }
    in_dataflow_ = false;
  }

  void CheckCall(const CallNode& c, const std::string& where) {
    if (c.op.empty()) {
      CheckExpr(c.callee, where);
      if (const auto* g = c.callee.as<GlobalVarNode>()) {
        if (module_.LookupFunction(g->name) == nullptr) {
          Fail(where, g->name + " is called as a Relax function but is a PrimFunc");
        }
      }
    }
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (c.op == "call_tir" && i == 0) continue;
      CheckExpr(c.args[i], where);
    }
    if (c.op != "call_tir") return;
    const std::string& name = c.args[0].as<GlobalVarNode>()->name;
    const ir::PrimFunc* f = module_.LookupPrimFunc(name);
    if (f == nullptr) {
      Fail(where, "call_tir of " + name + ", which is not a PrimFunc of the module");
    }
    size_t inputs = c.args[1].struct_info().as<TupleStructInfoNode>()->fields.size();
    size_t scalars = 0;
    if (c.args.size() == 3) {
      int ndim = c.args[2].struct_info().as<ShapeStructInfoNode>()->ndim;
      if (ndim == kUnknownNDim) return;  // the count is known only at run time
      scalars = static_cast<size_t>(ndim);
    }
    size_t expected = inputs + c.sinfo_args.size() + scalars;
    if ((*f)->params.size() != expected) {
      Fail(where, "call_tir of " + name + " passes " + std::to_string(inputs) + " inputs, " +
                      std::to_string(c.sinfo_args.size()) + " outputs and " +
                      std::to_string(scalars) + " shape values, but it takes " +
                      std::to_string((*f)->params.size()) + " parameters");
    }
  }

  const IRModule& module_;
  std::string func_;
  std::set<const VarNode*> defined_;
  bool in_dataflow_ = false;
};

}  // namespace

void CheckWellFormed(const IRModule& module) {
  for (const std::string& name : module.names()) {
    if (const Function* f = module.LookupFunction(name)) Checker(module, name).CheckFunction(*f);
  }
}

}  // namespace kiln::ir::relax
