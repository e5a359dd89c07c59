// Linear-algebra zoo functions: matmul (static and with a symbolic row count), batch matmul,
// a three-stage dense + bias + relu, and an int8 matmul accumulating in int32.
#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "tests/ir/zoo/entries.h"
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)

namespace {

constexpr DataType kF32 = DataType::Float(32);

// C[M, N] = A[M, K] x B[K, N], accumulating in `acc`.
PrimFunc Matmul(const std::string& name, Expr m, Expr n, Expr k_extent, DataType in = kF32,
                DataType acc = kF32) {
  Tensor a = Placeholder("A", {m, k_extent}, in);
  Tensor b = Placeholder("B", {k_extent, n}, in);
  IterVar k = ReduceAxis(k_extent, "k");
  Tensor c = Compute({m, n},
                     [&](Var i, Var j) {
                       Expr x = a(i, k.var), y = b(k.var, j);
                       if (in != acc) {
                         x = Cast(acc, x);
                         y = Cast(acc, y);
                       }
                       return Sum(x * y, {k});
                     },
                     "C", {"i", "j"});
  return CreatePrimFunc({a, b, c}, name);
}

PrimFunc BatchMatmul() {  // (4, 16, 24) x (4, 24, 20)
  Tensor a = Placeholder("A", {4, 16, 24}, kF32);
  Tensor b = Placeholder("B", {4, 24, 20}, kF32);
  IterVar k = ReduceAxis(24, "k");
  Tensor c = Compute({4, 16, 20},
                     [&](Var x, Var i, Var j) { return Sum(a(x, i, k.var) * b(x, k.var, j), {k}); },
                     "C", {"b", "i", "j"});
  return CreatePrimFunc({a, b, c}, "batch_matmul");
}

PrimFunc DenseBiasRelu() {  // relu(X W^T + bias), X (16, 32), W (24, 32)
  Tensor x = Placeholder("X", {16, 32}, kF32);
  Tensor w = Placeholder("W", {24, 32}, kF32);
  Tensor bias = Placeholder("bias", {24}, kF32);
  IterVar k = ReduceAxis(32, "k");
  Tensor dense = Compute(
      {16, 24}, [&](Var i, Var j) { return Sum(x(i, k.var) * w(j, k.var), {k}); }, "dense");
  Tensor biased = Compute(
      {16, 24}, [&](Var i, Var j) { return dense(i, j) + bias(j); }, "bias_add");
  Tensor relu = Compute(
      {16, 24}, [&](Var i, Var j) { return ir::Max(biased(i, j), Const(kF32, 0)); }, "relu");
  return CreatePrimFunc({x, w, bias, relu}, "dense_bias_relu");
}

}  // namespace

void AddLinearEntries(std::vector<ZooEntry>& entries) {
  entries.push_back(
      MakeEntry("matmul", [] { return Matmul("matmul", 32, 48, 40); }, RefMatmul, {2}));
  entries.push_back(MakeEntry("matmul_symbolic_m",
                              [] { return Matmul("matmul_symbolic_m", Var("m"), 24, 32); },
                              RefMatmul, {2}, {{"m", 20}}));
  entries.push_back(MakeEntry("batch_matmul", BatchMatmul, RefBatchMatmul, {2}));
  entries.push_back(MakeEntry("dense_bias_relu", DenseBiasRelu, RefDenseBiasRelu, {3}));
  ZooEntry int8 = MakeEntry(
      "int8_matmul",
      [] { return Matmul("int8_matmul", 16, 24, 32, DataType::Int(8), DataType::Int(32)); },
      RefMatmul, {2});
  int8.input_low = -128;
  int8.input_high = 127;
  entries.push_back(std::move(int8));
}

}  // namespace kiln::ir::zoo
