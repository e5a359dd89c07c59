// Linear algebra: MatMul (numpy batched matmul) and Gemm, which becomes linear (x @ W^T + b)
// when B is transposed, as exporters write fully connected layers, else matmul, with the
// transposes, alpha and beta as separate ops.
#include "ir/frontend/onnx/convert_block_attention.h"
#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

int RankOf(const Expr& e) {
  const auto* t = e.struct_info().as<relax::TensorStructInfoNode>();
  return t != nullptr && t->shape ? t->ndim : -1;
}

// a and b of a @ b with their inner dims (a's last, b's `b_inner`) brought to agree and
// their batch dims (all but the last two) broadcast, as numpy's matmul needs.
std::vector<Expr> AgreeMatmul(NodeContext& ctx, NodeContext::Operand a, NodeContext::Operand b,
                              bool b_transposed = false) {
  int ra = RankOf(a.expr), rb = RankOf(b.expr);
  if (ra < 1 || rb < 1) return {a.expr, b.expr};
  int b_inner = b_transposed ? rb - 1 : std::max(rb - 2, 0);
  std::vector<NodeContext::DimGroup> groups = {{{{0, ra - 1}, {1, b_inner}}, false}};
  for (int k = 1; k <= std::max(ra, rb) - 2; ++k) {
    NodeContext::DimGroup batch;
    batch.broadcast = true;
    if (ra - 2 >= k) batch.slots.emplace_back(0, ra - 2 - k);
    if (rb - 2 >= k) batch.slots.emplace_back(1, rb - 2 - k);
    groups.push_back(batch);
  }
  return ctx.AgreeDims({std::move(a), std::move(b)}, groups);
}

Outputs MatMul(NodeContext& ctx) {
  // The end of a masked attention with a block-structured mask (convert_block_attention.h).
  if (std::optional<Outputs> sparse = MatMulAsBlockAttention(ctx)) return *sparse;
  std::vector<Expr> ab = AgreeMatmul(ctx, {ctx.Input(0), "input 0"}, {ctx.Input(1), "input 1"});
  DataType dtype = ctx.InputDType(0);
  if (!Is16BitFloat(dtype)) return {ctx.Call("matmul", ab)};
  // Products and sums in float32 (the operands widen exactly), one rounding at the end.
  Expr y = ctx.Call("matmul", ab, relax::Attrs().Set("out_dtype", DataType::Float(32)));
  return {AsType(ctx, y, dtype)};
}

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
  std::vector<Expr> ab = AgreeMatmul(ctx, {a, "input 0"}, {ctx.Input(1), "input 1"}, trans_b);
  a = ab[0];
  b = ab[1];
  bool has_c = ctx.HasInput(2) && beta != 0;
  Expr c;
  if (has_c) {
    // C broadcasts to the product (M, N).
    c = ctx.Input(2);
    auto sa = RankOf(a) == 2 ? *a.struct_info().as<relax::TensorStructInfoNode>()->shape
                             : std::vector<PrimExpr>();
    auto sb = RankOf(b) == 2 ? *b.struct_info().as<relax::TensorStructInfoNode>()->shape
                             : std::vector<PrimExpr>();
    if (!sa.empty() && !sb.empty()) {
      std::vector<PrimExpr> product = {sa[0], trans_b ? sb[0] : sb[1]};
      c = ctx.Broadcast({NodeContext::Operand::Fixed("A @ B", product), {c, "input 2"}})[1];
    }
  }
  // 16-bit floats: products, sums, alpha and beta in float32, one rounding at the end.
  bool widen = Is16BitFloat(dtype);
  DataType acc = widen ? DataType::Float(32) : dtype;
  relax::Attrs out;
  if (widen) out.Set("out_dtype", acc);
  Expr y;
  if (has_c && trans_b && alpha == 1 && beta == 1) {
    y = ctx.Call("linear", {a, b, c}, out);
  } else {
    y = trans_b ? ctx.Call("linear", {a, b}, out) : ctx.Call("matmul", {a, b}, out);
    if (alpha != 1) y = ctx.Call("multiply", {y, ctx.Scalar(alpha, acc)});
    if (has_c) {
      if (widen) c = AsType(ctx, c, DataType::Float(32));
      if (beta != 1) c = ctx.Call("multiply", {c, ctx.Scalar(beta, acc)});
      y = ctx.Call("add", {y, c});
    }
  }
  return {widen ? AsType(ctx, y, dtype) : y};
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
