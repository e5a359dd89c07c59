// Element-wise zoo functions: broadcasting, activations, casts, select, 16-bit floats and
// symbolic sizes.
#include <cmath>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "tests/ir/zoo/entries.h"
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)

namespace {

constexpr DataType kF32 = DataType::Float(32);

PrimFunc AddBroadcast() {  // (4, 1, 8) + (8,)
  Tensor a = Placeholder("A", {4, 1, 8}, kF32);
  Tensor b = Placeholder("B", {8}, kF32);
  Tensor c = Compute(
      {4, 1, 8}, [&](Var i, Var j, Var k) { return a(i, j, k) + b(k); }, "C");
  return CreatePrimFunc({a, b, c}, "add_broadcast");
}

PrimFunc BroadcastAddSymbolic() {  // (m, n) + (n,)
  Var m("m"), n("n");
  Tensor a = Placeholder("A", {m, n}, kF32);
  Tensor b = Placeholder("B", {n}, kF32);
  Tensor c = Compute(
      {m, n}, [&](Var i, Var j) { return a(i, j) + b(j); }, "C");
  return CreatePrimFunc({a, b, c}, "broadcast_add_symbolic");
}

// B = f(A) element-wise over a (32, 64) tensor of `in` into `out`.
PrimFunc Unary(const std::string& name, const std::function<Expr(Expr)>& f, DataType in = kF32) {
  Tensor a = Placeholder("A", {32, 64}, in);
  Tensor b = Compute(
      a.shape(), [&](const std::vector<Var>& i) { return f(a(i)); }, "B");
  return CreatePrimFunc({a, b}, name);
}

Expr GeluErf(Expr x) {
  return Const(kF32, 0.5) * x * (Const(kF32, 1.0) + Erf(x * Const(kF32, 1.0 / std::sqrt(2.0))));
}

Expr GeluTanh(Expr x) {
  Expr inner = Const(kF32, std::sqrt(2.0 / M_PI)) * (x + Const(kF32, 0.044715) * x * x * x);
  return Const(kF32, 0.5) * x * (Const(kF32, 1.0) + Tanh(inner));
}

PrimFunc Where() {
  Tensor cond = Placeholder("cond", {16, 16}, DataType::Bool());
  Tensor a = Placeholder("A", {16, 16}, kF32);
  Tensor b = Placeholder("B", {16, 16}, kF32);
  Tensor c = Compute(
      {16, 16}, [&](Var i, Var j) { return Select(cond(i, j), a(i, j), b(i, j)); }, "C");
  return CreatePrimFunc({cond, a, b, c}, "where");
}

PrimFunc BFloat16Add() {
  Tensor a = Placeholder("A", {16, 32}, DataType::BFloat16());
  Tensor b = Placeholder("B", {16, 32}, DataType::BFloat16());
  Tensor c = Compute(
      {16, 32}, [&](Var i, Var j) { return a(i, j) + b(i, j); }, "C");
  return CreatePrimFunc({a, b, c}, "bfloat16_add");
}

PrimFunc ElementwiseSymbolic() {  // B = A * A + 1 over (n, 8)
  Var n("n");
  Tensor a = Placeholder("A", {n, 8}, kF32);
  Tensor b = Compute(
      {n, 8}, [&](Var i, Var j) { return a(i, j) * a(i, j) + Const(kF32, 1.0); }, "B");
  return CreatePrimFunc({a, b}, "elementwise_symbolic");
}

}  // namespace

void AddElementwiseEntries(std::vector<ZooEntry>& entries) {
  entries.push_back(MakeEntry("add_broadcast", AddBroadcast, RefAddBroadcast, {2}));
  entries.push_back(MakeEntry("broadcast_add_symbolic", BroadcastAddSymbolic, RefBroadcastAdd2d,
                              {2}, {{"m", 7}, {"n", 12}}));
  entries.push_back(MakeEntry(
      "scalar_mul",
      [] { return Unary("scalar_mul", [](Expr x) { return x * Const(kF32, kScaleFactor); }); },
      RefScalarMul, {1}));
  entries.push_back(MakeEntry(
      "relu", [] { return Unary("relu", [](Expr x) { return ir::Max(x, Const(kF32, 0)); }); },
      RefRelu, {1}));
  entries.push_back(MakeEntry("exp", [] { return Unary("exp", Exp); }, RefExp, {1}));
  entries.push_back(
      MakeEntry("sigmoid", [] { return Unary("sigmoid", Sigmoid); }, RefSigmoid, {1}));
  entries.push_back(
      MakeEntry("gelu_erf", [] { return Unary("gelu_erf", GeluErf); }, RefGeluErf, {1}));
  entries.push_back(
      MakeEntry("gelu_tanh", [] { return Unary("gelu_tanh", GeluTanh); }, RefGeluTanh, {1}));
  entries.push_back(MakeEntry(
      "cast_f32_f16",
      [] { return Unary("cast_f32_f16", [](Expr x) { return Cast(DataType::Float(16), x); }); },
      RefCast, {1}));
  entries.push_back(MakeEntry("where", Where, RefWhere, {3}));
  entries.push_back(MakeEntry("bfloat16_add", BFloat16Add, RefAdd, {2}));
  entries.push_back(
      MakeEntry("elementwise_symbolic", ElementwiseSymbolic, RefSquarePlusOne, {1}, {{"n", 37}}));
}

}  // namespace kiln::ir::zoo
