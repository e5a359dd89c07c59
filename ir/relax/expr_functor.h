// ExprVisitor and ExprMutator for Relax. Passes (legalization, fusion, task extraction)
// override the VisitExpr_ of the nodes they care about; the defaults walk everything.
// The mutator rebuilds only what changed, through the checked builders, so struct info is
// inferred again for a rewritten call. When a rewritten binding's value has other struct info
// than its variable, the binding gets a fresh variable of the same name and kind, and later
// uses of the old one are redirected to it (var_remap_), so shapes stay consistent downstream.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/relax/expr.h"

namespace kiln::ir::relax {

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  virtual void VisitExpr(const Expr& e);
  virtual void VisitBindingBlock(const BindingBlock& block);
  virtual void VisitBinding(const Binding& binding);
  // A variable where it is defined (a parameter or a binding); uses go through VisitExpr_.
  virtual void VisitVarDef(const Var& var);

 protected:
  virtual void VisitExpr_(const VarNode* op);
  virtual void VisitExpr_(const ConstantNode* op);
  virtual void VisitExpr_(const TupleNode* op);
  virtual void VisitExpr_(const TupleGetItemNode* op);
  virtual void VisitExpr_(const ShapeExprNode* op);
  virtual void VisitExpr_(const PrimValueNode* op);
  virtual void VisitExpr_(const CallNode* op);
  virtual void VisitExpr_(const GlobalVarNode* op);
  virtual void VisitExpr_(const ExternFuncNode* op);
  virtual void VisitExpr_(const SeqExprNode* op);
  virtual void VisitExpr_(const FunctionNode* op);
};

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  virtual Expr VisitExpr(const Expr& e);
  virtual BindingBlock VisitBindingBlock(const BindingBlock& block);
  // Appends the bindings that replace `binding` (by default one) to `out`.
  virtual void VisitBinding(const Binding& binding, std::vector<Binding>& out);

 protected:
  // The default of each returns the node itself when no child changed.
  virtual Expr VisitExpr_(const VarNode* op);  // applies var_remap_
  virtual Expr VisitExpr_(const ConstantNode* op);
  virtual Expr VisitExpr_(const TupleNode* op);
  virtual Expr VisitExpr_(const TupleGetItemNode* op);
  virtual Expr VisitExpr_(const ShapeExprNode* op);
  virtual Expr VisitExpr_(const PrimValueNode* op);
  virtual Expr VisitExpr_(const CallNode* op);
  virtual Expr VisitExpr_(const GlobalVarNode* op);
  virtual Expr VisitExpr_(const ExternFuncNode* op);
  virtual Expr VisitExpr_(const SeqExprNode* op);
  virtual Expr VisitExpr_(const FunctionNode* op);

  // Uses of a key variable become the value (parameters too, when the value is a Var).
  std::unordered_map<const VarNode*, Expr> var_remap_;

 private:
  std::vector<Expr> VisitList(const std::vector<Expr>& exprs, bool& changed);
};

}  // namespace kiln::ir::relax
