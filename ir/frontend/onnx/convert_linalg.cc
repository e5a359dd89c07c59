// Linear algebra: MatMul (numpy batched matmul) and Gemm, which becomes linear (x @ W^T + b)
// when B is transposed, as exporters write fully connected layers, else matmul, with the
// transposes, alpha and beta as separate ops.
#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

Outputs MatMul(NodeContext& ctx) { return {ctx.Call("matmul", {ctx.Input(0), ctx.Input(1)})}; }

Outputs Gemm(NodeContext& ctx) {
  double alpha = ctx.Float("alpha", 1.0), beta = ctx.Float("beta", 1.0);
  bool trans_a = ctx.Int("transA", 0) != 0, trans_b = ctx.Int("transB", 0) != 0;
  if (ctx.InputRank(0) != 2 || ctx.InputRank(1) != 2) {
    ctx.Invalid("A and B must be 2-D, got " + ctx.InputInfo(0).ToString() + " and " +
                ctx.InputInfo(1).ToString());
  }
  DataType dtype = ctx.InputDType(0);
  Expr a = ctx.Input(0), b = ctx.Input(1);
  if (trans_a) a = ctx.Call("permute_dims", {a});
  bool has_c = ctx.HasInput(2) && beta != 0;
  if (trans_b && alpha == 1 && beta == 1 && has_c) {
    return {ctx.Call("linear", {a, b, ctx.Input(2)})};
  }
  Expr y = trans_b ? ctx.Call("linear", {a, b}) : ctx.Call("matmul", {a, b});
  if (alpha != 1) y = ctx.Call("multiply", {y, ctx.Scalar(alpha, dtype)});
  if (has_c) {
    Expr c = ctx.Input(2);
    if (beta != 1) c = ctx.Call("multiply", {c, ctx.Scalar(beta, dtype)});
    y = ctx.Call("add", {y, c});
  }
  return {y};
}

}  // namespace

void RegisterLinalgConverters(ConverterTable& t) {
  t.Add("MatMul", 1, MatMul);
  t.Add("Gemm", 7, Gemm);
  t.AddUnsupported("Einsum", "Kiln's Relax ops have no einsum");
  for (const char* op : {"MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv"}) {
    t.AddUnsupported(op, "quantized integer kernels are not supported");
  }
  t.AddUnsupported("Det", "Kiln's Relax ops have no determinant");
}

}  // namespace kiln::ir::frontend::onnx
