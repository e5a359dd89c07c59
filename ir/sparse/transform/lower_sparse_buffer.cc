// LowerSparseBuffer (see lower_sparse_buffer.h): one flat buffer per sparse buffer, and a
// mutator that rewrites accesses to it and recomputes block regions.
#include "ir/sparse/transform/lower_sparse_buffer.h"

#include <unordered_map>

#include "ir/functor.h"
#include "ir/sparse/transform/block_regions.h"

namespace kiln::ir::sparse {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(ErrorKind::kInvalidIR, "LowerSparseBuffer: " + message);
}

// The layout of one sparse buffer: where each dimension's chain starts, and each chain's
// size in positions.
struct Flattened {
  const SparseBuffer* sparse = nullptr;
  Buffer flat;
  std::vector<size_t> chain_start;  // first dimension of each chain
  std::vector<Expr> chain_size;     // positions of the chain's last axis
};

Flattened Flatten(const SparseBuffer& sb) {
  Flattened out;
  out.sparse = &sb;
  const std::string& name = sb.buffer->name;
  for (size_t d = 0; d < sb.axes.size(); ++d) {
    const Axis& axis = sb.axes[d];
    Axis parent = axis.parent();
    bool continues = parent.defined() && d > 0 && sb.axes[d - 1].same_as(parent);
    if (parent.defined() && !continues) {
      Fail("sparse buffer '" + name + "' dimension " + std::to_string(d) + " is axis '" +
           axis->name + "', whose parent axis '" + parent->name + "' is not the axis of " +
           (d == 0 ? std::string("an earlier dimension") : "dimension " + std::to_string(d - 1)));
    }
    if (!continues) {
      out.chain_start.push_back(d);
      out.chain_size.push_back(NumPositions(axis));
    } else {
      out.chain_size.back() = NumPositions(axis);
    }
  }
  Expr total = out.chain_size.empty() ? Expr(IntImm(DataType::Int(32), 1)) : out.chain_size[0];
  for (size_t c = 1; c < out.chain_size.size(); ++c) total = total * out.chain_size[c];
  auto node = std::make_shared<BufferNode>(*sb.buffer.get());
  node->shape = {total};
  out.flat = Buffer(std::move(node));
  return out;
}

class BufferLowerer : public IRMutator {
 public:
  explicit BufferLowerer(const std::unordered_map<const BufferNode*, Flattened>& flat)
      : flat_(flat) {}

  Expr VisitExpr_(const BufferLoadNode* op) override {
    auto it = flat_.find(op->buffer.get());
    if (it == flat_.end()) return IRMutator::VisitExpr_(op);
    return BufferLoad(it->second.flat, {Offset(it->second, Visit(op->indices))});
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    auto it = flat_.find(op->buffer.get());
    if (it == flat_.end()) return IRMutator::VisitStmt_(op);
    return BufferStore(it->second.flat, VisitExpr(op->value),
                       {Offset(it->second, Visit(op->indices))});
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    auto block = std::make_shared<BlockNode>(*s.as<BlockNode>());
    if (block->name == "root" && block->iter_vars.empty()) return s;
    SetBlockRegions(block.get());
    return Block(std::move(block));
  }

  Stmt VisitStmt_(const SparseIterationNode* op) override {
    Fail("sparse iteration '" + op->name + "' is still in the function; run LowerSparseIter first");
  }

 private:
  std::vector<Expr> Visit(const std::vector<Expr>& v) {
    std::vector<Expr> out;
    for (const Expr& e : v) out.push_back(VisitExpr(e));
    return out;
  }

  static Expr Offset(const Flattened& fl, const std::vector<Expr>& pos) {
    const SparseBuffer& sb = *fl.sparse;
    if (pos.size() != sb.axes.size()) {
      Fail("sparse buffer '" + sb.buffer->name + "' has " + std::to_string(sb.axes.size()) +
           " axes, accessed with " + std::to_string(pos.size()) + " indices");
    }
    Expr offset;
    for (size_t c = 0; c < fl.chain_start.size(); ++c) {
      size_t end = c + 1 < fl.chain_start.size() ? fl.chain_start[c + 1] : pos.size();
      Expr abs = pos[fl.chain_start[c]];
      for (size_t d = fl.chain_start[c] + 1; d < end; ++d) {
        const Axis& axis = sb.axes[d];
        abs = axis->kind == AxisKind::kSparseFixed ? abs * axis->nnz + pos[d]
                                                   : BufferLoad(axis->indptr, {abs}) + pos[d];
      }
      offset = offset.defined() ? offset * fl.chain_size[c] + abs : abs;
    }
    return offset.defined() ? offset : Expr(IntImm(DataType::Int(32), 0));
  }

  const std::unordered_map<const BufferNode*, Flattened>& flat_;
};

}  // namespace

PrimFunc LowerSparseBuffer(const PrimFunc& f) {
  std::unordered_map<const BufferNode*, Flattened> flat;
  for (const SparseBuffer& sb : f->sp_buffers) flat[sb.buffer.get()] = Flatten(sb);
  auto node = std::make_shared<PrimFuncNode>(*f.get());
  for (auto& [param, buffer] : node->buffer_map) {
    auto it = flat.find(buffer.get());
    if (it != flat.end()) buffer = it->second.flat;
  }
  BufferLowerer lowerer(flat);
  Stmt body = f->body.defined() ? lowerer.VisitStmt(f->body) : f->body;
  std::vector<Buffer> allocated;
  for (const SparseBuffer& sb : f->sp_buffers) {
    if (!sb.param.defined()) allocated.push_back(flat[sb.buffer.get()].flat);
  }
  if (!allocated.empty()) {
    const auto* realize = body.defined() ? body.as<BlockRealizeNode>() : nullptr;
    bool has_root = realize && realize->block_node()->name == "root";
    auto root = has_root ? std::make_shared<BlockNode>(*realize->block_node())
                         : std::make_shared<BlockNode>();
    if (!has_root) {
      root->name = "root";
      root->body = body;
    }
    root->alloc_buffers.insert(root->alloc_buffers.end(), allocated.begin(), allocated.end());
    body = BlockRealize({}, BoolImm(true), Block(std::move(root)));
  }
  node->body = body;
  node->sp_axes.clear();
  node->sp_buffers.clear();
  node->attrs["sparse_tir_level"] = IntImm(DataType::Int(32), 0);
  return PrimFunc(std::move(node));
}

}  // namespace kiln::ir::sparse
