// Creation ops: full/zeros/ones from a shape value with a symbolic dim (bound by the output,
// no input passed), their *_like forms, arange over constant attributes, symbolic scalar
// bounds (passed to the kernel through tir_vars) and float steps, and tril/triu with k.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/relax/printer.h"
#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// The call_tir of the single binding of main.
const CallNode* KernelCall(const IRModule& m) {
  const auto* seq = (*m.LookupFunction("main"))->body.as<SeqExprNode>();
  return seq->blocks.back().bindings.back().value.as<CallNode>();
}

TEST(LegalizeCreate, FullZerosOnes) {
  PrimVar n = SymbolicDim("n");
  const std::vector<std::tuple<std::string, Attrs, double>> cases = {
      {"full", Attrs().Set("fill_value", 2.5), 2.5},
      {"zeros", Attrs().Set("dtype", "int32"), 0},
      {"ones", Attrs(), 1},
  };
  for (const auto& [op, attrs, value] : cases) {
    SCOPED_TRACE(op);
    Var x = TensorParam("x", {n, 2});
    IRModule m = OpModule({x}, [&](const std::vector<Var>&) {
      return Call(op, {ShapeExpr({n, DimConst(3)})}, attrs);
    });
    IRModule legal = LegalizeChecked(m);
    const CallNode* call = KernelCall(legal);
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->args[1].as<TupleNode>()->fields.size(), 0u);  // no inputs
    EXPECT_EQ(call->args.size(), 2u);                             // n is bound by the output
    Value out = RunMain(legal, {Random(kF32, {4, 2}, 1)});
    ASSERT_EQ(out.tensor().shape(), (Shape{4, 3}));
    for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(out.tensor().GetDouble(i), value);
  }
}

TEST(LegalizeCreate, LikeFormsReadOnlyTheShape) {
  PrimVar n = SymbolicDim("n");
  const std::vector<std::tuple<std::string, Attrs, double>> cases = {
      {"full_like", Attrs().Set("fill_value", -1.5), -1.5},
      {"zeros_like", Attrs(), 0},
      {"ones_like", Attrs().Set("dtype", "int64"), 1},
  };
  for (const auto& [op, attrs, value] : cases) {
    SCOPED_TRACE(op);
    IRModule m = OpModule({TensorParam("x", {n, 2})},
                          [&](const std::vector<Var>& p) { return Call(op, {p[0]}, attrs); });
    IRModule legal = LegalizeChecked(m);
    EXPECT_EQ(KernelCall(legal)->args[1].as<TupleNode>()->fields.size(), 0u);
    Value out = RunMain(legal, {Random(kF32, {3, 2}, 1)});
    ASSERT_EQ(out.tensor().shape(), (Shape{3, 2}));
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.tensor().GetDouble(i), value);
  }
}

TEST(LegalizeCreate, ArangeFromAttributes) {
  IRModule m = OpModule({}, [](const std::vector<Var>&) {
    return Call(
        "arange", {},
        Attrs().Set("start", 1.0).Set("end", 2.0).Set("step", 0.25).Set("dtype", "float32"));
  });
  IRModule legal = LegalizeChecked(m);
  Value out = RunMain(legal, {});
  ASSERT_EQ(out.tensor().shape(), (Shape{4}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(out.tensor().GetDouble(i), 1.0 + 0.25 * i);
}

TEST(LegalizeCreate, ArangeWithSymbolicBoundsUsesTirVars) {
  // arange(s, e) has e - s elements: no parameter has s or e as a whole dim, so both are
  // passed to the kernel by value.
  PrimVar s = SymbolicDim("s"), e = SymbolicDim("e");
  Var a = TensorParam("a", {s}), b = TensorParam("b", {e});
  IRModule m = OpModule({a, b}, [&](const std::vector<Var>& p) {
    Expr start = Call("shape_get", {Call("shape_of", {p[0]})}, Attrs().Set("index", 0));
    Expr end = Call("shape_get", {Call("shape_of", {p[1]})}, Attrs().Set("index", 0));
    return Call("arange", {start, end});
  });
  IRModule legal = LegalizeChecked(m);
  const CallNode* call = KernelCall(legal);
  ASSERT_EQ(call->args.size(), 3u) << DebugPrint(legal);
  EXPECT_EQ(DebugPrint(call->args[2]), "R.shape([s, e])");
  Value out = RunMain(legal, {Random(kF32, {2}, 1), Random(kF32, {7}, 2)});
  ASSERT_EQ(out.tensor().shape(), (Shape{5}));
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(out.tensor().GetInt(i), 2 + i);
}

TEST(LegalizeCreate, ArangeOfAShapeDim) {
  // torch.arange(seq): the length is the dim itself, bound by the output.
  PrimVar n = SymbolicDim("n");
  IRModule m = OpModule({TensorParam("x", {n})}, [](const std::vector<Var>& p) {
    Expr end = Call("shape_get", {Call("shape_of", {p[0]})}, Attrs().Set("index", 0));
    return Call("arange", {end}, Attrs().Set("dtype", "int32"));
  });
  IRModule legal = LegalizeChecked(m);
  EXPECT_EQ(KernelCall(legal)->args.size(), 2u);
  Value out = RunMain(legal, {Random(kF32, {6}, 1)});
  ASSERT_EQ(out.tensor().shape(), (Shape{6}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.tensor().GetInt(i), i);
}

TEST(LegalizeCreate, TrilTriu) {
  PrimVar n = SymbolicDim("n");
  for (bool lower : {true, false}) {
    for (int64_t k : {0, 1, -1}) {
      SCOPED_TRACE(std::string(lower ? "tril" : "triu") + " k=" + std::to_string(k));
      IRModule m = OpModule({TensorParam("x", {2, n, 4})}, [&](const std::vector<Var>& p) {
        return Call(lower ? "tril" : "triu", {p[0]}, Attrs().Set("k", k));
      });
      IRModule legal = LegalizeChecked(m);
      HostTensor x = Random(kF32, {2, 3, 4}, 5);
      Value out = RunMain(legal, {x});
      HostTensor expected(kF32, {2, 3, 4});
      ForEachIndex({2, 3, 4}, [&](const Index& i) {
        bool keep = lower ? i[2] - i[1] <= k : i[2] - i[1] >= k;
        SetAt(expected, i, keep ? At(x, i) : 0);
      });
      ExpectClose(expected, out.tensor());
    }
  }
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
