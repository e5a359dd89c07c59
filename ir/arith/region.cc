// DetectBlockAccessRegions: walks a block's init and body, relaxing the loops (and inner
// blocks' iteration variables) inside it, and merges each buffer's accesses into a hull.
#include "ir/arith/region.h"

#include <unordered_set>

#include "ir/arith/const_fold.h"
#include "ir/arith/int_set.h"
#include "ir/functor.h"

namespace kiln::ir::arith {
namespace {

struct Access {
  Buffer buffer;
  std::vector<IntervalSet> region;
};

class RegionCollector : public IRVisitor {
 public:
  explicit RegionCollector(const BlockNode& block) {
    for (const IterVar& iv : block.iter_vars) analyzer_.Bind(iv.var, iv.dom);
    for (const Buffer& b : block.alloc_buffers) excluded_.insert(b.get());
  }

  void Run(const BlockNode& block) {
    if (block.init.defined()) VisitStmt(block.init);
    VisitStmt(block.body);
  }

  BlockAccessRegions Result() { return {ToRegions(reads_), ToRegions(writes_)}; }

  void VisitExpr_(const BufferLoadNode* op) override {
    IRVisitor::VisitExpr_(op);
    Record(&reads_, op->buffer, op->indices);
  }

  void VisitStmt_(const BufferStoreNode* op) override {
    VisitExpr(op->value);
    for (const Expr& i : op->indices) VisitExpr(i);
    Record(&writes_, op->buffer, op->indices);
  }

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    DataType t = op->min.dtype();
    IntervalSet lo = EvalSet(op->min, dom_, analyzer_);
    IntervalSet hi = EvalSet(Sub(Add(op->min, op->extent), MakeIntConst(t, 1)), dom_, analyzer_);
    analyzer_.Bind(op->loop_var, Range{op->min, op->extent});
    dom_[op->loop_var.get()] = {lo.min, hi.max};
    VisitStmt(op->body);
    dom_.erase(op->loop_var.get());
  }

  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    dom_[op->var.get()] = EvalSet(op->value, dom_, analyzer_);
    VisitStmt(op->body);
    dom_.erase(op->var.get());
  }

  void VisitStmt_(const AllocateNode* op) override {
    excluded_.insert(op->buffer.get());
    VisitStmt(op->body);
  }

  void VisitStmt_(const BlockRealizeNode* op) override {
    for (const Expr& v : op->iter_values) VisitExpr(v);
    VisitExpr(op->predicate);
    const BlockNode* inner = op->block_node();
    std::vector<const VarNode*> bound;
    for (size_t i = 0; i < inner->iter_vars.size() && i < op->iter_values.size(); ++i) {
      const IterVar& iv = inner->iter_vars[i];
      dom_[iv.var.get()] = EvalSet(op->iter_values[i], dom_, analyzer_);
      analyzer_.Bind(iv.var, iv.dom);
      bound.push_back(iv.var.get());
    }
    for (const Buffer& b : inner->alloc_buffers) excluded_.insert(b.get());
    if (inner->init.defined()) VisitStmt(inner->init);
    VisitStmt(inner->body);
    for (const VarNode* v : bound) dom_.erase(v);
  }

 private:
  void Record(std::vector<Access>* accesses, const Buffer& buffer,
              const std::vector<Expr>& indices) {
    if (excluded_.count(buffer.get())) return;
    std::vector<IntervalSet> region;
    for (size_t d = 0; d < indices.size(); ++d) {
      IntervalSet s = EvalSet(indices[d], dom_, analyzer_);
      if (!s.min.defined() || !s.max.defined()) {
        // Not analyzable (a data-dependent index): the whole dimension.
        const Expr& extent = buffer->shape[d];
        s = {MakeIntConst(extent.dtype(), 0),
             analyzer_.Simplify(Sub(extent, MakeIntConst(extent.dtype(), 1)))};
      }
      region.push_back(s);
    }
    for (Access& a : *accesses) {
      if (!a.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < region.size(); ++d) {
        a.region[d] = Union(a.region[d], region[d], analyzer_);
      }
      return;
    }
    accesses->push_back({buffer, std::move(region)});
  }

  std::vector<BufferRegion> ToRegions(const std::vector<Access>& accesses) {
    std::vector<BufferRegion> out;
    for (const Access& a : accesses) {
      BufferRegion br{a.buffer, {}};
      for (const IntervalSet& s : a.region) {
        if (s.is_single_point()) {
          br.region.push_back(Range{s.min, MakeIntConst(s.min.dtype(), 1)});
        } else {
          Expr extent = analyzer_.Simplify(Add(Sub(s.max, s.min), MakeIntConst(s.min.dtype(), 1)));
          br.region.push_back(Range{s.min, extent});
        }
      }
      out.push_back(std::move(br));
    }
    return out;
  }

  Analyzer analyzer_;
  VarIntervals dom_;
  std::unordered_set<const BufferNode*> excluded_;
  std::vector<Access> reads_, writes_;
};

}  // namespace

BlockAccessRegions DetectBlockAccessRegions(const BlockNode& block) {
  RegionCollector collector(block);
  collector.Run(block);
  return collector.Result();
}

}  // namespace kiln::ir::arith
