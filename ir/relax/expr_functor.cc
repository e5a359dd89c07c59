// Default traversal and rebuilding of Relax expressions.
#include "ir/relax/expr_functor.h"

#include "ir/relax/op/registry.h"

namespace kiln::ir::relax {

namespace {

Expr Self(const ExprNode* node) { return Expr(node->shared_from_this()); }

}  // namespace

// ---- ExprVisitor -------------------------------------------------------------------------

void ExprVisitor::VisitExpr(const Expr& e) {
  if (!e.defined()) return;
  switch (e.kind()) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
      return VisitExpr_(e.as<VarNode>());
    case ExprKind::kConstant:
      return VisitExpr_(e.as<ConstantNode>());
    case ExprKind::kTuple:
      return VisitExpr_(e.as<TupleNode>());
    case ExprKind::kTupleGetItem:
      return VisitExpr_(e.as<TupleGetItemNode>());
    case ExprKind::kShapeExpr:
      return VisitExpr_(e.as<ShapeExprNode>());
    case ExprKind::kPrimValue:
      return VisitExpr_(e.as<PrimValueNode>());
    case ExprKind::kCall:
      return VisitExpr_(e.as<CallNode>());
    case ExprKind::kGlobalVar:
      return VisitExpr_(e.as<GlobalVarNode>());
    case ExprKind::kExternFunc:
      return VisitExpr_(e.as<ExternFuncNode>());
    case ExprKind::kSeqExpr:
      return VisitExpr_(e.as<SeqExprNode>());
    case ExprKind::kFunction:
      return VisitExpr_(e.as<FunctionNode>());
  }
}

void ExprVisitor::VisitBindingBlock(const BindingBlock& block) {
  for (const Binding& b : block.bindings) VisitBinding(b);
}

void ExprVisitor::VisitBinding(const Binding& binding) {
  VisitExpr(binding.value);
  VisitVarDef(binding.var);
}

void ExprVisitor::VisitVarDef(const Var&) {}
void ExprVisitor::VisitExpr_(const VarNode*) {}
void ExprVisitor::VisitExpr_(const ConstantNode*) {}
void ExprVisitor::VisitExpr_(const TupleNode* op) {
  for (const Expr& f : op->fields) VisitExpr(f);
}
void ExprVisitor::VisitExpr_(const TupleGetItemNode* op) { VisitExpr(op->tuple); }
void ExprVisitor::VisitExpr_(const ShapeExprNode*) {}
void ExprVisitor::VisitExpr_(const PrimValueNode*) {}
void ExprVisitor::VisitExpr_(const CallNode* op) {
  VisitExpr(op->callee);
  for (const Expr& a : op->args) VisitExpr(a);
}
void ExprVisitor::VisitExpr_(const GlobalVarNode*) {}
void ExprVisitor::VisitExpr_(const ExternFuncNode*) {}
void ExprVisitor::VisitExpr_(const SeqExprNode* op) {
  for (const BindingBlock& block : op->blocks) VisitBindingBlock(block);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const FunctionNode* op) {
  for (const Var& p : op->params) VisitVarDef(p);
  VisitExpr(op->body);
}

// ---- ExprMutator -------------------------------------------------------------------------

Expr ExprMutator::VisitExpr(const Expr& e) {
  if (!e.defined()) return e;
  switch (e.kind()) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
      return VisitExpr_(e.as<VarNode>());
    case ExprKind::kConstant:
      return VisitExpr_(e.as<ConstantNode>());
    case ExprKind::kTuple:
      return VisitExpr_(e.as<TupleNode>());
    case ExprKind::kTupleGetItem:
      return VisitExpr_(e.as<TupleGetItemNode>());
    case ExprKind::kShapeExpr:
      return VisitExpr_(e.as<ShapeExprNode>());
    case ExprKind::kPrimValue:
      return VisitExpr_(e.as<PrimValueNode>());
    case ExprKind::kCall:
      return VisitExpr_(e.as<CallNode>());
    case ExprKind::kGlobalVar:
      return VisitExpr_(e.as<GlobalVarNode>());
    case ExprKind::kExternFunc:
      return VisitExpr_(e.as<ExternFuncNode>());
    case ExprKind::kSeqExpr:
      return VisitExpr_(e.as<SeqExprNode>());
    case ExprKind::kFunction:
      return VisitExpr_(e.as<FunctionNode>());
  }
  return e;
}

std::vector<Expr> ExprMutator::VisitList(const std::vector<Expr>& exprs, bool& changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) {
    out.push_back(VisitExpr(e));
    changed |= !out.back().same_as(e);
  }
  return out;
}

BindingBlock ExprMutator::VisitBindingBlock(const BindingBlock& block) {
  BindingBlock out{{}, block.is_dataflow};
  for (const Binding& b : block.bindings) VisitBinding(b, out.bindings);
  return out;
}

void ExprMutator::VisitBinding(const Binding& binding, std::vector<Binding>& out) {
  Expr value = VisitExpr(binding.value);
  if (value.same_as(binding.value)) {
    out.push_back(binding);
    return;
  }
  if (binding.is_match_cast()) {
    out.push_back(MatchCast(binding.var, value, binding.pattern, binding.note));
    return;
  }
  Var var = binding.var;
  if (!StructInfoEqual(value.struct_info(), var.struct_info())) {
    var = var.is_dataflow() ? DataflowVar(var.name(), value.struct_info())
                            : Var(var.name(), value.struct_info());
    var_remap_[binding.var.get()] = var;
  }
  out.push_back(VarBinding(var, value));
}

Expr ExprMutator::VisitExpr_(const VarNode* op) {
  auto it = var_remap_.find(op);
  if (it != var_remap_.end()) return it->second;
  return Self(op);
}

Expr ExprMutator::VisitExpr_(const ConstantNode* op) { return Self(op); }

Expr ExprMutator::VisitExpr_(const TupleNode* op) {
  bool changed = false;
  std::vector<Expr> fields = VisitList(op->fields, changed);
  return changed ? Tuple(std::move(fields)) : Self(op);
}

Expr ExprMutator::VisitExpr_(const TupleGetItemNode* op) {
  Expr tuple = VisitExpr(op->tuple);
  return tuple.same_as(op->tuple) ? Self(op) : TupleGetItem(tuple, op->index);
}

Expr ExprMutator::VisitExpr_(const ShapeExprNode* op) { return Self(op); }
Expr ExprMutator::VisitExpr_(const PrimValueNode* op) { return Self(op); }

Expr ExprMutator::VisitExpr_(const CallNode* op) {
  bool changed = false;
  Expr callee = VisitExpr(op->callee);
  changed |= !callee.same_as(op->callee);
  std::vector<Expr> args = VisitList(op->args, changed);
  if (!changed) return Self(op);
  if (!op->op.empty()) return Call(op->op, std::move(args), op->attrs, op->sinfo_args);
  return CallFunction(callee, std::move(args));
}

Expr ExprMutator::VisitExpr_(const GlobalVarNode* op) { return Self(op); }
Expr ExprMutator::VisitExpr_(const ExternFuncNode* op) { return Self(op); }

Expr ExprMutator::VisitExpr_(const SeqExprNode* op) {
  bool changed = false;
  std::vector<BindingBlock> blocks;
  for (const BindingBlock& block : op->blocks) {
    blocks.push_back(VisitBindingBlock(block));
    const BindingBlock& nb = blocks.back();
    changed |= nb.bindings.size() != block.bindings.size();
    for (size_t i = 0; !changed && i < nb.bindings.size(); ++i) {
      changed |= !nb.bindings[i].var.same_as(block.bindings[i].var) ||
                 !nb.bindings[i].value.same_as(block.bindings[i].value);
    }
  }
  Expr body = VisitExpr(op->body);
  changed |= !body.same_as(op->body);
  return changed ? SeqExpr(std::move(blocks), body) : Self(op);
}

Expr ExprMutator::VisitExpr_(const FunctionNode* op) {
  bool changed = false;
  std::vector<Var> params;
  for (const Var& p : op->params) {
    auto it = var_remap_.find(p.get());
    bool remapped = it != var_remap_.end() && it->second.as<VarNode>() != nullptr;
    params.push_back(remapped ? Var(it->second.ptr()) : p);
    changed |= !params.back().same_as(p);
  }
  Expr body = VisitExpr(op->body);
  changed |= !body.same_as(op->body);
  if (!changed) return Self(op);
  // A rewrite that changed what the body returns changes the declared return too.
  StructInfo ret = StructInfoEqual(body.struct_info(), op->body.struct_info()) ? op->ret_struct_info
                                                                               : body.struct_info();
  return MakeFunction(std::move(params), body, ret, op->attrs);
}

}  // namespace kiln::ir::relax
