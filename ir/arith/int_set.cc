// EvalSet: interval evaluation by monotonicity, endpoints kept symbolic.
#include "ir/arith/int_set.h"

#include "ir/arith/const_fold.h"
#include "ir/arith/expr_compare.h"
#include "ir/stmt.h"

namespace kiln::ir::arith {
namespace {

IntervalSet Unbounded() { return {}; }

bool Bounded(const IntervalSet& s) { return s.min.defined() && s.max.defined(); }

class SetEvaluator {
 public:
  SetEvaluator(const VarIntervals& dom, Analyzer& analyzer) : dom_(dom), analyzer_(analyzer) {}

  IntervalSet Eval(const Expr& e) {
    // A vector's set is over its lanes, so a vector is expanded even where nothing is relaxed.
    if (e.dtype().is_scalar() && !DependsOnDom(e)) return IntervalSet::SinglePoint(e);
    switch (e.kind()) {
      case NodeKind::kVar: {
        if (auto it = local_.find(e.get()); it != local_.end()) return it->second;
        auto it = dom_.find(static_cast<const VarNode*>(e.get()));
        return it == dom_.end() ? IntervalSet::SinglePoint(e) : it->second;
      }
      case NodeKind::kAdd: {
        const auto* op = e.as<AddNode>();
        IntervalSet a = Eval(op->a), b = Eval(op->b);
        return {Both(a.min, b.min, Add), Both(a.max, b.max, Add)};
      }
      case NodeKind::kSub: {
        const auto* op = e.as<SubNode>();
        IntervalSet a = Eval(op->a), b = Eval(op->b);
        return {Both(a.min, b.max, Sub), Both(a.max, b.min, Sub)};
      }
      case NodeKind::kMul: {
        const auto* op = e.as<MulNode>();
        IntervalSet a = Eval(op->a), b = Eval(op->b);
        if (a.is_single_point()) std::swap(a, b);
        if (!b.is_single_point()) return Unbounded();
        return Scale(a, b.min, Mul);
      }
      case NodeKind::kDiv:
      case NodeKind::kFloorDiv: {
        Expr x, y;
        GetBinaryOperands(e, &x, &y);
        IntervalSet a = Eval(x), b = Eval(y);
        if (!b.is_single_point()) return Unbounded();
        // Truncating division is monotone too, so the same endpoints serve both.
        auto make = e.kind() == NodeKind::kDiv ? Div : FloorDiv;
        return Scale(a, b.min, make);
      }
      case NodeKind::kFloorMod:
      case NodeKind::kMod:
        return EvalMod(e);
      case NodeKind::kMin:
      case NodeKind::kMax: {
        Expr x, y;
        GetBinaryOperands(e, &x, &y);
        IntervalSet a = Eval(x), b = Eval(y);
        auto make = e.kind() == NodeKind::kMin ? Min : Max;
        if (e.kind() == NodeKind::kMin) {
          return {Both(a.min, b.min, make), Either(a.max, b.max, make)};
        }
        return {Either(a.min, b.min, make), Both(a.max, b.max, make)};
      }
      case NodeKind::kSelect: {
        const auto* op = e.as<SelectNode>();
        IntervalSet a = Eval(op->true_value), b = Eval(op->false_value);
        return {Both(a.min, b.min, Min), Both(a.max, b.max, Max)};
      }
      case NodeKind::kCast: {
        const auto* op = e.as<CastNode>();
        DataType from = op->value.dtype().element_of(), to = op->dtype.element_of();
        if (from.is_int() && to.is_int() && to.bits() >= from.bits()) {
          IntervalSet v = Eval(op->value);
          auto cast = [&](const Expr& x) { return x.defined() ? Cast(to, x) : x; };
          return {cast(v.min), cast(v.max)};
        }
        return Unbounded();
      }
      case NodeKind::kRamp: {
        const auto* op = e.as<RampNode>();
        IntervalSet base = Eval(op->base), stride = Eval(op->stride);
        auto s = AsConstInt(stride.min);
        if (!stride.is_single_point() || !s) return Unbounded();
        Expr span = MakeIntConst(op->base.dtype(), *s * (op->lanes - 1));
        if (*s >= 0) return {base.min, Both(base.max, span, Add)};
        return {Both(base.min, span, Add), base.max};
      }
      case NodeKind::kBroadcast:
        return Eval(e.as<BroadcastNode>()->value);
      case NodeKind::kLet: {
        const auto* op = e.as<LetNode>();
        IntervalSet v = Eval(op->value);
        local_[op->var.get()] = v;
        IntervalSet r = Eval(op->body);
        local_.erase(op->var.get());
        return r;
      }
      default:
        return Unbounded();
    }
  }

 private:
  bool DependsOnDom(const Expr& e) {
    for (const auto& [var, set] : dom_) {
      if (UsesVar(e, var)) return true;
    }
    for (const auto& [var, set] : local_) {
      if (UsesVar(e, static_cast<const VarNode*>(var))) return true;
    }
    return false;
  }

  template <typename F>
  static Expr Both(const Expr& a, const Expr& b, F make) {
    return a.defined() && b.defined() ? make(a, b) : Expr();
  }
  // min of an unbounded-below side stays unbounded; min of an unbounded-above side is the
  // other end (and the mirror for max).
  template <typename F>
  static Expr Either(const Expr& a, const Expr& b, F make) {
    if (!a.defined()) return b;
    if (!b.defined()) return a;
    return make(a, b);
  }

  // Applies x -> make(x, k) to both ends; a negative k swaps them.
  template <typename F>
  IntervalSet Scale(const IntervalSet& a, const Expr& k, F make) {
    if (a.is_single_point()) return IntervalSet::SinglePoint(make(a.min, k));
    ConstIntBound kb = analyzer_.GetConstIntBound(k);
    if (kb.min_value > 0) return {Both(a.min, k, make), Both(a.max, k, make)};
    if (kb.max_value < 0) return {Both(a.max, k, make), Both(a.min, k, make)};
    if (kb.min_value == 0 && kb.max_value == 0) return IntervalSet::SinglePoint(k);
    return Unbounded();
  }

  IntervalSet EvalMod(const Expr& e) {
    Expr x, y;
    GetBinaryOperands(e, &x, &y);
    IntervalSet a = Eval(x), b = Eval(y);
    if (!b.is_single_point()) return Unbounded();
    const bool floor = e.kind() == NodeKind::kFloorMod;
    ConstIntBound kb = analyzer_.GetConstIntBound(b.min);
    if (kb.min_value <= 0) return Unbounded();
    DataType t = e.dtype().element_of();
    if (Bounded(a)) {
      // Within one period the remainder is monotone.
      Expr lo_q = analyzer_.Simplify(FloorDiv(a.min, b.min));
      Expr hi_q = analyzer_.Simplify(FloorDiv(a.max, b.min));
      bool non_negative = floor || analyzer_.CanProve(GE(a.min, MakeIntConst(t, 0)));
      if (non_negative && ExprDeepEqual(lo_q, hi_q)) {
        auto make = floor ? FloorMod : Mod;
        return {make(a.min, b.min), make(a.max, b.min)};
      }
    }
    Expr hi = Sub(b.min, MakeIntConst(t, 1));
    if (floor || (a.min.defined() && analyzer_.CanProve(GE(a.min, MakeIntConst(t, 0))))) {
      return {MakeIntConst(t, 0), hi};
    }
    return {Sub(MakeIntConst(t, 1), b.min), hi};
  }

  const VarIntervals& dom_;
  Analyzer& analyzer_;
  std::unordered_map<const void*, IntervalSet> local_;
};

}  // namespace

bool IntervalSet::is_single_point() const {
  return min.defined() && max.defined() && (min.same_as(max) || ExprDeepEqual(min, max));
}

IntervalSet IntervalSet::SinglePoint(const Expr& e) { return {e, e}; }

IntervalSet IntervalSet::FromRange(const Range& r) {
  if (IsConstInt(r.extent, 1)) return SinglePoint(r.min);
  Analyzer analyzer;
  return {r.min, analyzer.Simplify(Sub(Add(r.min, r.extent), MakeIntConst(r.min.dtype(), 1)))};
}

Range IntervalSet::ToRange() const {
  KILN_CHECK(min.defined() && max.defined(), ErrorKind::kInvalidIR,
             "IntervalSet::ToRange: the interval is unbounded");
  if (is_single_point()) return Range{min, MakeIntConst(min.dtype(), 1)};
  Analyzer analyzer;
  return Range{min, analyzer.Simplify(Add(Sub(max, min), MakeIntConst(min.dtype(), 1)))};
}

IntervalSet EvalSet(const Expr& e, const VarIntervals& dom, Analyzer& analyzer) {
  // Simplifying first lets a variable that cancels (k - k) stop counting as relaxed.
  IntervalSet s = SetEvaluator(dom, analyzer).Eval(analyzer.Simplify(e));
  if (s.is_single_point()) {
    Expr p = analyzer.Simplify(s.min);
    return {p, p};
  }
  Expr lo = s.min.defined() ? analyzer.Simplify(s.min) : Expr();
  Expr hi = s.max.defined() ? analyzer.Simplify(s.max) : Expr();
  if (lo.defined() && hi.defined() && ExprDeepEqual(lo, hi)) hi = lo;
  return {lo, hi};
}

IntervalSet Union(const IntervalSet& a, const IntervalSet& b, Analyzer& analyzer) {
  Expr lo = a.min.defined() && b.min.defined() ? analyzer.Simplify(Min(a.min, b.min)) : Expr();
  Expr hi = a.max.defined() && b.max.defined() ? analyzer.Simplify(Max(a.max, b.max)) : Expr();
  if (lo.defined() && hi.defined() && ExprDeepEqual(lo, hi)) hi = lo;
  return {lo, hi};
}

}  // namespace kiln::ir::arith
