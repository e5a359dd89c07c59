// Ops on shape values, for the shape arithmetic exported models do at run time (ONNX's
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape): shape_of a tensor, one dim of a shape
// as a scalar, a slice of a shape, a shape built from scalars and shapes, and conversions
// between shapes and int64 tensors. Known dims flow through, so a reshape to a computed
// shape keeps symbolic dims such as (n, seq // 2).
#include <algorithm>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

StructInfo InferShapeOf(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (x->shape) return ShapeStructInfo(*x->shape);
  return ShapeStructInfo(x->ndim);
}

StructInfo InferShapeGet(const OpCall& call) {
  const ShapeStructInfoNode* s = ShapeArg(call, 0);
  int64_t index = call.attrs.GetInt("index");
  if (s->ndim == kUnknownNDim) return PrimStructInfo(DataType::Int(64));
  int i = NormalizeAxis(call, index, s->ndim);
  if (!s->values) return PrimStructInfo(DataType::Int(64));
  return PrimStructInfo((*s->values)[i]);
}

StructInfo InferShapeSlice(const OpCall& call) {
  const ShapeStructInfoNode* s = ShapeArg(call, 0);
  if (s->ndim == kUnknownNDim) return ShapeStructInfo(kUnknownNDim);
  int64_t n = s->ndim;
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
  int64_t begin = clamp(call.attrs.GetInt("begin"));
  int64_t end = call.attrs.Has("end") ? clamp(call.attrs.GetInt("end")) : n;
  if (end < begin) end = begin;
  if (!s->values) return ShapeStructInfo(static_cast<int>(end - begin));
  return ShapeStructInfo(
      std::vector<PrimExpr>(s->values->begin() + begin, s->values->begin() + end));
}

StructInfo InferShapeConcat(const OpCall& call) {
  std::vector<PrimExpr> dims;
  bool known = true;
  int ndim = 0;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const StructInfo& s = call.args[i].struct_info();
    if (const auto* p = s.as<PrimStructInfoNode>()) {
      if (!p->dtype.is_int() && !p->dtype.is_uint()) {
        Fail(call, "argument " + std::to_string(i) + " must be an integer, got " + s.ToString());
      }
      if (ndim != kUnknownNDim) ++ndim;
      if (p->value.defined()) {
        dims.push_back(p->value);
      } else {
        known = false;
      }
      continue;
    }
    const auto* shape = s.as<ShapeStructInfoNode>();
    if (shape == nullptr) {
      Fail(call,
           "argument " + std::to_string(i) + " must be a shape or an integer, got " + s.ToString());
    }
    ndim =
        (ndim == kUnknownNDim || shape->ndim == kUnknownNDim) ? kUnknownNDim : ndim + shape->ndim;
    if (shape->values) {
      dims.insert(dims.end(), shape->values->begin(), shape->values->end());
    } else {
      known = false;
    }
  }
  if (!known) return ShapeStructInfo(ndim);
  return ShapeStructInfo(dims);
}

StructInfo InferTensorToShape(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (!x->unknown_ndim() && x->ndim != 1) {
    Fail(call, "needs a 1-D integer tensor, got " + call.args[0].struct_info().ToString());
  }
  if (!x->unknown_dtype() && !x->dtype.is_int()) {
    Fail(call, "needs an integer tensor, got " + x->dtype.ToString());
  }
  if (x->shape) {
    if (auto n = AsConstInt((*x->shape)[0])) return ShapeStructInfo(static_cast<int>(*n));
  }
  return ShapeStructInfo(kUnknownNDim);
}

StructInfo InferShapeToTensor(const OpCall& call) {
  const ShapeStructInfoNode* s = ShapeArg(call, 0);
  if (s->ndim == kUnknownNDim) return TensorStructInfo(DataType::Int(64), 1);
  return TensorStructInfo({DimConst(s->ndim)}, DataType::Int(64));
}

}  // namespace

void RegisterShapeOps(OpRegistry& r) {
  r.Register(OpInfo{"shape_of", 1, 1, {}, InferShapeOf});
  r.Register(
      OpInfo{"shape_get", 1, 1, {{"index", AttrType::kInt, std::nullopt, true}}, InferShapeGet});
  r.Register(OpInfo{
      "shape_slice",
      1,
      1,
      {{"begin", AttrType::kInt, AttrValue(int64_t{0})}, {"end", AttrType::kInt, std::nullopt}},
      InferShapeSlice});
  r.Register(OpInfo{"shape_concat", 1, -1, {}, InferShapeConcat});
  r.Register(OpInfo{"tensor_to_shape", 1, 1, {}, InferTensorToShape});
  r.Register(OpInfo{"shape_to_tensor", 1, 1, {}, InferShapeToTensor});
}

}  // namespace kiln::ir::relax
