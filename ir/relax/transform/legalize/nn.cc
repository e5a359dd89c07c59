// nn.pad (constant, edge and reflect modes; a negative width crops) and nn.dropout, which in
// inference passes its input through: the call becomes (x, mask) with a mask of ones.
#include "ir/compute/math.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;

Expr Pad(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0);
  const std::vector<int64_t>& width = ctx.attrs().GetInts("pad_width");
  const std::string& mode = ctx.attrs().GetString("pad_mode");
  ir::Expr value = Const(x.dtype(), ctx.attrs().GetFloat("pad_value"));
  std::vector<std::string> names;
  for (size_t d = 0; d < x.ndim(); ++d) names.push_back("ax" + std::to_string(d));
  Tensor out = compute::Compute(
      ctx.OutShape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> index;
        for (size_t d = 0; d < x.ndim(); ++d) {
          ir::Expr j = AddConst(i[d], -width[2 * d]);
          const ir::Expr& n = x.shape()[d];
          if (mode == "reflect") {
            // One reflection about the first and last element (numpy's "reflect").
            j = ir::Select(j < I64(0), -j, j);
            j = ir::Select(j >= n, (n - I64(1)) * I64(2) - j, j);
          }
          index.push_back(mode == "constant" ? j : ClampIndex(j, n));
        }
        if (mode == "constant") return compute::PaddedLoad(x, index, value);
        return x(index);
      },
      "T_pad", names);
  return ctx.CallKernel("pad", {out});
}

Expr Dropout(LegalizeContext& ctx) {
  const Expr& x = ctx.call().args[0];
  const TensorStructInfoNode& info = ctx.ArgInfo(0);
  Tensor ones = compute::Compute(
      ctx.Dims(*info.shape), [&](const std::vector<ir::Var>&) { return Const(info.dtype, 1); },
      "T_full");
  Expr mask = ctx.Emit(ctx.CallKernel("ones", {ones}, {x.struct_info()}), "mask");
  return Tuple({x, mask});
}

}  // namespace

void AddNNRules(RuleTable& r) {
  r["nn.pad"] = Pad;
  r["nn.dropout"] = Dropout;
}

}  // namespace kiln::ir::relax::legalize
