// Tensor creation: full, zeros and ones (and their *_like forms, which read only their
// argument's shape, so the argument is not passed to the kernel), arange over constant or
// scalar bounds, and the triangular masks tril/triu ("trilu").
#include "ir/compute/math.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;

LegalizeFn Fill(const std::string& name, std::optional<double> value) {
  return [name, value](LegalizeContext& ctx) {
    DataType dtype = ctx.OutDType();
    double v = value ? *value : ctx.attrs().GetFloat("fill_value");
    Tensor out = compute::Compute(
        ctx.OutShape(), [&](const std::vector<ir::Var>&) { return Const(dtype, v); }, "T_full");
    return ctx.CallKernel(name, {out});
  };
}

// start + i * step in the result's dtype; bounds from the scalar arguments (end), (start,
// end) or (start, end, step), else from the attributes.
Expr Arange(LegalizeContext& ctx) {
  DataType dtype = ctx.OutDType();
  ir::Expr start, step;
  size_t n = ctx.num_args();
  if (n == 0) {
    start = Const(dtype, ctx.attrs().GetFloat("start"));
    step = Const(dtype, ctx.attrs().GetFloat("step"));
  } else {
    start = n >= 2 ? ctx.Scalar(0, dtype) : Const(dtype, 0);
    step = n == 3 ? ctx.Scalar(2, dtype) : Const(dtype, 1);
  }
  Tensor out = compute::Compute(
      ctx.OutShape(),
      [&](ir::Var i) {
        ir::Expr offset = IsConstInt(step, 1) ? ir::Cast(dtype, i) : ir::Cast(dtype, i) * step;
        return IsConstInt(start, 0) ? offset : start + offset;
      },
      "T_arange");
  return ctx.CallKernel("arange", {out});
}

LegalizeFn Triangle(const std::string& name, bool lower) {
  return [name, lower](LegalizeContext& ctx) {
    Tensor x = ctx.Input(0);
    int64_t k = ctx.attrs().GetInt("k");
    size_t nd = x.ndim();
    Tensor out = compute::Compute(
        x.shape(),
        [&](const std::vector<ir::Var>& i) {
          ir::Expr row = AddConst(i[nd - 2], k);
          ir::Expr col = i[nd - 1];
          ir::Expr keep = lower ? col <= row : col >= row;
          return ir::Select(keep, x(i), Const(x.dtype(), 0));
        },
        "trilu");
    return ctx.CallKernel(name, {out});
  };
}

}  // namespace

void AddCreateRules(RuleTable& r) {
  r["full"] = Fill("full", std::nullopt);
  r["full_like"] = Fill("full", std::nullopt);
  r["zeros"] = Fill("zeros", 0.0);
  r["zeros_like"] = Fill("zeros", 0.0);
  r["ones"] = Fill("ones", 1.0);
  r["ones_like"] = Fill("ones", 1.0);
  r["arange"] = Arange;
  r["tril"] = Triangle("tril", true);
  r["triu"] = Triangle("triu", false);
}

}  // namespace kiln::ir::relax::legalize
