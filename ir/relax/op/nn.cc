// Neural network ops (R.nn.*): convolution (also transposed) and pooling in NCHW with symbolic
// spatial dims, padding, normalizations, softmax, dropout. Attributes are TVM's (names, order,
// defaults of its Python API, meaning); a value Kiln cannot honour is a kUnsupported error
// naming the op, the attribute and the value: a layout other than NCHW (out_layout included),
// batch_norm's training=True (TVM's default; Kiln computes inference, with the moving
// statistics), a group_norm over other axes than the group's.
#include <algorithm>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

const TensorStructInfoNode* TensorOfRank(const OpCall& call, size_t i, int rank,
                                         const char* layout) {
  const TensorStructInfoNode* t = TensorArg(call, i);
  if (!t->unknown_ndim() && t->ndim != rank) {
    Fail(call, "argument " + std::to_string(i) + " must be " + std::to_string(rank) + "-D (" +
                   layout + "), got " + std::to_string(t->ndim) + "-D " +
                   call.args[i].struct_info().ToString());
  }
  return t;
}

void RequireLayout(const OpCall& call, const std::string& attr, const std::string& supported) {
  // An absent out_layout is the input's, as in TVM.
  if (!call.attrs.Has(attr)) return;
  const std::string& layout = call.attrs.GetString(attr);
  if (layout != supported) {
    throw Error(ErrorKind::kUnsupported, call.op + ": " + attr + " \"" + layout +
                                             "\" is not supported (only \"" + supported + "\")");
  }
}

// (top, left, bottom, right) from 1, 2 or 4 values.
std::vector<int64_t> Padding4(const OpCall& call) {
  std::vector<int64_t> p = call.attrs.GetInts("padding");
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  if (p.size() == 4) return p;
  Fail(call, "attribute 'padding' needs 1, 2 or 4 values, got " + IntsToString(p));
}

// (in + pad_total - dilation * (kernel - 1) - 1) // stride + 1, rounded up with ceil_mode;
// then a last window that would start in the end padding is dropped (as ONNX and PyTorch
// define it): every window starts before in + pad_before.
PrimExpr WindowOutput(const OpCall& call, const char* what, const PrimExpr& in,
                      const PrimExpr& kernel, int64_t pad_before, int64_t pad_total, int64_t stride,
                      int64_t dilation, bool ceil_mode) {
  if (stride < 1 || dilation < 1) {
    Fail(call, "strides and dilation must be positive, got stride " + std::to_string(stride) +
                   " and dilation " + std::to_string(dilation));
  }
  PrimExpr span =
      in + DimConst(pad_total) - DimConst(dilation) * (kernel - DimConst(1)) - DimConst(1);
  if (ceil_mode) span = span + DimConst(stride - 1);
  PrimExpr out = FloorDiv(span, DimConst(stride)) + DimConst(1);
  if (ceil_mode) {
    out = Min(out, FloorDiv(in + DimConst(pad_before - 1), DimConst(stride)) + DimConst(1));
  }
  out = SimplifyDim(out);
  if (auto v = AsConstInt(out); v && *v < 1) {
    Fail(call, std::string(what) + " " + DimToString(SimplifyDim(in)) + " with padding " +
                   std::to_string(pad_total) + " is smaller than the kernel " +
                   DimToString(SimplifyDim(kernel)) + " (dilation " + std::to_string(dilation) +
                   ")");
  }
  return out;
}

StructInfo InferConv2d(const OpCall& call) {
  RequireLayout(call, "data_layout", "NCHW");
  RequireLayout(call, "kernel_layout", "OIHW");
  RequireLayout(call, "out_layout", "NCHW");
  const TensorStructInfoNode* x = TensorOfRank(call, 0, 4, "NCHW");
  const TensorStructInfoNode* w = TensorOfRank(call, 1, 4, "OIHW");
  DataType dtype = CommonDType(call, x->dtype, w->dtype);
  if (const AttrValue* out = call.attrs.Find("out_dtype")) dtype = std::get<DataType>(*out);
  std::vector<int64_t> strides = IntsOfLength(call, "strides", 2);
  std::vector<int64_t> dilation = IntsOfLength(call, "dilation", 2);
  std::vector<int64_t> pad = Padding4(call);
  int64_t groups = call.attrs.GetInt("groups");
  if (groups < 1) Fail(call, "groups must be positive, got " + std::to_string(groups));
  if (!x->shape || !w->shape) return TensorStructInfo(dtype, 4);
  const std::vector<PrimExpr>& xs = *x->shape;
  const std::vector<PrimExpr>& ws = *w->shape;
  PrimExpr weight_in = SimplifyDim(ws[1] * DimConst(groups));
  if (ProveDimNotEqual(xs[1], weight_in)) {
    Fail(call, "input channels " + DimToString(xs[1]) + " differ from weight in-channels " +
                   DimToString(ws[1]) + " * groups " + std::to_string(groups) + " (data " +
                   DimsToString(xs) + ", weight " + DimsToString(ws) + ")");
  }
  if (auto o = AsConstInt(ws[0]); o && *o % groups != 0) {
    Fail(call, "output channels " + std::to_string(*o) + " are not divisible by groups " +
                   std::to_string(groups));
  }
  PrimExpr h = WindowOutput(call, "input height", xs[2], ws[2], pad[0], pad[0] + pad[2], strides[0],
                            dilation[0], false);
  PrimExpr wd = WindowOutput(call, "input width", xs[3], ws[3], pad[1], pad[1] + pad[3], strides[1],
                             dilation[1], false);
  return TensorStructInfo({xs[0], ws[0], h, wd}, dtype);
}

// Weight in IOHW: (in_channels, out_channels / groups, kh, kw), as ONNX ConvTranspose.
StructInfo InferConv2dTranspose(const OpCall& call) {
  RequireLayout(call, "data_layout", "NCHW");
  RequireLayout(call, "kernel_layout", "IOHW");
  RequireLayout(call, "out_layout", "NCHW");
  const TensorStructInfoNode* x = TensorOfRank(call, 0, 4, "NCHW");
  const TensorStructInfoNode* w = TensorOfRank(call, 1, 4, "IOHW");
  DataType dtype = CommonDType(call, x->dtype, w->dtype);
  if (const AttrValue* out = call.attrs.Find("out_dtype")) dtype = std::get<DataType>(*out);
  std::vector<int64_t> strides = IntsOfLength(call, "strides", 2);
  std::vector<int64_t> dilation = IntsOfLength(call, "dilation", 2);
  std::vector<int64_t> out_pad = IntsOfLength(call, "output_padding", 2);
  std::vector<int64_t> pad = Padding4(call);
  int64_t groups = call.attrs.GetInt("groups");
  if (groups < 1) Fail(call, "groups must be positive, got " + std::to_string(groups));
  if (!x->shape || !w->shape) return TensorStructInfo(dtype, 4);
  const std::vector<PrimExpr>& xs = *x->shape;
  const std::vector<PrimExpr>& ws = *w->shape;
  if (ProveDimNotEqual(xs[1], ws[0])) {
    Fail(call, "input channels " + DimToString(xs[1]) + " differ from weight in-channels " +
                   DimToString(ws[0]) + " (data " + DimsToString(xs) + ", weight " +
                   DimsToString(ws) + ")");
  }
  std::vector<PrimExpr> out = {xs[0], SimplifyDim(ws[1] * DimConst(groups))};
  for (int i = 0; i < 2; ++i) {
    PrimExpr dim = (xs[2 + i] - DimConst(1)) * DimConst(strides[i]) -
                   DimConst(pad[i] + pad[i + 2]) +
                   DimConst(dilation[i]) * (ws[2 + i] - DimConst(1)) + DimConst(out_pad[i] + 1);
    out.push_back(SimplifyDim(dim));
  }
  return TensorStructInfo(out, dtype);
}

StructInfo InferPool2d(const OpCall& call) {
  RequireLayout(call, "layout", "NCHW");
  RequireLayout(call, "out_layout", "NCHW");
  const TensorStructInfoNode* x = TensorOfRank(call, 0, 4, "NCHW");
  std::vector<int64_t> size = IntsOfLength(call, "pool_size", 2);
  std::vector<int64_t> strides = IntsOfLength(call, "strides", 2);
  std::vector<int64_t> dilation = IntsOfLength(call, "dilation", 2);
  std::vector<int64_t> pad = Padding4(call);
  bool ceil_mode = call.attrs.GetBool("ceil_mode");
  if (!x->shape) return TensorStructInfo(x->dtype, 4);
  const std::vector<PrimExpr>& xs = *x->shape;
  PrimExpr h = WindowOutput(call, "input height", xs[2], DimConst(size[0]), pad[0], pad[0] + pad[2],
                            strides[0], dilation[0], ceil_mode);
  PrimExpr w = WindowOutput(call, "input width", xs[3], DimConst(size[1]), pad[1], pad[1] + pad[3],
                            strides[1], dilation[1], ceil_mode);
  return TensorStructInfo({xs[0], xs[1], h, w}, x->dtype);
}

StructInfo InferAdaptivePool2d(const OpCall& call) {
  RequireLayout(call, "layout", "NCHW");
  RequireLayout(call, "out_layout", "NCHW");
  const TensorStructInfoNode* x = TensorOfRank(call, 0, 4, "NCHW");
  if (!x->shape) return TensorStructInfo(x->dtype, 4);
  const std::vector<PrimExpr>& xs = *x->shape;
  if (!call.attrs.Has("output_size")) return call.args[0].struct_info();
  std::vector<int64_t> size = IntsOfLength(call, "output_size", 2);
  return TensorStructInfo({xs[0], xs[1], DimConst(size[0]), DimConst(size[1])}, x->dtype);
}

StructInfo InferGlobalPool2d(const OpCall& call) {
  RequireLayout(call, "layout", "NCHW");
  const TensorStructInfoNode* x = TensorOfRank(call, 0, 4, "NCHW");
  if (!x->shape) return TensorStructInfo(x->dtype, 4);
  return TensorStructInfo({(*x->shape)[0], (*x->shape)[1], DimConst(1), DimConst(1)}, x->dtype);
}

// Checks that argument `i` has the dims `expected` (the data's dims on the normalized axes).
void RequireParamShape(const OpCall& call, size_t i, const char* what,
                       const std::vector<PrimExpr>& expected, DataType dtype) {
  const TensorStructInfoNode* p = TensorArg(call, i);
  CommonDType(call, dtype, p->dtype);
  if (!p->shape) return;
  bool ok = p->shape->size() == expected.size();
  for (size_t k = 0; ok && k < expected.size(); ++k) {
    ok = !ProveDimNotEqual((*p->shape)[k], expected[k]);
  }
  if (!ok) {
    Fail(call, std::string(what) + " has shape " + DimsToString(*p->shape) + ", expected " +
                   DimsToString(expected));
  }
}

StructInfo InferNorm(const OpCall& call, std::vector<int64_t> axes,
                     const std::vector<const char*>& param_names) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  RequireFloat(call, x, 0);
  if (x->unknown_ndim()) return call.args[0].struct_info();
  std::vector<int> norm_axes = NormalizeAxes(call, axes, x->ndim);
  std::vector<PrimExpr> expected;
  if (x->shape) {
    for (int a : norm_axes) expected.push_back((*x->shape)[a]);
    for (size_t i = 1; i < call.args.size(); ++i) {
      RequireParamShape(call, i, param_names[i - 1], expected, x->dtype);
    }
  }
  return call.args[0].struct_info();
}

StructInfo InferBatchNorm(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  RequireFloat(call, x, 0);
  if (call.attrs.GetBool("training")) {
    throw Error(ErrorKind::kUnsupported,
                call.op +
                    ": training=True is not supported (TVM's default when the attribute is "
                    "left out): Kiln computes batch_norm for inference, from the moving "
                    "mean and variance; write training=False");
  }
  static const std::vector<const char*> kNames = {"gamma", "beta", "moving_mean", "moving_var"};
  InferNorm(call, {call.attrs.GetInt("axis")}, kNames);
  return TupleStructInfo(
      {call.args[0].struct_info(), call.args[3].struct_info(), call.args[4].struct_info()});
}

StructInfo InferGroupNorm(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  RequireFloat(call, x, 0);
  int64_t groups = call.attrs.GetInt("num_groups");
  if (groups < 1) Fail(call, "num_groups must be positive, got " + std::to_string(groups));
  if (x->unknown_ndim()) return call.args[0].struct_info();
  int axis = NormalizeAxis(call, call.attrs.GetInt("channel_axis"), x->ndim);
  if (!x->shape) return call.args[0].struct_info();
  const PrimExpr& channels = (*x->shape)[axis];
  if (auto c = AsConstInt(channels); c && *c % groups != 0) {
    Fail(call, "channels " + std::to_string(*c) + " are not divisible by num_groups " +
                   std::to_string(groups));
  }
  RequireParamShape(call, 1, "gamma", {channels}, x->dtype);
  RequireParamShape(call, 2, "beta", {channels}, x->dtype);
  // TVM names the reduced axes; Kiln reduces the group's channels and every axis but the batch
  // (axis 0 unless it holds the channels), which is what TVM's front ends write.
  if (const AttrValue* given = call.attrs.Find("axes")) {
    std::vector<int> axes = NormalizeAxes(call, std::get<std::vector<int64_t>>(*given), x->ndim);
    std::vector<int> expected;
    for (int d = 0; d < x->ndim; ++d) {
      if (d != axis && !(axis != 0 && d == 0)) expected.push_back(d);
    }
    std::sort(axes.begin(), axes.end());
    if (axes != expected) {
      std::vector<int64_t> want(expected.begin(), expected.end());
      throw Error(ErrorKind::kUnsupported,
                  call.op + ": axes=" + AttrValueToString(*given) +
                      " is not supported: Kiln normalizes over the axes " + IntsToString(want) +
                      " besides the channel group (channel_axis " + std::to_string(axis) + ")");
    }
  }
  return call.args[0].struct_info();
}

// pad_width holds (before, after) for each axis: [b0, a0, b1, a1, ...].
StructInfo InferPad(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const std::vector<int64_t>& width = call.attrs.GetInts("pad_width");
  const std::string& mode = call.attrs.GetString("pad_mode");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    Fail(call, "pad_mode \"" + mode + "\" is not one of constant, edge, reflect");
  }
  if (x->unknown_ndim()) return call.args[0].struct_info();
  if (width.size() != 2 * static_cast<size_t>(x->ndim)) {
    Fail(call, "pad_width " + IntsToString(width) + " needs 2 values per axis of a " +
                   std::to_string(x->ndim) + "-D tensor");
  }
  if (!x->shape) return call.args[0].struct_info();
  std::vector<PrimExpr> out;
  for (int i = 0; i < x->ndim; ++i) {
    out.push_back((*x->shape)[i] + DimConst(width[2 * i] + width[2 * i + 1]));
  }
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferSoftmax(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  RequireFloat(call, x, 0);
  if (!x->unknown_ndim()) NormalizeAxis(call, call.attrs.GetInt("axis"), x->ndim);
  return call.args[0].struct_info();
}

StructInfo InferDropout(const OpCall& call) {
  TensorArg(call, 0);
  double rate = call.attrs.GetFloat("rate");
  if (rate < 0 || rate >= 1) Fail(call, "rate must be in [0, 1), got " + AttrValueToString(rate));
  return TupleStructInfo({call.args[0].struct_info(), call.args[0].struct_info()});
}

AttrSpec Ints(const char* name, std::vector<int64_t> value) {
  return {name, AttrType::kIntList, AttrValue(std::move(value))};
}
AttrSpec Str(const char* name, const char* value) {
  return {name, AttrType::kString, AttrValue(std::string(value))};
}

}  // namespace

void RegisterNNOps(OpRegistry& r) {
  r.Register(OpInfo{"nn.conv2d",
                    2,
                    2,
                    {Ints("strides", {1, 1}),
                     Ints("padding", {0, 0, 0, 0}),
                     Ints("dilation", {1, 1}),
                     {"groups", AttrType::kInt, AttrValue(int64_t{1})},
                     Str("data_layout", "NCHW"),
                     Str("kernel_layout", "OIHW"),
                     Str("out_layout", "NCHW"),
                     {"out_dtype", AttrType::kDType, std::nullopt}},
                    InferConv2d});
  r.Register(OpInfo{"nn.conv2d_transpose",
                    2,
                    2,
                    {Ints("strides", {1, 1}),
                     Ints("padding", {0, 0, 0, 0}),
                     Ints("output_padding", {0, 0}),
                     Ints("dilation", {1, 1}),
                     {"groups", AttrType::kInt, AttrValue(int64_t{1})},
                     Str("data_layout", "NCHW"),
                     Str("kernel_layout", "IOHW"),
                     Str("out_layout", "NCHW"),
                     {"out_dtype", AttrType::kDType, std::nullopt}},
                    InferConv2dTranspose});
  r.Register(OpInfo{"nn.pad",
                    1,
                    1,
                    {{"pad_width", AttrType::kIntList, std::nullopt, true},
                     {"pad_value", AttrType::kFloat, AttrValue(0.0)},
                     Str("pad_mode", "constant")},
                    InferPad});
  // count_include_pad has no effect on max pooling (as in TVM, both pools take it).
  std::vector<AttrSpec> pool = {
      {"pool_size", AttrType::kIntList, AttrValue(std::vector<int64_t>{1, 1})},
      Ints("strides", {1, 1}),
      Ints("dilation", {1, 1}),
      Ints("padding", {0, 0, 0, 0}),
      {"ceil_mode", AttrType::kBool, AttrValue(false)},
      {"count_include_pad", AttrType::kBool, AttrValue(false)},
      Str("layout", "NCHW"),
      Str("out_layout", "NCHW")};
  r.Register(OpInfo{"nn.max_pool2d", 1, 1, pool, InferPool2d});
  r.Register(OpInfo{"nn.avg_pool2d", 1, 1, pool, InferPool2d});
  r.Register(OpInfo{"nn.adaptive_avg_pool2d",
                    1,
                    1,
                    {{"output_size", AttrType::kIntList, std::nullopt},
                     Str("layout", "NCHW"),
                     Str("out_layout", "NCHW")},
                    InferAdaptivePool2d});
  r.Register(OpInfo{"nn.global_avg_pool2d", 1, 1, {Str("layout", "NCHW")}, InferGlobalPool2d});
  AttrSpec epsilon{"epsilon", AttrType::kFloat, AttrValue(1e-5)};
  // center=False leaves beta out, scale=False gamma (TVM's meaning).
  AttrSpec center{"center", AttrType::kBool, AttrValue(true)};
  AttrSpec scale{"scale", AttrType::kBool, AttrValue(true)};
  r.Register(OpInfo{"nn.batch_norm",
                    5,
                    5,
                    {{"axis", AttrType::kInt, AttrValue(int64_t{1})},
                     epsilon,
                     center,
                     scale,
                     {"momentum", AttrType::kFloat, AttrValue(0.1)},
                     {"training", AttrType::kBool, AttrValue(true)}},
                    InferBatchNorm});
  r.Register(OpInfo{"nn.layer_norm",
                    3,
                    3,
                    {{"axes", AttrType::kIntList, std::nullopt, true}, epsilon, center, scale},
                    [](const OpCall& call) {
                      return InferNorm(call, call.attrs.GetInts("axes"), {"gamma", "beta"});
                    }});
  r.Register(OpInfo{"nn.rms_norm", 2, 2, {Ints("axes", {-1}), epsilon}, [](const OpCall& call) {
                      return InferNorm(call, call.attrs.GetInts("axes"), {"weight"});
                    }});
  r.Register(OpInfo{"nn.group_norm",
                    3,
                    3,
                    {{"num_groups", AttrType::kInt, std::nullopt, true},
                     {"channel_axis", AttrType::kInt, AttrValue(int64_t{1})},
                     {"axes", AttrType::kIntList, std::nullopt},
                     epsilon,
                     center,
                     scale},
                    InferGroupNorm});
  AttrSpec axis{"axis", AttrType::kInt, AttrValue(int64_t{-1})};
  r.Register(OpInfo{"nn.softmax", 1, 1, {axis}, InferSoftmax});
  r.Register(OpInfo{"nn.log_softmax", 1, 1, {axis}, InferSoftmax});
  r.Register(
      OpInfo{"nn.dropout", 1, 1, {{"rate", AttrType::kFloat, AttrValue(0.5)}}, InferDropout});
  r.SetPattern({"nn.conv2d", "nn.conv2d_transpose", "nn.max_pool2d", "nn.avg_pool2d",
                "nn.adaptive_avg_pool2d", "nn.global_avg_pool2d", "nn.softmax", "nn.log_softmax",
                "nn.layer_norm", "nn.rms_norm", "nn.group_norm", "nn.batch_norm"},
               OpPattern::kOutEWiseFusable);
  r.SetPattern({"nn.pad"}, OpPattern::kInjective);
}

}  // namespace kiln::ir::relax
