// Normalization zoo functions: softmax (static and symbolic rows), log softmax, layer norm
// and rms norm, each several stages as TVM's operator library writes them.
#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "tests/ir/zoo/entries.h"
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)

namespace {

constexpr DataType kF32 = DataType::Float(32);

// Row softmax over (rows, 32): max, exp, sum and divide stages.
PrimFunc Softmax(const std::string& name, Expr rows) {
  Tensor a = Placeholder("A", {rows, 32}, kF32);
  IterVar k = ReduceAxis(32, "k");
  Tensor row_max = Compute(
      {rows}, [&](Var i) { return Max(a(i, k.var), {k}); }, "T_softmax_maxelem");
  Tensor e = Compute(
      {rows, 32}, [&](Var i, Var j) { return Exp(a(i, j) - row_max(i)); }, "T_softmax_exp");
  IterVar k2 = ReduceAxis(32, "k");
  Tensor sum = Compute(
      {rows}, [&](Var i) { return Sum(e(i, k2.var), {k2}); }, "T_softmax_expsum");
  Tensor out = Compute(
      {rows, 32}, [&](Var i, Var j) { return e(i, j) / sum(i); }, "T_softmax_norm");
  return CreatePrimFunc({a, out}, name);
}

PrimFunc LogSoftmax() {  // (8, 32)
  Tensor a = Placeholder("A", {8, 32}, kF32);
  IterVar k = ReduceAxis(32, "k");
  Tensor row_max = Compute(
      {8}, [&](Var i) { return Max(a(i, k.var), {k}); }, "T_softmax_maxelem");
  Tensor sum = Compute(
      {8}, [&](Var i) { return Sum(Exp(a(i, k.var) - row_max(i)), {k}); }, "compute");
  Tensor out = Compute(
      {8, 32}, [&](Var i, Var j) { return a(i, j) - row_max(i) - Log(sum(i)); }, "compute_1");
  return CreatePrimFunc({a, out}, "log_softmax");
}

PrimFunc LayerNorm() {  // (8, 32) with gamma and beta (32,)
  Tensor a = Placeholder("A", {8, 32}, kF32);
  Tensor gamma = Placeholder("gamma", {32}, kF32);
  Tensor beta = Placeholder("beta", {32}, kF32);
  IterVar k = ReduceAxis(32, "k");
  Tensor sum = Compute(
      {8}, [&](Var i) { return Sum(a(i, k.var), {k}); }, "A_red_temp");
  Tensor mean = Compute(
      {8}, [&](Var i) { return sum(i) / Const(kF32, 32); }, "mean");
  Tensor var = Compute(
      {8},
      [&](Var i) {
        Expr d = a(i, k.var) - mean(i);
        return Sum(d * d, {k});
      },
      "var_sum");
  Tensor out = Compute(
      {8, 32},
      [&](Var i, Var j) {
        Expr inv = Rsqrt(var(i) / Const(kF32, 32) + Const(kF32, kNormEpsilon));
        return (a(i, j) - mean(i)) * inv * gamma(j) + beta(j);
      },
      "T_layer_norm");
  return CreatePrimFunc({a, gamma, beta, out}, "layer_norm");
}

PrimFunc RmsNorm() {  // (n, 32) with weight (32,)
  Var n("n");
  Tensor a = Placeholder("A", {n, 32}, kF32);
  Tensor weight = Placeholder("weight", {32}, kF32);
  IterVar k = ReduceAxis(32, "k");
  Tensor squares = Compute(
      {n}, [&](Var i) { return Sum(a(i, k.var) * a(i, k.var), {k}); }, "sq_sum");
  Tensor out = Compute(
      {n, 32},
      [&](Var i, Var j) {
        Expr inv = Rsqrt(squares(i) / Const(kF32, 32) + Const(kF32, kNormEpsilon));
        return a(i, j) * inv * weight(j);
      },
      "T_rms_norm");
  return CreatePrimFunc({a, weight, out}, "rms_norm");
}

}  // namespace

void AddNormEntries(std::vector<ZooEntry>& entries) {
  entries.push_back(MakeEntry("softmax", [] { return Softmax("softmax", 8); }, RefSoftmax, {1}));
  entries.push_back(MakeEntry("softmax_symbolic",
                              [] { return Softmax("softmax_symbolic", Var("n")); }, RefSoftmax, {1},
                              {{"n", 13}}));
  entries.push_back(MakeEntry("log_softmax", LogSoftmax, RefLogSoftmax, {1}));
  entries.push_back(MakeEntry("layer_norm", LayerNorm, RefLayerNorm, {3}));
  entries.push_back(MakeEntry("rms_norm", RmsNorm, RefRmsNorm, {2}, {{"n", 11}}));
}

}  // namespace kiln::ir::zoo
