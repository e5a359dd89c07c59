// The module well-formedness check.
#include "ir/relax/well_formed.h"

#include <set>
#include <string>

#include "ir/relax/block_builder.h"

namespace kiln::ir::relax {

namespace {

// How a non-leaf expression reads in a message: "a call of R.nn.silu", "a tuple projection".
std::string Describe(const Expr& e) {
  if (const auto* c = e.as<CallNode>()) {
    if (!c->op.empty()) return "a call of R." + c->op;
    if (const auto* g = c->callee.as<GlobalVarNode>()) return "a call of " + g->name;
    return "a call";
  }
  switch (e.kind()) {
    case ExprKind::kTuple:
      return "a tuple that holds a non-leaf";
    case ExprKind::kTupleGetItem:
      return "a tuple projection";
    case ExprKind::kSeqExpr:
      return "a SeqExpr";
    case ExprKind::kFunction:
      return "a function";
    default:
      return std::string("a ") + ExprKindName(e.kind());
  }
}

constexpr const char* kLeafRule =
    "in A-normal form it must be a variable, constant, shape, prim value, function name or a "
    "tuple of these: bind the inner expression to a variable first (BlockBuilder::Emit and the "
    "text parser do)";

class Checker {
 public:
  Checker(const IRModule& module, const std::string& func) : module_(module), func_(func) {}

  void CheckFunction(const Function& f) {
    for (const Var& p : f->params) Define(p);
    if (f->body.as<SeqExprNode>() == nullptr) {
      RequireLeaf(f->body, "the returned value", "the returned value");
    }
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
      case ExprKind::kTuple: {
        const auto& fields = e.as<TupleNode>()->fields;
        for (size_t i = 0; i < fields.size(); ++i) {
          RequireLeaf(fields[i], where, "field " + std::to_string(i) + " of a tuple");
          CheckExpr(fields[i], where);
        }
        break;
      }
      case ExprKind::kTupleGetItem: {
        const Expr& tuple = e.as<TupleGetItemNode>()->tuple;
        RequireLeaf(tuple, where, "the tuple of a projection (x[i])");
        CheckExpr(tuple, where);
        break;
      }
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
        RequireLeaf(seq->body, "the returned value", "the returned value");
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

  // `e` at `what` (a call argument, a tuple field, ...) must be a leaf or a tuple of leaves.
  void RequireLeaf(const Expr& e, const std::string& where, const std::string& what) const {
    if (!e.defined() || IsLeafOrTuple(e)) return;
    Fail(where, what + " is " + Describe(e) + ", not a leaf; " + kLeafRule);
  }

  void CheckCall(const CallNode& c, const std::string& where) {
    std::string callee = !c.op.empty()                       ? "R." + c.op
                         : c.callee.as<GlobalVarNode>()      ? c.callee.as<GlobalVarNode>()->name
                         : c.callee.as<VarNode>() != nullptr ? c.callee.as<VarNode>()->name
                                                             : std::string("a function");
    for (size_t i = 0; i < c.args.size(); ++i) {
      RequireLeaf(c.args[i], where, "argument " + std::to_string(i) + " of " + callee);
    }
    if (c.op.empty()) {
      RequireLeaf(c.callee, where, "the callee");
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
