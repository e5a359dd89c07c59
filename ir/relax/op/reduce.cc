// Reductions over axes (all axes when none are given), with keepdims; argmax and argmin;
// the running reductions cumsum and cumprod.
#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

StructInfo ReduceResult(const OpCall& call, const std::optional<std::vector<int64_t>>& axes,
                        DataType dtype) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  bool keepdims = call.attrs.GetBool("keepdims");
  if (x->unknown_ndim()) {
    if (!axes && !keepdims) return TensorStructInfo(std::vector<PrimExpr>{}, dtype);
    return TensorStructInfo(dtype, kUnknownNDim);
  }
  std::vector<bool> reduced(x->ndim, !axes.has_value());
  if (axes) {
    for (int a : NormalizeAxes(call, *axes, x->ndim)) reduced[a] = true;
  }
  int out_ndim = 0;
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x->ndim; ++i) {
    if (reduced[i] && !keepdims) continue;
    ++out_ndim;
    if (x->shape) shape.push_back(reduced[i] ? DimConst(1) : (*x->shape)[i]);
  }
  if (!x->shape) return TensorStructInfo(dtype, out_ndim);
  return TensorStructInfo(shape, dtype);
}

StructInfo InferReduce(const OpCall& call) {
  return ReduceResult(call, call.attrs.GetOptionalInts("axis"), TensorArg(call, 0)->dtype);
}

StructInfo InferFloatReduce(const OpCall& call) {
  RequireFloat(call, TensorArg(call, 0), 0);
  return InferReduce(call);
}

StructInfo InferArgReduce(const OpCall& call) {
  std::optional<std::vector<int64_t>> axes;
  if (call.attrs.Has("axis")) axes = std::vector<int64_t>{call.attrs.GetInt("axis")};
  return ReduceResult(call, axes, DataType::Int(64));
}

// A running sum or product along one axis keeps the shape; with no axis the input is
// flattened first, as numpy does.
StructInfo InferScan(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  DataType dtype = x->dtype;
  if (const AttrValue* d = call.attrs.Find("dtype")) dtype = std::get<DataType>(*d);
  if (!call.attrs.Has("axis")) {
    if (!x->shape) return TensorStructInfo(dtype, 1);
    return TensorStructInfo({DimProduct(*x->shape)}, dtype);
  }
  if (!x->unknown_ndim()) NormalizeAxis(call, call.attrs.GetInt("axis"), x->ndim);
  return MakeTensor(x->shape, x->ndim, dtype);
}

}  // namespace

void RegisterReduceOps(OpRegistry& r) {
  std::vector<AttrSpec> attrs = {{"axis", AttrType::kIntList, std::nullopt},
                                 {"keepdims", AttrType::kBool, AttrValue(false)}};
  for (const char* name : {"sum", "max", "min", "prod"}) {
    r.Register(OpInfo{name, 1, 1, attrs, InferReduce});
  }
  for (const char* name : {"mean", "variance", "std"}) {
    r.Register(OpInfo{name, 1, 1, attrs, InferFloatReduce});
  }
  std::vector<AttrSpec> arg_attrs = {{"axis", AttrType::kInt, std::nullopt},
                                     {"keepdims", AttrType::kBool, AttrValue(false)}};
  for (const char* name : {"argmax", "argmin"}) {
    r.Register(OpInfo{name, 1, 1, arg_attrs, InferArgReduce});
  }
  std::vector<AttrSpec> scan_attrs = {{"axis", AttrType::kInt, std::nullopt},
                                      {"dtype", AttrType::kDType, std::nullopt},
                                      {"exclusive", AttrType::kBool, AttrValue(false)}};
  for (const char* name : {"cumsum", "cumprod"}) {
    r.Register(OpInfo{name, 1, 1, scan_attrs, InferScan});
  }
  r.SetPattern({"sum", "max", "min", "prod", "mean", "variance", "std", "argmax", "argmin"},
               OpPattern::kCommReduce);
}

}  // namespace kiln::ir::relax
