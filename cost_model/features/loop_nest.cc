// Loop nests and access footprints for the per-store features.
#include "cost_model/features/loop_nest.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/typed_functor.h"

namespace kiln::cost_model {

using namespace ir;

void LoopNest::Push(const ForNode* loop) {
  Loop l;
  l.node = loop;
  l.min = AsConstInt(loop->min).value_or(0);
  l.extent = std::max<int64_t>(1, AsConstInt(loop->extent).value_or(data_dependent_extent_));
  index_[loop->loop_var.get()] = static_cast<int>(loops_.size());
  loops_.push_back(l);
}

void LoopNest::Pop() {
  index_.erase(loops_.back().node->loop_var.get());
  loops_.pop_back();
}

int LoopNest::IndexOf(const VarNode* var) const {
  auto it = index_.find(var);
  return it == index_.end() ? -1 : it->second;
}

double LoopNest::ExtentProduct(size_t first) const {
  double p = 1;
  for (size_t i = first; i < loops_.size(); ++i) p *= static_cast<double>(loops_[i].extent);
  return p;
}

namespace {

// Interval bounds stay far from overflow: footprints are clamped to buffer sizes anyway.
constexpr int64_t kBig = int64_t{1} << 40;

int64_t Clamp(__int128 v) {
  if (v > kBig) return kBig;
  if (v < -kBig) return -kBig;
  return static_cast<int64_t>(v);
}

Interval Unbounded() { return Interval{0, 0, false}; }
Interval Point(int64_t v) { return Interval{v, v, true}; }

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

class IntervalEval : public ExprFunctor<Interval(const Expr&)> {
 public:
  IntervalEval(const LoopNest& nest, const std::vector<int64_t>& span) : nest_(nest), span_(span) {}

  Interval VisitExpr_(const VarNode* op) override {
    int i = nest_.IndexOf(op);
    if (i < 0) return Point(0);
    const Loop& loop = nest_[i];
    return Interval{loop.min, loop.min + span_[i] - 1, true};
  }
  Interval VisitExpr_(const IntImmNode* op) override { return Point(op->value); }
  Interval VisitExpr_(const FloatImmNode*) override { return Unbounded(); }
  Interval VisitExpr_(const StringImmNode*) override { return Unbounded(); }
  Interval VisitExpr_(const AddNode* op) override {
    return Combine(op->a, op->b, [](__int128 x, __int128 y) { return x + y; });
  }
  Interval VisitExpr_(const SubNode* op) override {
    Interval a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!a.bounded || !b.bounded) return Unbounded();
    return Interval{Clamp(__int128{a.lo} - b.hi), Clamp(__int128{a.hi} - b.lo), true};
  }
  Interval VisitExpr_(const MulNode* op) override {
    Interval a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!a.bounded || !b.bounded) return Unbounded();
    __int128 c[4] = {__int128{a.lo} * b.lo, __int128{a.lo} * b.hi, __int128{a.hi} * b.lo,
                     __int128{a.hi} * b.hi};
    return Interval{Clamp(*std::min_element(c, c + 4)), Clamp(*std::max_element(c, c + 4)), true};
  }
  Interval VisitExpr_(const DivNode* op) override { return Divide(op->a, op->b); }
  Interval VisitExpr_(const FloorDivNode* op) override { return Divide(op->a, op->b); }
  Interval VisitExpr_(const ModNode* op) override { return Modulo(op->a, op->b); }
  Interval VisitExpr_(const FloorModNode* op) override { return Modulo(op->a, op->b); }
  Interval VisitExpr_(const MinNode* op) override {
    Interval a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!a.bounded) return b;
    if (!b.bounded) return a;
    return Interval{std::min(a.lo, b.lo), std::min(a.hi, b.hi), true};
  }
  Interval VisitExpr_(const MaxNode* op) override {
    Interval a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!a.bounded || !b.bounded) return Unbounded();
    return Interval{std::max(a.lo, b.lo), std::max(a.hi, b.hi), true};
  }
  Interval VisitExpr_(const EQNode*) override { return Bool(); }
  Interval VisitExpr_(const NENode*) override { return Bool(); }
  Interval VisitExpr_(const LTNode*) override { return Bool(); }
  Interval VisitExpr_(const LENode*) override { return Bool(); }
  Interval VisitExpr_(const GTNode*) override { return Bool(); }
  Interval VisitExpr_(const GENode*) override { return Bool(); }
  Interval VisitExpr_(const AndNode*) override { return Bool(); }
  Interval VisitExpr_(const OrNode*) override { return Bool(); }
  Interval VisitExpr_(const NotNode*) override { return Bool(); }
  Interval VisitExpr_(const SelectNode* op) override {
    Interval a = VisitExpr(op->true_value), b = VisitExpr(op->false_value);
    if (!a.bounded || !b.bounded) return Unbounded();
    return Interval{std::min(a.lo, b.lo), std::max(a.hi, b.hi), true};
  }
  Interval VisitExpr_(const CastNode* op) override {
    return op->dtype.is_integral() ? VisitExpr(op->value) : Unbounded();
  }
  Interval VisitExpr_(const CallNode*) override { return Unbounded(); }
  Interval VisitExpr_(const BufferLoadNode*) override { return Unbounded(); }
  // Vector indices cover their lanes: base + stride * [0, lanes).
  Interval VisitExpr_(const RampNode* op) override {
    Interval base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    if (!base.bounded || !stride.bounded) return Unbounded();
    __int128 last_lo = __int128{stride.lo} * (op->lanes - 1);
    __int128 last_hi = __int128{stride.hi} * (op->lanes - 1);
    return Interval{Clamp(base.lo + std::min<__int128>(0, std::min(last_lo, last_hi))),
                    Clamp(base.hi + std::max<__int128>(0, std::max(last_lo, last_hi))), true};
  }
  Interval VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }
  Interval VisitExpr_(const LetNode* op) override { return VisitExpr(op->body); }

 private:
  static Interval Bool() { return Interval{0, 1, true}; }

  template <typename F>
  Interval Combine(const Expr& x, const Expr& y, F f) {
    Interval a = VisitExpr(x), b = VisitExpr(y);
    if (!a.bounded || !b.bounded) return Unbounded();
    return Interval{Clamp(f(a.lo, b.lo)), Clamp(f(a.hi, b.hi)), true};
  }
  Interval Divide(const Expr& x, const Expr& y) {
    Interval a = VisitExpr(x);
    std::optional<int64_t> d = AsConstInt(y);
    if (!a.bounded || !d || *d <= 0) return Unbounded();
    return Interval{FloorDivInt(a.lo, *d), FloorDivInt(a.hi, *d), true};
  }
  Interval Modulo(const Expr& x, const Expr& y) {
    Interval a = VisitExpr(x);
    std::optional<int64_t> d = AsConstInt(y);
    if (!d || *d <= 0) return Unbounded();
    if (a.bounded && a.lo >= 0 && FloorDivInt(a.lo, *d) == FloorDivInt(a.hi, *d)) {
      return Interval{a.lo % *d, a.hi % *d, true};
    }
    return Interval{0, *d - 1, true};
  }

  const LoopNest& nest_;
  const std::vector<int64_t>& span_;
};

// Constant extent of dimension `d`, or nullopt.
std::optional<int64_t> DimSize(const Buffer& buffer, size_t d) {
  return AsConstInt(buffer->shape[d]);
}

}  // namespace

Interval EvalInterval(const Expr& e, const LoopNest& nest, const std::vector<int64_t>& span) {
  return IntervalEval(nest, span).VisitExpr(e);
}

double TouchedElements(const std::vector<const std::vector<Expr>*>& accesses, const Buffer& buffer,
                       const LoopNest& nest, size_t first) {
  std::vector<int64_t> span(nest.size(), 1);
  for (size_t i = first; i < nest.size(); ++i) span[i] = nest[i].extent;
  double total = 1;
  for (size_t d = 0; d < buffer.ndim(); ++d) {
    std::optional<int64_t> size = DimSize(buffer, d);
    bool bounded = true;
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (const std::vector<Expr>* indices : accesses) {
      if (d >= indices->size()) continue;
      Interval iv = EvalInterval((*indices)[d], nest, span);
      if (!iv.bounded) {
        bounded = false;
        break;
      }
      lo = std::min(lo, iv.lo);
      hi = std::max(hi, iv.hi);
    }
    double width = bounded && hi >= lo ? static_cast<double>(hi - lo + 1) : 1.0;
    if (!bounded && size) width = static_cast<double>(*size);
    if (size) width = std::min(width, static_cast<double>(std::max<int64_t>(*size, 1)));
    total *= width;
  }
  return total;
}

int64_t AccessStride(const std::vector<Expr>& indices, const Buffer& buffer, const LoopNest& nest,
                     size_t loop) {
  std::vector<int64_t> span(nest.size(), 1);
  span[loop] = std::min<int64_t>(2, nest[loop].extent);
  if (span[loop] < 2) return 0;
  // Row-major strides of the buffer (explicit strides when constant).
  size_t n = std::min(indices.size(), buffer.ndim());
  std::vector<int64_t> strides(n, 1);
  for (size_t d = n; d-- > 0;) {
    if (d + 1 < n)
      strides[d] = strides[d + 1] * std::max<int64_t>(1, DimSize(buffer, d + 1).value_or(1));
    if (buffer->strides.size() == buffer.ndim()) {
      if (std::optional<int64_t> s = AsConstInt(buffer->strides[d])) strides[d] = *s;
    }
  }
  int64_t stride = 0;
  for (size_t d = 0; d < n; ++d) {
    Interval iv = EvalInterval(indices[d], nest, span);
    if (!iv.bounded) return 1;  // unknown movement: count it as touching the next element
    stride += (iv.hi - iv.lo) * strides[d];
  }
  return stride;
}

}  // namespace kiln::cost_model
