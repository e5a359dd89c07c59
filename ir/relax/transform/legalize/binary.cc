// Elementwise binary ops and where, with numpy broadcasting over symbolic dims: one "T_<op>"
// stage over the result's shape, each operand indexed through BroadcastIndices. A scalar
// (R.Prim) operand is a scalar of the kernel: its value when known, else a parameter.
// Integer divide and mod truncate toward zero (C, ONNX), floor_divide and floor_mod round
// toward negative infinity (numpy; a float floor_mod as numpy computes it, from fmod).
#include "ir/compute/math.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;
using BinaryFn = std::function<ir::Expr(const ir::Expr& a, const ir::Expr& b, DataType t)>;

DataType OperandDType(const LegalizeContext& ctx, size_t i) {
  const StructInfo& s = ctx.call().args[i].struct_info();
  if (const auto* p = s.as<PrimStructInfoNode>()) return p->dtype;
  return ctx.ArgInfo(i).dtype;
}

// Operand `i` at output index `index` of an output of shape `shape`.
ir::Expr Operand(LegalizeContext& ctx, size_t i, const std::vector<ir::Var>& index,
                 const std::vector<ir::Expr>& shape, DataType dtype) {
  if (ctx.IsScalarArg(i)) return ctx.Scalar(i, dtype);
  Tensor t = ctx.Input(i);
  return t(BroadcastIndices(t, AsExprs(index), shape));
}

std::vector<std::string> AxisNames(size_t n) {
  std::vector<std::string> names;
  for (size_t d = 0; d < n; ++d) names.push_back("ax" + std::to_string(d));
  return names;
}

LegalizeFn Binary(const std::string& name, BinaryFn fn) {
  return [name, fn = std::move(fn)](LegalizeContext& ctx) {
    DataType dtype = OperandDType(ctx, 0);
    std::vector<ir::Expr> shape = ctx.OutShape();
    // Placeholders in argument order, so that the kernel's parameters follow the call's.
    if (!ctx.IsScalarArg(0)) ctx.Input(0);
    if (!ctx.IsScalarArg(1)) ctx.Input(1);
    Tensor out = compute::Compute(
        shape,
        [&](const std::vector<ir::Var>& i) {
          return fn(Operand(ctx, 0, i, shape, dtype), Operand(ctx, 1, i, shape, dtype), dtype);
        },
        StageName(name), AxisNames(shape.size()));
    return ctx.CallKernel(name, {out});
  };
}

ir::Expr Divide(const ir::Expr& a, const ir::Expr& b, DataType t) {
  return t.is_float() ? a / b : ir::Div(a, b);
}

ir::Expr FloorDivide(const ir::Expr& a, const ir::Expr& b, DataType t) {
  return t.is_float() ? compute::Intrinsic("floor", {a / b}) : ir::FloorDiv(a, b);
}

ir::Expr Mod(const ir::Expr& a, const ir::Expr& b, DataType t) {
  return t.is_float() ? compute::Intrinsic("fmod", {a, b}) : ir::Mod(a, b);
}

// numpy's float floor mod: C's fmod (exact), moved by the divisor when their signs differ; a
// zero takes the divisor's sign. a - floor(a / b) * b rounds, and gives NaN for an infinite
// divisor where numpy gives 3 mod inf = 3 and -3 mod inf = inf.
ir::Expr FloorMod(const ir::Expr& a, const ir::Expr& b, DataType t) {
  if (!t.is_float()) return ir::FloorMod(a, b);
  ir::Expr r = compute::Intrinsic("fmod", {a, b});
  ir::Expr zero = Const(t, 0);
  ir::Expr moved = ir::Select((r < zero) != (b < zero), r + b, r);
  return ir::Select(r == zero, compute::Intrinsic("copysign", {zero, b}), moved);
}

ir::Expr Power(const ir::Expr& a, const ir::Expr& b, DataType t) {
  if (t.is_float()) return compute::Pow(a, b);
  // pow is defined on floats; integer powers go through float64 (exact up to 2^53).
  DataType f64 = DataType::Float(64);
  return ir::Cast(t, compute::Pow(ir::Cast(f64, a), ir::Cast(f64, b)));
}

Expr Where(LegalizeContext& ctx) {
  std::vector<ir::Expr> shape = ctx.OutShape();
  DataType dtype = ctx.OutDType();
  for (size_t i = 0; i < 3; ++i) {
    if (!ctx.IsScalarArg(i)) ctx.Input(i);
  }
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        return ir::Select(Operand(ctx, 0, i, shape, DataType::Bool()),
                          Operand(ctx, 1, i, shape, dtype), Operand(ctx, 2, i, shape, dtype));
      },
      "T_where", AxisNames(shape.size()));
  return ctx.CallKernel("where", {out});
}

}  // namespace

void AddBinaryRules(RuleTable& r) {
  r["add"] = Binary("add", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a + b; });
  r["subtract"] =
      Binary("subtract", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a - b; });
  r["multiply"] =
      Binary("multiply", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a * b; });
  r["divide"] = Binary("divide", Divide);
  r["floor_divide"] = Binary("floor_divide", FloorDivide);
  r["power"] = Binary("power", Power);
  r["maximum"] = Binary(
      "maximum", [](const ir::Expr& a, const ir::Expr& b, DataType) { return ir::Max(a, b); });
  r["minimum"] = Binary(
      "minimum", [](const ir::Expr& a, const ir::Expr& b, DataType) { return ir::Min(a, b); });
  r["mod"] = Binary("mod", Mod);
  r["floor_mod"] = Binary("floor_mod", FloorMod);
  r["equal"] =
      Binary("equal", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a == b; });
  r["not_equal"] =
      Binary("not_equal", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a != b; });
  r["less"] = Binary("less", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a < b; });
  r["less_equal"] =
      Binary("less_equal", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a <= b; });
  r["greater"] =
      Binary("greater", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a > b; });
  r["greater_equal"] = Binary(
      "greater_equal", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a >= b; });
  r["logical_and"] =
      Binary("logical_and", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a && b; });
  r["logical_or"] =
      Binary("logical_or", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a || b; });
  r["logical_xor"] =
      Binary("logical_xor", [](const ir::Expr& a, const ir::Expr& b, DataType) { return a != b; });
  r["where"] = Where;
}

}  // namespace kiln::ir::relax::legalize
