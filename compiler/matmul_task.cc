// The matcher: the root block's top-level nests, the one that is a matmul, its indices.
#include "compiler/matmul_task.h"

#include <map>
#include <set>

#include "compiler/task_steps.h"
#include "ir/functor.h"
#include "ir/structural.h"

namespace kiln::compiler {
namespace {

// Every block under `s` (the root excluded by the caller) and what each writes.
struct BlockCollector : ir::IRVisitor {
  using IRVisitor::VisitStmt_;
  void VisitStmt_(const ir::BlockNode* op) override {
    blocks.push_back(op);
    IRVisitor::VisitStmt_(op);
  }
  std::vector<const ir::BlockNode*> blocks;
};

bool Compact(const ir::Buffer& b) {
  return b->strides.empty() && (!b->elem_offset.defined() || ir::IsConstInt(b->elem_offset, 0));
}

const ir::VarNode* AsVar(const ir::Expr& e) { return e.as<ir::VarNode>(); }

class Matcher {
 public:
  explicit Matcher(const ir::PrimFunc& f) : f_(f) {}

  std::optional<MatmulTask> Run(std::string* why) {
    why_ = why;
    const auto* realize = f_->body.as<ir::BlockRealizeNode>();
    if (realize == nullptr || realize->block_node() == nullptr) return No("no root block");
    const ir::BlockNode* root = realize->block_node();
    std::vector<ir::Stmt> nests;
    if (const auto* seq = root->body.as<ir::SeqStmtNode>()) {
      nests = seq->seq;
    } else {
      nests = {root->body};
    }
    for (size_t p = 0; p < f_->params.size(); ++p) {
      if (std::optional<ir::Buffer> b = f_->BufferOf(f_->params[p])) param_of_[b->get()] = p;
    }
    std::set<const ir::BufferNode*> allocated;
    for (const ir::Buffer& b : root->alloc_buffers) allocated.insert(b.get());
    BlockCollector all;
    all.VisitStmt(root->body);
    std::optional<MatmulTask> found;
    for (size_t n = 0; n < nests.size() && !found; ++n) {
      found = MatchNest(nests[n]);
      if (found) found->nest_index = n;
    }
    if (!found) return No(reason_.empty() ? "no matmul block" : reason_);
    MatmulTask& m = *found;
    // Nothing else may write the operands or the product.
    for (const ir::BlockNode* b : all.blocks) {
      if (b->name == m.block) continue;
      for (const ir::BufferRegion& w : b->writes) {
        const ir::BufferNode* buf = w.buffer.get();
        auto p = param_of_.find(buf);
        bool operand = p != param_of_.end() && (static_cast<int>(p->second) == m.a_param ||
                                                static_cast<int>(p->second) == m.b_param);
        if (buf == m.product.get() || operand) {
          return No("block " + b->name + " writes an operand or the product of the matmul");
        }
      }
    }
    m.written_params = WrittenParams(f_);
    auto out = param_of_.find(m.product.get());
    if (out != param_of_.end()) {
      if (nests.size() != 1) return No("the matmul writes a parameter and other blocks follow");
      m.output_param = static_cast<int>(out->second);
    } else if (!allocated.count(m.product.get())) {
      return No("the matmul's product is neither a parameter nor the root's buffer");
    }
    return found;
  }

 private:
  std::nullopt_t No(const std::string& reason) {
    if (why_ != nullptr) *why_ = reason;
    return std::nullopt;
  }

  std::optional<MatmulTask> Fail(const std::string& reason) {
    if (reason_.empty()) reason_ = reason;
    return std::nullopt;
  }

  std::optional<MatmulTask> MatchNest(const ir::Stmt& nest) {
    // A perfect nest of serial loops from 0, each bound as is to the next iter var.
    std::vector<const ir::ForNode*> loops;
    ir::Stmt s = nest;
    while (const auto* loop = s.as<ir::ForNode>()) {
      loops.push_back(loop);
      s = loop->body;
    }
    const auto* realize = s.as<ir::BlockRealizeNode>();
    if (realize == nullptr) return std::nullopt;
    const ir::BlockNode* block = realize->block_node();
    if (!block->init.defined()) return std::nullopt;
    const std::string name = "block " + block->name;
    if (!block->alloc_buffers.empty()) return Fail(name + " allocates");
    if (!ir::IsConstInt(realize->predicate, 1)) return Fail(name + " has a predicate");
    if (loops.size() != block->iter_vars.size()) return Fail(name + ": loops and iter vars differ");
    for (size_t i = 0; i < loops.size(); ++i) {
      const ir::IterVar& iv = block->iter_vars[i];
      const auto* bound = AsVar(realize->iter_values[i]);
      if (loops[i]->for_kind != ir::ForKind::kSerial || !ir::IsConstInt(loops[i]->min, 0) ||
          bound != loops[i]->loop_var.get() || !ir::IsConstInt(iv.dom.min, 0) ||
          !ir::StructuralEqual(iv.dom.extent, loops[i]->extent)) {
        return Fail(name + ": its loops are not its iteration domain as written");
      }
    }
    // C[..] = C[..] + X[..] * Y[..], init C[..] = 0.
    const auto* store = block->body.as<ir::BufferStoreNode>();
    const auto* init = block->init.as<ir::BufferStoreNode>();
    if (store == nullptr || init == nullptr) return Fail(name + ": not a single store");
    const ir::DataType f32 = ir::DataType::Float(32);
    if (store->buffer->dtype != f32) return Fail(name + ": not float32");
    const auto* add = store->value.as<ir::AddNode>();
    if (add == nullptr) return Fail(name + ": not an accumulation");
    const auto* acc = add->a.as<ir::BufferLoadNode>();
    const auto* mul = add->b.as<ir::MulNode>();
    if (acc == nullptr || mul == nullptr) return Fail(name + ": not C + X * Y");
    const auto* x = mul->a.as<ir::BufferLoadNode>();
    const auto* y = mul->b.as<ir::BufferLoadNode>();
    if (x == nullptr || y == nullptr || x->buffer->dtype != f32 || y->buffer->dtype != f32) {
      return Fail(name + ": not a product of two float32 loads");
    }
    const auto* zero = init->value.as<ir::FloatImmNode>();
    if (!init->buffer.same_as(store->buffer) || zero == nullptr || zero->value != 0.0) {
      return Fail(name + ": its init is not C = 0");
    }
    if (!acc->buffer.same_as(store->buffer)) return Fail(name + ": accumulates another buffer");
    // C's indices: distinct spatial iter vars; one reduction var besides.
    std::map<const ir::VarNode*, const ir::IterVar*> iters;
    for (const ir::IterVar& iv : block->iter_vars) iters[iv.var.get()] = &iv;
    size_t rank = store->indices.size();
    if (rank < 2 || rank != block->iter_vars.size() - 1) return Fail(name + ": not rank >= 2");
    std::set<const ir::VarNode*> seen;
    for (size_t d = 0; d < rank; ++d) {
      const ir::VarNode* v = AsVar(store->indices[d]);
      if (v == nullptr || !iters.count(v) || iters[v]->kind != ir::IterKind::kSpatial ||
          !seen.insert(v).second || !ir::StructuralEqual(acc->indices[d], store->indices[d])) {
        return Fail(name + ": C is not indexed by its spatial iter vars");
      }
      if (!ir::StructuralEqual(iters[v]->dom.extent, store->buffer->shape[d])) {
        return Fail(name + ": C's dim " + std::to_string(d) + " is not its iteration extent");
      }
    }
    const ir::VarNode* k = nullptr;
    for (const ir::IterVar& iv : block->iter_vars) {
      if (!seen.count(iv.var.get())) k = iv.var.get();
    }
    if (k == nullptr || iters[k]->kind != ir::IterKind::kReduce) {
      return Fail(name + ": no reduction iter var");
    }
    const ir::VarNode* i = AsVar(store->indices[rank - 2]);
    const ir::VarNode* j = AsVar(store->indices[rank - 1]);
    if (!Compact(store->buffer) || !Compact(x->buffer) || !Compact(y->buffer)) {
      return Fail(name + ": a buffer is not compact");
    }
    // Which load is A (holds i) and which is B (holds j).
    auto holds = [](const ir::BufferLoadNode* l, const ir::VarNode* v) {
      return l->indices.size() >= 2 && (AsVar(l->indices[l->indices.size() - 1]) == v ||
                                        AsVar(l->indices[l->indices.size() - 2]) == v);
    };
    if (!holds(x, i)) std::swap(x, y);
    if (!holds(x, i) || !holds(y, j)) return Fail(name + ": operands not indexed by i and j");
    MatmulTask m;
    m.block = block->name;
    m.product = store->buffer;
    if (!Operand(*x, i, k, store->indices, &m.trans_a) ||
        !Operand(*y, k, j, store->indices, &m.trans_b)) {
      return Fail(name + ": operand indices are not a matmul's");
    }
    // The operands' M, K, N dims are the iteration's extents (no partial sums or slices).
    auto dim_is = [&](const ir::BufferLoadNode* l, size_t from_end, const ir::VarNode* v) {
      return ir::StructuralEqual(l->buffer->shape[l->buffer->shape.size() - from_end],
                                 iters[v]->dom.extent);
    };
    if (x->buffer->shape.size() != x->indices.size() ||
        y->buffer->shape.size() != y->indices.size() || !dim_is(x, m.trans_a ? 1 : 2, i) ||
        !dim_is(x, m.trans_a ? 2 : 1, k) || !dim_is(y, m.trans_b ? 1 : 2, k) ||
        !dim_is(y, m.trans_b ? 2 : 1, j)) {
      return Fail(name + ": the operands' dims are not the iteration's extents");
    }
    auto px = param_of_.find(x->buffer.get());
    auto py = param_of_.find(y->buffer.get());
    if (px == param_of_.end() || py == param_of_.end() || px->second == py->second) {
      return Fail(name + ": its operands are not two parameters");
    }
    m.a_param = static_cast<int>(px->second);
    m.b_param = static_cast<int>(py->second);
    // Product dims: M from A, N from B, batch dims from whichever operand has them.
    size_t ra = x->indices.size(), rb = y->indices.size();
    m.product_dims.resize(rank);
    m.product_dims[rank - 2] = {m.a_param, static_cast<int>(m.trans_a ? ra - 1 : ra - 2), 1};
    m.product_dims[rank - 1] = {m.b_param, static_cast<int>(m.trans_b ? rb - 2 : rb - 1), 1};
    for (size_t d = 0; d + 2 < rank; ++d) {
      const ir::VarNode* v = AsVar(store->indices[d]);
      ProductDim pd;
      for (const auto& [load, param] : {std::pair{x, m.a_param}, std::pair{y, m.b_param}}) {
        size_t own = load->indices.size() - 2;
        size_t from_right = rank - 2 - d;
        if (from_right > own) continue;
        size_t od = own - from_right;
        if (AsVar(load->indices[od]) == v && pd.param < 0) {
          pd = {param, static_cast<int>(od), 1};
        }
      }
      if (pd.param < 0) {
        std::optional<int64_t> c = ir::AsConstInt(store->buffer->shape[d]);
        if (!c) return Fail(name + ": a broadcast batch dim of unknown extent");
        pd.value = *c;
      }
      m.product_dims[d] = pd;
    }
    return m;
  }

  // `load` indexes [batch..., r, c] (or [batch..., c, r] when transposed) with batch indices
  // aligned to C's or 0 over an extent-1 dim; the dims agree with the iteration extents.
  static bool Operand(const ir::BufferLoadNode& load, const ir::VarNode* r, const ir::VarNode* c,
                      const std::vector<ir::Expr>& c_indices, bool* transposed) {
    size_t n = load.indices.size();
    size_t batch = c_indices.size() - 2;
    if (n < 2 || n - 2 > batch) return false;
    const ir::VarNode* last2 = AsVar(load.indices[n - 2]);
    const ir::VarNode* last1 = AsVar(load.indices[n - 1]);
    if (last2 == r && last1 == c) {
      *transposed = false;
    } else if (last2 == c && last1 == r) {
      *transposed = true;
    } else {
      return false;
    }
    for (size_t d = 0; d + 2 < n; ++d) {
      const ir::Expr& idx = load.indices[d];
      const ir::Expr& want = c_indices[batch - (n - 2) + d];
      if (AsVar(idx) != nullptr && AsVar(idx) == AsVar(want)) continue;
      if (ir::IsConstInt(idx, 0) && ir::IsConstInt(load.buffer->shape[d], 1)) continue;
      return false;
    }
    return true;
  }

  const ir::PrimFunc& f_;
  std::string* why_ = nullptr;
  std::string reason_;
  std::map<const ir::BufferNode*, size_t> param_of_;
};

}  // namespace

std::optional<MatmulTask> MatchMatmulTask(const ir::PrimFunc& func, std::string* why) {
  return Matcher(func).Run(why);
}

}  // namespace kiln::compiler
