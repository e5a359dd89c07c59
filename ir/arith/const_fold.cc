// Constant folding: per-operation folding with dtype semantics, and the ConstantFold pass.
#include "ir/arith/const_fold.h"

#include <cmath>
#include <limits>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "support/half.h"

namespace kiln::ir::arith {

int64_t WrapToType(DataType dtype, int64_t value) {
  if (dtype.is_bool()) return value != 0;
  int bits = dtype.bits();
  if (bits >= 64 || bits <= 0) return value;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(value) & mask;
  if (dtype.is_uint()) return static_cast<int64_t>(low);
  uint64_t sign = uint64_t{1} << (bits - 1);
  if (low & sign) low |= ~mask;
  return static_cast<int64_t>(low);
}

double RoundToType(DataType dtype, double value) {
  if (!dtype.is_float()) return value;
  if (dtype.code() == DataType::Code::kBFloat) {
    return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value)));
  }
  switch (dtype.bits()) {
    case 16:
      return HalfToFloat(FloatToHalf(static_cast<float>(value)));
    case 32:
      return static_cast<float>(value);
    default:
      return value;
  }
}

Expr MakeIntConst(DataType dtype, int64_t value) { return IntImm(dtype, WrapToType(dtype, value)); }

int64_t FloorDivInt(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModInt(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

bool IsCompareKind(NodeKind kind) {
  switch (kind) {
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE:
      return true;
    default:
      return false;
  }
}

bool IsBinaryKind(NodeKind kind) {
  switch (kind) {
#define KILN_BINARY_CASE(name) case NodeKind::k##name:
    KILN_BINARY_NODES(KILN_BINARY_CASE)
#undef KILN_BINARY_CASE
    return true;
    default:
      return false;
  }
}

bool GetBinaryOperands(const Expr& e, Expr* a, Expr* b) {
  switch (e.kind()) {
#define KILN_BINARY_CASE(name)                               \
  case NodeKind::k##name: {                                  \
    const auto* n = static_cast<const name##Node*>(e.get()); \
    *a = n->a;                                               \
    *b = n->b;                                               \
    return true;                                             \
  }
    KILN_BINARY_NODES(KILN_BINARY_CASE)
#undef KILN_BINARY_CASE
    default:
      return false;
  }
}

Expr MakeBinary(NodeKind kind, Expr a, Expr b) {
  switch (kind) {
#define KILN_BINARY_CASE(name) \
  case NodeKind::k##name:      \
    return name(std::move(a), std::move(b));
    KILN_BINARY_NODES(KILN_BINARY_CASE)
#undef KILN_BINARY_CASE
    default:
      throw Error(ErrorKind::kInternal,
                  std::string("MakeBinary: not a binary node kind: ") + NodeKindName(kind));
  }
}

namespace {

// Folds two integer immediates of `dtype`; undefined when the result is not a constant
// (division by zero).
Expr FoldInts(NodeKind kind, DataType dtype, int64_t x, int64_t y) {
  const bool is_unsigned = dtype.is_uint() || dtype.is_bool();
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  auto arith = [&](int64_t v) { return MakeIntConst(dtype, v); };
  auto cmp = [&](bool v) { return BoolImm(v); };
  const bool lt = is_unsigned ? ux < uy : x < y;
  switch (kind) {
    case NodeKind::kAdd:
      return arith(static_cast<int64_t>(ux + uy));
    case NodeKind::kSub:
      return arith(static_cast<int64_t>(ux - uy));
    case NodeKind::kMul:
      return arith(static_cast<int64_t>(ux * uy));
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      if (y == 0) return Expr();
      const bool div = kind == NodeKind::kDiv || kind == NodeKind::kFloorDiv;
      if (is_unsigned) return arith(static_cast<int64_t>(div ? ux / uy : ux % uy));
      if (y == -1) return arith(div ? static_cast<int64_t>(0 - ux) : 0);
      if (kind == NodeKind::kDiv) return arith(x / y);
      if (kind == NodeKind::kMod) return arith(x % y);
      if (kind == NodeKind::kFloorDiv) return arith(FloorDivInt(x, y));
      return arith(FloorModInt(x, y));
    }
    case NodeKind::kMin:
      return arith(lt ? x : y);
    case NodeKind::kMax:
      return arith(lt ? y : x);
    case NodeKind::kEQ:
      return cmp(x == y);
    case NodeKind::kNE:
      return cmp(x != y);
    case NodeKind::kLT:
      return cmp(lt);
    case NodeKind::kLE:
      return cmp(lt || x == y);
    case NodeKind::kGT:
      return cmp(!lt && x != y);
    case NodeKind::kGE:
      return cmp(!lt);
    case NodeKind::kAnd:
      return arith((x != 0) && (y != 0));
    case NodeKind::kOr:
      return arith((x != 0) || (y != 0));
    default:
      return Expr();
  }
}

Expr FoldFloats(NodeKind kind, DataType dtype, double x, double y) {
  auto arith = [&](double v) { return FloatImm(dtype, RoundToType(dtype, v)); };
  switch (kind) {
    case NodeKind::kAdd:
      return arith(x + y);
    case NodeKind::kSub:
      return arith(x - y);
    case NodeKind::kMul:
      return arith(x * y);
    case NodeKind::kDiv:
      return arith(x / y);
    case NodeKind::kMod:
      return arith(std::fmod(x, y));
    case NodeKind::kFloorDiv:
      return arith(std::floor(x / y));
    case NodeKind::kFloorMod:
      return arith(x - std::floor(x / y) * y);
    case NodeKind::kMin:
      return arith(std::fmin(x, y));
    case NodeKind::kMax:
      return arith(std::fmax(x, y));
    case NodeKind::kEQ:
      return BoolImm(x == y);
    case NodeKind::kNE:
      return BoolImm(x != y);
    case NodeKind::kLT:
      return BoolImm(x < y);
    case NodeKind::kLE:
      return BoolImm(x <= y);
    case NodeKind::kGT:
      return BoolImm(x > y);
    case NodeKind::kGE:
      return BoolImm(x >= y);
    default:
      return Expr();
  }
}

bool IsFloatConst(const Expr& e, double value) {
  const auto* f = e.as<FloatImmNode>();
  return f != nullptr && f->value == value;
}

// Identities with one constant operand; undefined when none applies.
Expr FoldIdentity(NodeKind kind, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  if (t.is_int() || t.is_uint()) {
    switch (kind) {
      case NodeKind::kAdd:
        if (IsConstInt(b, 0)) return a;
        if (IsConstInt(a, 0)) return b;
        break;
      case NodeKind::kSub:
        if (IsConstInt(b, 0)) return a;
        break;
      case NodeKind::kMul:
        if (IsConstInt(b, 1)) return a;
        if (IsConstInt(a, 1)) return b;
        if (IsConstInt(b, 0)) return b;
        if (IsConstInt(a, 0)) return a;
        break;
      case NodeKind::kDiv:
      case NodeKind::kFloorDiv:
        if (IsConstInt(b, 1)) return a;
        break;
      case NodeKind::kMod:
      case NodeKind::kFloorMod:
        if (IsConstInt(b, 1)) return MakeIntConst(t, 0);
        break;
      default:
        break;
    }
  } else if (t.is_float() && t.is_scalar()) {
    switch (kind) {
      case NodeKind::kSub:
        if (IsFloatConst(b, 0.0)) return a;
        break;
      case NodeKind::kMul:
        if (IsFloatConst(b, 1.0)) return a;
        if (IsFloatConst(a, 1.0)) return b;
        break;
      case NodeKind::kDiv:
        if (IsFloatConst(b, 1.0)) return a;
        break;
      default:
        break;
    }
  } else if (t.is_bool() && t.is_scalar()) {
    auto ca = AsConstInt(a), cb = AsConstInt(b);
    if (kind == NodeKind::kAnd) {
      if (cb) return *cb ? a : b;
      if (ca) return *ca ? b : a;
    } else if (kind == NodeKind::kOr) {
      if (cb) return *cb ? b : a;
      if (ca) return *ca ? a : b;
    }
  }
  return Expr();
}

}  // namespace

Expr FoldBinary(NodeKind kind, const Expr& a, const Expr& b) {
  const auto* ia = a.as<IntImmNode>();
  const auto* ib = b.as<IntImmNode>();
  if (ia && ib && ia->dtype == ib->dtype) {
    if (Expr r = FoldInts(kind, ia->dtype, ia->value, ib->value); r.defined()) return r;
  }
  const auto* fa = a.as<FloatImmNode>();
  const auto* fb = b.as<FloatImmNode>();
  if (fa && fb && fa->dtype == fb->dtype) {
    if (Expr r = FoldFloats(kind, fa->dtype, fa->value, fb->value); r.defined()) return r;
  }
  if (a.dtype() == b.dtype()) {
    if (Expr r = FoldIdentity(kind, a, b); r.defined()) return r;
  }
  return MakeBinary(kind, a, b);
}

Expr FoldAdd(const Expr& a, const Expr& b) { return FoldBinary(NodeKind::kAdd, a, b); }
Expr FoldMul(const Expr& a, const Expr& b) { return FoldBinary(NodeKind::kMul, a, b); }
Expr FoldAnd(const Expr& a, const Expr& b) { return FoldBinary(NodeKind::kAnd, a, b); }

Expr FoldNot(const Expr& a) {
  if (auto v = AsConstInt(a)) return BoolImm(*v == 0);
  if (const auto* n = a.as<NotNode>()) return n->a;
  return Not(a);
}

Expr FoldSelect(const Expr& condition, const Expr& true_value, const Expr& false_value) {
  if (auto v = AsConstInt(condition)) return *v ? true_value : false_value;
  return Select(condition, true_value, false_value);
}

Expr FoldCast(DataType dtype, const Expr& value) {
  if (value.dtype() == dtype) return value;
  if (!dtype.is_scalar()) return Cast(dtype, value);
  if (const auto* i = value.as<IntImmNode>()) {
    const bool from_unsigned = i->dtype.is_uint() && i->dtype.bits() == 64;
    if (dtype.is_integral()) return MakeIntConst(dtype, i->value);
    if (dtype.is_float()) {
      double v = from_unsigned ? static_cast<double>(static_cast<uint64_t>(i->value))
                               : static_cast<double>(i->value);
      return FloatImm(dtype, RoundToType(dtype, v));
    }
  }
  if (const auto* f = value.as<FloatImmNode>()) {
    if (dtype.is_float()) return FloatImm(dtype, RoundToType(dtype, f->value));
    if (dtype.is_bool()) return BoolImm(f->value != 0.0);
    double t = std::trunc(f->value);
    // Out-of-range conversions are undefined in C; leave them to the target.
    if (dtype.is_integral() && std::isfinite(t) && t >= -9.2e18 && t <= 9.2e18) {
      if (dtype.is_uint() && t < 0) return Cast(dtype, value);
      return MakeIntConst(dtype, static_cast<int64_t>(t));
    }
  }
  return Cast(dtype, value);
}

namespace {

class ConstFolder : public IRMutator {
 public:
  Expr VisitExpr(const Expr& e) override {
    Expr n = IRMutator::VisitExpr(e);
    if (IsBinaryKind(n.kind())) {
      Expr a, b;
      GetBinaryOperands(n, &a, &b);
      Expr folded = FoldBinary(n.kind(), a, b);
      // Keep the node's identity when folding built the same thing again.
      if (folded.kind() == n.kind()) {
        Expr fa, fb;
        GetBinaryOperands(folded, &fa, &fb);
        if (fa.same_as(a) && fb.same_as(b)) return n;
      }
      return folded;
    }
    if (const auto* op = n.as<NotNode>()) {
      if (AsConstInt(op->a) || op->a.as<NotNode>()) return FoldNot(op->a);
    } else if (const auto* op = n.as<SelectNode>()) {
      if (AsConstInt(op->condition))
        return FoldSelect(op->condition, op->true_value, op->false_value);
    } else if (const auto* op = n.as<CastNode>()) {
      Expr folded = FoldCast(op->dtype, op->value);
      if (folded.kind() != NodeKind::kCast) return folded;
    }
    return n;
  }
};

}  // namespace

Expr ConstantFold(const Expr& e) {
  if (!e.defined()) return e;
  return ConstFolder().VisitExpr(e);
}

}  // namespace kiln::ir::arith
