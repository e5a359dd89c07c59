// Interval arithmetic for ConstIntBound.
#include "ir/arith/const_int_bound.h"

#include <algorithm>

#include "ir/arith/const_fold.h"
#include "ir/stmt.h"

namespace kiln::ir::arith {
namespace {

constexpr int64_t kNegInf = ConstIntBound::kNegInf;
constexpr int64_t kPosInf = ConstIntBound::kPosInf;

bool IsInf(int64_t v) { return v == kNegInf || v == kPosInf; }

int64_t Clamp128(__int128 v) {
  if (v >= static_cast<__int128>(kPosInf)) return kPosInf;
  if (v <= static_cast<__int128>(kNegInf)) return kNegInf;
  return static_cast<int64_t>(v);
}

ConstIntBound Everything() { return {}; }

ConstIntBound TypeRange(DataType t) {
  if (t.is_bool()) return {0, 1};
  if (!t.is_integral()) return Everything();
  int bits = t.bits();
  if (t.is_uint()) {
    if (bits >= 63) return {0, kPosInf};
    return {0, (int64_t{1} << bits) - 1};
  }
  if (bits >= 64) return Everything();
  return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
}

ConstIntBound Intersect(ConstIntBound a, ConstIntBound b) {
  return {std::max(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
}

// Floor or truncating division of endpoint `a` by finite non-zero `b`.
int64_t DivEnd(int64_t a, int64_t b, bool floor) {
  if (IsInf(a)) return (a == kPosInf) == (b > 0) ? kPosInf : kNegInf;
  if (b == -1) return a == kNegInf ? kPosInf : -a;
  return floor ? FloorDivInt(a, b) : a / b;
}

class BoundEvaluator {
 public:
  explicit BoundEvaluator(const VarFacts& facts) : facts_(facts) {}

  ConstIntBound Eval(const Expr& e) {
    if (!e.defined()) return Everything();
    if (++depth_ > 64) {
      --depth_;
      return TypeRange(e.dtype());
    }
    // Signed index arithmetic is taken not to overflow, so a signed result is not clipped to
    // its dtype (an unbound int32 var stays unbounded); unsigned and bool results are.
    ConstIntBound r = EvalNode(e);
    if (!e.dtype().is_int()) r = Intersect(r, TypeRange(e.dtype()));
    --depth_;
    return r;
  }

 private:
  ConstIntBound EvalNode(const Expr& e) {
    DataType t = e.dtype();
    if (!t.is_integral() || !t.is_scalar()) return Everything();
    switch (e.kind()) {
      case NodeKind::kIntImm: {
        int64_t v = e.as<IntImmNode>()->value;
        if (t.is_uint() && t.bits() == 64 && v < 0) return {0, kPosInf};
        return {v, v};
      }
      case NodeKind::kVar:
        return EvalVar(static_cast<const VarNode*>(e.get()));
      case NodeKind::kAdd: {
        const auto* op = e.as<AddNode>();
        ConstIntBound a = Eval(op->a), b = Eval(op->b);
        return {BoundAdd(a.min_value, b.min_value), BoundAdd(a.max_value, b.max_value)};
      }
      case NodeKind::kSub: {
        const auto* op = e.as<SubNode>();
        ConstIntBound a = Eval(op->a), b = Eval(op->b);
        return {BoundAdd(a.min_value, BoundNeg(b.max_value)),
                BoundAdd(a.max_value, BoundNeg(b.min_value))};
      }
      case NodeKind::kMul: {
        const auto* op = e.as<MulNode>();
        ConstIntBound a = Eval(op->a), b = Eval(op->b);
        int64_t c[4] = {BoundMul(a.min_value, b.min_value), BoundMul(a.min_value, b.max_value),
                        BoundMul(a.max_value, b.min_value), BoundMul(a.max_value, b.max_value)};
        return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      case NodeKind::kDiv:
      case NodeKind::kFloorDiv: {
        Expr x, y;
        GetBinaryOperands(e, &x, &y);
        return EvalDiv(Eval(x), Eval(y), e.kind() == NodeKind::kFloorDiv);
      }
      case NodeKind::kFloorMod: {
        const auto* op = e.as<FloorModNode>();
        return EvalFloorMod(Eval(op->a), Eval(op->b));
      }
      case NodeKind::kMod: {
        const auto* op = e.as<ModNode>();
        return EvalTruncMod(Eval(op->a), Eval(op->b));
      }
      case NodeKind::kMin: {
        const auto* op = e.as<MinNode>();
        ConstIntBound a = Eval(op->a), b = Eval(op->b);
        return {std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
      }
      case NodeKind::kMax: {
        const auto* op = e.as<MaxNode>();
        ConstIntBound a = Eval(op->a), b = Eval(op->b);
        return {std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
      }
      case NodeKind::kSelect: {
        const auto* op = e.as<SelectNode>();
        if (auto c = AsConstInt(op->condition)) return Eval(*c ? op->true_value : op->false_value);
        ConstIntBound a = Eval(op->true_value), b = Eval(op->false_value);
        return {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
      }
      case NodeKind::kCast: {
        const auto* op = e.as<CastNode>();
        if (!op->value.dtype().is_integral()) return TypeRange(t);
        ConstIntBound v = Eval(op->value);
        ConstIntBound target = TypeRange(t);
        // A value that does not fit wraps: then only the target's range is known.
        if (v.min_value < target.min_value || v.max_value > target.max_value) return target;
        return v;
      }
      case NodeKind::kLet: {
        const auto* op = e.as<LetNode>();
        auto saved = local_.find(op->var.get());
        std::optional<ConstIntBound> old;
        if (saved != local_.end()) old = saved->second;
        local_[op->var.get()] = Eval(op->value);
        ConstIntBound r = Eval(op->body);
        if (old) {
          local_[op->var.get()] = *old;
        } else {
          local_.erase(op->var.get());
        }
        return r;
      }
      default:
        return TypeRange(t);
    }
  }

  ConstIntBound EvalVar(const VarNode* var) {
    if (auto it = local_.find(var); it != local_.end()) return it->second;
    // Ranges may refer to other variables (triangular loops); caching keeps a chain of them
    // linear rather than exponential.
    if (auto it = var_cache_.find(var); it != var_cache_.end()) return it->second;
    ConstIntBound result = var->dtype.is_int() ? Everything() : TypeRange(var->dtype);
    // A range that mentions its own var sees it unbounded instead of recursing.
    var_cache_[var] = result;
    if (auto it = facts_.values.find(var); it != facts_.values.end()) {
      result = Eval(it->second.second);
    } else if (auto it = facts_.ranges.find(var); it != facts_.ranges.end()) {
      const Range& r = it->second.second;
      ConstIntBound lo = Eval(r.min), ext = Eval(r.extent);
      result = {lo.min_value, BoundAdd(BoundAdd(lo.max_value, ext.max_value), -1)};
    }
    var_cache_[var] = result;
    return result;
  }

  static ConstIntBound EvalDiv(ConstIntBound a, ConstIntBound b, bool floor) {
    if (b.min_value > 0 || b.max_value < 0) {
      int64_t bl = b.min_value, bh = b.max_value;
      // An infinite divisor end acts as a large finite one: the quotient tends to 0 or -1.
      auto fin = [](int64_t v) {
        if (v == kPosInf) return int64_t{1} << 62;
        if (v == kNegInf) return -(int64_t{1} << 62);
        return v;
      };
      bl = fin(bl);
      bh = fin(bh);
      int64_t c[4] = {DivEnd(a.min_value, bl, floor), DivEnd(a.min_value, bh, floor),
                      DivEnd(a.max_value, bl, floor), DivEnd(a.max_value, bh, floor)};
      ConstIntBound r{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      // A huge divisor sends any finite value to 0 (or -1 when flooring a negative one).
      if (IsInf(b.min_value) || IsInf(b.max_value)) {
        r.min_value = std::min<int64_t>(r.min_value, floor && a.min_value < 0 ? -1 : 0);
        r.max_value = std::max<int64_t>(r.max_value, 0);
      }
      return r;
    }
    return Everything();
  }

  static ConstIntBound EvalFloorMod(ConstIntBound a, ConstIntBound b) {
    if (b.min_value > 0) {
      if (b.min_value == b.max_value && !IsInf(a.min_value) && !IsInf(a.max_value)) {
        int64_t c = b.min_value;
        if (FloorDivInt(a.min_value, c) == FloorDivInt(a.max_value, c)) {
          return {FloorModInt(a.min_value, c), FloorModInt(a.max_value, c)};
        }
      }
      int64_t hi = BoundAdd(b.max_value, -1);
      if (a.min_value >= 0) hi = std::min(hi, a.max_value);
      return {0, hi};
    }
    if (b.max_value < 0) return {BoundAdd(b.min_value, 1), 0};
    return Everything();
  }

  static ConstIntBound EvalTruncMod(ConstIntBound a, ConstIntBound b) {
    if (b.min_value > 0 || b.max_value < 0) {
      int64_t m = b.min_value > 0 ? BoundAdd(b.max_value, -1) : BoundAdd(BoundNeg(b.min_value), -1);
      if (a.min_value >= 0) return {0, std::min(m, a.max_value)};
      if (a.max_value <= 0) return {std::max(BoundNeg(m), a.min_value), 0};
      return {BoundNeg(m), m};
    }
    return Everything();
  }

  const VarFacts& facts_;
  std::unordered_map<const VarNode*, ConstIntBound> local_;
  std::unordered_map<const VarNode*, ConstIntBound> var_cache_;
  int depth_ = 0;
};

}  // namespace

int64_t BoundAdd(int64_t a, int64_t b) {
  if (IsInf(a)) return a;
  if (IsInf(b)) return b;
  return Clamp128(static_cast<__int128>(a) + b);
}

int64_t BoundMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (IsInf(a) || IsInf(b)) return (a < 0) == (b < 0) ? kPosInf : kNegInf;
  return Clamp128(static_cast<__int128>(a) * b);
}

ConstIntBound EvalConstIntBound(const Expr& e, const VarFacts& facts) {
  return BoundEvaluator(facts).Eval(e);
}

}  // namespace kiln::ir::arith
