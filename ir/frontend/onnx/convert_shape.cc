// Shapes and creation: Shape and Size (evaluated at import time into symbolic dims), Constant,
// ConstantOfShape, Range, EyeLike, OneHot; and the ops Kiln lists as unsupported with a reason
// (control flow, sequences, optionals, randomness, signal processing).
#include <algorithm>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

Outputs Shape(NodeContext& ctx) {
  int64_t start = ctx.Int("start", 0);
  std::optional<int64_t> end = ctx.OptInt("end");
  auto dims = ctx.InputShape(0);
  relax::StructInfo info = ctx.InputInfo(0);
  const auto* t = info.as<relax::TensorStructInfoNode>();
  if (t == nullptr) ctx.Invalid("the input is not a tensor");
  if (t->unknown_ndim()) {
    if (start != 0 || end) ctx.Unsupported("start/end over a tensor of unknown rank");
    return {ctx.Call("shape_to_tensor", {ctx.Call("shape_of", {ctx.Input(0)})})};
  }
  int64_t rank = t->ndim;
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t b = clamp(start), e = end ? clamp(*end) : rank;
  if (e < b) e = b;
  if (!dims) {
    // Rank known, dims unknown (after a reshape to a run-time shape).
    Expr all = ctx.Call("shape_to_tensor", {ctx.Call("shape_of", {ctx.Input(0)})});
    if (b == 0 && e == rank) return {all};
    relax::Attrs attrs;
    attrs.Set("axes", {0}).Set("begin", {b}).Set("end", {e});
    return {ctx.Call("strided_slice", {all}, attrs)};
  }
  return {SymTensor::Vector(std::vector<PrimExpr>(dims->begin() + b, dims->begin() + e))};
}

Outputs Size(NodeContext& ctx) {
  std::vector<PrimExpr> dims = ctx.RequireShape(0);
  return {SymTensor::Scalar(relax::DimProduct(dims))};
}

HostTensor Scalars(const std::vector<double>& values, DataType dtype, bool scalar) {
  HostTensor t(dtype, scalar ? std::vector<int64_t>{}
                             : std::vector<int64_t>{static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

Outputs Constant(NodeContext& ctx) {
  std::vector<std::string> given;
  for (const OnnxAttribute& a : ctx.node().attributes) given.push_back(a.name);
  if (given.size() != 1) ctx.Invalid("needs exactly one value attribute");
  const std::string& name = given[0];
  if (name == "value") return {*ctx.Tensor("value")};
  if (name == "value_float") return {Scalars({ctx.Float(name, 0)}, DataType::Float(32), true)};
  if (name == "value_int") {
    return {SymTensor::FromInts({ctx.Int(name, 0)}, {}, DataType::Int(64)).ToHostTensor()};
  }
  if (name == "value_floats") {
    std::vector<float> f = ctx.Floats(name);
    return {Scalars(std::vector<double>(f.begin(), f.end()), DataType::Float(32), false)};
  }
  if (name == "value_ints") {
    std::vector<int64_t> v = ctx.Ints(name);
    return {
        SymTensor::FromInts(v, {static_cast<int64_t>(v.size())}, DataType::Int(64)).ToHostTensor()};
  }
  if (name == "value_string" || name == "value_strings") ctx.Unsupported("string constants");
  if (name == "sparse_value") ctx.Unsupported("sparse constants");
  ctx.Invalid("attribute '" + name + "' is not a Constant value attribute");
}

Outputs ConstantOfShape(NodeContext& ctx) {
  DataType dtype = DataType::Float(32);
  double fill = 0;
  if (std::optional<HostTensor> value = ctx.Tensor("value")) {
    if (value->numel() != 1) ctx.Invalid("value must hold one element");
    dtype = value->dtype();
    fill = value->GetDouble(0);
  }
  std::optional<SymTensor> shape = ctx.Known(0);
  if (!shape) {
    ctx.NoteRuntimeShape(0);
    Expr s = ctx.Call("tensor_to_shape", {ctx.Input(0)});
    return {ctx.Call("full", {s}, relax::Attrs().Set("fill_value", fill).Set("dtype", dtype))};
  }
  if (shape->rank() != 1) ctx.Invalid("the shape must be 1-D");
  if (auto dims = shape->ConstValues()) {
    int64_t count = 1;
    for (int64_t d : *dims) {
      if (d < 0) ctx.Invalid("shape " + shape->ToString() + " has a negative dim");
      if (d == 0 || count == 0) {
        count = 0;
      } else {
        count = d > kMaxKnownElements || count * d > kMaxKnownElements ? kMaxKnownElements + 1
                                                                       : count * d;
      }
    }
    if (count <= kMaxKnownElements) {
      HostTensor t(dtype, *dims);
      for (int64_t i = 0; i < t.numel(); ++i) t.SetDouble(i, fill);
      return {t};
    }
  }
  return {ctx.Call("full", {relax::ShapeExpr(shape->elems)},
                   relax::Attrs().Set("fill_value", fill).Set("dtype", dtype))};
}

Outputs Range(NodeContext& ctx) {
  DataType dtype = ctx.InputDType(0);
  if (ctx.version() >= 27) {
    // The precision of float16 and bfloat16 ranges: Kiln computes them in float32 (1).
    int64_t stash = ctx.Int("stash_type", 1);
    if (stash != 1 && dtype.is_float() && dtype.bits() == 16) {
      ctx.Unsupported("stash_type " + std::to_string(stash) + " (only 1, float32)");
    }
  }
  // Bounds known at import time as dims: integers, or integers cast to float (YOLOv8's anchor
  // grid: Range(0.0, Cast(Shape(x)[3]), 1.0)).
  std::optional<SymTensor> k[3];
  bool symbolic = false;
  for (size_t i = 0; i < 3; ++i) {
    k[i] = dtype.is_float() ? ctx.KnownIntegers(i) : ctx.Known(i);
    symbolic |= k[i] && !k[i]->IsConstant();
  }
  if (k[0] && k[1] && k[2] && (symbolic || !dtype.is_float())) {
    for (size_t i = 0; i < 3; ++i) {
      if (k[i]->numel() != 1) ctx.Invalid("start, limit and delta must be scalars");
    }
    auto c = [&](size_t i) { return AsConstInt(k[i]->elems[0]); };
    if (c(0) && c(1) && c(2)) {
      int64_t start = *c(0), limit = *c(1), delta = *c(2);
      if (delta == 0) ctx.Invalid("delta is 0");
      // In 128 bits: the bounds may be anything an int64 holds.
      __int128 span = delta > 0 ? __int128{limit} - start : __int128{start} - limit;
      __int128 step = delta > 0 ? __int128{delta} : -__int128{delta};
      __int128 count = span > 0 ? 1 + (span - 1) / step : 0;
      int64_t n = count > kMaxKnownElements ? kMaxKnownElements + 1 : static_cast<int64_t>(count);
      if (n <= kMaxKnownElements) {
        std::vector<int64_t> values;
        for (int64_t i = 0; i < n; ++i) values.push_back(start + i * delta);
        return {SymTensor::FromInts(values, {n}, dtype)};
      }
    }
    std::vector<Expr> args;
    for (size_t i = 0; i < 3; ++i) args.push_back(relax::PrimValue(k[i]->elems[0]));
    return {ctx.Call("arange", args, relax::Attrs().Set("dtype", dtype))};
  }
  std::optional<double> v[3];
  for (size_t i = 0; i < 3; ++i) v[i] = ctx.ConstScalar(i);
  // The output length depends on all three.
  ctx.RequireAllKnown({{0, "start"}, {1, "limit"}, {2, "delta"}});
  for (size_t i = 0; i < 3; ++i) {
    if (!v[i]) ctx.RequireKnown(i, i == 0 ? "start" : (i == 1 ? "limit" : "delta"));
  }
  if (*v[2] == 0) ctx.Invalid("delta is 0");
  relax::Attrs attrs;
  attrs.Set("start", *v[0]).Set("end", *v[1]).Set("step", *v[2]).Set("dtype", dtype);
  return {ctx.Call("arange", {}, attrs)};
}

Expr Positions(NodeContext& ctx, const PrimExpr& n) {
  return ctx.Call("arange", {relax::PrimValue(n)}, relax::Attrs().Set("dtype", DataType::Int(64)));
}

Outputs EyeLike(NodeContext& ctx) {
  std::vector<PrimExpr> s = ctx.RequireShape(0);
  if (s.size() != 2) ctx.Invalid("the input must be 2-D");
  DataType dtype = ctx.InputDType(0);
  if (std::optional<int64_t> d = ctx.OptInt("dtype")) {
    std::optional<DataType> t = ToKilnDType(static_cast<int32_t>(*d));
    if (!t) ctx.Unsupported("dtype " + OnnxDTypeName(static_cast<int32_t>(*d)));
    dtype = *t;
  }
  int64_t k = ctx.Int("k", 0);
  Expr rows = ReshapeTo(ctx, Positions(ctx, s[0]), {s[0], relax::DimConst(1)});
  Expr cols = ReshapeTo(ctx, Positions(ctx, s[1]), {relax::DimConst(1), s[1]});
  Expr diag = ctx.Call("equal", {ctx.Call("add", {rows, ctx.Scalar(k, DataType::Int(64))}), cols});
  return {ctx.Call("astype", {diag}, relax::Attrs().Set("dtype", dtype))};
}

Outputs OneHot(NodeContext& ctx) {
  std::optional<double> depth = ctx.ConstScalar(1);
  if (!depth) ctx.RequireKnown(1, "depth");
  int64_t n = static_cast<int64_t>(*depth);
  if (n < 1) ctx.Invalid("depth must be positive");
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", -1), rank + 1);
  Expr idx = ctx.Input(0);
  if (ctx.InputDType(0) != DataType::Int(64)) {
    idx = ctx.Call("astype", {idx}, relax::Attrs().Set("dtype", DataType::Int(64)));
  }
  // Negative indices count from depth.
  Expr wrapped = ctx.Call("add", {idx, ctx.Scalar(static_cast<double>(n), DataType::Int(64))});
  idx =
      ctx.Call("where", {ctx.Call("less", {idx, ctx.Scalar(0, DataType::Int(64))}), wrapped, idx});
  idx = ctx.Call("expand_dims", {idx}, relax::Attrs().Set("axis", {axis}));
  std::vector<PrimExpr> dims(rank + 1, relax::DimConst(1));
  dims[axis] = relax::DimConst(n);
  Expr positions = ReshapeTo(ctx, Positions(ctx, relax::DimConst(n)), dims);
  Expr hit = ctx.Call("equal", {idx, positions});
  Expr values = ctx.Input(2);
  Expr off = ctx.Call("take", {values, ctx.Scalar(0, DataType::Int(64))});
  Expr on = ctx.Call("take", {values, ctx.Scalar(1, DataType::Int(64))});
  return {ctx.Call("where", {hit, on, off})};
}

}  // namespace

void RegisterShapeConverters(ConverterTable& t) {
  // Versions 19 to 25 of Shape, Size, Constant and ConstantOfShape, 22 of EyeLike and 28 of
  // OneHot add dtypes only (bfloat16, and float8, int4, float4, float8e8m0, int2, which Kiln
  // refuses where a tensor is read).
  t.Add("Shape", 1, Shape, 25);
  t.Add("Size", 1, Size, 25);
  t.Add("Constant", 1, Constant, 25);
  t.Add("ConstantOfShape", 9, ConstantOfShape, 25);
  t.Add("Range", 11, Range, 27);  // 27: float16 and bfloat16, stash_type
  t.Add("EyeLike", 9, EyeLike, 22);
  t.Add("OneHot", 9, OneHot, 28);
  for (const char* op : {"If", "Loop", "Scan"}) {
    t.AddUnsupported(op, "control flow with subgraphs is not supported");
  }
  for (const char* op :
       {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert",
        "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence"}) {
    t.AddUnsupported(op, "sequence values are not supported");
  }
  for (const char* op : {"Optional", "OptionalGetElement", "OptionalHasElement"}) {
    t.AddUnsupported(op, "optional values are not supported");
  }
  for (const char* op : {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
                         "Bernoulli", "Multinomial"}) {
    t.AddUnsupported(op, "random number generation is not supported");
  }
  for (const char* op :
       {"DFT", "STFT", "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix"}) {
    t.AddUnsupported(op, "signal processing ops are not supported");
  }
  for (const char* op : {"StringNormalizer", "TfIdfVectorizer", "RegexFullMatch"}) {
    t.AddUnsupported(op, "string tensors are not supported");
  }
  t.AddUnsupported("NonMaxSuppression", "its output shape depends on the input data");
  t.AddUnsupported("GridSample", "Kiln's Relax ops have no grid sampling");
}

}  // namespace kiln::ir::frontend::onnx
