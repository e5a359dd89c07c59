// Neural network ops: Conv and ConvTranspose (1-D lifted to the 2-D Relax ops), the
// normalizations (BatchNormalization for inference, InstanceNormalization as group norm with
// one group per channel, GroupNormalization, LayerNormalization, LRN,
// MeanVarianceNormalization), and the softmax
// family, with the 2-D coercion that Softmax, LogSoftmax and Hardmax had before opset 13.
#include <cstring>

#include "ir/frontend/onnx/window.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

std::vector<PrimExpr> Spatial(const std::vector<PrimExpr>& shape) {
  return std::vector<PrimExpr>(shape.begin() + 2, shape.end());
}

// The kernel's spatial dims from the weight's shape, checked against kernel_shape.
std::vector<int64_t> KernelFromWeight(NodeContext& ctx, const std::vector<PrimExpr>& w_shape) {
  std::vector<int64_t> kernel;
  for (size_t i = 2; i < w_shape.size(); ++i) {
    auto k = AsConstInt(w_shape[i]);
    if (!k) ctx.Unsupported("the weight's kernel dims are not known at import time");
    kernel.push_back(*k);
  }
  if (auto attr = ctx.OptInts("kernel_shape"); attr && *attr != kernel) {
    ctx.Invalid("kernel_shape " + SymTensor::FromInts(*attr, {}, DataType::Int(64)).ToString() +
                " differs from the weight's kernel dims " +
                SymTensor::FromInts(kernel, {}, DataType::Int(64)).ToString());
  }
  return kernel;
}

// Bias input `i` (C,) broadcast over the channel axis of a rank-`rank` NC... tensor; a
// constant bias is reshaped here rather than by an op.
Expr AddChannelBias(NodeContext& ctx, const Expr& y, size_t i, int rank) {
  std::vector<int64_t> axes = {0};
  for (int a = 2; a < rank; ++a) axes.push_back(a);
  Expr b;
  if (std::optional<HostTensor> c = ctx.Constant(i); c && c->shape().size() == 1) {
    std::vector<int64_t> shape(rank, 1);
    shape[1] = c->shape()[0];
    HostTensor reshaped(c->dtype(), shape);
    if (c->nbytes() > 0) std::memcpy(reshaped.data(), c->data(), c->nbytes());
    b = relax::Constant(reshaped);
  } else {
    b = ctx.Call("expand_dims", {ctx.Input(i)}, relax::Attrs().Set("axis", axes));
  }
  return ctx.Call("add", {y, b});
}

Outputs Conv(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  RequireSpatialRank(ctx, rank - 2);
  std::vector<PrimExpr> x_shape = ctx.RequireShape(0), w_shape = ctx.RequireShape(1);
  if (static_cast<int>(w_shape.size()) != rank) {
    ctx.Invalid("the weight is " + std::to_string(w_shape.size()) + "-D, the input " +
                std::to_string(rank) + "-D");
  }
  Window w = ReadWindow(ctx, KernelFromWeight(ctx, w_shape), Spatial(x_shape));
  int64_t group = ctx.Int("group", 1);
  Expr x = ctx.Input(0), weight = ctx.Input(1);
  if (rank == 3) {
    x = ctx.Call("expand_dims", {x}, relax::Attrs().Set("axis", {2}));
    weight = ctx.Call("expand_dims", {weight}, relax::Attrs().Set("axis", {2}));
  }
  relax::Attrs attrs;
  attrs.Set("strides", Window::To2D(w.strides, 1))
      .Set("padding", w.Padding2D())
      .Set("dilation", Window::To2D(w.dilations, 1))
      .Set("groups", group);
  DataType dtype = ctx.InputDType(0);
  bool widen = Is16BitFloat(dtype);
  if (widen) attrs.Set("out_dtype", DataType::Float(32));  // sums in float32, then rounded
  Expr y = ctx.Call("nn.conv2d", {x, weight}, attrs);
  if (widen) y = AsType(ctx, y, dtype);
  if (rank == 3) y = ctx.Call("squeeze", {y}, relax::Attrs().Set("axis", {2}));
  if (ctx.HasInput(2)) y = AddChannelBias(ctx, y, 2, rank);
  return {y};
}

Outputs ConvTranspose(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  RequireSpatialRank(ctx, rank - 2);
  std::vector<PrimExpr> x_shape = ctx.RequireShape(0), w_shape = ctx.RequireShape(1);
  if (static_cast<int>(w_shape.size()) != rank) {
    ctx.Invalid("the weight is " + std::to_string(w_shape.size()) + "-D, the input " +
                std::to_string(rank) + "-D");
  }
  std::vector<int64_t> kernel = KernelFromWeight(ctx, w_shape);
  size_t n = kernel.size();
  std::string auto_pad = ctx.String("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> output_shape = ctx.OptInts("output_shape");
  std::vector<int64_t> out_pad = ctx.Ints("output_padding", std::vector<int64_t>(n, 0));
  if (out_pad.size() != n) ctx.Invalid("output_padding needs one value per spatial axis");
  for (int64_t p : out_pad) {
    if (p < 0 || p > (int64_t{1} << 31)) ctx.Invalid("output_padding " + std::to_string(p));
  }
  Window w;
  if (output_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // Pads follow from the requested output size.
    w = ReadWindow(ctx, kernel, Spatial(x_shape), true);
    ctx.Ignore("pads");
    std::vector<int64_t> target;
    if (output_shape) {
      target = *output_shape;
      if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);
      if (target.size() != n) ctx.Invalid("output_shape needs one value per spatial axis");
    }
    w.pads.assign(2 * n, 0);
    for (size_t i = 0; i < n; ++i) {
      auto in = AsConstInt(x_shape[2 + i]);
      if (!in) ctx.Unsupported("output_shape or auto_pad SAME over a symbolic spatial dim");
      if (output_shape && (target[i] < 0 || target[i] > (int64_t{1} << 40))) {
        ctx.Invalid("output_shape " + std::to_string(target[i]) + " is out of range");
      }
      int64_t want = output_shape ? target[i] : *in * w.strides[i];
      int64_t total =
          w.strides[i] * (*in - 1) + out_pad[i] + (kernel[i] - 1) * w.dilations[i] + 1 - want;
      if (total < 0) {
        // A larger output than the window covers: the excess comes from output padding.
        out_pad[i] -= total;
        total = 0;
      }
      bool upper = auto_pad == "SAME_UPPER";
      w.pads[i] = upper ? total / 2 : total - total / 2;
      w.pads[i + n] = upper ? total - total / 2 : total / 2;
    }
  } else {
    w = ReadWindow(ctx, kernel, Spatial(x_shape), true);
  }
  Expr x = ctx.Input(0), weight = ctx.Input(1);
  if (rank == 3) {
    x = ctx.Call("expand_dims", {x}, relax::Attrs().Set("axis", {2}));
    weight = ctx.Call("expand_dims", {weight}, relax::Attrs().Set("axis", {2}));
  }
  relax::Attrs attrs;
  attrs.Set("strides", Window::To2D(w.strides, 1))
      .Set("padding", w.Padding2D())
      .Set("output_padding", Window::To2D(out_pad, 0))
      .Set("dilation", Window::To2D(w.dilations, 1))
      .Set("groups", ctx.Int("group", 1));
  Expr y = ctx.Call("nn.conv2d_transpose", {x, weight}, attrs);
  if (rank == 3) y = ctx.Call("squeeze", {y}, relax::Attrs().Set("axis", {2}));
  if (ctx.HasInput(2)) y = AddChannelBias(ctx, y, 2, rank);
  return {y};
}

Outputs BatchNormalization(NodeContext& ctx) {
  ctx.Ignore("momentum");
  ctx.Ignore("consumed_inputs");
  ctx.Ignore("is_test");
  if (ctx.Int("spatial", 1) != 1) ctx.Unsupported("spatial=0 (per-activation statistics)");
  if (ctx.Int("training_mode", 0) != 0) {
    ctx.Unsupported("training_mode=1 (batch statistics and running-mean updates)");
  }
  RequireFloatInput(ctx, 0);
  relax::Attrs attrs;
  attrs.Set("axis", 1).Set("epsilon", ctx.Float("epsilon", 1e-5));
  attrs.Set("momentum", ctx.Float("momentum", 0.9)).Set("training", false);
  Expr bn = ctx.Call("nn.batch_norm",
                     {ctx.Input(0), ctx.Input(1), ctx.Input(2), ctx.Input(3), ctx.Input(4)}, attrs);
  return {ctx.Emit(relax::TupleGetItem(bn, 0))};
}

// Mean over `axes` (keepdims) and 1 / sqrt(variance + eps), for the norms composed here.
std::pair<Expr, Expr> MeanAndInvStd(NodeContext& ctx, const Expr& x,
                                    const std::vector<int64_t>& axes, double eps, DataType dtype) {
  Expr mean = ctx.Call("mean", {x}, AxisAttrs(axes, true));
  Expr var = ctx.Call("variance", {x}, AxisAttrs(axes, true));
  Expr inv = ctx.Call("rsqrt", {ctx.Call("add", {var, ctx.Scalar(eps, dtype)})});
  return {mean, inv};
}

Outputs InstanceNormalization(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  if (rank < 3) ctx.Invalid("the input needs batch, channel and spatial axes");
  double eps = ctx.Float("epsilon", 1e-5);
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  if (auto channels = AsConstInt(shape[1])) {
    relax::Attrs attrs;
    attrs.Set("num_groups", *channels).Set("channel_axis", 1).Set("epsilon", eps);
    return {ctx.Call("nn.group_norm", {ctx.Input(0), ctx.Input(1), ctx.Input(2)}, attrs)};
  }
  std::vector<int64_t> axes;
  for (int i = 2; i < rank; ++i) axes.push_back(i);
  Expr x = ctx.Input(0);
  auto [mean, inv] = MeanAndInvStd(ctx, x, axes, eps, ctx.InputDType(0));
  Expr y = ctx.Call("multiply", {ctx.Call("subtract", {x, mean}), inv});
  std::vector<int64_t> param_axes = {0};
  for (int i = 2; i < rank; ++i) param_axes.push_back(i);
  relax::Attrs expand = relax::Attrs().Set("axis", param_axes);
  y = ctx.Call("multiply", {y, ctx.Call("expand_dims", {ctx.Input(1)}, expand)});
  return {ctx.Call("add", {y, ctx.Call("expand_dims", {ctx.Input(2)}, expand)})};
}

Outputs LayerNormalization(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", -1), rank);
  double eps = ctx.Float("epsilon", 1e-5);
  int64_t stash = ctx.Int("stash_type", 1);
  if (stash != 1) ctx.Unsupported("stash_type " + std::to_string(stash) + " (only 1, float32)");
  std::vector<int64_t> axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  DataType dtype = ctx.InputDType(0);
  Expr x = ctx.Input(0), scale = ctx.Input(1);
  Expr bias = ctx.HasInput(2) ? ctx.Input(2) : Expr();
  bool want_stats = (ctx.node().outputs.size() > 1 && !ctx.node().outputs[1].empty()) ||
                    (ctx.node().outputs.size() > 2 && !ctx.node().outputs[2].empty());
  // The fused op needs scale and bias shaped exactly as the normalized dims.
  auto x_shape = ctx.InputShape(0);
  auto s_shape = ctx.InputShape(1);
  bool exact = x_shape && s_shape && s_shape->size() == axes.size();
  for (size_t i = 0; exact && i < axes.size(); ++i) {
    exact = relax::ProveDimEqual((*s_shape)[i], (*x_shape)[axes[i]]);
  }
  if (exact && bias.defined()) {
    auto b_shape = ctx.InputShape(2);
    exact = b_shape && b_shape->size() == s_shape->size();
    for (size_t i = 0; exact && i < s_shape->size(); ++i) {
      exact = relax::ProveDimEqual((*b_shape)[i], (*s_shape)[i]);
    }
  }
  if (exact && !want_stats) {
    if (!bias.defined()) bias = ctx.Call("zeros_like", {scale});
    relax::Attrs attrs = relax::Attrs().Set("axes", axes).Set("epsilon", eps);
    return {ctx.Call("nn.layer_norm", {x, scale, bias}, attrs)};
  }
  auto [mean, inv] = MeanAndInvStd(ctx, x, axes, eps, dtype);
  Expr y =
      ctx.Call("multiply", {ctx.Call("multiply", {ctx.Call("subtract", {x, mean}), inv}), scale});
  if (bias.defined()) y = ctx.Call("add", {y, bias});
  return {y, mean, inv};
}

// GroupNormalization: version 18 scales and shifts per group, version 21 per channel (and says
// in stash_type which precision the statistics are computed in).
Outputs GroupNormalization(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  if (rank < 3) ctx.Invalid("the input needs batch, channel and spatial axes");
  std::optional<int64_t> groups = ctx.OptInt("num_groups");
  if (!groups || *groups < 1) ctx.Invalid("attribute 'num_groups' (a positive int) is required");
  double eps = ctx.Float("epsilon", 1e-5);
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  auto channels = AsConstInt(shape[1]);
  if (!channels) ctx.Unsupported("a symbolic channel dim");
  if (*channels % *groups != 0) {
    ctx.Invalid(std::to_string(*channels) + " channels do not split into " +
                std::to_string(*groups) + " groups");
  }
  DataType dtype = ctx.InputDType(0);
  int64_t stash = ctx.version() >= 21 ? ctx.Int("stash_type", 1) : 1;
  if (stash != 1) ctx.Unsupported("stash_type " + std::to_string(stash) + " (only 1, float32)");
  Expr x = ctx.Input(0), scale = ctx.Input(1), bias = ctx.Input(2);
  if (ctx.version() < 21) {
    // One scale and bias per group: repeat each over the group's channels.
    int64_t per = *channels / *groups;
    auto per_channel = [&](const Expr& v) {
      Expr col = ReshapeTo(ctx, v, {relax::DimConst(*groups), relax::DimConst(1)});
      Expr rep =
          ctx.Call("broadcast_to",
                   {col, relax::ShapeExpr({relax::DimConst(*groups), relax::DimConst(per)})});
      return ReshapeTo(ctx, rep, {relax::DimConst(*channels)});
    };
    scale = per_channel(scale);
    bias = per_channel(bias);
  }
  DataType f32 = DataType::Float(32);
  bool widen = dtype != f32 && dtype.bits() < 32;
  auto as = [&](const Expr& v, DataType d) {
    return ctx.Call("astype", {v}, relax::Attrs().Set("dtype", d));
  };
  if (widen) {
    x = as(x, f32);
    scale = as(scale, f32);
    bias = as(bias, f32);
  }
  relax::Attrs attrs;
  attrs.Set("num_groups", *groups).Set("channel_axis", 1).Set("epsilon", eps);
  Expr y = ctx.Call("nn.group_norm", {x, scale, bias}, attrs);
  return {widen ? as(y, dtype) : y};
}

// RMSNormalization (version 23): x / sqrt(mean(x^2) + epsilon) * scale over the axes from
// `axis` on, the statistics in float32 (stash_type 1).
Outputs RMSNormalization(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", -1), rank);
  double eps = ctx.Float("epsilon", 1e-5);
  int64_t stash = ctx.Int("stash_type", 1);
  if (stash != 1) ctx.Unsupported("stash_type " + std::to_string(stash) + " (only 1, float32)");
  DataType dtype = ctx.InputDType(0), f32 = DataType::Float(32);
  std::vector<int64_t> axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  Expr x = ctx.Input(0);
  if (dtype != f32) x = ctx.Call("astype", {x}, relax::Attrs().Set("dtype", f32));
  Expr ms = ctx.Call("mean", {ctx.Call("multiply", {x, x})}, AxisAttrs(axes, true));
  Expr inv = ctx.Call("rsqrt", {ctx.Call("add", {ms, ctx.Scalar(eps, f32)})});
  Expr y = ctx.Call("multiply", {x, inv});
  if (dtype != f32) y = ctx.Call("astype", {y}, relax::Attrs().Set("dtype", dtype));
  return {ctx.Call("multiply", {y, ctx.Input(1)})};
}

// LpNormalization: x divided by its L1 or L2 norm along `axis`.
Outputs LpNormalization(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", -1), rank);
  int64_t p = ctx.Int("p", 2);
  if (p != 1 && p != 2) ctx.Invalid("p is " + std::to_string(p) + ", not 1 or 2");
  Expr x = ctx.Input(0);
  relax::Attrs attrs = AxisAttrs({axis}, true);
  Expr norm = p == 1 ? ctx.Call("sum", {ctx.Call("abs", {x})}, attrs)
                     : ctx.Call("sqrt", {ctx.Call("sum", {ctx.Call("multiply", {x, x})}, attrs)});
  // A zero norm means a zero vector, which stays zero (not 0 / 0).
  Expr safe = ctx.Call("where", {ctx.Call("equal", {norm, ctx.Scalar(0, ctx.InputDType(0))}),
                                 ctx.Scalar(1, ctx.InputDType(0)), norm});
  return {ctx.Call("divide", {x, safe})};
}

// Softmax, LogSoftmax and Hardmax along one axis of `x`.
Expr AlongAxis(NodeContext& ctx, const std::string& op, const Expr& x, int axis, int rank) {
  if (op == "Hardmax") {
    std::vector<PrimExpr> shape = ctx.RequireShape(0);
    DataType dtype = ctx.InputDType(0);
    Expr best = ctx.Call("argmax", {x}, relax::Attrs().Set("axis", axis).Set("keepdims", true));
    // Compare the argmax with the positions along the axis: exactly the first maximum is 1.
    Expr positions = ctx.Call("arange", {relax::PrimValue(shape[axis])},
                              relax::Attrs().Set("dtype", DataType::Int(64)));
    std::vector<PrimExpr> dims(rank, relax::DimConst(1));
    dims[axis] = shape[axis];
    positions = ReshapeTo(ctx, positions, dims);
    return ctx.Call("astype", {ctx.Call("equal", {best, positions})},
                    relax::Attrs().Set("dtype", dtype));
  }
  DataType dtype = ctx.InputDType(0);
  bool widen = Is16BitFloat(dtype);  // the sum of exponentials in float32, then rounded
  Expr y =
      ctx.Call(op == "Softmax" ? "nn.softmax" : "nn.log_softmax",
               {widen ? AsType(ctx, x, DataType::Float(32)) : x}, relax::Attrs().Set("axis", axis));
  return widen ? AsType(ctx, y, dtype) : y;
}

Outputs SoftmaxFamily(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  if (rank == 0) ctx.Invalid("the input must have at least one dim");
  Expr x = ctx.Input(0);
  if (ctx.version() >= 13) {
    int axis = NormalizeAxis(ctx, ctx.Int("axis", -1), rank);
    return {AlongAxis(ctx, op, x, axis, rank)};
  }
  // Before opset 13 the input is seen as 2-D: dims before `axis` and from `axis` on.
  int axis = NormalizeAxis(ctx, ctx.Int("axis", 1), rank);
  if (axis == rank - 1) return {AlongAxis(ctx, op, x, axis, rank)};
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  std::vector<PrimExpr> outer(shape.begin(), shape.begin() + axis);
  std::vector<PrimExpr> inner(shape.begin() + axis, shape.end());
  Expr flat = ReshapeTo(ctx, x, {relax::DimProduct(outer), relax::DimProduct(inner)});
  Expr y;
  if (op == "Hardmax") {
    DataType dtype = ctx.InputDType(0);
    Expr best = ctx.Call("argmax", {flat}, relax::Attrs().Set("axis", 1).Set("keepdims", true));
    Expr positions = ctx.Call("arange", {relax::PrimValue(relax::DimProduct(inner))},
                              relax::Attrs().Set("dtype", DataType::Int(64)));
    positions = ReshapeTo(ctx, positions, {relax::DimConst(1), relax::DimProduct(inner)});
    y = ctx.Call("astype", {ctx.Call("equal", {best, positions})},
                 relax::Attrs().Set("dtype", dtype));
  } else {
    y = AlongAxis(ctx, op, flat, 1, 2);
  }
  return {ReshapeTo(ctx, y, shape)};
}

Outputs LRN(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  if (rank < 3) ctx.Invalid("the input needs batch, channel and spatial axes");
  std::optional<int64_t> size = ctx.OptInt("size");
  if (!size || *size < 1) ctx.Invalid("attribute 'size' (a positive int) is required");
  double alpha = ctx.Float("alpha", 1e-4), beta = ctx.Float("beta", 0.75);
  double bias = ctx.Float("bias", 1.0);
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  DataType dtype = ctx.InputDType(0);
  Expr x = ctx.Input(0);
  // The sum of squares over a window of channels, as an average pool over a (C, rest) view.
  std::vector<PrimExpr> rest(shape.begin() + 2, shape.end());
  Expr sq = ctx.Call("multiply", {x, x});
  sq = ReshapeTo(ctx, sq, {shape[0], relax::DimConst(1), shape[1], relax::DimProduct(rest)});
  int64_t before = (*size - 1) / 2, after = *size - 1 - before;
  relax::Attrs pool;
  pool.Set("pool_size", {*size, 1})
      .Set("padding", {before, 0, after, 0})
      .Set("count_include_pad", true);
  Expr sum = ctx.Call("nn.avg_pool2d", {sq}, pool);
  sum = ReshapeTo(ctx, sum, shape);
  // x / (bias + alpha / size * sum)^beta, where avg = sum / size already.
  Expr denom = ctx.Call(
      "add", {ctx.Scalar(bias, dtype), ctx.Call("multiply", {sum, ctx.Scalar(alpha, dtype)})});
  denom = ctx.Call("power", {denom, ctx.Scalar(beta, dtype)});
  return {ctx.Call("divide", {x, denom})};
}

Outputs MeanVarianceNormalization(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  std::vector<int64_t> axes = ctx.Ints("axes", {0, 2, 3});
  for (int64_t& a : axes) a = NormalizeAxis(ctx, a, rank, "axes entry");
  DataType dtype = ctx.InputDType(0);
  Expr x = ctx.Input(0);
  Expr mean = ctx.Call("mean", {x}, AxisAttrs(axes, true));
  Expr var = ctx.Call("variance", {x}, AxisAttrs(axes, true));
  Expr std = ctx.Call("add", {ctx.Call("sqrt", {var}), ctx.Scalar(1e-9, dtype)});
  return {ctx.Call("divide", {ctx.Call("subtract", {x, mean}), std})};
}

}  // namespace

void RegisterNNConverters(ConverterTable& t) {
  // Version 22 of Conv, ConvTranspose and InstanceNormalization added bfloat16 only.
  t.Add("Conv", 1, Conv, 22);
  t.Add("ConvTranspose", 1, ConvTranspose, 22);
  t.Add("BatchNormalization", 7, BatchNormalization);
  t.Add("InstanceNormalization", 6, InstanceNormalization, 22);
  t.Add("GroupNormalization", 18, GroupNormalization, 21);
  t.Add("RMSNormalization", 23, RMSNormalization, 23);
  t.Add("LpNormalization", 1, LpNormalization, 22);
  t.Add("LayerNormalization", 17, LayerNormalization);
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) t.Add(op, 1, SoftmaxFamily);
  t.Add("LRN", 1, LRN);
  t.Add("MeanVarianceNormalization", 9, MeanVarianceNormalization);
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    t.AddUnsupported(op, "recurrent layers are not supported (no scan in Kiln's Relax ops)");
  }
}

}  // namespace kiln::ir::frontend::onnx
