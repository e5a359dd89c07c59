// ExprFunctor and StmtFunctor: visitors with a return type and extra arguments, dispatched on
// the node list (ir/node_list.h) with no default for any node kind. A subclass must say what
// every kind means, so a new node kind is a compile error in each functor that has not
// learned it (an abstract class cannot be instantiated), instead of a silent `default:`.
// For walks that only care about a few kinds, IRVisitor (ir/functor.h) is the better fit.
#pragma once

#include <utility>

#include "ir/expr.h"
#include "ir/stmt.h"
#include "support/error.h"

namespace kiln::ir {

template <typename FType>
class ExprFunctor;

template <typename R, typename... Args>
class ExprFunctor<R(const Expr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  virtual R VisitExpr(const Expr& e, Args... args) {
    switch (e.kind()) {
#define KILN_TYPED_DISPATCH(name) \
  case NodeKind::k##name:         \
    return VisitExpr_(static_cast<const name##Node*>(e.get()), std::forward<Args>(args)...);
      KILN_EXPR_NODES(KILN_TYPED_DISPATCH)
#undef KILN_TYPED_DISPATCH
      default:
        throw Error(ErrorKind::kInternal, "ExprFunctor: a statement where an expression belongs");
    }
  }

 protected:
#define KILN_TYPED_DECL(name) virtual R VisitExpr_(const name##Node* op, Args... args) = 0;
  KILN_EXPR_NODES(KILN_TYPED_DECL)
#undef KILN_TYPED_DECL
};

template <typename FType>
class StmtFunctor;

template <typename R, typename... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  virtual R VisitStmt(const Stmt& s, Args... args) {
    switch (s.kind()) {
#define KILN_TYPED_DISPATCH(name) \
  case NodeKind::k##name:         \
    return VisitStmt_(static_cast<const name##Node*>(s.get()), std::forward<Args>(args)...);
      KILN_STMT_NODES(KILN_TYPED_DISPATCH)
#undef KILN_TYPED_DISPATCH
      default:
        throw Error(ErrorKind::kInternal, "StmtFunctor: an expression where a statement belongs");
    }
  }

 protected:
#define KILN_TYPED_DECL(name) virtual R VisitStmt_(const name##Node* op, Args... args) = 0;
  KILN_TENSOR_STMT_NODES(KILN_TYPED_DECL)
#undef KILN_TYPED_DECL
  // SparseTIR's stage-I statements never reach a TensorIR functor: ir/sparse/transform/ lowers
  // them first. Meeting one is a caller's mistake, said as such, not a silent walk.
#define KILN_TYPED_SPARSE(name)                                                     \
  virtual R VisitStmt_(const name##Node*, Args...) {                                \
    throw Error(ErrorKind::kInvalidIR, "StmtFunctor: a SparseTIR " #name            \
                                       " statement; lower it with LowerSparseIter " \
                                       "(ir/sparse/transform/) first");             \
  }
  KILN_SPARSE_STMT_NODES(KILN_TYPED_SPARSE)
#undef KILN_TYPED_SPARSE
};

}  // namespace kiln::ir
