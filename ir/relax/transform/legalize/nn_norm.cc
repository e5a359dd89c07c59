// softmax and log_softmax (numerically stable: the row maximum is subtracted before exp, as
// topi does), and the normalizations: layer_norm, rms_norm, group_norm and batch_norm in
// inference (moving statistics). The statistics of a normalization are reduction stages
// accumulated in float32 for float16 inputs, as TVM's topi does; the variance is the mean of
// squared deviations from the mean (two passes), which is the stable form.
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;

std::vector<std::string> AxisNames(size_t n, const char* prefix) {
  std::vector<std::string> names;
  for (size_t d = 0; d < n; ++d) names.push_back(prefix + std::to_string(d));
  return names;
}

// The dims of `v` not in `axes` (sorted).
std::vector<ir::Expr> Without(const std::vector<ir::Expr>& v, const std::vector<int>& axes) {
  std::vector<ir::Expr> out;
  for (size_t d = 0; d < v.size(); ++d) {
    if (std::find(axes.begin(), axes.end(), static_cast<int>(d)) == axes.end()) out.push_back(v[d]);
  }
  return out;
}

// `kept` (the index without `axes`) with `reduced[k]` put back at axes[k].
std::vector<ir::Expr> With(const std::vector<ir::Expr>& kept, const std::vector<int>& axes,
                           const std::vector<ir::Expr>& reduced) {
  std::vector<ir::Expr> out;
  size_t next_kept = 0, ndim = kept.size() + axes.size();
  for (size_t d = 0; d < ndim; ++d) {
    auto it = std::find(axes.begin(), axes.end(), static_cast<int>(d));
    out.push_back(it == axes.end() ? kept[next_kept++] : reduced[it - axes.begin()]);
  }
  return out;
}

std::vector<ir::IterVar> ReduceAxes(const std::vector<ir::Expr>& shape,
                                    const std::vector<int>& axes) {
  std::vector<ir::IterVar> r;
  for (size_t k = 0; k < axes.size(); ++k) {
    r.push_back(compute::ReduceAxis(shape[axes[k]], "k" + std::to_string(k)));
  }
  return r;
}

std::vector<ir::Expr> Vars(const std::vector<ir::IterVar>& axes) {
  std::vector<ir::Expr> out;
  for (const ir::IterVar& a : axes) out.push_back(a.var);
  return out;
}

DataType AccumulatorDType(DataType t) {
  return t.is_float() && t.bits() == 16 ? DataType::Float(32) : t;
}

ir::Expr Product(const std::vector<ir::Expr>& dims) {
  ir::Expr p;
  for (const ir::Expr& d : dims) p = p.defined() ? p * d : d;
  return p.defined() ? p : I64(1);
}

Expr Softmax(LegalizeContext& ctx, bool log) {
  Tensor x = ctx.Input(0);
  int axis = NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()));
  const std::vector<ir::Expr>& shape = x.shape();
  std::vector<int> axes = {axis};
  std::vector<ir::Expr> red_shape = Without(shape, axes);
  auto max_axes = ReduceAxes(shape, axes);
  Tensor row_max = compute::Compute(
      red_shape,
      [&](const std::vector<ir::Var>& i) {
        return compute::Max(x(With(AsExprs(i), axes, Vars(max_axes))), max_axes);
      },
      "T_softmax_maxelem");
  auto sum_axes = ReduceAxes(shape, axes);
  if (log) {
    Tensor sum = compute::Compute(
        red_shape,
        [&](const std::vector<ir::Var>& i) {
          std::vector<ir::Expr> kept = AsExprs(i);
          return compute::Sum(compute::Exp(x(With(kept, axes, Vars(sum_axes))) - row_max(kept)),
                              sum_axes);
        },
        "compute");
    Tensor out = compute::Compute(
        shape,
        [&](const std::vector<ir::Var>& i) {
          std::vector<ir::Expr> kept = Without(AsExprs(i), axes);
          return x(i) - row_max(kept) - compute::Log(sum(kept));
        },
        "compute_1");
    return ctx.CallKernel("log_softmax", {out});
  }
  Tensor e = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        return compute::Exp(x(i) - row_max(Without(AsExprs(i), axes)));
      },
      "T_softmax_exp");
  Tensor sum = compute::Compute(
      red_shape,
      [&](const std::vector<ir::Var>& i) {
        return compute::Sum(e(With(AsExprs(i), axes, Vars(sum_axes))), sum_axes);
      },
      "T_softmax_expsum");
  Tensor out = compute::Compute(
      shape, [&](const std::vector<ir::Var>& i) { return e(i) / sum(Without(AsExprs(i), axes)); },
      "T_softmax_norm");
  return ctx.CallKernel("softmax", {out});
}

// Sum and variance stages over `axes` of `x` (in `acc`), for index spaces where the reduced
// axes are dropped. `source` maps (kept index, reduce vars) to the element of x read.
struct Moments {
  Tensor sum;  // sum of x
  Tensor var;  // sum of (x - mean)^2
  ir::Expr count;
};

using SourceFn =
    std::function<ir::Expr(const std::vector<ir::Expr>& kept, const std::vector<ir::Expr>& reduce)>;

Moments ComputeMoments(const std::vector<ir::Expr>& kept_shape,
                       const std::vector<ir::Expr>& reduce_extents, const SourceFn& source,
                       DataType acc, const std::string& base) {
  auto make_axes = [&] {
    std::vector<ir::IterVar> r;
    for (size_t k = 0; k < reduce_extents.size(); ++k) {
      r.push_back(compute::ReduceAxis(reduce_extents[k], "k" + std::to_string(k)));
    }
    return r;
  };
  Moments m;
  m.count = Product(reduce_extents);
  auto sum_axes = make_axes();
  m.sum = compute::Compute(
      kept_shape,
      [&](const std::vector<ir::Var>& i) {
        return compute::Sum(CastTo(acc, source(AsExprs(i), Vars(sum_axes))), sum_axes);
      },
      base + "_sum", AxisNames(kept_shape.size(), "ax"));
  auto var_axes = make_axes();
  Tensor sum = m.sum;
  ir::Expr count = m.count;
  m.var = compute::Compute(
      kept_shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> kept = AsExprs(i);
        ir::Expr d = CastTo(acc, source(kept, Vars(var_axes))) - sum(kept) / CastTo(acc, count);
        return compute::Sum(d * d, var_axes);
      },
      base + "_var", AxisNames(kept_shape.size(), "ax"));
  return m;
}

// (x - mean) * rsqrt(var + eps), in the accumulator dtype.
ir::Expr Normalized(const ir::Expr& x, const Moments& m, const std::vector<ir::Expr>& kept,
                    DataType acc, double eps) {
  ir::Expr n = CastTo(acc, m.count);
  return (CastTo(acc, x) - m.sum(kept) / n) * compute::Rsqrt(m.var(kept) / n + Const(acc, eps));
}

Expr LayerNorm(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), gamma = ctx.Input(1), beta = ctx.Input(2);
  int ndim = static_cast<int>(x.ndim());
  // gamma and beta follow the axes in the order given; the reduction visits them sorted.
  std::vector<int> given;
  for (int64_t a : ctx.attrs().GetInts("axes")) given.push_back(NormalizeAxis(ctx, a, ndim));
  std::vector<int> axes = given;
  std::sort(axes.begin(), axes.end());
  DataType dtype = x.dtype(), acc = AccumulatorDType(dtype);
  double eps = ctx.attrs().GetFloat("epsilon");
  // TVM's center/scale: without them the result is not shifted by beta / scaled by gamma.
  bool center = ctx.attrs().GetBool("center"), scale = ctx.attrs().GetBool("scale");
  std::vector<ir::Expr> extents;
  for (int a : axes) extents.push_back(x.shape()[a]);
  Moments m = ComputeMoments(
      Without(x.shape(), axes), extents,
      [&](const std::vector<ir::Expr>& kept, const std::vector<ir::Expr>& r) {
        return x(With(kept, axes, r));
      },
      acc, "T_layer_norm");
  Tensor out = compute::Compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> idx = AsExprs(i), param;
        for (int a : given) param.push_back(idx[a]);
        ir::Expr v = Normalized(x(idx), m, Without(idx, axes), acc, eps);
        if (scale) v = v * CastTo(acc, gamma(param));
        if (center) v = v + CastTo(acc, beta(param));
        return CastTo(dtype, v);
      },
      "T_layer_norm", AxisNames(x.ndim(), "ax"));
  return ctx.CallKernel("layer_norm", {out});
}

Expr RmsNorm(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), weight = ctx.Input(1);
  int ndim = static_cast<int>(x.ndim());
  std::vector<int> given;
  for (int64_t a : ctx.attrs().GetInts("axes")) given.push_back(NormalizeAxis(ctx, a, ndim));
  std::vector<int> axes = given;
  std::sort(axes.begin(), axes.end());
  DataType dtype = x.dtype(), acc = AccumulatorDType(dtype);
  double eps = ctx.attrs().GetFloat("epsilon");
  std::vector<ir::Expr> kept_shape = Without(x.shape(), axes);
  auto r = ReduceAxes(x.shape(), axes);
  std::vector<ir::Expr> extents;
  for (int a : axes) extents.push_back(x.shape()[a]);
  ir::Expr count = Product(extents);
  Tensor squares = compute::Compute(
      kept_shape,
      [&](const std::vector<ir::Var>& i) {
        ir::Expr v = CastTo(acc, x(With(AsExprs(i), axes, Vars(r))));
        return compute::Sum(v * v, r);
      },
      "T_rms_norm_sum", AxisNames(kept_shape.size(), "ax"));
  Tensor out = compute::Compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> idx = AsExprs(i), param;
        for (int a : given) param.push_back(idx[a]);
        ir::Expr inv =
            compute::Rsqrt(squares(Without(idx, axes)) / CastTo(acc, count) + Const(acc, eps));
        return CastTo(dtype, CastTo(acc, x(idx)) * inv * CastTo(acc, weight(param)));
      },
      "T_rms_norm", AxisNames(x.ndim(), "ax"));
  return ctx.CallKernel("rms_norm", {out});
}

// Statistics per (batch, group): the batch is axis 0 unless the channels are; every other
// axis is reduced together with the channels of the group.
Expr GroupNorm(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), gamma = ctx.Input(1), beta = ctx.Input(2);
  int ndim = static_cast<int>(x.ndim());
  int channel = NormalizeAxis(ctx, ctx.attrs().GetInt("channel_axis"), ndim);
  int64_t groups = ctx.attrs().GetInt("num_groups");
  bool has_batch = channel != 0;
  const ir::Expr& channels = x.shape()[channel];
  ir::Expr per_group = AsConstInt(channels) ? I64(*AsConstInt(channels) / groups)
                                            : ir::FloorDiv(channels, I64(groups));
  std::vector<int> spatial;
  for (int d = 0; d < ndim; ++d) {
    if (d != channel && !(has_batch && d == 0)) spatial.push_back(d);
  }
  std::vector<ir::Expr> kept_shape;
  if (has_batch) kept_shape.push_back(x.shape()[0]);
  kept_shape.push_back(I64(groups));
  std::vector<ir::Expr> extents = {per_group};
  for (int d : spatial) extents.push_back(x.shape()[d]);
  DataType dtype = x.dtype(), acc = AccumulatorDType(dtype);
  double eps = ctx.attrs().GetFloat("epsilon");
  // TVM's center/scale: without them the result is not shifted by beta / scaled by gamma.
  bool center = ctx.attrs().GetBool("center"), scale = ctx.attrs().GetBool("scale");
  Moments m = ComputeMoments(
      kept_shape, extents,
      [&](const std::vector<ir::Expr>& kept, const std::vector<ir::Expr>& r) {
        std::vector<ir::Expr> idx(ndim);
        if (has_batch) idx[0] = kept[0];
        idx[channel] = kept.back() * per_group + r[0];
        for (size_t s = 0; s < spatial.size(); ++s) idx[spatial[s]] = r[1 + s];
        return x(idx);
      },
      acc, "T_group_norm");
  Tensor out = compute::Compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> idx = AsExprs(i), kept;
        if (has_batch) kept.push_back(idx[0]);
        kept.push_back(ir::FloorDiv(idx[channel], per_group));
        ir::Expr v = Normalized(x(idx), m, kept, acc, eps);
        if (scale) v = v * CastTo(acc, gamma(idx[channel]));
        if (center) v = v + CastTo(acc, beta(idx[channel]));
        return CastTo(dtype, v);
      },
      "T_group_norm", AxisNames(x.ndim(), "ax"));
  return ctx.CallKernel("group_norm", {out});
}

// Inference: (x - moving_mean) / sqrt(moving_var + eps) * gamma + beta along `axis`; the
// moving statistics come back unchanged as the second and third results.
Expr BatchNorm(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), gamma = ctx.Input(1), beta = ctx.Input(2);
  Tensor mean = ctx.Input(3), var = ctx.Input(4);
  int axis = NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()));
  double eps = ctx.attrs().GetFloat("epsilon");
  // TVM's center/scale: without them the result is not shifted by beta / scaled by gamma.
  bool center = ctx.attrs().GetBool("center"), scale = ctx.attrs().GetBool("scale");
  DataType dtype = x.dtype();
  Tensor out = compute::Compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) {
        ir::Var c = i[axis];
        ir::Expr v = (x(i) - mean(c)) / compute::Sqrt(var(c) + Const(dtype, eps));
        if (scale) v = v * gamma(c);
        if (center) v = v + beta(c);
        return v;
      },
      "T_batch_norm", AxisNames(x.ndim(), "ax"));
  Expr normalized =
      ctx.Emit(ctx.CallKernel("batch_norm", {out}, {ctx.call().args[0].struct_info()}), "bn");
  return Tuple({normalized, ctx.call().args[3], ctx.call().args[4]});
}

}  // namespace

void AddNormRules(RuleTable& r) {
  r["nn.softmax"] = [](LegalizeContext& ctx) { return Softmax(ctx, false); };
  r["nn.log_softmax"] = [](LegalizeContext& ctx) { return Softmax(ctx, true); };
  r["nn.layer_norm"] = LayerNorm;
  r["nn.rms_norm"] = RmsNorm;
  r["nn.group_norm"] = GroupNorm;
  r["nn.batch_norm"] = BatchNorm;
}

}  // namespace kiln::ir::relax::legalize
