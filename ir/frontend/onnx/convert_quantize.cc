// Linear quantization composed from primitive ops: QuantizeLinear (round, shift by the zero
// point, saturate, cast), DequantizeLinear, and DynamicQuantizeLinear (uint8 scale and zero
// point computed from the input's range). Per-axis scales broadcast along `axis`, blocked ones
// (version 21) repeat along it.
#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

// A scale or zero point shaped to broadcast over the input of rank `rank`: a scalar as is, a
// 1-D one (per axis) along `axis`, and from version 21 one of the input's rank (blocked, with
// block_size) repeated block_size times along `axis`.
Expr AlongAxis(NodeContext& ctx, size_t input, int rank) {
  Expr p = ctx.Input(input);
  int prank = ctx.InputRank(input);
  int64_t axis_attr = ctx.version() >= 13 ? ctx.Int("axis", 1) : 1;
  int64_t block = ctx.version() >= 21 ? ctx.Int("block_size", 0) : 0;
  if (block < 0 || block > (int64_t{1} << 40)) {
    ctx.Invalid("block_size " + std::to_string(block) + " is out of range");
  }
  if (block > 0) {
    if (prank != rank || rank == 0) {
      ctx.Invalid("with block_size, scale and zero point have the input's rank");
    }
    int axis = NormalizeAxis(ctx, axis_attr, rank);
    std::vector<PrimExpr> x_shape = ctx.RequireShape(0), p_shape = ctx.RequireShape(input);
    auto x_dim = AsConstInt(x_shape[axis]), p_dim = AsConstInt(p_shape[axis]);
    if (!x_dim || !p_dim) ctx.Unsupported("blocked quantization along a symbolic dim");
    if (*p_dim != (*x_dim + block - 1) / block) {
      ctx.Invalid("the blocked axis has " + std::to_string(*p_dim) + " scales for " +
                  std::to_string(*x_dim) + " elements in blocks of " + std::to_string(block));
    }
    std::vector<PrimExpr> wide = p_shape;
    wide.insert(wide.begin() + axis + 1, relax::DimConst(block));
    Expr rep = ctx.Call("expand_dims", {p}, relax::Attrs().Set("axis", {axis + 1}));
    rep = ctx.Call("broadcast_to", {rep, relax::ShapeExpr(wide)});
    std::vector<PrimExpr> merged = p_shape;
    merged[axis] = relax::DimConst(*p_dim * block);
    rep = ReshapeTo(ctx, rep, merged);
    if (*p_dim * block != *x_dim) {
      relax::Attrs slice;
      slice.Set("axes", {axis}).Set("begin", {0}).Set("end", {*x_dim}).Set("strides", {1});
      rep = ctx.Call("strided_slice", {rep}, slice);
    }
    return rep;
  }
  if (prank == 0 || rank <= 1) return p;
  if (prank != 1) ctx.Invalid("scale and zero point must be scalars or 1-D");
  int axis = NormalizeAxis(ctx, axis_attr, rank);
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
  if (ctx.version() >= 21 && dtype == DataType::UInt(16)) return {0, 65535};
  if (ctx.version() >= 21 && dtype == DataType::Int(16)) return {-32768, 32767};
  ctx.Unsupported(
      "quantized dtype " + DTypeName(dtype) +
      (ctx.version() >= 21 ? " (only uint8, int8, uint16 and int16)" : " (only uint8 and int8)"));
}

// The output_dtype attribute (from version 21 for QuantizeLinear, 23 for DequantizeLinear):
// nullopt when absent or 0.
std::optional<DataType> OutputDType(NodeContext& ctx, int64_t since) {
  if (ctx.version() < since) return std::nullopt;
  int64_t code = ctx.Int("output_dtype", 0);
  if (code == 0) return std::nullopt;
  std::optional<DataType> dtype = ToKilnDType(static_cast<int32_t>(code));
  if (!dtype) ctx.Unsupported("output_dtype " + OnnxDTypeName(static_cast<int32_t>(code)));
  return dtype;
}

Outputs QuantizeLinear(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  ctx.Ignore("saturate");  // float8 outputs only, which Kiln has no dtype for
  if (ctx.version() >= 23) {
    int64_t precision = ctx.Int("precision", 0);
    if (precision != 0 && precision != kOnnxFloat) {
      ctx.Unsupported("precision " + OnnxDTypeName(static_cast<int32_t>(precision)) +
                      " (Kiln computes in FLOAT)");
    }
  }
  std::optional<DataType> declared = OutputDType(ctx, 21);
  DataType out = ctx.HasInput(2) ? ctx.InputDType(2) : declared.value_or(DataType::UInt(8));
  if (declared && *declared != out) {
    ctx.Invalid("output_dtype " + DTypeName(*declared) + " differs from the zero point's " +
                DTypeName(out));
  }
  auto [lo, hi] = Range(ctx, out);
  Expr x = ctx.Input(0);
  if (ctx.InputDType(0) != DataType::Float(32)) x = ToFloat(ctx, x);
  Expr scale = AlongAxis(ctx, 1, rank);
  if (ctx.InputDType(1) != DataType::Float(32)) scale = ToFloat(ctx, scale);
  Expr q = ctx.Call("round", {ctx.Call("divide", {x, scale})});
  if (ctx.HasInput(2)) q = ctx.Call("add", {q, ToFloat(ctx, AlongAxis(ctx, 2, rank))});
  q = ctx.Call("clip", {q}, relax::Attrs().Set("min", lo).Set("max", hi));
  return {ctx.Call("astype", {q}, relax::Attrs().Set("dtype", out))};
}

Outputs DequantizeLinear(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  // From version 19 the output has the scale's dtype; from 23 output_dtype may say so.
  DataType scale_dtype = ctx.InputDType(1);
  std::optional<DataType> declared = OutputDType(ctx, 23);
  if (declared && *declared != scale_dtype) {
    ctx.Invalid("output_dtype " + DTypeName(*declared) + " differs from the scale's " +
                DTypeName(scale_dtype));
  }
  Expr x = ToFloat(ctx, ctx.Input(0));
  if (ctx.HasInput(2)) x = ctx.Call("subtract", {x, ToFloat(ctx, AlongAxis(ctx, 2, rank))});
  Expr scale = AlongAxis(ctx, 1, rank);
  if (scale_dtype != DataType::Float(32)) scale = ToFloat(ctx, scale);
  Expr y = ctx.Call("multiply", {x, scale});
  if (scale_dtype != DataType::Float(32)) {
    y = ctx.Call("astype", {y}, relax::Attrs().Set("dtype", scale_dtype));
  }
  return {y};
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
  // 19: float16 and bfloat16 scales, saturate; 21: blocks, int16 and uint16, output_dtype of
  // QuantizeLinear; 23: output_dtype of DequantizeLinear, precision; 24, 25 and 28: dtypes
  // Kiln has none of (float8e8m0, int2, float6).
  t.Add("QuantizeLinear", 10, QuantizeLinear, 28);
  t.Add("DequantizeLinear", 10, DequantizeLinear, 28);
  t.Add("DynamicQuantizeLinear", 11, DynamicQuantizeLinear);
}

}  // namespace kiln::ir::frontend::onnx
