// matmul with numpy rules (batch dims broadcast, a 1-D operand promoted and its dim dropped
// from the result) as one "T_matmul_NN" reduction; linear as x @ W^T ("T_matmul_NT") plus a
// bias stage. Operands are cast to out_dtype before they are multiplied, as TVM does.
#include "ir/compute/reduce.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

// out = a @ b over reduce axis k. `b_transposed`: b is (..., N, K) as linear's weight.
Tensor MatmulStage(const Tensor& a, const Tensor& b, bool b_transposed,
                   const std::vector<ir::Expr>& out_shape, DataType out_dtype,
                   const std::string& name) {
  bool a_vec = a.ndim() == 1, b_vec = b.ndim() == 1;
  size_t nb = out_shape.size() - (a_vec ? 0 : 1) - (b_vec ? 0 : 1);
  std::vector<ir::Expr> batch_shape(out_shape.begin(), out_shape.begin() + nb);
  std::vector<ir::Expr> a_batch(a.shape().begin(), a.shape().end() - std::min<size_t>(a.ndim(), 2));
  std::vector<ir::Expr> b_batch(b.shape().begin(), b.shape().end() - std::min<size_t>(b.ndim(), 2));
  ir::Expr extent = a.shape().back();
  ir::IterVar k = compute::ReduceAxis(extent, "k");
  std::vector<std::string> names;
  for (size_t d = 0; d < nb; ++d) names.push_back("b" + std::to_string(d));
  if (!a_vec) names.push_back("i");
  if (!b_vec) names.push_back("j");
  return compute::Compute(
      out_shape,
      [&](const std::vector<ir::Var>& idx) {
        std::vector<ir::Expr> out = AsExprs(idx);
        std::vector<ir::Expr> batch(out.begin(), out.begin() + nb);
        size_t pos = nb;
        std::vector<ir::Expr> ai = BroadcastIndices(a_batch, batch, batch_shape);
        if (!a_vec) ai.push_back(out[pos++]);
        ai.push_back(k.var);
        std::vector<ir::Expr> bi = BroadcastIndices(b_batch, batch, batch_shape);
        ir::Expr j = b_vec ? ir::Expr() : out[pos++];
        if (b_transposed) {
          if (!b_vec) bi.push_back(j);
          bi.push_back(k.var);
        } else {
          bi.push_back(k.var);
          if (!b_vec) bi.push_back(j);
        }
        return compute::Sum(CastTo(out_dtype, a(ai)) * CastTo(out_dtype, b(bi)), {k});
      },
      name, names);
}

Expr Matmul(LegalizeContext& ctx) {
  Tensor a = ctx.Input(0), b = ctx.Input(1);
  Tensor out = MatmulStage(a, b, false, ctx.OutShape(), ctx.OutDType(), "T_matmul_NN");
  return ctx.CallKernel("matmul", {out});
}

Expr Linear(LegalizeContext& ctx) {
  Tensor x = ctx.Input(0), w = ctx.Input(1);
  DataType dtype = ctx.OutDType();
  if (ctx.num_args() == 2) {
    return ctx.CallKernel("linear",
                          {MatmulStage(x, w, true, ctx.OutShape(), dtype, "T_matmul_NT")});
  }
  Tensor bias = ctx.Input(2);
  // The product's shape: x's leading dims, then out_features unless the weight is 1-D.
  std::vector<ir::Expr> mm_shape(x.shape().begin(), x.shape().end() - 1);
  if (w.ndim() == 2) mm_shape.push_back(w.shape()[0]);
  Tensor mm = MatmulStage(x, w, true, mm_shape, dtype, "T_matmul_NT");
  std::vector<ir::Expr> shape = ctx.OutShape();
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d) names.push_back("ax" + std::to_string(d));
  Tensor out = compute::Compute(
      shape,
      [&](const std::vector<ir::Var>& idx) {
        std::vector<ir::Expr> i = AsExprs(idx);
        return mm(BroadcastIndices(mm, i, shape)) +
               CastTo(dtype, bias(BroadcastIndices(bias, i, shape)));
      },
      "T_add", names);
  return ctx.CallKernel("linear", {out});
}

}  // namespace

void AddLinearAlgebraRules(RuleTable& r) {
  r["matmul"] = Matmul;
  r["linear"] = Linear;
}

}  // namespace kiln::ir::relax::legalize
