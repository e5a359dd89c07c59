// Variable substitution, buffer replacement and small folding helpers for the passes.
#include "codegen/passes/ir_utils.h"

namespace kiln::codegen {

using namespace ir;

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

class BufferRemapper : public IRMutator {
 public:
  explicit BufferRemapper(const BufferMap& buffers) : buffers_(buffers) {}

  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    auto it = buffers_.find(load->buffer.get());
    if (it == buffers_.end()) return e;
    return BufferLoad(it->second, load->indices);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    auto it = buffers_.find(store->buffer.get());
    if (it == buffers_.end()) return s;
    return BufferStore(it->second, store->value, store->indices);
  }
  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt body = VisitStmt(op->body);
    auto it = buffers_.find(op->buffer.get());
    if (it == buffers_.end() && body.same_as(op->body)) return GetRef<Stmt>(op);
    return Allocate(it == buffers_.end() ? op->buffer : it->second, body);
  }
  Stmt VisitStmt_(const DeclBufferNode* op) override {
    Stmt body = VisitStmt(op->body);
    auto it = buffers_.find(op->buffer.get());
    if (it == buffers_.end() && body.same_as(op->body)) return GetRef<Stmt>(op);
    return DeclBufferStmt(it == buffers_.end() ? op->buffer : it->second, body);
  }

 private:
  const BufferMap& buffers_;
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
  explicit VarUseFinder(const VarNode* var) : var_(var) {}
  void VisitExpr_(const VarNode* op) override { found |= op == var_; }
  void VisitExpr_(const BufferLoadNode* op) override {
    found |= op->buffer->data.get() == var_;
    IRVisitor::VisitExpr_(op);
  }
  bool found = false;

 private:
  const VarNode* var_;
};

}  // namespace

Expr Substitute(const Expr& e, const VarMap& vars) {
  if (vars.empty()) return e;
  return Substituter(vars).VisitExpr(e);
}

Stmt Substitute(const Stmt& s, const VarMap& vars) {
  if (vars.empty()) return s;
  return Substituter(vars).VisitStmt(s);
}

Stmt RemapBuffers(const Stmt& s, const BufferMap& buffers) {
  if (buffers.empty()) return s;
  return BufferRemapper(buffers).VisitStmt(s);
}

void ForEachVar(const Expr& e, const std::function<void(const Var&)>& fn) {
  VarCollector(fn).VisitExpr(e);
}

bool UsesVar(const Expr& e, const VarNode* var) {
  VarUseFinder finder(var);
  finder.VisitExpr(e);
  return finder.found;
}

bool UsesVar(const Stmt& s, const VarNode* var) {
  VarUseFinder finder(var);
  finder.VisitStmt(s);
  return finder.found;
}

Expr CastTo(DataType dtype, const Expr& e) {
  if (e.dtype() == dtype) return e;
  if (auto v = AsConstInt(e); v && dtype.is_integral() && dtype.is_scalar()) {
    return IntImm(dtype, *v);
  }
  return Cast(dtype, e);
}

Expr FoldAdd(const Expr& a, const Expr& b) {
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return IntImm(a.dtype().is_integral() ? a.dtype() : b.dtype(), *ca + *cb);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  return Add(a, b);
}

Expr FoldMul(const Expr& a, const Expr& b) {
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return IntImm(a.dtype(), *ca * *cb);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  if ((ca && *ca == 0) || (cb && *cb == 0)) return IntImm(a.dtype(), 0);
  return Mul(a, b);
}

}  // namespace kiln::codegen
