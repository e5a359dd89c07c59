// Buffer flattening: one flat buffer per original buffer, indices linearized.
#include "codegen/passes/flatten_buffers.h"

#include <unordered_map>

#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

bool AnyInt64(const std::vector<Expr>& exprs) {
  for (const Expr& e : exprs) {
    if (e.defined() && e.dtype().bits() == 64) return true;
  }
  return false;
}

class Flattener : public IRMutator {
 public:
  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    return BufferLoad(FlatBuffer(load->buffer), {FlatIndex(load->buffer, load->indices)});
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    return BufferStore(FlatBuffer(store->buffer), store->value,
                       {FlatIndex(store->buffer, store->indices)});
  }

  Stmt VisitStmt_(const AllocateNode* op) override {
    return Allocate(FlatBuffer(op->buffer), VisitStmt(op->body));
  }

  Stmt VisitStmt_(const DeclBufferNode* op) override {
    return DeclBufferStmt(FlatBuffer(op->buffer), VisitStmt(op->body));
  }

 private:
  // The flat view of `buffer`, made once per buffer so that identity is preserved.
  Buffer FlatBuffer(const Buffer& buffer) {
    auto it = flat_.find(buffer.get());
    if (it != flat_.end()) return it->second;
    auto node = std::make_shared<BufferNode>(*buffer.get());
    DataType index_type = AnyInt64(buffer->shape) ? DataType::Int(64) : DataType::Int(32);
    Expr count = IntImm(index_type, 1);
    for (const Expr& extent : buffer->shape) count = FoldMul(count, CastTo(index_type, extent));
    if (!buffer->strides.empty() && buffer->strides.size() == buffer->shape.size()) {
      // Explicit strides (storage_align pads rows) span 1 + sum (extent - 1) * stride.
      count = IntImm(index_type, 1);
      for (size_t k = 0; k < buffer->shape.size(); ++k) {
        Expr last = FoldAdd(CastTo(index_type, buffer->shape[k]), IntImm(index_type, -1));
        count = FoldAdd(count, FoldMul(last, CastTo(index_type, buffer->strides[k])));
      }
    }
    node->shape = {count};
    node->strides.clear();
    node->elem_offset = IntImm(DataType::Int(32), 0);
    Buffer flat(std::move(node));
    flat_.emplace(buffer.get(), flat);
    return flat;
  }

  Expr FlatIndex(const Buffer& buffer, const std::vector<Expr>& indices) {
    std::vector<Expr> all = indices;
    all.insert(all.end(), buffer->shape.begin(), buffer->shape.end());
    all.insert(all.end(), buffer->strides.begin(), buffer->strides.end());
    all.push_back(buffer->elem_offset);
    DataType index_type = AnyInt64(all) ? DataType::Int(64) : DataType::Int(32);
    int lanes = 1;
    for (const Expr& index : indices) lanes = std::max(lanes, index.dtype().lanes());
    KILN_CHECK(lanes == 1, ErrorKind::kUnsupported,
               "FlattenBuffers: vector index into " + buffer->name + " before flattening");
    Expr flat;
    if (buffer->strides.empty()) {
      // Horner form: ((i0 * n1 + i1) * n2 + i2) ...
      for (size_t k = 0; k < indices.size(); ++k) {
        Expr index = CastTo(index_type, indices[k]);
        flat = k == 0 ? index : FoldAdd(FoldMul(flat, CastTo(index_type, buffer->shape[k])), index);
      }
    } else {
      KILN_CHECK(buffer->strides.size() == indices.size(), ErrorKind::kInvalidIR,
                 "FlattenBuffers: buffer " + buffer->name + " has " +
                     std::to_string(buffer->strides.size()) + " strides for " +
                     std::to_string(indices.size()) + " dimensions");
      for (size_t k = 0; k < indices.size(); ++k) {
        Expr term = FoldMul(CastTo(index_type, indices[k]), CastTo(index_type, buffer->strides[k]));
        flat = flat.defined() ? FoldAdd(flat, term) : term;
      }
    }
    if (!flat.defined()) flat = IntImm(index_type, 0);
    if (buffer->elem_offset.defined()) {
      flat = FoldAdd(CastTo(index_type, buffer->elem_offset), flat);
    }
    return flat;
  }

  std::unordered_map<const BufferNode*, Buffer> flat_;
};

}  // namespace

PrimFunc FlattenBuffers(const PrimFunc& f) { return f.WithBody(Flattener().VisitStmt(f->body)); }

}  // namespace kiln::codegen
