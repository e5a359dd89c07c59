// Elementwise ONNX ops: unary math (trigonometric ones included), binary arithmetic, comparisons
// and logic with numpy broadcasting, variadic Max/Min/Sum/Mean, Where, Cast, and the activations
// TVM's ONNX front end composes from primitive ops (Elu, Selu, HardSigmoid, Softplus, ...). Integer
// ops whose inputs are known at import time (shape arithmetic) are evaluated on SymTensors.
#include <cmath>
#include <limits>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

// ---- Import-time evaluation of integer ops ---------------------------------------------------

// Constants of shape arithmetic are small; symbolic forms with huge ones are left to run time
// (their canonical form could overflow).
constexpr int64_t kMaxSymbolicConstant = int64_t{1} << 40;

std::optional<PrimExpr> EvalBinary(const std::string& op, const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConstInt(a), cb = AsConstInt(b);
  bool both = ca && cb;
  if (!both) {
    for (const auto& c : {ca, cb}) {
      if (c && (*c > kMaxSymbolicConstant || *c < -kMaxSymbolicConstant)) return std::nullopt;
    }
  }
  // Integer overflow wraps as in ONNX runtimes (two's complement), computed without UB.
  auto wrap = [](uint64_t v) { return relax::DimConst(static_cast<int64_t>(v)); };
  if (op == "Add") return both ? wrap(uint64_t(*ca) + uint64_t(*cb)) : a + b;
  if (op == "Sub") return both ? wrap(uint64_t(*ca) - uint64_t(*cb)) : a - b;
  if (op == "Mul") return both ? wrap(uint64_t(*ca) * uint64_t(*cb)) : a * b;
  bool min_by_minus_one = both && *ca == std::numeric_limits<int64_t>::min() && *cb == -1;
  if (op == "Div") {
    if (min_by_minus_one) return relax::DimConst(*ca);
    if (both) return *cb == 0 ? std::nullopt : std::optional<PrimExpr>(relax::DimConst(*ca / *cb));
    // Dims are sizes (non-negative), where truncating and flooring division agree.
    if (cb && *cb > 0) return FloorDiv(a, b);
    return std::nullopt;
  }
  if (op == "Mod") {
    if (min_by_minus_one) return relax::DimConst(0);
    if (both) {
      if (*cb == 0) return std::nullopt;
      int64_t r = *ca % *cb;
      if (r != 0 && ((r < 0) != (*cb < 0))) r += *cb;
      return relax::DimConst(r);
    }
    if (cb && *cb > 0) return FloorMod(a, b);
    return std::nullopt;
  }
  if (op == "Max") return both ? relax::DimConst(std::max(*ca, *cb)) : Max(a, b);
  if (op == "Min") return both ? relax::DimConst(std::min(*ca, *cb)) : Min(a, b);
  if (op == "Equal") {
    if (relax::ProveDimEqual(a, b)) return relax::DimConst(1);
    if (relax::ProveDimNotEqual(a, b)) return relax::DimConst(0);
    return std::nullopt;
  }
  if (!both) return std::nullopt;
  if (op == "Less") return relax::DimConst(*ca < *cb);
  if (op == "LessOrEqual") return relax::DimConst(*ca <= *cb);
  if (op == "Greater") return relax::DimConst(*ca > *cb);
  if (op == "GreaterOrEqual") return relax::DimConst(*ca >= *cb);
  if (op == "And") return relax::DimConst((*ca != 0) && (*cb != 0));
  if (op == "Or") return relax::DimConst((*ca != 0) || (*cb != 0));
  if (op == "Xor") return relax::DimConst((*ca != 0) != (*cb != 0));
  return std::nullopt;
}

bool IsComparison(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" ||
         op == "GreaterOrEqual";
}

// `op` over two known integer tensors; nullopt when an input is not known or an element
// cannot be computed at import time.
std::optional<SymTensor> FoldBinary(const std::string& op, const SymTensor& a, const SymTensor& b) {
  if (a.dtype != b.dtype) return std::nullopt;
  DataType out = IsComparison(op) ? DataType::Bool() : a.dtype;
  auto folded = SymBinary(
      a, b, out, [&](const PrimExpr& x, const PrimExpr& y) { return EvalBinary(op, x, y); });
  if (!folded) return std::nullopt;
  for (PrimExpr& e : folded->elems) {
    if (auto c = AsConstInt(e)) e = relax::DimConst(WrapToDType(*c, out));
  }
  return folded;
}

std::optional<SymTensor> FoldInputs(NodeContext& ctx, const std::string& op) {
  if (!ctx.AllInputsKnown() || ctx.num_inputs() < 1) return std::nullopt;
  std::optional<SymTensor> acc = ctx.Known(0);
  for (size_t i = 1; acc && i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) return std::nullopt;
    acc = FoldBinary(op, *acc, *ctx.Known(i));
  }
  return acc;
}

// ---- Binary and variadic ops ------------------------------------------------------------------

const char* RelaxBinaryOp(const std::string& onnx_op) {
  static const std::map<std::string, const char*> kOps = {
      {"Add", "add"},         {"Sub", "subtract"},
      {"Mul", "multiply"},    {"Div", "divide"},
      {"Pow", "power"},       {"Equal", "equal"},
      {"Less", "less"},       {"LessOrEqual", "less_equal"},
      {"Greater", "greater"}, {"GreaterOrEqual", "greater_equal"},
      {"And", "logical_and"}, {"Or", "logical_or"},
      {"Xor", "logical_xor"}, {"Max", "maximum"},
      {"Min", "minimum"},     {"Sum", "add"},
  };
  return kOps.at(onnx_op);
}

Outputs Binary(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (auto folded = FoldInputs(ctx, op)) return {*folded};
  Expr a = ctx.Input(0), b = ctx.Input(1);
  if (op == "Pow" && ctx.InputDType(1) != ctx.InputDType(0)) {
    // Pow takes an exponent of another dtype (opset 12+); compute in the base's dtype.
    b = ctx.Call("astype", {b}, relax::Attrs().Set("dtype", ctx.InputDType(0)));
  }
  std::vector<Expr> ab = ctx.Broadcast({{a, "input 0"}, {b, "input 1"}});
  return {ctx.Call(RelaxBinaryOp(op), ab)};
}

Outputs Mod(NodeContext& ctx) {
  bool fmod = ctx.Int("fmod", 0) != 0;
  if (!fmod) {
    if (auto folded = FoldInputs(ctx, "Mod")) return {*folded};
  }
  if (!fmod && ctx.InputDType(0).is_float() && ctx.version() < 28) {
    ctx.Invalid("fmod must be 1 for floating-point inputs");
  }
  // fmod=0: the result has the divisor's sign (floor_mod); fmod=1: the dividend's (C fmod).
  return {ctx.Call(fmod ? "mod" : "floor_mod", ctx.BroadcastInputs({0, 1}))};
}

// Max, Min, Sum, Mean over one or more inputs.
Outputs Variadic(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (ctx.num_inputs() == 0) ctx.Invalid("needs at least one input");
  if (op != "Mean") {
    if (auto folded = FoldInputs(ctx, op == "Sum" ? "Add" : op)) return {*folded};
  }
  std::vector<size_t> all;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) all.push_back(i);
  std::vector<Expr> inputs = ctx.BroadcastInputs(all);
  Expr acc = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    acc = ctx.Call(op == "Mean" ? "add" : RelaxBinaryOp(op), {acc, inputs[i]});
  }
  if (op == "Mean") {
    acc = ctx.Call("divide",
                   {acc, ctx.Scalar(static_cast<double>(ctx.num_inputs()), ctx.InputDType(0))});
  }
  return {acc};
}

Outputs Where(NodeContext& ctx) {
  if (ctx.AllInputsKnown()) {
    SymTensor c = *ctx.Known(0), x = *ctx.Known(1), y = *ctx.Known(2);
    auto s1 = BroadcastConstShapes(c.shape, x.shape);
    auto shape = s1 ? BroadcastConstShapes(*s1, y.shape) : std::nullopt;
    auto cb = shape ? SymBroadcastTo(c, *shape) : std::nullopt;
    auto xb = shape ? SymBroadcastTo(x, *shape) : std::nullopt;
    auto yb = shape ? SymBroadcastTo(y, *shape) : std::nullopt;
    if (cb && xb && yb && cb->IsConstant() && x.dtype == y.dtype) {
      SymTensor out = *xb;
      for (size_t i = 0; i < out.elems.size(); ++i) {
        if (IsConstInt(cb->elems[i], 0)) out.elems[i] = yb->elems[i];
      }
      return {out};
    }
  }
  return {ctx.Call("where", ctx.BroadcastInputs({0, 1, 2}))};
}

// ---- Unary ops --------------------------------------------------------------------------------

Outputs SimpleUnary(NodeContext& ctx) {
  static const std::map<std::string, const char*> kOps = {
      {"Abs", "abs"},     {"Neg", "negative"}, {"Sign", "sign"},       {"Floor", "floor"},
      {"Ceil", "ceil"},   {"Round", "round"},  {"Sqrt", "sqrt"},       {"Exp", "exp"},
      {"Log", "log"},     {"Tanh", "tanh"},    {"Sigmoid", "sigmoid"}, {"Erf", "erf"},
      {"Sin", "sin"},     {"Cos", "cos"},      {"Relu", "nn.relu"},    {"Not", "logical_not"},
      {"IsNaN", "isnan"}, {"Tan", "tan"},      {"Asin", "asin"},       {"Acos", "acos"},
      {"Atan", "atan"},   {"Sinh", "sinh"},    {"Cosh", "cosh"},       {"Asinh", "asinh"},
      {"Acosh", "acosh"}, {"Atanh", "atanh"},
  };
  const std::string& op = ctx.node().op_type;
  ctx.Ignore("consumed_inputs");  // a legacy memory hint of opsets before 6
  if (op == "Not") {
    // Conditions on shapes (the group test of Attention's function body) fold.
    if (auto k = ctx.Known(0); k && k->IsConstant()) {
      for (PrimExpr& e : k->elems) e = relax::DimConst(IsConstInt(e, 0) ? 1 : 0);
      return {*k};
    }
  }
  if (op == "Neg" || op == "Abs") {
    if (auto k = ctx.Known(0)) {
      bool ok = true;
      for (PrimExpr& e : k->elems) {
        auto c = AsConstInt(e);
        if (op == "Neg") {
          e = relax::SimplifyDim(relax::DimConst(0) - e);
        } else if (c) {
          e = relax::DimConst(*c < 0 ? -*c : *c);
        } else {
          ok = false;
        }
      }
      if (ok) return {*k};
    }
  }
  return {ctx.Call(kOps.at(op), {ctx.Input(0)})};
}

Outputs Identity(NodeContext& ctx) { return {ctx.InputValue(0)}; }

Outputs Reciprocal(NodeContext& ctx) {
  ctx.Ignore("consumed_inputs");
  return {ctx.Call("divide", {ctx.Scalar(1, ctx.InputDType(0)), ctx.Input(0)})};
}

// Composition helpers over one input x of a float dtype.
struct Compose {
  NodeContext& ctx;
  DataType dtype;
  Expr S(double v) { return ctx.Scalar(v, dtype); }
  Expr Op(const char* op, Expr a) { return ctx.Call(op, {std::move(a)}); }
  Expr Op(const char* op, Expr a, Expr b) { return ctx.Call(op, {std::move(a), std::move(b)}); }
  Expr Op(const char* op, Expr a, Expr b, Expr c) {
    return ctx.Call(op, {std::move(a), std::move(b), std::move(c)});
  }
};

Outputs Activation(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  ctx.Ignore("consumed_inputs");
  RequireFloatInput(ctx, 0);
  Expr x = ctx.Input(0);
  Compose c{ctx, ctx.InputDType(0)};
  if (op == "LeakyRelu") {
    return {ctx.Call("nn.leakyrelu", {x}, relax::Attrs().Set("alpha", ctx.Float("alpha", 0.01)))};
  }
  if (op == "Elu") {
    double alpha = ctx.Float("alpha", 1.0);
    Expr neg = c.Op("multiply", c.Op("subtract", c.Op("exp", x), c.S(1)), c.S(alpha));
    return {c.Op("where", c.Op("less", x, c.S(0)), neg, x)};
  }
  if (op == "Selu") {
    double alpha = ctx.Float("alpha", 1.67326319217681884765625);
    double gamma = ctx.Float("gamma", 1.05070102214813232421875);
    Expr neg = c.Op("subtract", c.Op("multiply", c.Op("exp", x), c.S(alpha)), c.S(alpha));
    return {c.Op("multiply", c.Op("where", c.Op("greater", x, c.S(0)), x, neg), c.S(gamma))};
  }
  if (op == "Celu") {
    double alpha = ctx.Float("alpha", 1.0);
    Expr e = c.Op("subtract", c.Op("exp", c.Op("divide", x, c.S(alpha))), c.S(1));
    return {c.Op("add", c.Op("maximum", x, c.S(0)),
                 c.Op("minimum", c.Op("multiply", e, c.S(alpha)), c.S(0)))};
  }
  if (op == "HardSigmoid" || op == "HardSwish") {
    double alpha = op == "HardSigmoid" ? ctx.Float("alpha", 0.2) : 1.0 / 6;
    double beta = op == "HardSigmoid" ? ctx.Float("beta", 0.5) : 0.5;
    Expr y = c.Op("add", c.Op("multiply", x, c.S(alpha)), c.S(beta));
    y = ctx.Call("clip", {y}, relax::Attrs().Set("min", 0.0).Set("max", 1.0));
    return {op == "HardSwish" ? c.Op("multiply", x, y) : y};
  }
  if (op == "Softplus") return {c.Op("log", c.Op("add", c.Op("exp", x), c.S(1)))};
  if (op == "Softsign") return {c.Op("divide", x, c.Op("add", c.Op("abs", x), c.S(1)))};
  if (op == "ThresholdedRelu") {
    double alpha = ctx.Float("alpha", 1.0);
    return {c.Op("where", c.Op("greater", x, c.S(alpha)), x, c.S(0))};
  }
  if (op == "Shrink") {
    double lambd = ctx.Float("lambd", 0.5), bias = ctx.Float("bias", 0.0);
    Expr inner =
        c.Op("where", c.Op("greater", x, c.S(lambd)), c.Op("subtract", x, c.S(bias)), c.S(0));
    return {c.Op("where", c.Op("less", x, c.S(-lambd)), c.Op("add", x, c.S(bias)), inner)};
  }
  if (op == "Gelu") {
    std::string approximate = ctx.String("approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
      ctx.Invalid("approximate '" + approximate + "' is not none or tanh");
    }
    return {ctx.Call(approximate == "none" ? "nn.gelu" : "nn.gelu_tanh", {x})};
  }
  if (op == "Swish") {
    double alpha = ctx.Float("alpha", 1.0);
    return {c.Op("multiply", x, c.Op("sigmoid", c.Op("multiply", x, c.S(alpha))))};
  }
  if (op == "Mish") {
    // x * tanh(softplus(x)), softplus written so that large inputs do not overflow exp.
    Expr soft =
        c.Op("add", c.Op("maximum", x, c.S(0)),
             c.Op("log", c.Op("add", c.Op("exp", c.Op("negative", c.Op("abs", x))), c.S(1))));
    return {c.Op("multiply", x, c.Op("tanh", soft))};
  }
  ctx.Unsupported("no composition for " + op);
}

Outputs PRelu(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  // The slope broadcasts to x, never the other way (unidirectional broadcasting).
  if (ctx.InputRank(1) > ctx.InputRank(0)) {
    ctx.Invalid("slope has a higher rank than the input");
  }
  std::vector<Expr> xs = ctx.BroadcastInputs({0, 1});
  Expr x = xs[0], slope = xs[1];
  Compose c{ctx, ctx.InputDType(0)};
  return {c.Op("where", c.Op("less", x, c.S(0)), c.Op("multiply", x, slope), x)};
}

Outputs IsInf(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  bool pos = ctx.Int("detect_positive", 1) != 0, neg = ctx.Int("detect_negative", 1) != 0;
  Expr x = ctx.Input(0);
  Expr inf = ctx.Call("isinf", {x});
  if (pos && neg) return {inf};
  if (!pos && !neg) {
    return {ctx.Call("zeros_like", {x}, relax::Attrs().Set("dtype", DataType::Bool()))};
  }
  Expr sign = ctx.Call(pos ? "greater" : "less", {x, ctx.Scalar(0, ctx.InputDType(0))});
  return {ctx.Call("logical_and", {inf, sign})};
}

Outputs Clip(NodeContext& ctx) {
  Expr x = ctx.Input(0);
  DataType dtype = ctx.InputDType(0);
  std::optional<double> lo, hi;
  std::optional<Expr> lo_tensor, hi_tensor;
  if (ctx.version() < 11) {
    lo = ctx.Float("min", -std::numeric_limits<float>::max());
    hi = ctx.Float("max", std::numeric_limits<float>::max());
  } else {
    for (size_t i = 1; i <= 2; ++i) {
      if (!ctx.HasInput(i)) continue;
      std::optional<double> v = ctx.ConstScalar(i);
      if (v) {
        (i == 1 ? lo : hi) = *v;
      } else {
        (i == 1 ? lo_tensor : hi_tensor) = ctx.Input(i);
      }
    }
  }
  if (lo && hi && !lo_tensor && !hi_tensor) {
    // ONNX clips with max last, so min > max gives max everywhere.
    if (*lo > *hi) lo = *hi;
    return {ctx.Call("clip", {x}, relax::Attrs().Set("min", *lo).Set("max", *hi))};
  }
  if (lo) lo_tensor = ctx.Scalar(*lo, dtype);
  if (hi) hi_tensor = ctx.Scalar(*hi, dtype);
  if (lo_tensor) x = ctx.Call("maximum", {x, *lo_tensor});
  if (hi_tensor) x = ctx.Call("minimum", {x, *hi_tensor});
  return {x};
}

// ---- Cast ------------------------------------------------------------------------------------

// The largest integer below which every integer is exact in the float dtype `to`.
int64_t ExactFloatLimit(DataType to) {
  if (to.bits() >= 64) return int64_t{1} << 53;
  if (to.bits() >= 32) return int64_t{1} << 24;
  return 0;  // float16 and bfloat16: shape values are not kept symbolic through them
}

Value CastValue(NodeContext& ctx, DataType to) {
  // Integer elements known at import time, also those of a shape cast to float and back.
  std::optional<SymTensor> k = ctx.Known(0);
  if (!k && ctx.InputValue(0).known) k = ctx.KnownIntegers(0);
  if (k && to.is_integral()) {
    bool ok = true;
    for (PrimExpr& e : k->elems) {
      if (auto c = AsConstInt(e)) {
        e = relax::DimConst(WrapToDType(*c, to));
      } else {
        ok &= to == DataType::Int(64) || to == DataType::Int(32);
      }
    }
    if (ok) {
      k->dtype = to;
      return *k;
    }
  }
  if (k = ctx.Known(0); k && to.is_float() && !k->IsConstant() && !k->dtype.is_bool()) {
    // A shape cast to float (a Range's limit): its dims stay known, as the integers they are,
    // where the float holds them exactly. Kiln takes symbolic dims to be below 2^24.
    bool exact = ExactFloatLimit(to) > 0;
    for (const PrimExpr& e : k->elems) {
      if (auto c = AsConstInt(e)) exact &= *c <= ExactFloatLimit(to) && *c >= -ExactFloatLimit(to);
    }
    if (exact) {
      k->dtype = to;
      return *k;
    }
  }
  if (auto c = ctx.Constant(0); c && c->numel() <= kMaxKnownElements) {
    HostTensor out(to, c->shape());
    bool ints = c->dtype().is_integral() && to.is_integral();
    for (int64_t i = 0; i < c->numel(); ++i) {
      if (ints) {
        out.SetInt(i, c->GetInt(i));
      } else {
        out.SetDouble(i, c->GetDouble(i));
      }
    }
    return out;
  }
  if (ctx.InputDType(0) == to) return ctx.InputValue(0);
  return ctx.Call("astype", {ctx.Input(0)}, relax::Attrs().Set("dtype", to));
}

Outputs Cast(NodeContext& ctx) {
  const OnnxAttribute* to_attr = ctx.Attr("to");
  if (to_attr == nullptr || to_attr->type != OnnxAttribute::Type::kInt) {
    ctx.Invalid("attribute 'to' (an int dtype) is required");
  }
  std::optional<DataType> to = ToKilnDType(static_cast<int32_t>(to_attr->i));
  if (!to) ctx.Unsupported("cast to " + OnnxDTypeName(static_cast<int32_t>(to_attr->i)));
  // Both only change casts to float8 types (saturate from version 19, round_mode for
  // float8e8m0 from 24), which Kiln refuses above.
  ctx.Ignore("saturate");
  ctx.Ignore("round_mode");
  return {CastValue(ctx, *to)};
}

Outputs CastLike(NodeContext& ctx) {
  ctx.Ignore("saturate");
  ctx.Ignore("round_mode");
  return {CastValue(ctx, ctx.InputDType(1))};
}

// BitShift by multiplying or floor-dividing by a power of two, looked up in a constant table
// by the clamped shift: in uint64 (where a left shift wraps as the bits fall off), or int64 for
// a signed right shift (floor division is the arithmetic shift). A shift that is negative or
// not below the width gives what the sign extension alone gives (version 28): 0, or -1 for a
// right shift of a negative signed value.
Outputs BitShift(NodeContext& ctx) {
  std::string direction = ctx.String("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    ctx.Invalid("direction '" + direction + "' is not LEFT or RIGHT");
  }
  DataType dtype = ctx.InputDType(0);
  if (!(dtype.is_int() || dtype.is_uint()) || ctx.InputDType(1) != dtype) {
    ctx.Invalid("X and Y must be integer tensors of one dtype, got " + DTypeName(dtype) + " and " +
                DTypeName(ctx.InputDType(1)));
  }
  if (dtype.is_int() && ctx.version() < 28) {
    ctx.Invalid("signed " + DTypeName(dtype) + " before version 28");
  }
  bool left = direction == "LEFT";
  bool arithmetic = dtype.is_int() && !left;
  int bits = dtype.bits();
  DataType wide = arithmetic ? DataType::Int(64) : DataType::UInt(64);
  auto as = [&](const Expr& e, DataType d) {
    return ctx.Call("astype", {e}, relax::Attrs().Set("dtype", d));
  };
  // Powers 2^0 .. 2^(bits-1) (2^62 at most for an int64 table, whose 2^63 does not fit).
  int top = arithmetic && bits == 64 ? 62 : bits - 1;
  HostTensor powers(wide, {top + 1});
  for (int i = 0; i <= top; ++i) {
    if (wide.is_uint()) {
      static_cast<uint64_t*>(powers.data())[i] = uint64_t{1} << i;
    } else {
      static_cast<int64_t*>(powers.data())[i] = int64_t{1} << i;
    }
  }
  std::vector<Expr> xy = ctx.BroadcastInputs({0, 1});
  Expr x = xy[0], y64 = as(xy[1], DataType::Int(64));
  Expr index = ctx.Call("clip", {y64}, relax::Attrs().Set("min", 0.0).Set("max", double(top)));
  Expr factor = ctx.Call("take", {relax::Constant(powers), index}, relax::Attrs().Set("axis", 0));
  Expr xw = as(x, wide);
  Expr shifted = ctx.Call(left ? "multiply" : "floor_divide", {xw, factor});
  Expr zero = ctx.Scalar(0, dtype);
  Expr fill = zero;
  if (arithmetic) {
    // Past the width only the sign remains: 0 or -1.
    fill = ctx.Call("where", {ctx.Call("less", {x, zero}), ctx.Scalar(-1, dtype), zero});
    if (bits == 64) {
      Expr is63 = ctx.Call("equal", {y64, ctx.Scalar(63, DataType::Int(64))});
      shifted = ctx.Call("where", {is63, as(fill, wide), shifted});
    }
  }
  Expr valid =
      ctx.Call("logical_and", {ctx.Call("greater_equal", {y64, ctx.Scalar(0, DataType::Int(64))}),
                               ctx.Call("less", {y64, ctx.Scalar(bits, DataType::Int(64))})});
  return {ctx.Call("where", {valid, as(shifted, dtype), fill})};
}

Outputs Dropout(NodeContext& ctx) {
  // Inference: the identity. Dropout with training_mode set at import time is unsupported.
  ctx.Ignore("seed");
  if (ctx.version() < 12) ctx.Ignore("ratio");
  ctx.Ignore("is_test");
  if (ctx.HasInput(2)) {
    auto training = ctx.ConstScalar(2);
    if (!training) ctx.RequireAllKnown({{2, "training_mode"}, {1, "ratio"}});
    if (*training != 0) {
      auto ratio = ctx.HasInput(1) ? ctx.ConstScalar(1) : std::optional<double>(0.5);
      if (!ratio) ctx.RequireKnown(1, "ratio");
      if (*ratio != 0) ctx.Unsupported("training_mode=1 (random dropout)");
    }
  }
  Outputs outs = {ctx.InputValue(0)};
  if (ctx.node().outputs.size() > 1 && !ctx.node().outputs[1].empty()) {
    DataType mask = ctx.version() >= 10 ? DataType::Bool() : ctx.InputDType(0);
    outs.push_back(ctx.Call("ones_like", {ctx.Input(0)}, relax::Attrs().Set("dtype", mask)));
  }
  return outs;
}

}  // namespace

void RegisterElementwiseConverters(ConverterTable& t) {
  for (const char* op :
       {"Abs", "Neg", "Floor", "Ceil", "Sqrt", "Exp", "Log", "Tanh", "Sigmoid", "Relu"}) {
    t.Add(op, 6, SimpleUnary);
  }
  // Version 22 of these added bfloat16 only.
  for (const char* op : {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan"}) {
    t.Add(op, 7, SimpleUnary, 22);
  }
  for (const char* op : {"Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}) t.Add(op, 9, SimpleUnary, 22);
  for (const char* op : {"Sign", "Erf"}) t.Add(op, 9, SimpleUnary);
  t.Add("IsNaN", 9, SimpleUnary, 20);  // 20: float8 inputs, which Kiln has no dtype for
  t.Add("Round", 11, SimpleUnary, 22);
  t.Add("Not", 1, SimpleUnary);
  // Later versions of Identity, Cast and CastLike add dtypes only (float8, int4, float4,
  // float8e8m0, int2, float6): Kiln has no such dtypes, and a tensor of one is refused where
  // it is read.
  t.Add("Identity", 1, Identity, 25);
  t.Add("Reciprocal", 6, Reciprocal);
  t.Add("LeakyRelu", 6, Activation);
  for (const char* op : {"Elu", "Selu", "HardSigmoid"}) t.Add(op, 6, Activation, 22);
  for (const char* op : {"Softplus", "Softsign"}) t.Add(op, 1, Activation, 22);
  t.Add("Shrink", 9, Activation);
  t.Add("ThresholdedRelu", 10, Activation, 22);
  t.Add("Celu", 12, Activation, 28);  // 28: float16, bfloat16 and double
  t.Add("HardSwish", 14, Activation, 22);
  t.Add("Gelu", 20, Activation, 20);
  t.Add("Mish", 18, Activation, 22);
  t.Add("Swish", 24, Activation, 24);
  t.Add("PRelu", 7, PRelu);
  t.Add("IsInf", 10, IsInf, 20);
  t.Add("Clip", 6, Clip);
  for (const char* op :
       {"Add", "Sub", "Mul", "Div", "Pow", "Less", "Greater", "And", "Or", "Xor"}) {
    t.Add(op, 7, Binary);
  }
  t.Add("Equal", 7, Binary, 19);  // 19: strings, which Kiln has no dtype for
  for (const char* op : {"LessOrEqual", "GreaterOrEqual"}) t.Add(op, 12, Binary);
  t.Add("Mod", 10, Mod, 28);  // 28: fmod=0 (floor) also for floating-point inputs
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) t.Add(op, 8, Variadic);
  t.Add("Where", 9, Where);
  t.Add("Cast", 6, Cast, 28);
  t.Add("CastLike", 15, CastLike, 25);
  t.Add("Dropout", 7, Dropout, 22);
  t.Add("BitShift", 11, BitShift, 28);  // 28: signed types
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"}) {
    t.AddUnsupported(op, "Kiln's Relax ops have no bitwise operations");
  }
}

}  // namespace kiln::ir::frontend::onnx
