// Reduction zoo functions: each combiner, one and several axes, keepdims, a mean in two
// stages, float64, and a symbolic reduction extent.
#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "tests/ir/zoo/entries.h"
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)

namespace {

constexpr DataType kF32 = DataType::Float(32);

using Reducer = Expr (*)(Expr, std::vector<IterVar>, Expr);

// B[i] = reduce_k A[i, k] over a (rows, cols) tensor.
PrimFunc RowReduce(const std::string& name, Reducer reducer, Expr rows, Expr cols,
                   DataType dtype = kF32) {
  Tensor a = Placeholder("A", {rows, cols}, dtype);
  IterVar k = ReduceAxis(cols, "k");
  Tensor b = Compute(
      {rows}, [&](Var i) { return reducer(a(i, k.var), {k}, Expr()); }, "B");
  return CreatePrimFunc({a, b}, name);
}

PrimFunc SumKeepdims() {  // (6, 10, 12) -> (6, 1, 1)
  Tensor a = Placeholder("A", {6, 10, 12}, kF32);
  IterVar k1 = ReduceAxis(10, "k1"), k2 = ReduceAxis(12, "k2");
  Tensor b = Compute(
      {6, 1, 1},
      [&](Var i, Var, Var) {
        return Sum(a(i, k1.var, k2.var), {k1, k2});
      },
      "B");
  return CreatePrimFunc({a, b}, "sum_keepdims");
}

PrimFunc Mean() {  // row mean of (16, 24): a sum stage, then a divide stage
  Tensor a = Placeholder("A", {16, 24}, kF32);
  IterVar k = ReduceAxis(24, "k");
  Tensor sum = Compute(
      {16}, [&](Var i) { return Sum(a(i, k.var), {k}); }, "A_red");
  Tensor mean = Compute(
      {16}, [&](Var i) { return sum(i) / Const(kF32, 24); }, "B");
  return CreatePrimFunc({a, mean}, "mean");
}

PrimFunc ColumnMax() {  // (24, 16) -> (16,)
  Tensor a = Placeholder("A", {24, 16}, kF32);
  IterVar k = ReduceAxis(24, "k");
  Tensor b = Compute(
      {16}, [&](Var j) { return Max(a(k.var, j), {k}); }, "B");
  return CreatePrimFunc({a, b}, "max_reduce");
}

PrimFunc SumPositive() {  // B[i] = sum of the positive A[i, k]: a reduction with a condition
  Tensor a = Placeholder("A", {12, 16}, kF32);
  IterVar k = ReduceAxis(16, "k");
  Tensor b = Compute(
      {12}, [&](Var i) { return Sum(a(i, k.var), {k}, a(i, k.var) > Const(kF32, 0)); }, "B");
  return CreatePrimFunc({a, b}, "sum_positive");
}

PrimFunc SumAll() {  // a zero-dimensional result
  Tensor a = Placeholder("A", {6, 10}, kF32);
  IterVar k0 = ReduceAxis(6, "k0"), k1 = ReduceAxis(10, "k1");
  Tensor b = Compute(
      {},
      [&]() {
        return Sum(a(k0.var, k1.var), {k0, k1});
      },
      "B");
  return CreatePrimFunc({a, b}, "sum_all");
}

}  // namespace

void AddReduceEntries(std::vector<ZooEntry>& entries) {
  entries.push_back(
      MakeEntry("sum_axis", [] { return RowReduce("sum_axis", Sum, 16, 24); }, RefRowSum, {1}));
  entries.push_back(MakeEntry("sum_keepdims", SumKeepdims, RefSumKeepdims, {1}));
  entries.push_back(MakeEntry("sum_positive", SumPositive, RefRowSumPositive, {1}));
  entries.push_back(MakeEntry("sum_all", SumAll, RefSumAll, {1}));
  entries.push_back(MakeEntry("mean", Mean, RefRowMean, {1}));
  entries.push_back(MakeEntry("max_reduce", ColumnMax, RefColumnMax, {1}));
  entries.push_back(
      MakeEntry("min_reduce", [] { return RowReduce("min_reduce", Min, 12, 20); }, RefRowMin, {1}));
  ZooEntry prod = MakeEntry("prod_reduce", [] { return RowReduce("prod_reduce", Prod, 8, 6); },
                            RefRowProd, {1});
  prod.input_low = 0.5;  // keeps the products away from zero and overflow
  prod.input_high = 1.5;
  entries.push_back(std::move(prod));
  entries.push_back(
      MakeEntry("float64_reduce",
                [] { return RowReduce("float64_reduce", Sum, 16, 32, DataType::Float(64)); },
                RefRowSum, {1}));
  entries.push_back(MakeEntry("reduce_symbolic",
                              [] { return RowReduce("reduce_symbolic", Sum, 8, Var("n")); },
                              RefRowSum, {1}, {{"n", 45}}));
}

}  // namespace kiln::ir::zoo
