// Buffer compaction: relax every access over the loops inside the allocation, shrink.
#include "codegen/passes/compact_buffers.h"

#include <unordered_set>

#include "codegen/passes/ir_utils.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/int_set.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// The union, per dimension, of the indices one buffer is accessed at inside a statement,
// with the loops of that statement relaxed.
class RegionCollector : public IRVisitor {
 public:
  RegionCollector(const BufferNode* buffer, arith::Analyzer& analyzer)
      : buffer_(buffer), analyzer_(analyzer) {}

  // False when some access could not be bounded (or has the wrong number of indices).
  bool ok = true;
  std::vector<arith::IntervalSet> region;
  // Variables defined inside the statement: a region bound must not use them.
  std::unordered_set<const VarNode*> inner_vars;

  // Relaxes `loop`, which encloses the statement, as if it were inside it: the threads of a
  // block share a "shared" buffer, so its region is the union over all of them.
  void RelaxOuter(const ForNode* loop) {
    inner_vars.insert(loop->loop_var.get());
    arith::IntervalSet range = Relax(loop->min);
    arith::IntervalSet end = Relax(loop->min + loop->extent - 1);
    dom_[loop->loop_var.get()] = arith::IntervalSet{range.min, end.max};
  }

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    inner_vars.insert(op->loop_var.get());
    arith::IntervalSet range = Relax(op->min);
    arith::IntervalSet end = Relax(op->min + op->extent - 1);
    dom_[op->loop_var.get()] = arith::IntervalSet{range.min, end.max};
    VisitStmt(op->body);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    inner_vars.insert(op->var.get());
    IRVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const LetNode* op) override {
    inner_vars.insert(op->var.get());
    IRVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.get() == buffer_) Access(op->indices);
    IRVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->buffer.get() == buffer_) Access(op->indices);
    IRVisitor::VisitStmt_(op);
  }

 private:
  arith::IntervalSet Relax(const Expr& e) { return arith::EvalSet(e, dom_, analyzer_); }

  void Access(const std::vector<Expr>& indices) {
    if (!ok) return;
    if (indices.size() != buffer_->shape.size()) {
      ok = false;
      return;
    }
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!indices[d].dtype().is_scalar()) {
        ok = false;
        return;
      }
      arith::IntervalSet s = Relax(indices[d]);
      if (region.size() <= d) {
        region.push_back(s);
      } else {
        region[d] = arith::Union(region[d], s, analyzer_);
      }
    }
  }

  const BufferNode* buffer_;
  arith::Analyzer& analyzer_;
  arith::VarIntervals dom_;
};

class Compactor : public IRMutator {
 public:
  Stmt VisitStmt_(const ForNode* op) override {
    try {
      analyzer_.Bind(op->loop_var, Range{op->min, op->extent});
    } catch (const Error&) {
      // Already bound (a loop var reused): the region bounds are only less tight.
    }
    bool thread =
        op->for_kind == ForKind::kThreadBinding && op->thread_tag.rfind("threadIdx", 0) == 0;
    if (thread) thread_loops_.push_back(op);
    Stmt s = IRMutator::VisitStmt_(op);
    if (thread) thread_loops_.pop_back();
    return s;
  }

  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt body = VisitStmt(op->body);
    const Buffer& buffer = op->buffer;
    RegionCollector collector(buffer.get(), analyzer_);
    if (buffer->scope.rfind("shared", 0) == 0) {
      for (const ForNode* loop : thread_loops_) collector.RelaxOuter(loop);
    }
    collector.VisitStmt(body);
    if (!collector.ok || collector.region.size() != buffer->shape.size()) {
      return Rebuild(op, buffer, body);
    }
    std::vector<Expr> shape = buffer->shape, offsets(shape.size());
    bool shrunk = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      const arith::IntervalSet& s = collector.region[d];
      if (!s.min.defined() || !s.max.defined()) continue;
      bool inner = false;
      for (const Expr& bound : {s.min, s.max}) {
        ForEachVar(bound, [&](const Var& v) { inner |= collector.inner_vars.count(v.get()) > 0; });
      }
      if (inner) continue;
      Expr min = analyzer_.Simplify(s.min);
      Expr extent = analyzer_.Simplify(s.max - s.min + 1);
      int64_t size = analyzer_.GetConstIntBound(extent).max_value;
      if (size == arith::ConstIntBound::kPosInf || size < 1) continue;
      // A symbolic dimension becomes constant even when the constant may exceed it at run
      // time: the accesses stay inside the region, and a constant size can live on the stack.
      auto old_size = AsConstInt(shape[d]);
      if (old_size && size >= *old_size) continue;
      shape[d] = IntImm(shape[d].dtype(), size);
      if (!IsConstInt(min, 0)) offsets[d] = CastTo(shape[d].dtype(), min);
      shrunk = true;
    }
    if (!shrunk) return Rebuild(op, buffer, body);
    auto node = std::make_shared<BufferNode>(*buffer.get());
    node->shape = shape;
    Buffer compact(std::move(node));
    return Allocate(compact, Shift(body, buffer.get(), compact, offsets));
  }

 private:
  static Stmt Rebuild(const AllocateNode* op, const Buffer& buffer, const Stmt& body) {
    return body.same_as(op->body) ? GetRef<Stmt>(op) : Allocate(buffer, body);
  }

  // Redirects accesses of `from` to `to`, subtracting `offsets` (undefined: no shift).
  static Stmt Shift(const Stmt& s, const BufferNode* from, const Buffer& to,
                    const std::vector<Expr>& offsets) {
    class Shifter : public IRMutator {
     public:
      Shifter(const BufferNode* from, const Buffer& to, const std::vector<Expr>& offsets)
          : from_(from), to_(to), offsets_(offsets) {}
      Expr VisitExpr_(const BufferLoadNode* op) override {
        Expr e = IRMutator::VisitExpr_(op);
        const auto* load = e.as<BufferLoadNode>();
        if (load->buffer.get() != from_) return e;
        return BufferLoad(to_, Indices(load->indices));
      }
      Stmt VisitStmt_(const BufferStoreNode* op) override {
        Stmt s = IRMutator::VisitStmt_(op);
        const auto* store = s.as<BufferStoreNode>();
        if (store->buffer.get() != from_) return s;
        return BufferStore(to_, store->value, Indices(store->indices));
      }

     private:
      std::vector<Expr> Indices(std::vector<Expr> indices) const {
        for (size_t d = 0; d < indices.size(); ++d) {
          if (offsets_[d].defined()) {
            indices[d] = indices[d] - CastTo(indices[d].dtype(), offsets_[d]);
          }
        }
        return indices;
      }
      const BufferNode* from_;
      const Buffer& to_;
      const std::vector<Expr>& offsets_;
    };
    return Shifter(from, to, offsets).VisitStmt(s);
  }

  arith::Analyzer analyzer_;
  // The threadIdx loops around the statement being visited (none on a CPU).
  std::vector<const ForNode*> thread_loops_;
};

}  // namespace

PrimFunc CompactBuffers(const PrimFunc& f) { return f.WithBody(Compactor().VisitStmt(f->body)); }

}  // namespace kiln::codegen
