// Elementwise unary ops: one "compute" stage over the input's shape, as TVM's topi writes
// them, computed in the tensor's own dtype. round rounds halves to even (nearbyint), as
// numpy, ONNX and TVM's LLVM target do.
#include <cmath>
#include <limits>

#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;
using ElementFn = std::function<ir::Expr(const ir::Expr& x, DataType dtype)>;

// `value` as a constant of `dtype`; for integers clamped into the dtype's range first, so
// that clip(min=-3.4e38) on int32 means "no lower bound" rather than undefined behaviour.
ir::Expr ConstIn(DataType dtype, double value) {
  if (dtype.is_int() || dtype.is_uint()) {
    double lo = dtype.is_uint() ? 0.0 : -std::ldexp(1.0, dtype.bits() - 1);
    double hi = std::ldexp(1.0, dtype.is_uint() ? dtype.bits() : dtype.bits() - 1) - 1;
    if (std::isnan(value)) value = 0;
    value = std::min(std::max(std::trunc(value), lo), std::min(hi, 9.2e18));
  }
  return Const(dtype, value);
}

double AsConstDouble(const ir::Expr& e) {
  if (const auto* f = e.as<ir::FloatImmNode>()) return f->value;
  return static_cast<double>(*AsConstInt(e));
}

Expr Elementwise(LegalizeContext& ctx, const std::string& name, const ElementFn& fn) {
  Tensor x = ctx.Input(0);
  DataType dtype = x.dtype();
  Tensor out = compute::Compute(
      x.shape(), [&](const std::vector<ir::Var>& i) { return fn(x(i), dtype); }, "compute");
  return ctx.CallKernel(name, {out});
}

LegalizeFn Rule(const std::string& name, ElementFn fn) {
  return [name, fn = std::move(fn)](LegalizeContext& ctx) { return Elementwise(ctx, name, fn); };
}

LegalizeFn Intrinsic(const std::string& name, const std::string& intrinsic) {
  return Rule(name, [intrinsic](const ir::Expr& x, DataType) {
    return compute::Intrinsic(intrinsic, {x});
  });
}

// Rounding ops leave integers as they are.
LegalizeFn Rounding(const std::string& name, const std::string& intrinsic) {
  return Rule(name, [intrinsic](const ir::Expr& x, DataType t) {
    return t.is_float() ? compute::Intrinsic(intrinsic, {x}) : x;
  });
}

ir::Expr Sign(const ir::Expr& x, DataType t) {
  if (t.is_bool()) return x;
  ir::Expr positive = ir::Select(x > Const(t, 0), Const(t, 1), Const(t, 0));
  if (t.is_uint()) return positive;
  return ir::Select(x < Const(t, 0), Const(t, -1), positive);
}

ir::Expr AbsOf(const ir::Expr& x, DataType t) {
  if (t.is_float()) return compute::Abs(x);
  if (t.is_int()) return compute::Intrinsic("abs", {x});
  return x;
}

ir::Expr GeluErf(const ir::Expr& x, DataType t) {
  // TVM's form: x * (0.5 + erf(x / sqrt(2)) * 0.5).
  return x * (Const(t, 0.5) + compute::Erf(x * Const(t, M_SQRT1_2)) * Const(t, 0.5));
}

ir::Expr GeluTanh(const ir::Expr& x, DataType t) {
  ir::Expr inner = Const(t, std::sqrt(2.0 / M_PI)) * (x + Const(t, 0.044715) * x * x * x);
  return Const(t, 0.5) * x * (Const(t, 1.0) + compute::Tanh(inner));
}

Expr Astype(LegalizeContext& ctx) {
  DataType to = ctx.attrs().GetDType("dtype");
  // A cast to the same dtype computes nothing: the call becomes its input.
  if (ctx.ArgInfo(0).dtype == to) return ctx.call().args[0];
  return Elementwise(ctx, "cast", [to](const ir::Expr& x, DataType) { return ir::Cast(to, x); });
}

// A bound at or past the dtype's range (ONNX's Clip without a max, +-inf, FLT_MAX on float16)
// bounds nothing and is left out: its constant would be inf or out of range in the kernel.
Expr Clip(LegalizeContext& ctx) {
  double lo = ctx.attrs().GetFloat("min"), hi = ctx.attrs().GetFloat("max");
  return Elementwise(ctx, "clip", [lo, hi](const ir::Expr& x, DataType t) {
    double top = AsConstDouble(compute::MaxValue(t)), bottom = AsConstDouble(compute::MinValue(t));
    ir::Expr v = x;
    if (hi < top) v = ir::Min(v, ConstIn(t, hi));
    if (lo > bottom) v = ir::Max(v, ConstIn(t, lo));
    return v;
  });
}

Expr LeakyRelu(LegalizeContext& ctx) {
  double alpha = ctx.attrs().GetFloat("alpha");
  return Elementwise(ctx, "leaky_relu", [alpha](const ir::Expr& x, DataType t) {
    return ir::Select(x > Const(t, 0), x, x * Const(t, alpha));
  });
}

}  // namespace

void AddUnaryRules(RuleTable& r) {
  r["abs"] = Rule("abs", AbsOf);
  r["negative"] = Rule("negative", [](const ir::Expr& x, DataType) { return -x; });
  r["sign"] = Rule("sign", Sign);
  r["square"] = Rule("square", [](const ir::Expr& x, DataType) { return x * x; });
  r["floor"] = Rounding("floor", "floor");
  r["ceil"] = Rounding("ceil", "ceil");
  r["round"] = Rounding("round", "nearbyint");
  for (const char* op : {"sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf", "sin", "cos",
                         "isnan", "isinf", "isfinite"}) {
    r[op] = Intrinsic(op, op);
  }
  r["nn.gelu"] = Rule("gelu", GeluErf);
  r["nn.gelu_tanh"] = Rule("gelu_tanh", GeluTanh);
  r["nn.silu"] = Rule("silu", [](const ir::Expr& x, DataType) { return x * compute::Sigmoid(x); });
  r["nn.relu"] =
      Rule("relu", [](const ir::Expr& x, DataType t) { return ir::Max(x, Const(t, 0)); });
  r["nn.leakyrelu"] = LeakyRelu;
  r["logical_not"] = Rule("logical_not", [](const ir::Expr& x, DataType) { return !x; });
  r["clip"] = Clip;
  r["astype"] = Astype;
}

}  // namespace kiln::ir::relax::legalize
