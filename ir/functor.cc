// Dispatch for IRVisitor and IRMutator, generated from the node list.
#include "ir/functor.h"

namespace kiln::ir {

void IRVisitor::VisitExpr(const Expr& e) {
  switch (e.kind()) {
#define KILN_DISPATCH(name) \
  case NodeKind::k##name:   \
    return VisitExpr_(static_cast<const name##Node*>(e.get()));
    KILN_EXPR_NODES(KILN_DISPATCH)
#undef KILN_DISPATCH
    default:
      throw Error(ErrorKind::kInternal, "IRVisitor: a statement where an expression belongs");
  }
}

void IRVisitor::VisitStmt(const Stmt& s) {
  switch (s.kind()) {
#define KILN_DISPATCH(name) \
  case NodeKind::k##name:   \
    return VisitStmt_(static_cast<const name##Node*>(s.get()));
    KILN_STMT_NODES(KILN_DISPATCH)
#undef KILN_DISPATCH
    default:
      throw Error(ErrorKind::kInternal, "IRVisitor: an expression where a statement belongs");
  }
}

#define KILN_VISIT_DEFAULT(name) \
  void IRVisitor::VisitExpr_(const name##Node* op) { VisitChildren(op); }
KILN_EXPR_NODES(KILN_VISIT_DEFAULT)
#undef KILN_VISIT_DEFAULT
#define KILN_VISIT_DEFAULT(name) \
  void IRVisitor::VisitStmt_(const name##Node* op) { VisitChildren(op); }
KILN_STMT_NODES(KILN_VISIT_DEFAULT)
#undef KILN_VISIT_DEFAULT

Expr IRMutator::VisitExpr(const Expr& e) {
  switch (e.kind()) {
#define KILN_DISPATCH(name) \
  case NodeKind::k##name:   \
    return VisitExpr_(static_cast<const name##Node*>(e.get()));
    KILN_EXPR_NODES(KILN_DISPATCH)
#undef KILN_DISPATCH
    default:
      throw Error(ErrorKind::kInternal, "IRMutator: a statement where an expression belongs");
  }
}

Stmt IRMutator::VisitStmt(const Stmt& s) {
  switch (s.kind()) {
#define KILN_DISPATCH(name) \
  case NodeKind::k##name:   \
    return VisitStmt_(static_cast<const name##Node*>(s.get()));
    KILN_STMT_NODES(KILN_DISPATCH)
#undef KILN_DISPATCH
    default:
      throw Error(ErrorKind::kInternal, "IRMutator: an expression where a statement belongs");
  }
}

#define KILN_MUTATE_DEFAULT(name) \
  Expr IRMutator::VisitExpr_(const name##Node* op) { return MutateChildren<Expr>(op); }
KILN_EXPR_NODES(KILN_MUTATE_DEFAULT)
#undef KILN_MUTATE_DEFAULT
#define KILN_MUTATE_DEFAULT(name) \
  Stmt IRMutator::VisitStmt_(const name##Node* op) { return MutateChildren<Stmt>(op); }
KILN_STMT_NODES(KILN_MUTATE_DEFAULT)
#undef KILN_MUTATE_DEFAULT

}  // namespace kiln::ir
