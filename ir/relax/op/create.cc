// Tensor creation: full, zeros, ones (from a shape value), their *_like forms, arange, and
// the triangular masks tril/triu.
#include <cmath>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

StructInfo InferFromShape(const OpCall& call) {
  const ShapeStructInfoNode* shape = ShapeArg(call, 0);
  DataType dtype = call.attrs.GetDType("dtype");
  if (shape->values) {
    for (const PrimExpr& d : *shape->values) {
      if (auto v = AsConstInt(d); v && *v < 0) {
        Fail(call, "shape " + DimsToString(*shape->values) + " has a negative dim");
      }
    }
    return TensorStructInfo(*shape->values, dtype);
  }
  return TensorStructInfo(dtype, shape->ndim);
}

StructInfo InferLike(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  DataType dtype = x->dtype;
  if (const AttrValue* d = call.attrs.Find("dtype")) dtype = std::get<DataType>(*d);
  return MakeTensor(x->shape, x->ndim, dtype);
}

// arange's bounds are constant attributes, or scalar arguments (end), (start, end) or
// (start, end, step) whose values may be symbolic: torch.arange(seq) exports as Range(0, seq).
StructInfo InferArange(const OpCall& call) {
  DataType dtype = call.attrs.GetDType("dtype");
  if (call.args.empty()) {
    if (!call.attrs.Has("end")) Fail(call, "needs 'end' as an attribute or an argument");
    double start = call.attrs.GetFloat("start"), end = call.attrs.GetFloat("end");
    double step = call.attrs.GetFloat("step");
    if (step == 0) Fail(call, "step is 0");
    double n = std::ceil((end - start) / step);
    return TensorStructInfo({DimConst(n > 0 ? static_cast<int64_t>(n) : 0)}, dtype);
  }
  std::vector<PrimExpr> values;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const auto* p = call.args[i].struct_info().as<PrimStructInfoNode>();
    if (p == nullptr) {
      Fail(call, "argument " + std::to_string(i) + " must be a scalar, got " +
                     call.args[i].struct_info().ToString());
    }
    values.push_back(p->value);
  }
  PrimExpr start = values.size() >= 2 ? values[0] : DimConst(0);
  PrimExpr end = values.size() >= 2 ? values[1] : values[0];
  PrimExpr step = values.size() == 3 ? values[2] : DimConst(1);
  auto step_value = step.defined() ? AsConstInt(SimplifyDim(step)) : std::nullopt;
  if (step_value && *step_value == 0) Fail(call, "step is 0");
  if (!start.defined() || !end.defined() || !step_value) return TensorStructInfo(dtype, 1);
  PrimExpr length =
      *step_value > 0 ? FloorDiv(end - start + DimConst(*step_value - 1), DimConst(*step_value))
                      : FloorDiv(start - end + DimConst(-*step_value - 1), DimConst(-*step_value));
  // ceil((end - start) / step) elements, or none when that is negative.
  length = SimplifyDim(Max(length, DimConst(0)));
  return TensorStructInfo({length}, dtype);
}

StructInfo InferTriangle(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (!x->unknown_ndim() && x->ndim < 2) {
    Fail(call, "needs a tensor of at least 2 dims, got " + call.args[0].struct_info().ToString());
  }
  return call.args[0].struct_info();
}

}  // namespace

void RegisterCreateOps(OpRegistry& r) {
  AttrSpec float32{"dtype", AttrType::kDType, AttrValue(DataType::Float(32))};
  r.Register(OpInfo{"full",
                    1,
                    1,
                    {{"fill_value", AttrType::kFloat, std::nullopt, true}, float32},
                    InferFromShape});
  r.Register(OpInfo{"zeros", 1, 1, {float32}, InferFromShape});
  r.Register(OpInfo{"ones", 1, 1, {float32}, InferFromShape});
  AttrSpec like_dtype{"dtype", AttrType::kDType, std::nullopt};
  r.Register(OpInfo{"full_like",
                    1,
                    1,
                    {{"fill_value", AttrType::kFloat, std::nullopt, true}, like_dtype},
                    InferLike});
  r.Register(OpInfo{"zeros_like", 1, 1, {like_dtype}, InferLike});
  r.Register(OpInfo{"ones_like", 1, 1, {like_dtype}, InferLike});
  r.Register(OpInfo{"arange",
                    0,
                    3,
                    {{"start", AttrType::kFloat, AttrValue(0.0)},
                     {"end", AttrType::kFloat, std::nullopt},
                     {"step", AttrType::kFloat, AttrValue(1.0)},
                     {"dtype", AttrType::kDType, AttrValue(DataType::Int(64))}},
                    InferArange});
  AttrSpec k{"k", AttrType::kInt, AttrValue(int64_t{0})};
  r.Register(OpInfo{"tril", 1, 1, {k}, InferTriangle});
  r.Register(OpInfo{"triu", 1, 1, {k}, InferTriangle});
  r.SetPattern(
      {"full", "zeros", "ones", "full_like", "zeros_like", "ones_like", "arange", "tril", "triu"},
      OpPattern::kInjective);
}

}  // namespace kiln::ir::relax
