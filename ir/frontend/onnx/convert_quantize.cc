// Linear quantization composed from primitive ops: QuantizeLinear (round, shift by the zero
// point, saturate, cast), DequantizeLinear, and DynamicQuantizeLinear (uint8 scale and zero
// point computed from the input's range). Per-axis scales broadcast along `axis`.
#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

// A per-axis (1-D) parameter shaped to broadcast along `axis` of a rank-`rank` tensor; a
// scalar one as is.
Expr AlongAxis(NodeContext& ctx, size_t input, int rank) {
  Expr p = ctx.Input(input);
  int prank = ctx.InputRank(input);
  if (prank == 0 || rank <= 1) return p;
  if (prank != 1) ctx.Invalid("scale and zero point must be scalars or 1-D");
  int axis = NormalizeAxis(ctx, ctx.opset() >= 13 ? ctx.Int("axis", 1) : 1, rank);
  std::vector<int64_t> axes;
  for (int i = 0; i < rank; ++i) {
    if (i != axis) axes.push_back(i);
  }
  return ctx.Call("expand_dims", {p}, relax::Attrs().Set("axis", axes));
}

Expr ToFloat(NodeContext& ctx, const Expr& e) {
  return ctx.Call("astype", {e}, relax::Attrs().Set("dtype", DataType::Float(32)));
}

// The saturation range of a quantized dtype.
std::pair<double, double> Range(NodeContext& ctx, DataType dtype) {
  if (dtype == DataType::UInt(8)) return {0, 255};
  if (dtype == DataType::Int(8)) return {-128, 127};
  ctx.Unsupported("quantized dtype " + DTypeName(dtype) + " (only uint8 and int8)");
}

Outputs QuantizeLinear(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  if (ctx.opset() >= 13) ctx.Int("axis", 1);
  DataType out = ctx.HasInput(2) ? ctx.InputDType(2) : DataType::UInt(8);
  auto [lo, hi] = Range(ctx, out);
  Expr x = ctx.Input(0);
  if (ctx.InputDType(0) != DataType::Float(32)) x = ToFloat(ctx, x);
  Expr q = ctx.Call("round", {ctx.Call("divide", {x, AlongAxis(ctx, 1, rank)})});
  if (ctx.HasInput(2)) q = ctx.Call("add", {q, ToFloat(ctx, AlongAxis(ctx, 2, rank))});
  q = ctx.Call("clip", {q}, relax::Attrs().Set("min", lo).Set("max", hi));
  return {ctx.Call("astype", {q}, relax::Attrs().Set("dtype", out))};
}

Outputs DequantizeLinear(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  if (ctx.opset() >= 13) ctx.Int("axis", 1);
  Expr x = ToFloat(ctx, ctx.Input(0));
  if (ctx.HasInput(2)) x = ctx.Call("subtract", {x, ToFloat(ctx, AlongAxis(ctx, 2, rank))});
  return {ctx.Call("multiply", {x, AlongAxis(ctx, 1, rank)})};
}

Outputs DynamicQuantizeLinear(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  const DataType f32 = DataType::Float(32), u8 = DataType::UInt(8);
  Expr x = ctx.Input(0);
  if (ctx.InputDType(0) != f32) x = ToFloat(ctx, x);
  Expr zero = ctx.Scalar(0, f32);
  Expr x_min = ctx.Call("minimum", {ctx.Call("min", {x}), zero});
  Expr x_max = ctx.Call("maximum", {ctx.Call("max", {x}), zero});
  Expr scale = ctx.Call("divide", {ctx.Call("subtract", {x_max, x_min}), ctx.Scalar(255, f32)});
  relax::Attrs sat = relax::Attrs().Set("min", 0.0).Set("max", 255.0);
  Expr zp = ctx.Call(
      "clip", {ctx.Call("round", {ctx.Call("divide", {ctx.Call("negative", {x_min}), scale})})},
      sat);
  Expr q = ctx.Call("add", {ctx.Call("round", {ctx.Call("divide", {x, scale})}), zp});
  q = ctx.Call("clip", {q}, sat);
  relax::Attrs to_u8 = relax::Attrs().Set("dtype", u8);
  return {ctx.Call("astype", {q}, to_u8), scale, ctx.Call("astype", {zp}, to_u8)};
}

}  // namespace

void RegisterQuantizeConverters(ConverterTable& t) {
  t.Add("QuantizeLinear", 10, QuantizeLinear);
  t.Add("DequantizeLinear", 10, DequantizeLinear);
  t.Add("DynamicQuantizeLinear", 11, DynamicQuantizeLinear);
}

}  // namespace kiln::ir::frontend::onnx
