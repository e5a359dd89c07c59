// Buffer replacement and dtype conversion helpers for the passes.
#include "codegen/passes/ir_utils.h"

namespace kiln::codegen {

using namespace ir;

namespace {

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

}  // namespace

Stmt RemapBuffers(const Stmt& s, const BufferMap& buffers) {
  if (buffers.empty()) return s;
  return BufferRemapper(buffers).VisitStmt(s);
}

Expr CastTo(DataType dtype, const Expr& e) {
  if (e.dtype() == dtype) return e;
  if (auto v = AsConstInt(e); v && dtype.is_integral() && dtype.is_scalar()) {
    return IntImm(dtype, *v);
  }
  return Cast(dtype, e);
}

}  // namespace kiln::codegen
