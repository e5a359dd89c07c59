// Reductions over axes (every axis when none are given), with keepdims, as topi writes them:
// one "A_red" reduction (sum, max, min, prod); mean divides it ("T_divide"); variance and std
// take the mean of squared deviations from the mean in a second pass ("T_multiply_red"), the
// population variance as TVM's. argmax and argmin find the extreme value ("A_red_temp") and
// then the first index holding it ("A_red"), so ties go to the lowest index as in numpy.
#include "ir/compute/reduce.h"

#include "ir/compute/math.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;
using compute::ReduceKind;

std::vector<std::string> AxisNames(size_t n) {
  std::vector<std::string> names;
  for (size_t d = 0; d < n; ++d) names.push_back("ax" + std::to_string(d));
  return names;
}

// How the output index of a reduction relates to the input's index.
struct ReduceLayout {
  std::vector<int> axes;  // reduced input axes, sorted
  bool keepdims = false;
  size_t in_ndim = 0;

  bool Reduced(size_t d) const {
    return std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end();
  }
  // The input index for output index `out` with `r[k]` on reduced axis k.
  std::vector<ir::Expr> InputIndex(const std::vector<ir::Expr>& out,
                                   const std::vector<ir::Expr>& r) const {
    std::vector<ir::Expr> in;
    size_t next_out = 0, next_r = 0;
    for (size_t d = 0; d < in_ndim; ++d) {
      if (Reduced(d)) {
        in.push_back(r[next_r++]);
        if (keepdims) ++next_out;
      } else {
        in.push_back(out[next_out++]);
      }
    }
    return in;
  }
  // The output index that input index `in` reduces into.
  std::vector<ir::Expr> OutputIndex(const std::vector<ir::Expr>& in) const {
    std::vector<ir::Expr> out;
    for (size_t d = 0; d < in_ndim; ++d) {
      if (!Reduced(d)) {
        out.push_back(in[d]);
      } else if (keepdims) {
        out.push_back(I64(0));
      }
    }
    return out;
  }
};

std::vector<ir::IterVar> ReduceVars(const Tensor& x, const ReduceLayout& layout) {
  std::vector<ir::IterVar> r;
  for (size_t k = 0; k < layout.axes.size(); ++k) {
    r.push_back(compute::ReduceAxis(x.shape()[layout.axes[k]], "k" + std::to_string(k)));
  }
  return r;
}

std::vector<ir::Expr> Vars(const std::vector<ir::IterVar>& axes) {
  std::vector<ir::Expr> out;
  for (const ir::IterVar& a : axes) out.push_back(a.var);
  return out;
}

ir::Expr Reduce(ReduceKind kind, const ir::Expr& source, const std::vector<ir::IterVar>& r,
                const ir::Expr& where = ir::Expr()) {
  switch (kind) {
    case ReduceKind::kSum:
      return compute::Sum(source, r, where);
    case ReduceKind::kMax:
      return compute::Max(source, r, where);
    case ReduceKind::kMin:
      return compute::Min(source, r, where);
    case ReduceKind::kProd:
      return compute::Prod(source, r, where);
  }
  return ir::Expr();
}

ir::Expr Count(const Tensor& x, const ReduceLayout& layout) {
  ir::Expr count;
  for (int a : layout.axes) count = count.defined() ? count * x.shape()[a] : x.shape()[a];
  return count.defined() ? count : I64(1);
}

// The reduction stage of `kind` over the layout's axes (when there are none, a copy).
Tensor ReduceStage(const Tensor& x, const ReduceLayout& layout, const std::vector<ir::Expr>& shape,
                   ReduceKind kind, const std::string& name,
                   const std::function<ir::Expr(const ir::Expr&, const std::vector<ir::Expr>&)>&
                       source = nullptr) {
  auto r = ReduceVars(x, layout);
  return compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in = layout.InputIndex(AsExprs(i), Vars(r));
        ir::Expr v = source ? source(x(in), in) : x(in);
        return r.empty() ? v : Reduce(kind, v, r);
      },
      name, AxisNames(shape.size()));
}

ReduceLayout ReadLayout(const LegalizeContext& ctx, const Tensor& x) {
  ReduceLayout layout;
  layout.in_ndim = x.ndim();
  layout.axes = ReduceAxesAttr(ctx, "axis", static_cast<int>(x.ndim()));
  layout.keepdims = ctx.attrs().GetBool("keepdims");
  return layout;
}

LegalizeFn Simple(const std::string& name, ReduceKind kind) {
  return [name, kind](LegalizeContext& ctx) {
    Tensor x = ctx.Input(0);
    if (x.dtype().is_bool() && (kind == ReduceKind::kSum || kind == ReduceKind::kProd)) {
      ctx.Unsupported("cannot " + name + " a bool tensor; cast it to an integer first");
    }
    ReduceLayout layout = ReadLayout(ctx, x);
    return ctx.CallKernel(name, {ReduceStage(x, layout, ctx.OutShape(), kind, "A_red")});
  };
}

Expr Mean(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  ReduceLayout layout = ReadLayout(ctx, x);
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor sum = ReduceStage(x, layout, shape, ReduceKind::kSum, "A_red");
  ir::Expr count = Count(x, layout);
  Tensor out = compute::Compute(
      shape, [&](const std::vector<ir::Var>& i) { return sum(i) / CastTo(x.dtype(), count); },
      "T_divide", AxisNames(shape.size()));
  return ctx.CallKernel("mean", {out});
}

Expr Variance(LegalizeContext& ctx, bool std_dev) {
  Tensor x = ctx.Input(0);
  ReduceLayout layout = ReadLayout(ctx, x);
  std::vector<ir::Expr> shape = ctx.OutShape();
  DataType dtype = x.dtype();
  ir::Expr count = CastTo(dtype, Count(x, layout));
  Tensor sum = ReduceStage(x, layout, shape, ReduceKind::kSum, "A_red");
  Tensor squares = ReduceStage(x, layout, shape, ReduceKind::kSum, "T_multiply_red",
                               [&](const ir::Expr& v, const std::vector<ir::Expr>& in) {
                                 ir::Expr d = v - sum(layout.OutputIndex(in)) / count;
                                 return d * d;
                               });
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        ir::Expr var = squares(i) / count;
        return std_dev ? compute::Sqrt(var) : var;
      },
      std_dev ? "compute" : "T_divide", AxisNames(shape.size()));
  return ctx.CallKernel(std_dev ? "std" : "variance", {out});
}

Expr ArgReduce(LegalizeContext& ctx, bool max) {
  Tensor x = ctx.Input(0);
  ReduceLayout layout;
  layout.in_ndim = x.ndim();
  layout.keepdims = ctx.attrs().GetBool("keepdims");
  bool flat = !ctx.attrs().Has("axis");
  if (flat) {
    for (size_t d = 0; d < x.ndim(); ++d) layout.axes.push_back(static_cast<int>(d));
  } else {
    layout.axes = {NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()))};
  }
  std::vector<ir::Expr> shape = ctx.OutShape();
  ReduceKind kind = max ? ReduceKind::kMax : ReduceKind::kMin;
  Tensor best = ReduceStage(x, layout, shape, kind, "A_red_temp");
  auto r = ReduceVars(x, layout);
  DataType index_dtype = ctx.OutDType();
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> o = AsExprs(i);
        std::vector<ir::Expr> rv = Vars(r);
        std::vector<ir::Expr> in = layout.InputIndex(o, rv);
        ir::Expr position;
        if (flat) {
          position = Ravel(rv, x.shape());
        } else {
          position = rv.empty() ? I64(0) : rv[0];
        }
        ir::Expr hit = x(in) == best(o);
        ir::Expr candidate =
            ir::Select(hit, CastTo(index_dtype, position), compute::MaxValue(index_dtype));
        return r.empty() ? CastTo(index_dtype, I64(0)) : compute::Min(candidate, r);
      },
      "A_red", AxisNames(shape.size()));
  return ctx.CallKernel(max ? "argmax" : "argmin", {out});
}

// Running sums and products along `axis` (of the flattened input when there is none): a
// reduction over the axis restricted to the prefix, which keeps the kernel a plain block.
Expr Scan(LegalizeContext& ctx, ReduceKind kind) {
  Tensor x = ctx.Input(0);
  DataType dtype = ctx.OutDType();
  bool exclusive = ctx.attrs().GetBool("exclusive");
  std::vector<ir::Expr> shape = ctx.OutShape();
  bool flat = !ctx.attrs().Has("axis");
  int axis = flat ? 0 : NormalizeAxis(ctx, ctx.attrs().GetInt("axis"), static_cast<int>(x.ndim()));
  ir::IterVar k = compute::ReduceAxis(shape[axis], "k");
  const char* name = kind == ReduceKind::kSum ? "cumsum" : "cumprod";
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> in = AsExprs(i);
        in[axis] = k.var;
        if (flat) in = Unravel(k.var, x.shape());
        ir::Expr in_prefix = exclusive ? k.var < i[axis] : k.var <= i[axis];
        return Reduce(kind, CastTo(dtype, x(in)), {k}, in_prefix);
      },
      std::string("T_") + name, AxisNames(shape.size()));
  return ctx.CallKernel(name, {out});
}

}  // namespace

void AddReduceRules(RuleTable& r) {
  r["sum"] = Simple("sum", ReduceKind::kSum);
  r["max"] = Simple("max", ReduceKind::kMax);
  r["min"] = Simple("min", ReduceKind::kMin);
  r["prod"] = Simple("prod", ReduceKind::kProd);
  r["mean"] = Mean;
  r["variance"] = [](LegalizeContext& ctx) { return Variance(ctx, false); };
  r["std"] = [](LegalizeContext& ctx) { return Variance(ctx, true); };
  r["argmax"] = [](LegalizeContext& ctx) { return ArgReduce(ctx, true); };
  r["argmin"] = [](LegalizeContext& ctx) { return ArgReduce(ctx, false); };
}

void AddScanRules(RuleTable& r) {
  r["cumsum"] = [](LegalizeContext& ctx) { return Scan(ctx, ReduceKind::kSum); };
  r["cumprod"] = [](LegalizeContext& ctx) { return Scan(ctx, ReduceKind::kProd); };
}

}  // namespace kiln::ir::relax::legalize
