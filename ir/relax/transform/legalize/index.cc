// Indexing ops: strided_slice (python slicing per axis: negative begins count from the end,
// begins clamp into the dim, negative strides walk backwards; or begins given as dims already
// inside the axis), take (gather along an axis),
// gather_elements and gather_nd. Gathered indices may be negative (counted from the end, as ONNX
// allows) and are clamped into range, so a bad index reads an edge element instead of
// memory outside the tensor.
#include <limits>

#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

std::vector<std::string> AxisNames(size_t n) {
  std::vector<std::string> names;
  for (size_t d = 0; d < n; ++d) names.push_back("ax" + std::to_string(d));
  return names;
}

// The first index python's range(dim)[begin::stride] visits. For a symbolic dim, begin is
// taken to lie inside it (as the result's shape assumes); ends at or past INT32_MAX mean
// "from the end" for a negative stride.
ir::Expr SliceBegin(const ir::Expr& dim, int64_t begin, int64_t stride) {
  constexpr int64_t kToEnd = std::numeric_limits<int32_t>::max();
  if (auto n = AsConstInt(dim)) {
    int64_t b = begin < 0 ? begin + *n : begin;
    b = stride > 0 ? std::clamp<int64_t>(b, 0, *n) : std::clamp<int64_t>(b, -1, *n - 1);
    return I64(b);
  }
  if (stride < 0 && begin >= kToEnd) return dim - I64(1);
  if (begin < 0) return AddConst(dim, begin);
  return I64(begin);
}

// The begin dims of strided_slice's argument form (already inside their axes).
std::vector<PrimExpr> BeginArgument(LegalizeContext& ctx) {
  const auto* begin = ctx.call().args[1].struct_info().as<ShapeStructInfoNode>();
  if (begin == nullptr || !begin->values) {
    ctx.Unsupported("begin " + ctx.call().args[1].struct_info().ToString() +
                    " is not a shape of known dims");
  }
  return *begin->values;
}

Expr StridedSlice(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  int ndim = static_cast<int>(x.ndim());
  const std::vector<int64_t>& axes = ctx.attrs().GetInts("axes");
  bool by_args = ctx.num_args() > 1;
  std::vector<PrimExpr> begin_dims = by_args ? BeginArgument(ctx) : std::vector<PrimExpr>();
  std::vector<int64_t> strides =
      ctx.attrs().GetOptionalInts("strides").value_or(std::vector<int64_t>(axes.size(), 1));
  std::vector<ir::Expr> start(ndim, I64(0));
  std::vector<int64_t> step(ndim, 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    int a = NormalizeAxis(ctx, axes[k], ndim);
    step[a] = strides[k];
    start[a] = by_args ? ctx.Dim(begin_dims[k])
                       : SliceBegin(x.shape()[a], ctx.attrs().GetInts("begin")[k], strides[k]);
  }
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in;
        for (int d = 0; d < ndim; ++d) {
          ir::Expr offset = MulConst(i[d], step[d]);
          in.push_back(IsConstInt(start[d], 0) ? offset : start[d] + offset);
        }
        return x(in);
      },
      "T_strided_slice_with_axes", AxisNames(shape.size()));
  return ctx.CallKernel("strided_slice", {out});
}

// A gathered index as an in-range int64 position along a dim of extent `dim`.
ir::Expr GatherIndex(const ir::Expr& index, const ir::Expr& dim) {
  ir::Expr i = CastTo(DataType::Int(64), index);
  if (!index.dtype().is_uint()) i = ir::Select(i < I64(0), i + dim, i);
  return ClampIndex(i, dim);
}

// A take index by TVM's mode: "clip" clamps, "wrap" takes it modulo the dim, "fast" (no check
// in TVM) reads a negative index from the end and clamps the rest.
ir::Expr TakeIndex(const std::string& mode, const ir::Expr& index, const ir::Expr& dim) {
  if (mode == "clip") return ClampIndex(CastTo(DataType::Int(64), index), dim);
  if (mode == "wrap") return ir::FloorMod(CastTo(DataType::Int(64), index), dim);
  return GatherIndex(index, dim);
}

Expr Take(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), indices = ctx.Input(1);
  int axis = NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()));
  const std::string& mode = ctx.attrs().GetString("mode");
  std::vector<ir::Expr> shape = ctx.OutShape();
  size_t ni = indices.ndim();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in(i.begin(), i.begin() + axis);
        std::vector<ir::Expr> at(i.begin() + axis, i.begin() + axis + ni);
        in.push_back(TakeIndex(mode, indices(at), x.shape()[axis]));
        in.insert(in.end(), i.begin() + axis + ni, i.end());
        return x(in);
      },
      "T_take", AxisNames(shape.size()));
  return ctx.CallKernel("take", {out});
}

Expr GatherElements(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), indices = ctx.Input(1);
  int axis = NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()));
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in = AsExprs(i);
        in[axis] = GatherIndex(indices(i), x.shape()[axis]);
        return x(in);
      },
      "T_gather", AxisNames(shape.size()));
  return ctx.CallKernel("gather_elements", {out});
}

// out[b..., i..., t...] = x[b..., indices[b..., i..., 0], ..., indices[b..., i..., k-1], t...]
// over the batch axes b, the index axes i and the trailing axes t of x.
Expr GatherND(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), indices = ctx.Input(1);
  int batch = static_cast<int>(ctx.attrs().GetInt("batch_dims"));
  int q = static_cast<int>(indices.ndim());
  std::optional<int64_t> k = AsConstInt(indices.shape().back());
  if (!k) ctx.Unsupported("the last dim of indices must be known statically");
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> at(i.begin(), i.begin() + q - 1);
        std::vector<ir::Expr> in(i.begin(), i.begin() + batch);
        for (int64_t j = 0; j < *k; ++j) {
          std::vector<ir::Expr> row = at;
          row.push_back(I64(j));
          in.push_back(GatherIndex(indices(row), x.shape()[batch + j]));
        }
        in.insert(in.end(), i.begin() + q - 1, i.end());
        return x(in);
      },
      "T_gather_nd", AxisNames(shape.size()));
  return ctx.CallKernel("gather_nd", {out});
}

}  // namespace

void AddIndexRules(RuleTable& r) {
  r["gather_nd"] = GatherND;
  r["strided_slice"] = StridedSlice;
  r["take"] = Take;
  r["gather_elements"] = GatherElements;
}

}  // namespace kiln::ir::relax::legalize
