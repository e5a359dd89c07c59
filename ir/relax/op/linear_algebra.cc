// matmul (numpy rules: batched with broadcasting, 1-D operands promoted then squeezed) and
// linear (x @ W^T + b, W stored as (out_features, in_features) as in ONNX Gemm and torch).
#include <algorithm>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

// Rank of a @ b for operand ranks (both >= 1).
int MatmulRank(int a, int b) {
  int batch = std::max(std::max(a - 2, 0), std::max(b - 2, 0));
  return batch + (a == 1 ? 0 : 1) + (b == 1 ? 0 : 1);
}

std::vector<PrimExpr> MatmulShape(const OpCall& call, std::vector<PrimExpr> a,
                                  std::vector<PrimExpr> b) {
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), DimConst(1));
  if (b_vec) b.push_back(DimConst(1));
  const PrimExpr& ka = a.back();
  const PrimExpr& kb = b[b.size() - 2];
  if (ProveDimNotEqual(ka, kb)) {
    Fail(call, "inner dims differ: " + DimToString(ka) + " vs " + DimToString(kb) + " (shapes " +
                   DimsToString(a) + " and " + DimsToString(b) + ")");
  }
  std::vector<PrimExpr> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  auto batch = BroadcastShapes(call, batch_a, batch_b);
  if (!batch) return {};
  std::vector<PrimExpr> out = *batch;
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return out;
}

DataType ResultDType(const OpCall& call, DataType a, DataType b) {
  if (const AttrValue* out = call.attrs.Find("out_dtype")) {
    if (!a.is_void() && !b.is_void() && a != b) CommonDType(call, a, b);
    return std::get<DataType>(*out);
  }
  return CommonDType(call, a, b);
}

void RequireRank(const OpCall& call, const TensorStructInfoNode* t, size_t i, int min_rank) {
  if (!t->unknown_ndim() && t->ndim < min_rank) {
    Fail(call, "argument " + std::to_string(i) + " must have at least " + std::to_string(min_rank) +
                   " dimension, got a " + std::to_string(t->ndim) + "-D tensor");
  }
}

StructInfo InferMatmul(const OpCall& call) {
  const TensorStructInfoNode* a = TensorArg(call, 0);
  const TensorStructInfoNode* b = TensorArg(call, 1);
  RequireRank(call, a, 0, 1);
  RequireRank(call, b, 1, 1);
  DataType dtype = ResultDType(call, a->dtype, b->dtype);
  if (a->shape && b->shape) {
    std::vector<PrimExpr> out = MatmulShape(call, *a->shape, *b->shape);
    int rank = MatmulRank(a->ndim, b->ndim);
    if (out.empty() && rank != 0) return TensorStructInfo(dtype, rank);
    return TensorStructInfo(out, dtype);
  }
  if (a->unknown_ndim() || b->unknown_ndim()) return TensorStructInfo(dtype, kUnknownNDim);
  return TensorStructInfo(dtype, MatmulRank(a->ndim, b->ndim));
}

StructInfo InferLinear(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* w = TensorArg(call, 1);
  RequireRank(call, x, 0, 1);
  if (!w->unknown_ndim() && w->ndim != 1 && w->ndim != 2) {
    Fail(call, "weight must be 1-D or 2-D (out_features, in_features), got " +
                   std::to_string(w->ndim) + "-D");
  }
  DataType dtype = ResultDType(call, x->dtype, w->dtype);
  std::optional<std::vector<PrimExpr>> shape;
  int ndim = kUnknownNDim;
  if (!x->unknown_ndim() && !w->unknown_ndim()) ndim = MatmulRank(x->ndim, w->ndim);
  if (x->shape && w->shape) {
    std::vector<PrimExpr> wt(w->shape->rbegin(), w->shape->rend());
    std::vector<PrimExpr> out = MatmulShape(call, *x->shape, wt);
    if (!out.empty() || ndim == 0) shape = out;
  }
  if (call.args.size() == 3) {
    const TensorStructInfoNode* bias = TensorArg(call, 2);
    CommonDType(call, dtype, bias->dtype);
    if (shape && bias->shape) {
      shape = BroadcastShapes(call, *shape, *bias->shape);
    } else {
      shape = std::nullopt;
    }
    if (ndim != kUnknownNDim && !bias->unknown_ndim()) ndim = std::max(ndim, bias->ndim);
  }
  return MakeTensor(shape, ndim, dtype);
}

}  // namespace

void RegisterLinearAlgebraOps(OpRegistry& r) {
  r.Register(OpInfo{"matmul", 2, 2, {{"out_dtype", AttrType::kDType, std::nullopt}}, InferMatmul});
  r.Register(OpInfo{"linear", 2, 3, {{"out_dtype", AttrType::kDType, std::nullopt}}, InferLinear});
  r.SetPattern({"matmul", "linear"}, OpPattern::kOutEWiseFusable);
}

}  // namespace kiln::ir::relax
