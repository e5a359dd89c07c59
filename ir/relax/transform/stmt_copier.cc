// Copying statements between PrimFuncs with substitution and renewed definitions.
#include "ir/relax/transform/stmt_copier.h"

namespace kiln::ir::relax::transform {

using namespace ir;  // NOLINT(google-build-using-namespace): TensorIR throughout this file

std::string NameSet::Unique(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  std::string name = base;
  for (int i = 1; used_.count(name) != 0; ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

StmtCopier::StmtCopier(VarMap vars, BufferMap buffers, NameSet* block_names, NameSet* buffer_names)
    : vars_(std::move(vars)),
      buffers_(std::move(buffers)),
      block_names_(block_names),
      buffer_names_(buffer_names) {}

Var StmtCopier::Renew(const Var& v) {
  Var fresh(v.name(), v.dtype());
  vars_[v.get()] = fresh;
  return fresh;
}

std::vector<Expr> StmtCopier::VisitExprs(const std::vector<Expr>& exprs) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) out.push_back(e.defined() ? VisitExpr(e) : e);
  return out;
}

Buffer StmtCopier::Remap(const Buffer& buffer) {
  auto it = buffers_.find(buffer.get());
  if (it != buffers_.end()) return it->second;
  auto node = std::make_shared<BufferNode>(*buffer.get());
  node->name = buffer_names_->Unique(buffer->name);
  node->shape = VisitExprs(buffer->shape);
  node->strides = VisitExprs(buffer->strides);
  if (node->elem_offset.defined()) node->elem_offset = VisitExpr(node->elem_offset);
  // Buffers that view one storage (an Allocate and its DeclBuffers) keep sharing it.
  if (buffer->data.defined()) {
    auto data = vars_.find(buffer->data.get());
    if (data != vars_.end() && data->second.as<VarNode>() != nullptr) {
      node->data = Var(data->second.ptr());
    } else {
      node->data = Var(node->name, buffer->data.dtype());
      vars_[buffer->data.get()] = node->data;
    }
  } else {
    node->data = Var(node->name, DataType::Handle());
  }
  Buffer fresh(std::move(node));
  buffers_[buffer.get()] = fresh;
  return fresh;
}

BufferRegion StmtCopier::RemapRegion(const BufferRegion& r) {
  BufferRegion out{Remap(r.buffer), {}};
  for (const Range& range : r.region) {
    out.region.push_back(Range{VisitExpr(range.min), VisitExpr(range.extent)});
  }
  return out;
}

Expr StmtCopier::VisitExpr_(const VarNode* op) {
  auto it = vars_.find(op);
  return it != vars_.end() ? it->second : GetRef<Expr>(op);
}

Expr StmtCopier::VisitExpr_(const BufferLoadNode* op) {
  return BufferLoad(Remap(op->buffer), VisitExprs(op->indices));
}

Expr StmtCopier::VisitExpr_(const LetNode* op) {
  Expr value = VisitExpr(op->value);
  Var var = Renew(op->var);
  return Let(var, value, VisitExpr(op->body));
}

Stmt StmtCopier::VisitStmt_(const BufferStoreNode* op) {
  Expr value = VisitExpr(op->value);
  return BufferStore(Remap(op->buffer), value, VisitExprs(op->indices));
}

Stmt StmtCopier::VisitStmt_(const ForNode* op) {
  Expr min = VisitExpr(op->min);
  Expr extent = VisitExpr(op->extent);
  Var var = Renew(op->loop_var);
  return For(var, min, extent, op->for_kind, VisitStmt(op->body), op->thread_tag, op->annotations);
}

Stmt StmtCopier::VisitStmt_(const BlockNode* op) {
  auto node = std::make_shared<BlockNode>();
  node->name = block_names_->Unique(op->name);
  for (const IterVar& iv : op->iter_vars) {
    Range dom{VisitExpr(iv.dom.min), VisitExpr(iv.dom.extent)};
    node->iter_vars.push_back(IterVar{Renew(iv.var), dom, iv.kind});
  }
  for (const Buffer& b : op->alloc_buffers) node->alloc_buffers.push_back(Remap(b));
  for (const BufferRegion& r : op->reads) node->reads.push_back(RemapRegion(r));
  for (const BufferRegion& r : op->writes) node->writes.push_back(RemapRegion(r));
  if (op->init.defined()) node->init = VisitStmt(op->init);
  node->body = VisitStmt(op->body);
  node->annotations = op->annotations;
  return Block(std::move(node));
}

Stmt StmtCopier::VisitStmt_(const LetStmtNode* op) {
  Expr value = VisitExpr(op->value);
  Var var = Renew(op->var);
  return LetStmt(var, value, VisitStmt(op->body));
}

Stmt StmtCopier::VisitStmt_(const AllocateNode* op) {
  Buffer buffer = Remap(op->buffer);
  return Allocate(buffer, VisitStmt(op->body));
}

Stmt StmtCopier::VisitStmt_(const DeclBufferNode* op) {
  Buffer buffer = Remap(op->buffer);
  return DeclBufferStmt(buffer, VisitStmt(op->body));
}

}  // namespace kiln::ir::relax::transform
