// IRVisitor and IRMutator, generated from the node list in ir/node_list.h.
// Override VisitExpr_/VisitStmt_ for the node kinds you care about; the defaults walk every
// Expr and Stmt field the node declares with KILN_FIELDS. Vars in defining positions (loop
// vars, block iter vars, let vars) and Buffers are not visited as expressions; a visitor
// that needs buffer shapes reads them from the node.
// The mutator rebuilds a node only when a child changed, so unchanged subtrees stay shared.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/expr.h"
#include "ir/function.h"
#include "ir/stmt.h"

namespace kiln::ir {

#define KILN_FORWARD_NODE(name) struct name##Node;
KILN_EXPR_NODES(KILN_FORWARD_NODE)
KILN_STMT_NODES(KILN_FORWARD_NODE)
#undef KILN_FORWARD_NODE

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void VisitExpr(const Expr& e);
  virtual void VisitStmt(const Stmt& s);

#define KILN_VISIT_DECL(name) virtual void VisitExpr_(const name##Node* op);
  KILN_EXPR_NODES(KILN_VISIT_DECL)
#undef KILN_VISIT_DECL
#define KILN_VISIT_DECL(name) virtual void VisitStmt_(const name##Node* op);
  KILN_STMT_NODES(KILN_VISIT_DECL)
#undef KILN_VISIT_DECL

 protected:
  // Visits every Expr and Stmt field of `node`.
  template <typename NodeT>
  void VisitChildren(const NodeT* node) {
    std::apply([&](const auto&... field) { (VisitField(field), ...); }, node->Fields());
  }

 private:
  void VisitField(const Expr& e) {
    if (e.defined()) VisitExpr(e);
  }
  void VisitField(const Stmt& s) {
    if (s.defined()) VisitStmt(s);
  }
  void VisitField(const Range& r) {
    VisitField(r.min);
    VisitField(r.extent);
  }
  void VisitField(const IterVar& iv) { VisitField(iv.dom); }
  void VisitField(const BufferRegion& br) {
    for (const Range& r : br.region) VisitField(r);
  }
  template <typename T>
  void VisitField(const std::vector<T>& v) {
    for (const T& x : v) VisitField(x);
  }
  // Everything else (Var definitions, Buffers, scalars, strings, annotations): not visited.
  // For a Var field this template is an exact match, so it wins over the Expr overload.
  template <typename T>
  void VisitField(const T&) {}
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr VisitExpr(const Expr& e);
  virtual Stmt VisitStmt(const Stmt& s);

#define KILN_MUTATE_DECL(name) virtual Expr VisitExpr_(const name##Node* op);
  KILN_EXPR_NODES(KILN_MUTATE_DECL)
#undef KILN_MUTATE_DECL
#define KILN_MUTATE_DECL(name) virtual Stmt VisitStmt_(const name##Node* op);
  KILN_STMT_NODES(KILN_MUTATE_DECL)
#undef KILN_MUTATE_DECL

 protected:
  // Mutates every Expr and Stmt field of `node`; returns `node` itself (as a handle) when
  // nothing changed, else a copy with the new fields.
  template <typename Handle, typename NodeT>
  Handle MutateChildren(const NodeT* node) {
    auto copy = std::make_shared<NodeT>(*node);
    bool changed = false;
    std::apply([&](auto&... field) { (MutateField(field, changed), ...); }, copy->Fields());
    if (!changed) return GetRef<Handle>(node);
    return Handle(std::shared_ptr<const typename std::conditional_t<
                      std::is_base_of_v<ExprNode, NodeT>, ExprNode, StmtNode>>(copy));
  }

 private:
  void MutateField(Expr& e, bool& changed) {
    if (!e.defined()) return;
    Expr n = VisitExpr(e);
    changed |= !n.same_as(e);
    e = std::move(n);
  }
  void MutateField(Stmt& s, bool& changed) {
    if (!s.defined()) return;
    Stmt n = VisitStmt(s);
    changed |= !n.same_as(s);
    s = std::move(n);
  }
  void MutateField(Range& r, bool& changed) {
    MutateField(r.min, changed);
    MutateField(r.extent, changed);
  }
  void MutateField(IterVar& iv, bool& changed) { MutateField(iv.dom, changed); }
  void MutateField(BufferRegion& br, bool& changed) {
    for (Range& r : br.region) MutateField(r, changed);
  }
  template <typename T>
  void MutateField(std::vector<T>& v, bool& changed) {
    for (T& x : v) MutateField(x, changed);
  }
  // Var definitions, Buffers, scalars, strings, annotations: kept (exact match beats Expr&).
  template <typename T>
  void MutateField(T&, bool&) {}
};

}  // namespace kiln::ir
