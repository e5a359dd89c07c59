// Variable substitution and use queries (see substitute.h).
#include "ir/substitute.h"

#include "ir/functor.h"

namespace kiln::ir {
namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& vars) : vars_(vars) {}
  Expr VisitExpr_(const VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? GetRef<Expr>(op) : it->second;
  }

 private:
  const VarMap& vars_;
};

class VarCollector : public IRVisitor {
 public:
  explicit VarCollector(const std::function<void(const Var&)>& fn) : fn_(fn) {}
  void VisitExpr_(const VarNode* op) override { fn_(GetRef<Var>(op)); }

 private:
  const std::function<void(const Var&)>& fn_;
};

class VarUseFinder : public IRVisitor {
 public:
  explicit VarUseFinder(const std::unordered_set<const VarNode*>& vars) : vars_(vars) {}
  void VisitExpr_(const VarNode* op) override { found |= vars_.count(op) > 0; }
  void VisitExpr_(const BufferLoadNode* op) override {
    found |= vars_.count(op->buffer->data.get()) > 0;
    IRVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    found |= vars_.count(op->buffer->data.get()) > 0;
    IRVisitor::VisitStmt_(op);
  }
  bool found = false;

 private:
  const std::unordered_set<const VarNode*>& vars_;
};

}  // namespace

Expr Substitute(const Expr& e, const VarMap& vars) {
  if (!e.defined() || vars.empty()) return e;
  return Substituter(vars).VisitExpr(e);
}

Stmt Substitute(const Stmt& s, const VarMap& vars) {
  if (!s.defined() || vars.empty()) return s;
  return Substituter(vars).VisitStmt(s);
}

void ForEachVar(const Expr& e, const std::function<void(const Var&)>& fn) {
  if (e.defined()) VarCollector(fn).VisitExpr(e);
}

bool UsesAnyVar(const Expr& e, const std::unordered_set<const VarNode*>& vars) {
  if (!e.defined()) return false;
  VarUseFinder finder(vars);
  finder.VisitExpr(e);
  return finder.found;
}

bool UsesAnyVar(const Stmt& s, const std::unordered_set<const VarNode*>& vars) {
  if (!s.defined()) return false;
  VarUseFinder finder(vars);
  finder.VisitStmt(s);
  return finder.found;
}

bool UsesVar(const Expr& e, const VarNode* var) { return UsesAnyVar(e, {var}); }
bool UsesVar(const Stmt& s, const VarNode* var) { return UsesAnyVar(s, {var}); }

}  // namespace kiln::ir
