// Shape manipulation, each one injective stage as topi writes it: reshape and flatten go
// through the row-major flat index ("T_reshape", simplified over the loop ranges),
// permute_dims ("T_transpose"), squeeze, expand_dims, concat (a chain of Selects over the
// inputs' ranges, "T_concat"), split (one kernel with an output per part, as TVM's topi.split),
// broadcast_to and tile.
#include "ir/arith/analyzer.h"
#include "ir/relax/dim.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

std::vector<std::string> AxisNames(size_t n) {
  std::vector<std::string> names;
  for (size_t d = 0; d < n; ++d) names.push_back("ax" + std::to_string(d));
  return names;
}

// The input read at output index `out` of a reshape: unravel(ravel(out)), simplified with
// what the loop ranges tell (the flat index of a (n, 4) -> (n * 4,) reshape is i * 4 + j).
std::vector<ir::Expr> ReshapeIndex(const std::vector<ir::Var>& out,
                                   const std::vector<ir::Expr>& out_shape,
                                   const std::vector<ir::Expr>& in_shape) {
  arith::Analyzer analyzer;
  for (size_t d = 0; d < out.size(); ++d) analyzer.Bind(out[d], Range{I64(0), out_shape[d]});
  std::vector<ir::Expr> index = Unravel(Ravel(AsExprs(out), out_shape), in_shape);
  for (ir::Expr& e : index) e = analyzer.Simplify(e);
  return index;
}

Expr Reshape(LegalizeContext& ctx, const std::string& name) {
  Tensor x = ctx.Input(0);
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape, [&](const std::vector<ir::Var>& i) { return x(ReshapeIndex(i, shape, x.shape())); },
      "T_reshape", AxisNames(shape.size()));
  return ctx.CallKernel(name, {out});
}

Expr PermuteDims(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  int ndim = static_cast<int>(x.ndim());
  std::vector<int> perm;
  if (auto axes = ctx.attrs().GetOptionalInts("axes")) {
    for (int64_t a : *axes) perm.push_back(NormalizeAxis(ctx, a, ndim));
  } else {
    for (int d = ndim - 1; d >= 0; --d) perm.push_back(d);
  }
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in(ndim);
        for (int k = 0; k < ndim; ++k) in[perm[k]] = i[k];
        return x(in);
      },
      "T_transpose", AxisNames(shape.size()));
  return ctx.CallKernel("transpose", {out});
}

Expr Squeeze(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  int ndim = static_cast<int>(x.ndim());
  const std::vector<PrimExpr>& dims = *ctx.ArgInfo(0).shape;
  std::vector<bool> drop(ndim, false);
  if (auto axes = ctx.attrs().GetOptionalInts("axis")) {
    for (int64_t a : *axes) drop[NormalizeAxis(ctx, a, ndim)] = true;
  } else {
    for (int d = 0; d < ndim; ++d) drop[d] = IsConstInt(dims[d], 1);
  }
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in;
        size_t next = 0;
        for (int d = 0; d < ndim; ++d) in.push_back(drop[d] ? I64(0) : ir::Expr(i[next++]));
        return x(in);
      },
      "T_squeeze", AxisNames(shape.size()));
  return ctx.CallKernel("squeeze", {out});
}

Expr ExpandDims(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  std::vector<ir::Expr> shape = ctx.OutShape();
  int out_ndim = static_cast<int>(shape.size());
  std::vector<bool> inserted(out_ndim, false);
  for (int64_t a : ctx.attrs().GetInts("axis")) inserted[NormalizeAxis(ctx, a, out_ndim)] = true;
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in;
        for (int d = 0; d < out_ndim; ++d) {
          if (!inserted[d]) in.push_back(i[d]);
        }
        return x(in);
      },
      "T_expand_dims", AxisNames(shape.size()));
  return ctx.CallKernel("expand_dims", {out});
}

// An input that is empty along the axis (an initial key/value cache of length 0) adds nothing
// and is left out: its load, clamped or not, would read outside an empty buffer. An input
// whose length is symbolic must not be empty at run time.
Expr Concat(LegalizeContext& ctx) {
  std::vector<Tensor> all = ctx.InputTuple(0);
  std::vector<ir::Expr> shape = ctx.OutShape();
  int axis = NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(shape.size()));
  std::vector<Tensor> inputs;
  for (const Tensor& t : all) {
    if (!IsConstInt(t.shape()[axis], 0)) inputs.push_back(t);
  }
  if (inputs.empty()) inputs = {all[0]};  // the result is empty: nothing is read
  // offsets[j]: where input j starts along the axis.
  std::vector<ir::Expr> offsets = {I64(0)};
  for (const Tensor& t : inputs) {
    const ir::Expr& prev = offsets.back();
    const ir::Expr& d = t.shape()[axis];
    auto a = AsConstInt(prev), b = AsConstInt(d);
    offsets.push_back(a && b ? I64(*a + *b) : (a && *a == 0 ? d : prev + d));
  }
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        ir::Expr value;
        for (size_t j = inputs.size(); j-- > 0;) {
          std::vector<ir::Expr> in = AsExprs(i);
          ir::Expr pos = IsConstInt(offsets[j], 0) ? in[axis] : in[axis] - offsets[j];
          // Every input but the one selected is read clamped: a Select evaluates both sides.
          in[axis] = inputs.size() == 1 ? pos : ClampIndex(pos, inputs[j].shape()[axis]);
          ir::Expr v = inputs[j](in);
          value = value.defined() ? ir::Select(ir::Expr(i[axis]) < offsets[j + 1], v, value) : v;
        }
        return value;
      },
      "T_concat", AxisNames(shape.size()));
  return ctx.CallKernel("concatenate", {out});
}

Expr Split(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  int axis = NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()));
  const auto* tuple = ctx.call().struct_info.as<TupleStructInfoNode>();
  std::vector<Tensor> outputs;
  PrimExpr offset = DimConst(0);
  for (size_t k = 0; k < tuple->fields.size(); ++k) {
    std::vector<ir::Expr> shape = ctx.OutShape(k);
    ir::Expr start = ctx.Dim(SimplifyDim(offset));
    std::string name = k == 0 ? "T_split" : "T_split_" + std::to_string(k);
    outputs.push_back(compute::Compute(
        shape,
        [&](const std::vector<ir::Var>& i) {
          std::vector<ir::Expr> in = AsExprs(i);
          if (!IsConstInt(start, 0)) in[axis] = in[axis] + start;
          return x(in);
        },
        name, AxisNames(shape.size())));
    offset = offset + (*ctx.OutInfo(k).shape)[axis];
  }
  return ctx.CallKernel("split", outputs);
}

Expr BroadcastTo(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) { return x(BroadcastIndices(x, AsExprs(i), shape)); },
      "T_broadcast_to", AxisNames(shape.size()));
  return ctx.CallKernel("broadcast_to", {out});
}

Expr Tile(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  std::vector<ir::Expr> shape = ctx.OutShape();
  std::vector<int64_t> reps = ctx.attrs().GetInts("repeats");
  size_t offset = shape.size() - x.ndim();
  reps.insert(reps.begin(), shape.size() - reps.size(), 1);
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in;
        for (size_t d = 0; d < x.ndim(); ++d) {
          const ir::Var& o = i[offset + d];
          in.push_back(reps[offset + d] == 1 ? ir::Expr(o) : ir::FloorMod(o, x.shape()[d]));
        }
        return x(in);
      },
      "T_tile", AxisNames(shape.size()));
  return ctx.CallKernel("tile", {out});
}

}  // namespace

void AddManipulateRules(RuleTable& r) {
  r["reshape"] = [](LegalizeContext& ctx) { return Reshape(ctx, "reshape"); };
  r["flatten"] = [](LegalizeContext& ctx) { return Reshape(ctx, "reshape"); };
  r["permute_dims"] = PermuteDims;
  r["squeeze"] = Squeeze;
  r["expand_dims"] = ExpandDims;
  r["concat"] = Concat;
  r["split"] = Split;
  r["broadcast_to"] = BroadcastTo;
  r["tile"] = Tile;
}

}  // namespace kiln::ir::relax::legalize
