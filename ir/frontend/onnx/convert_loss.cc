// Losses composed from primitive ops: NegativeLogLikelihoodLoss (a gather of the target
// class, weighted, with ignore_index and none/sum/mean reduction) and SoftmaxCrossEntropyLoss
// (log_softmax over the classes, then the same).
#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

struct LossInputs {
  Expr log_prob;  // (N, C, d1, ...)
  DataType dtype;
  Expr target;  // (N, d1, ...), integer
  Expr weight;  // (C,) or undefined
};

Expr NllLoss(NodeContext& ctx, const LossInputs& in) {
  std::string reduction = ctx.String("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    ctx.Invalid("reduction '" + reduction + "' is not none, sum or mean");
  }
  std::optional<int64_t> ignore = ctx.OptInt("ignore_index");
  const DataType i64 = DataType::Int(64);
  Expr target = in.target;
  if (target.struct_info().as<relax::TensorStructInfoNode>()->dtype != i64) {
    target = ctx.Call("astype", {target}, relax::Attrs().Set("dtype", i64));
  }
  Expr valid;
  if (ignore) {
    // Ignored positions may hold an index outside [0, C): gather class 0 there instead.
    valid = ctx.Call("not_equal", {target, ctx.Scalar(static_cast<double>(*ignore), i64)});
    target = ctx.Call("where", {valid, target, ctx.Scalar(0, i64)});
  }
  Expr picked =
      ctx.Call("gather_elements",
               {in.log_prob, ctx.Call("expand_dims", {target}, relax::Attrs().Set("axis", {1}))},
               relax::Attrs().Set("axis", 1));
  Expr loss =
      ctx.Call("negative", {ctx.Call("squeeze", {picked}, relax::Attrs().Set("axis", {1}))});
  Expr w;
  if (in.weight.defined()) w = ctx.Call("take", {in.weight, target}, relax::Attrs().Set("axis", 0));
  if (valid.defined()) {
    Expr mask = ctx.Call("astype", {valid}, relax::Attrs().Set("dtype", in.dtype));
    w = w.defined() ? ctx.Call("multiply", {w, mask}) : mask;
  }
  if (w.defined()) loss = ctx.Call("multiply", {loss, w});
  if (reduction == "none") return loss;
  Expr total = ctx.Call("sum", {loss});
  if (reduction == "sum") return total;
  if (!w.defined()) return ctx.Call("mean", {loss});
  return ctx.Call("divide", {total, ctx.Call("sum", {w})});
}

Outputs NegativeLogLikelihoodLoss(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  if (ctx.InputRank(0) < 2) ctx.Invalid("the input must be (N, C, ...)");
  LossInputs in{ctx.Input(0), ctx.InputDType(0), ctx.Input(1),
                ctx.HasInput(2) ? ctx.Input(2) : Expr()};
  return {NllLoss(ctx, in)};
}

Outputs SoftmaxCrossEntropyLoss(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  if (ctx.InputRank(0) < 2) ctx.Invalid("the scores must be (N, C, ...)");
  Expr log_prob = ctx.Call("nn.log_softmax", {ctx.Input(0)}, relax::Attrs().Set("axis", 1));
  LossInputs in{log_prob, ctx.InputDType(0), ctx.Input(1), ctx.HasInput(2) ? ctx.Input(2) : Expr()};
  return {NllLoss(ctx, in), log_prob};
}

}  // namespace

void RegisterLossConverters(ConverterTable& t) {
  t.Add("NegativeLogLikelihoodLoss", 12, NegativeLogLikelihoodLoss, 22);  // 22: bfloat16
  t.Add("SoftmaxCrossEntropyLoss", 12, SoftmaxCrossEntropyLoss);
}

}  // namespace kiln::ir::frontend::onnx
