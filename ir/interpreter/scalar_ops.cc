// Lane arithmetic of the reference interpreter: wrapping, rounding, casts and intrinsics.
#include "ir/interpreter/scalar_ops.h"

#include <array>
#include <cmath>
#include <limits>

#include "support/error.h"
#include "support/half.h"

namespace kiln::ir::interp {

int64_t WrapInt(int64_t v, DataType t) {
  if (t.is_bool()) return v != 0;
  int bits = t.bits();
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (low >> (bits - 1)) != 0) low |= ~mask;  // sign-extend
  return static_cast<int64_t>(low);
}

double RoundFloat(double v, DataType t) {
  if (t.code() == DataType::Code::kBFloat) {
    return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(v)));
  }
  switch (t.bits()) {
    // Rounding through float first is exact here: float has more than twice the precision
    // of float16 and bfloat16, so the double rounding never changes the result.
    case 16:
      return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case 32:
      return static_cast<float>(v);
    default:
      return v;
  }
}

Scalar Canonical(Scalar v, DataType t) {
  if (t.is_float()) return Scalar::Float(RoundFloat(v.f, t));
  return Scalar::Int(WrapInt(v.i, t));
}

namespace {

bool IsUnsigned64(DataType t) { return t.is_uint() && t.bits() == 64; }

[[noreturn]] void DivideByZero(NodeKind kind, DataType t, int64_t a) {
  throw Error(ErrorKind::kRuntime, std::string("integer division by zero in ") +
                                       NodeKindName(kind) + "(" + std::to_string(a) + ", 0) of " +
                                       t.ToString());
}

Scalar FloatBinary(NodeKind kind, DataType t, double a, double b) {
  double r = 0;
  switch (kind) {
    case NodeKind::kAdd:
      r = a + b;
      break;
    case NodeKind::kSub:
      r = a - b;
      break;
    case NodeKind::kMul:
      r = a * b;
      break;
    case NodeKind::kDiv:
      r = a / b;
      break;
    case NodeKind::kMod:
      r = std::fmod(a, b);
      break;
    case NodeKind::kFloorDiv:
      r = std::floor(a / b);
      break;
    case NodeKind::kFloorMod:
      r = a - std::floor(a / b) * b;
      break;
    // NaN propagates through min and max, so a NaN read from uninitialized memory reaches the
    // output instead of being swallowed by a max-reduction.
    case NodeKind::kMin:
      r = std::isnan(a) || std::isnan(b) ? NAN : (b < a ? b : a);
      break;
    case NodeKind::kMax:
      r = std::isnan(a) || std::isnan(b) ? NAN : (b > a ? b : a);
      break;
    case NodeKind::kEQ:
      return Scalar::Int(a == b);
    case NodeKind::kNE:
      return Scalar::Int(a != b);
    case NodeKind::kLT:
      return Scalar::Int(a < b);
    case NodeKind::kLE:
      return Scalar::Int(a <= b);
    case NodeKind::kGT:
      return Scalar::Int(a > b);
    case NodeKind::kGE:
      return Scalar::Int(a >= b);
    default:
      throw Error(ErrorKind::kType,
                  std::string(NodeKindName(kind)) + " is not defined on " + t.ToString());
  }
  return Scalar::Float(RoundFloat(r, t));
}

Scalar IntBinary(NodeKind kind, DataType t, int64_t a, int64_t b) {
  // Add, Sub and Mul go through uint64 so that overflow wraps instead of being undefined.
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  bool unsigned64 = IsUnsigned64(t);
  int64_t r = 0;
  switch (kind) {
    case NodeKind::kAdd:
      r = static_cast<int64_t>(ua + ub);
      break;
    case NodeKind::kSub:
      r = static_cast<int64_t>(ua - ub);
      break;
    case NodeKind::kMul:
      r = static_cast<int64_t>(ua * ub);
      break;
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      if (b == 0) DivideByZero(kind, t, a);
      bool is_div = kind == NodeKind::kDiv || kind == NodeKind::kFloorDiv;
      if (unsigned64) {
        r = static_cast<int64_t>(is_div ? ua / ub : ua % ub);
        break;
      }
      if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        r = is_div ? a : 0;  // the one overflowing quotient wraps, as hardware does
        break;
      }
      int64_t q = a / b, m = a % b;
      if (kind == NodeKind::kDiv) {
        r = q;
      } else if (kind == NodeKind::kMod) {
        r = m;
      } else if (kind == NodeKind::kFloorDiv) {
        r = (m != 0 && ((m < 0) != (b < 0))) ? q - 1 : q;
      } else {
        r = (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
      }
      break;
    }
    case NodeKind::kMin:
      r = unsigned64 ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b);
      break;
    case NodeKind::kMax:
      r = unsigned64 ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b);
      break;
    case NodeKind::kEQ:
      return Scalar::Int(a == b);
    case NodeKind::kNE:
      return Scalar::Int(a != b);
    case NodeKind::kLT:
      return Scalar::Int(unsigned64 ? ua < ub : a < b);
    case NodeKind::kLE:
      return Scalar::Int(unsigned64 ? ua <= ub : a <= b);
    case NodeKind::kGT:
      return Scalar::Int(unsigned64 ? ua > ub : a > b);
    case NodeKind::kGE:
      return Scalar::Int(unsigned64 ? ua >= ub : a >= b);
    case NodeKind::kAnd:
      return Scalar::Int(a != 0 && b != 0);
    case NodeKind::kOr:
      return Scalar::Int(a != 0 || b != 0);
    default:
      throw Error(ErrorKind::kInternal, std::string(NodeKindName(kind)) + " is not a binary op");
  }
  return Scalar::Int(WrapInt(r, t));
}

}  // namespace

Scalar BinaryOp(NodeKind kind, DataType t, Scalar a, Scalar b) {
  if (t.is_float()) return FloatBinary(kind, t, a.f, b.f);
  return IntBinary(kind, t, a.i, b.i);
}

Scalar CastScalar(Scalar v, DataType from, DataType to) {
  if (!from.is_float()) {
    if (!to.is_float()) return Scalar::Int(WrapInt(v.i, to));
    double d = IsUnsigned64(from) ? static_cast<double>(static_cast<uint64_t>(v.i))
                                  : static_cast<double>(v.i);
    return Scalar::Float(RoundFloat(d, to));
  }
  if (to.is_float()) return Scalar::Float(RoundFloat(v.f, to));
  if (to.is_bool()) return Scalar::Int(v.f != 0);
  if (std::isnan(v.f)) return Scalar::Int(0);
  double t = std::trunc(v.f);
  int bits = to.bits();
  if (to.is_uint()) {
    if (t <= 0) return Scalar::Int(0);
    if (t >= std::ldexp(1.0, bits)) return Scalar::Int(WrapInt(-1, to));  // all ones
    return Scalar::Int(static_cast<int64_t>(static_cast<uint64_t>(t)));
  }
  if (bits == 64) {
    if (t < -0x1p63) return Scalar::Int(std::numeric_limits<int64_t>::min());
    if (t >= 0x1p63) return Scalar::Int(std::numeric_limits<int64_t>::max());
    return Scalar::Int(static_cast<int64_t>(t));
  }
  int64_t limit = int64_t{1} << (bits - 1);
  if (t < static_cast<double>(-limit)) return Scalar::Int(-limit);
  if (t >= static_cast<double>(limit)) return Scalar::Int(limit - 1);
  return Scalar::Int(static_cast<int64_t>(t));
}

namespace {

struct IntrinsicName {
  std::string_view name;
  Intrinsic op;
};

constexpr std::array<IntrinsicName, 37> kIntrinsicNames = {{
    {"exp", Intrinsic::kExp},           {"exp2", Intrinsic::kExp2},
    {"exp10", Intrinsic::kExp10},       {"log", Intrinsic::kLog},
    {"log2", Intrinsic::kLog2},         {"log10", Intrinsic::kLog10},
    {"log1p", Intrinsic::kLog1p},       {"sqrt", Intrinsic::kSqrt},
    {"rsqrt", Intrinsic::kRsqrt},       {"tanh", Intrinsic::kTanh},
    {"sigmoid", Intrinsic::kSigmoid},   {"erf", Intrinsic::kErf},
    {"sin", Intrinsic::kSin},           {"cos", Intrinsic::kCos},
    {"tan", Intrinsic::kTan},           {"asin", Intrinsic::kAsin},
    {"acos", Intrinsic::kAcos},         {"atan", Intrinsic::kAtan},
    {"sinh", Intrinsic::kSinh},         {"cosh", Intrinsic::kCosh},
    {"asinh", Intrinsic::kAsinh},       {"acosh", Intrinsic::kAcosh},
    {"atanh", Intrinsic::kAtanh},       {"floor", Intrinsic::kFloor},
    {"ceil", Intrinsic::kCeil},         {"round", Intrinsic::kRound},
    {"trunc", Intrinsic::kTrunc},       {"nearbyint", Intrinsic::kNearbyint},
    {"fabs", Intrinsic::kFabs},         {"abs", Intrinsic::kAbs},
    {"isnan", Intrinsic::kIsnan},       {"isinf", Intrinsic::kIsinf},
    {"isfinite", Intrinsic::kIsfinite}, {"pow", Intrinsic::kPow},
    {"fmod", Intrinsic::kFmod},         {"atan2", Intrinsic::kAtan2},
    {"copysign", Intrinsic::kCopysign},
}};

}  // namespace

Intrinsic ResolveIntrinsic(std::string_view name) {
  for (const IntrinsicName& entry : kIntrinsicNames) {
    if (entry.name == name) return entry.op;
  }
  throw Error(ErrorKind::kUnsupported, "unknown intrinsic '" + std::string(name) + "'");
}

Scalar ApplyIntrinsic(Intrinsic op, DataType arg_t, DataType result_t, Scalar a, Scalar b) {
  if (!arg_t.is_float()) {  // only abs and fabs take integers (checked when resolving)
    int64_t v =
        arg_t.is_int() && a.i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a.i)) : a.i;
    return CastScalar(Scalar::Int(WrapInt(v, arg_t)), arg_t, result_t);
  }
  double x = a.f, y = b.f, r = 0;
  switch (op) {
    case Intrinsic::kExp:
      r = std::exp(x);
      break;
    case Intrinsic::kExp2:
      r = std::exp2(x);
      break;
    case Intrinsic::kExp10:
      r = std::pow(10.0, x);
      break;
    case Intrinsic::kLog:
      r = std::log(x);
      break;
    case Intrinsic::kLog2:
      r = std::log2(x);
      break;
    case Intrinsic::kLog10:
      r = std::log10(x);
      break;
    case Intrinsic::kLog1p:
      r = std::log1p(x);
      break;
    case Intrinsic::kSqrt:
      r = std::sqrt(x);
      break;
    case Intrinsic::kRsqrt:
      r = 1.0 / std::sqrt(x);
      break;
    case Intrinsic::kTanh:
      r = std::tanh(x);
      break;
    case Intrinsic::kSigmoid:
      r = 1.0 / (1.0 + std::exp(-x));
      break;
    case Intrinsic::kErf:
      r = std::erf(x);
      break;
    case Intrinsic::kSin:
      r = std::sin(x);
      break;
    case Intrinsic::kCos:
      r = std::cos(x);
      break;
    case Intrinsic::kTan:
      r = std::tan(x);
      break;
    case Intrinsic::kAsin:
      r = std::asin(x);
      break;
    case Intrinsic::kAcos:
      r = std::acos(x);
      break;
    case Intrinsic::kAtan:
      r = std::atan(x);
      break;
    case Intrinsic::kSinh:
      r = std::sinh(x);
      break;
    case Intrinsic::kCosh:
      r = std::cosh(x);
      break;
    case Intrinsic::kAsinh:
      r = std::asinh(x);
      break;
    case Intrinsic::kAcosh:
      r = std::acosh(x);
      break;
    case Intrinsic::kAtanh:
      r = std::atanh(x);
      break;
    case Intrinsic::kFloor:
      r = std::floor(x);
      break;
    case Intrinsic::kCeil:
      r = std::ceil(x);
      break;
    // "round" is C's round (halves away from zero), as the C target emits it; "nearbyint"
    // rounds halves to even.
    case Intrinsic::kRound:
      r = std::round(x);
      break;
    case Intrinsic::kTrunc:
      r = std::trunc(x);
      break;
    case Intrinsic::kNearbyint:
      r = std::nearbyint(x);
      break;
    case Intrinsic::kFabs:
    case Intrinsic::kAbs:
      r = std::fabs(x);
      break;
    case Intrinsic::kIsnan:
      return Scalar::Int(std::isnan(x));
    case Intrinsic::kIsinf:
      return Scalar::Int(std::isinf(x));
    case Intrinsic::kIsfinite:
      return Scalar::Int(std::isfinite(x));
    case Intrinsic::kPow:
      r = std::pow(x, y);
      break;
    case Intrinsic::kFmod:
      r = std::fmod(x, y);
      break;
    case Intrinsic::kAtan2:
      r = std::atan2(x, y);
      break;
    case Intrinsic::kCopysign:
      r = std::copysign(x, y);
      break;
  }
  return CastScalar(Scalar::Float(r), DataType::Float(64), result_t);
}

}  // namespace kiln::ir::interp
