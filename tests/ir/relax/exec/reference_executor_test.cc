// The reference executor: call_tir chains checked against direct C++ computation, symbolic dims
// bound from inputs, tuples, match_cast, nested function calls, shape ops, tir_vars, packed
// host kernels, and the errors (each naming the function and the binding or parameter).
#include "ir/relax/exec/reference_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/relax/op/registry.h"
#include "tests/ir/relax/exec/test_kernels.h"

namespace kiln::ir::relax::exec {
namespace {

using testing::EmitTIR;
using ::testing::HasSubstr;
using testing::RandomTensor;

constexpr DataType kF32 = DataType::Float(32);

Var TensorVar(const std::string& name, std::vector<PrimExpr> shape) {
  return Var(name, TensorStructInfo(std::move(shape), kF32));
}

// Expects `fn` to throw kiln::Error of `kind` whose message contains every part of `parts`.
template <typename Fn>
void ExpectError(Fn fn, ErrorKind kind, const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const std::string& p : parts) EXPECT_THAT(e.what(), HasSubstr(p));
  }
}

// relu(x @ w + b) over x: (n, 4), w: (4, 3), b: (3,).
IRModule MlpModule() {
  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n, 4}), w = TensorVar("w", {4, 3}), b = TensorVar("b", {3});
  BlockBuilder bb;
  bb.BeginFunction("main", {x, w, b});
  bb.BeginDataflow();
  Var mm = EmitTIR(bb, "matmul", {x, w}, testing::MatmulKernel);
  Var add = EmitTIR(bb, "add", {mm, b}, testing::BiasAddKernel);
  Var out = EmitTIR(bb, "relu", {add}, testing::ReluKernel, /*output=*/true);
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.Finalize();
}

TEST(ReferenceExecutorTest, CallTIRChainMatchesDirectComputation) {
  IRModule mod = MlpModule();
  for (int64_t n : {1, 3, 5}) {
    Value x = RandomTensor({n, 4}, 1), w = RandomTensor({4, 3}, 2), b = RandomTensor({3}, 3);
    Value out = exec::Run(mod, "main", {x, w, b});
    ASSERT_TRUE(out.is_tensor());
    const HostTensor& y = out.tensor();
    ASSERT_EQ(y.shape(), (std::vector<int64_t>{n, 3}));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < 3; ++j) {
        float acc = 0;
        for (int64_t k = 0; k < 4; ++k) {
          acc += static_cast<float>(x.tensor().GetDouble(i * 4 + k)) *
                 static_cast<float>(w.tensor().GetDouble(k * 3 + j));
        }
        float expected = std::max(acc + static_cast<float>(b.tensor().GetDouble(j)), 0.0f);
        EXPECT_NEAR(y.GetDouble(i * 3 + j), expected, 1e-6) << i << "," << j;
      }
    }
  }
}

TEST(ReferenceExecutorTest, InconsistentSymbolicDimsAreRejected) {
  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n, 4}), y = TensorVar("y", {n, 4});
  BlockBuilder bb;
  bb.BeginFunction("main", {x, y});
  bb.BeginDataflow();
  Var out = EmitTIR(bb, "add", {x, y}, testing::AddKernel, true);
  bb.EndDataflow();
  bb.EndFunction(out);
  IRModule mod = bb.Finalize();
  Value ok = exec::Run(mod, "main", {RandomTensor({2, 4}, 1), RandomTensor({2, 4}, 2)});
  EXPECT_EQ(ok.tensor().shape(), (std::vector<int64_t>{2, 4}));
  ExpectError(
      [&] {
        exec::Run(mod, "main", {RandomTensor({2, 4}, 1), RandomTensor({3, 4}, 2)});
      },
      ErrorKind::kRuntime,
      {"function main, parameter y", "R.Tensor((n, 4), \"float32\")", "float32[3, 4]",
       "dim 0 is 3, expected n = 2"});
  ExpectError(
      [&] {
        exec::Run(mod, "main", {RandomTensor({2, 4}, 1), RandomTensor({2}, 2)});
      },
      ErrorKind::kRuntime, {"parameter y", "rank is 1, expected 2"});
  Value ints = Value::Tensor(HostTensor(DataType::Int(32), {2, 4}));
  ExpectError(
      [&] {
        exec::Run(mod, "main", {RandomTensor({2, 4}, 1), ints});
      },
      ErrorKind::kRuntime, {"parameter y", "dtype is int32, expected float32"});
  ExpectError(
      [&] {
        exec::Run(mod, "main", {RandomTensor({2, 4}, 1)});
      },
      ErrorKind::kRuntime, {"function main: takes 2 arguments, got 1"});
  ExpectError([&] { exec::Run(mod, "nothing", {}); }, ErrorKind::kInvalidIR,
              {"function nothing is not in the module"});
  ExpectError([&] { exec::Run(mod, "add", {}); }, ErrorKind::kInvalidIR, {"add is a PrimFunc"});
}

// x: R.Tensor(ndim=2) cast to (m, 4), then exp: the dims come from the match_cast.
IRModule MatchCastModule() {
  Var x("x", TensorStructInfo(kF32, 2));
  PrimVar m = SymbolicDim("m");
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var cast = bb.EmitMatchCast(x, TensorStructInfo({m, 4}, kF32), "cast");
  Var out = EmitTIR(bb, "exp", {cast}, testing::ExpKernel, true);
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.Finalize();
}

TEST(ReferenceExecutorTest, MatchCastBindsDimsAndFailsWithNames) {
  IRModule mod = MatchCastModule();
  Value x = RandomTensor({3, 4}, 7);
  Value out = exec::Run(mod, "main", {x});
  ASSERT_EQ(out.tensor().shape(), (std::vector<int64_t>{3, 4}));
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_FLOAT_EQ(static_cast<float>(out.tensor().GetDouble(i)),
                    std::exp(static_cast<float>(x.tensor().GetDouble(i))));
  }
  ExpectError(
      [&] {
        exec::Run(mod, "main", {RandomTensor({3, 5}, 7)});
      },
      ErrorKind::kRuntime,
      {"function main, binding cast: match_cast of cast", "R.Tensor((m, 4), \"float32\")",
       "got float32[3, 5]", "dim 1 is 5, expected 4"});
  ExpectError(
      [&] {
        exec::Run(mod, "main", {RandomTensor({3, 4, 1}, 7)});
      },
      ErrorKind::kRuntime, {"parameter x", "rank is 3, expected 2"});
}

TEST(ReferenceExecutorTest, TuplesAndMultipleOutputs) {
  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n, 8});
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var halves = testing::EmitTIRMulti(bb, "split", {x}, testing::SplitLastAxisKernel);
  Var hi = bb.Emit(TupleGetItem(halves, 1));
  Var lo = bb.Emit(TupleGetItem(halves, 0));
  Var sum = EmitTIR(bb, "add", {lo, hi}, testing::AddKernel);
  Var out = bb.EmitOutput(Tuple({sum, halves}));
  bb.EndDataflow();
  bb.EndFunction(out);
  IRModule mod = bb.Finalize();

  Value xv = RandomTensor({2, 8}, 3);
  Value result = exec::Run(mod, "main", {xv});
  ASSERT_TRUE(result.is_tuple());
  ASSERT_EQ(result.fields().size(), 2u);
  const HostTensor& s = result.fields()[0].tensor();
  const Value& pair = result.fields()[1];
  ASSERT_EQ(pair.fields().size(), 2u);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      float a = static_cast<float>(xv.tensor().GetDouble(i * 8 + j));
      float b = static_cast<float>(xv.tensor().GetDouble(i * 8 + j + 4));
      EXPECT_FLOAT_EQ(static_cast<float>(s.GetDouble(i * 4 + j)), a + b);
      EXPECT_EQ(pair.fields()[0].tensor().GetDouble(i * 4 + j), a);
      EXPECT_EQ(pair.fields()[1].tensor().GetDouble(i * 4 + j), b);
    }
  }
  EXPECT_EQ(result.Describe(), "(float32[2, 4], (float32[2, 4], float32[2, 4]))");
}

TEST(ReferenceExecutorTest, NestedFunctionCalls) {
  BlockBuilder bb;
  // layer(h, w) = relu(h @ w), with its own shape variable.
  PrimVar k = SymbolicDim("k");
  Var h = TensorVar("h", {k, 4}), w = TensorVar("w", {4, 4});
  bb.BeginFunction("layer", {h, w});
  bb.BeginDataflow();
  Var mm = EmitTIR(bb, "matmul", {h, w}, testing::MatmulKernel);
  Var r = EmitTIR(bb, "relu", {mm}, testing::ReluKernel, true);
  bb.EndDataflow();
  GlobalVar layer = bb.EndFunction(r);

  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n, 4}), w1 = TensorVar("w1", {4, 4}), w2 = TensorVar("w2", {4, 4});
  bb.BeginFunction("main", {x, w1, w2});
  Var a = bb.Emit(CallFunction(layer, {x, w1}), "a");
  Var b = bb.Emit(CallFunction(layer, {a, w2}), "b");
  bb.EndFunction(b);
  IRModule mod = bb.Finalize();

  Value xv = RandomTensor({3, 4}, 1), w1v = RandomTensor({4, 4}, 2), w2v = RandomTensor({4, 4}, 3);
  Value twice = exec::Run(mod, "main", {xv, w1v, w2v});
  Value once = exec::Run(mod, "layer", {exec::Run(mod, "layer", {xv, w1v}), w2v});
  EXPECT_EQ(testing::MaxAbsDiff(twice, once), 0.0);
  ExpectError(
      [&] {
        exec::Run(mod, "main", {xv, w1v, RandomTensor({4, 5}, 3)});
      },
      ErrorKind::kRuntime, {"function main, parameter w2"});
}

TEST(ReferenceExecutorTest, ErrorsInsideCalleesNameEveryLevel) {
  // A kernel that reads past its input: the interpreter's error is wrapped with the binding.
  compute::Tensor a = compute::Placeholder("A", {4}, kF32);
  compute::Tensor out = compute::Compute(
      {4}, [&](ir::Var i) { return a(i + 1); }, "shifted");
  IRModule mod;
  GlobalVar shifted = mod.Add("shifted", compute::CreatePrimFunc({a, out}, "shifted"));
  Var x = TensorVar("x", {4});
  BlockBuilder bb(mod);
  bb.BeginFunction("main", {x});
  Var y = bb.Emit(CallTIR(shifted, {x}, {TensorStructInfo({4}, kF32)}), "y");
  bb.EndFunction(y);
  ExpectError([&] { exec::Run(bb.Finalize(), "main", {RandomTensor({4}, 1)}); },
              ErrorKind::kRuntime,
              {"function main, binding y: call_tir of shifted: interpreting shifted"});
}

TEST(ReferenceExecutorTest, UnlegalizedOpIsAClearError) {
  Var x = TensorVar("x", {2, 3});
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var r = bb.Emit(Call("nn.relu", {x}), "act");
  Var out = bb.EmitOutput(Call("exp", {r}));
  bb.EndDataflow();
  bb.EndFunction(out);
  ExpectError(
      [&] {
        exec::Run(bb.Finalize(), "main", {RandomTensor({2, 3}, 1)});
      },
      ErrorKind::kUnsupported,
      {"function main, binding act: run LegalizeOps first: op nn.relu at binding act"});
}

TEST(ReferenceExecutorTest, ShapeOpsAndTirVars) {
  // out = x + float(n) where n = shape_of(x)[0] reaches the kernel as a tir_var; the shape ops
  // also round-trip the shape through a tensor.
  ir::Var s("s", DataType::Int(64));
  ir::Var len("len", DataType::Int(64));
  compute::Tensor a = compute::Placeholder("A", {len}, kF32);
  compute::Tensor out = compute::Compute(
      {len}, [&](ir::Var i) { return a(i) + ir::Cast(kF32, s); }, "T_add");
  IRModule mod;
  GlobalVar kernel = mod.Add("add_scalar", compute::CreatePrimFunc({a, out}, "add_scalar", {s}));

  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n});
  BlockBuilder bb(mod);
  bb.BeginFunction("main", {x});
  Var shape = bb.Emit(Call("shape_of", {x}), "shape");
  Var as_tensor = bb.Emit(Call("shape_to_tensor", {shape}), "as_tensor");
  Var back = bb.Emit(Call("tensor_to_shape", {as_tensor}), "back");
  Attrs first;
  first.Set("index", 0);
  Var dim = bb.Emit(Call("shape_get", {back}, first), "dim");
  Var both = bb.Emit(Call("shape_concat", {back, dim}), "both");
  Attrs tail;
  tail.Set("begin", 1);
  Var last = bb.Emit(Call("shape_slice", {both}, tail), "last");
  Var y = bb.Emit(CallTIR(kernel, {x}, {TensorStructInfo({n}, kF32)}, ShapeExpr({n})), "y");
  bb.EndFunction(Tuple({y, last, dim}));
  IRModule m = bb.Finalize();

  Value xv = RandomTensor({5}, 4);
  Value result = exec::Run(m, "main", {xv});
  const HostTensor& yv = result.fields()[0].tensor();
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_FLOAT_EQ(static_cast<float>(yv.GetDouble(i)),
                    static_cast<float>(xv.tensor().GetDouble(i)) + 5.0f);
  }
  EXPECT_EQ(result.fields()[1].shape(), (std::vector<int64_t>{5}));
  EXPECT_EQ(result.fields()[2].prim().int_value, 5);
  EXPECT_EQ(result.Describe(), "(float32[5], shape(5), int64 5)");
}

TEST(ReferenceExecutorTest, ConstantsAndScalarArguments) {
  // axpy(A, B, alpha) -> out: a float scalar among the inputs, before the output.
  ir::Var alpha("alpha", kF32);
  compute::Tensor a = compute::Placeholder("A", {3}, kF32);
  compute::Tensor b = compute::Placeholder("B", {3}, kF32);
  compute::Tensor out = compute::Compute(
      {3}, [&](ir::Var i) { return a(i) * alpha + b(i); }, "axpy");
  ir::PrimFunc made = compute::CreatePrimFunc({a, b, out}, "axpy", {alpha});
  const auto& p = made->params;  // A, B, out, alpha
  ir::PrimFunc reordered =
      ir::MakePrimFunc("axpy", {p[0], p[1], p[3], p[2]}, made->buffer_map, made->body, made->attrs);
  IRModule mod;
  GlobalVar axpy = mod.Add("axpy", reordered);
  HostTensor c(kF32, {3});
  for (int64_t i = 0; i < 3; ++i) c.SetDouble(i, 10.0 * (i + 1));
  Var x = TensorVar("x", {3});
  BlockBuilder bb(mod);
  bb.BeginFunction("main", {x});
  Var y = bb.Emit(CallTIR(axpy, {x, Constant(c), PrimValue(ir::FloatImm(kF32, 2.0))},
                          {TensorStructInfo({3}, kF32)}),
                  "y");
  bb.EndFunction(y);
  Value xv = RandomTensor({3}, 9);
  Value result = exec::Run(bb.Finalize(), "main", {xv});
  for (int64_t i = 0; i < 3; ++i) {
    float expected = static_cast<float>(xv.tensor().GetDouble(i)) * 2.0f + 10.0f * (i + 1);
    EXPECT_FLOAT_EQ(static_cast<float>(result.tensor().GetDouble(i)), expected);
  }
  // The kernel got a copy: the caller's input is unchanged by construction, and reading it
  // again gives the same result.
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(bb.Finalize(), "main", {xv}), result), 0.0);
}

TEST(ReferenceExecutorTest, PackedKernelsFromARegistry) {
  HostKernelRegistry registry;
  HostKernel negate = [](const std::vector<Value>& in, std::vector<HostTensor>& out) {
    const HostTensor& x = in[0].tensor();
    for (int64_t i = 0; i < x.numel(); ++i) out[0].SetDouble(i, -x.GetDouble(i));
  };
  registry.Register("test.negate", negate);
  EXPECT_THROW(registry.Register("test.negate", negate), Error);

  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n, 2});
  BlockBuilder bb;
  bb.BeginFunction("negate", {x});
  Var y = bb.Emit(CallDPSPacked("test.negate", {x}, {TensorStructInfo({n, 2}, kF32)}), "y");
  bb.EndFunction(y);
  Var x2 = TensorVar("x", {n, 2});
  bb.BeginFunction("missing", {x2});
  Var z = bb.Emit(CallDPSPacked("test.missing", {x2}, {TensorStructInfo({n, 2}, kF32)}), "z");
  bb.EndFunction(z);
  ReferenceExecutor exec(bb.Finalize(), &registry);

  Value xv = RandomTensor({3, 2}, 1);
  Value yv = exec.Run("negate", {xv});
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(yv.tensor().GetDouble(i), -xv.tensor().GetDouble(i));
  ExpectError([&] { exec.Run("missing", {xv}); }, ErrorKind::kUnsupported,
              {"function missing, binding z: call_dps_packed: no host kernel for 'test.missing'",
               "registered: test.negate"});
}

}  // namespace
}  // namespace kiln::ir::relax::exec
