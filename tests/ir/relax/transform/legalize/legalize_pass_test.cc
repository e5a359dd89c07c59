// LegalizeOps as a pass: every registered op has a rule or is on the documented non-tensor
// list; modules without op calls come back unchanged; kernel names are unique; constants stay
// call_tir arguments; shape ops stay; dropout and same-dtype astype become their input;
// shape variables that no parameter has as a whole dim travel through tir_vars; kernels use
// their own copies of shape variables; calls with unknown shapes are left alone; errors name
// the function and binding; chains of ops run end to end, as does the bundled example
// examples/relax/gated_mlp.relax (which nests calls and mixes in a hand-written kernel).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ir/functor.h"
#include "ir/relax/printer.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "tests/ir/relax/transform/legalize/legalize_test_util.h"
#include "tests/ir/text/test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

const std::vector<Binding>& MainBindings(const IRModule& m) {
  return (*m.LookupFunction("main"))->body.as<SeqExprNode>()->blocks.back().bindings;
}

TEST(LegalizeOps, EveryRegisteredOpHasARuleOrIsNonTensor) {
  std::vector<std::string> non_tensor = transform::NonTensorOps();
  std::set<std::string> registered;
  for (const std::string& op : OpRegistry::Global().Names()) {
    registered.insert(op);
    bool exempt = std::find(non_tensor.begin(), non_tensor.end(), op) != non_tensor.end();
    EXPECT_TRUE(transform::HasLegalizeRule(op) || exempt)
        << "op '" << op << "' is registered but has no legalization rule: add one in "
        << "ir/relax/transform/legalize/ (or, if it computes no tensor, list it in NonTensorOps)";
    EXPECT_FALSE(transform::HasLegalizeRule(op) && exempt) << op << " is both legalized and exempt";
  }
  for (const std::string& op : non_tensor) {
    EXPECT_TRUE(registered.count(op)) << "NonTensorOps names '" << op << "', which is no op";
  }
}

TEST(LegalizeOps, ModuleWithoutOpCallsIsUnchanged) {
  IRModule legal = LegalizeChecked(OpModule(
      {TensorParam("x", {4})}, [](const std::vector<Var>& p) { return Call("exp", {p[0]}); }));
  // Legalizing again finds only call_tir: nothing changes.
  IRModule again = transform::LegalizeOps(legal);
  EXPECT_EQ(again.names(), legal.names());
  EXPECT_TRUE(again.LookupFunction("main")->same_as(*legal.LookupFunction("main")));
  IRModule empty;
  EXPECT_EQ(transform::LegalizeOps(empty).size(), 0u);
}

TEST(LegalizeOps, KernelNamesAreUnique) {
  BlockBuilder bb;
  Var x = TensorParam("x", {4}), y = TensorParam("y", {4});
  // A function already named "add" takes the plain name.
  bb.BeginFunction("add", {x});
  bb.EndFunction(x);
  Var a = TensorParam("a", {4}), b = TensorParam("b", {4});
  bb.BeginFunction("main", {a, b});
  bb.BeginDataflow();
  Var s = bb.Emit(Call("add", {a, b}));
  Var t = bb.Emit(Call("add", {s, b}));
  Var gv = bb.EmitOutput(Call("multiply", {t, a}));
  bb.EndDataflow();
  bb.EndFunction(gv);
  IRModule legal = LegalizeChecked(bb.Finalize());
  EXPECT_EQ(PrimFuncNames(legal), (std::vector<std::string>{"add1", "add2", "multiply"}));
  EXPECT_EQ((*legal.LookupPrimFunc("add1"))->attrs.at("global_symbol").as<StringImmNode>()->value,
            "add1");
}

TEST(LegalizeOps, ConstantsStayCallTirArguments) {
  HostTensor c = Random(kF32, {3}, 4);
  IRModule m = OpModule({TensorParam("x", {2, 3})}, [&](const std::vector<Var>& p) {
    return Call("add", {p[0], Constant(c)});
  });
  IRModule legal = LegalizeChecked(m);
  const auto* call = MainBindings(legal).back().value.as<CallNode>();
  ASSERT_NE(call, nullptr);
  const auto& args = call->args[1].as<TupleNode>()->fields;
  ASSERT_EQ(args.size(), 2u);
  EXPECT_NE(args[1].as<ConstantNode>(), nullptr);
  HostTensor x = Random(kF32, {2, 3}, 5);
  Value out = RunMain(legal, {x});
  HostTensor expected(kF32, {2, 3});
  for (int64_t i = 0; i < 6; ++i) expected.SetDouble(i, x.GetDouble(i) + c.GetDouble(i % 3));
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeOps, ShapeOpsStay) {
  PrimVar n = SymbolicDim("n");
  IRModule m = OpModule({TensorParam("x", {n, 4})},
                        [](const std::vector<Var>& p) { return Call("shape_of", {p[0]}); });
  IRModule legal = LegalizeChecked(m);
  EXPECT_TRUE(PrimFuncNames(legal).empty());
  EXPECT_EQ(MainBindings(legal).back().value.as<CallNode>()->op, "shape_of");
}

TEST(LegalizeOps, DropoutAndSameDtypeAstypeAreIdentities) {
  IRModule m = OpModule({TensorParam("x", {2, 3})}, [](const std::vector<Var>& p) {
    Expr kept = TupleGetItem(Call("nn.dropout", {p[0]}, Attrs().Set("rate", 0.3)), 0);
    return Call("astype", {kept}, Attrs().Set("dtype", "float32"));
  });
  IRModule legal = LegalizeChecked(m);
  // Only the dropout mask (ones) is a kernel.
  EXPECT_EQ(PrimFuncNames(legal), std::vector<std::string>{"ones"});
  HostTensor x = Random(kF32, {2, 3}, 1);
  ExpectClose(x, RunMain(legal, {x}).tensor());
}

TEST(LegalizeOps, DropoutMaskIsOnes) {
  BlockBuilder bb;
  Var x = TensorParam("x", {SymbolicDim("n"), 3});
  bb.BeginFunction("main", {x});
  Var d = bb.Emit(Call("nn.dropout", {x}));
  Var mask = bb.Emit(TupleGetItem(d, 1));
  bb.EndFunction(mask);
  IRModule legal = LegalizeChecked(bb.Finalize());
  Value out = RunMain(legal, {Random(kF32, {2, 3}, 1)});
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.tensor().GetDouble(i), 1.0);
}

TEST(LegalizeOps, CompoundDimsTravelThroughTirVars) {
  // exp of a (n * 2,) tensor: n is no whole dim of the kernel's buffers, so the kernel takes
  // it as a trailing scalar parameter and the call passes R.shape([n]).
  PrimVar n = SymbolicDim("n");
  IRModule m = OpModule({TensorParam("x", {n, 2})}, [n](const std::vector<Var>& p) {
    return Call("exp", {Call("reshape", {p[0], ShapeExpr({n * 2})})});
  });
  IRModule legal = LegalizeChecked(m);
  const ir::PrimFunc& exp = *legal.LookupPrimFunc("exp");
  ASSERT_EQ(exp->params.size(), 3u);
  EXPECT_FALSE(exp->BufferOf(exp->params[2]).has_value());
  EXPECT_EQ(exp->params[2].dtype(), DataType::Int(64));
  const auto* call = MainBindings(legal).back().value.as<CallNode>();
  ASSERT_EQ(call->args.size(), 3u);
  EXPECT_EQ(DebugPrint(call->args[2]), "R.shape([n])");
  HostTensor x = Random(kF32, {3, 2}, 2);
  Value out = RunMain(legal, {x});
  ASSERT_EQ(out.tensor().shape(), (Shape{6}));
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(out.tensor().GetDouble(i), std::exp(x.GetDouble(i)), 1e-5);
  }
}

// The variables a PrimFunc uses, including its buffers' shapes.
class VarCollector : public ir::IRVisitor {
 public:
  std::set<const ir::VarNode*> vars;
  void VisitExpr_(const ir::VarNode* op) override { vars.insert(op); }
};

TEST(LegalizeOps, KernelsOwnTheirShapeVariables) {
  PrimVar n = SymbolicDim("n");
  IRModule m =
      OpModule({TensorParam("x", {n, 4}), TensorParam("y", {n, 4})}, [](const std::vector<Var>& p) {
        return Call("multiply", {Call("add", {p[0], p[1]}), p[1]});
      });
  IRModule legal = LegalizeChecked(m);
  std::set<const ir::VarNode*> seen;
  for (const std::string& name : PrimFuncNames(legal)) {
    const ir::PrimFunc& f = *legal.LookupPrimFunc(name);
    VarCollector c;
    for (const auto& [param, buffer] : f->buffer_map) {
      for (const ir::Expr& d : buffer->shape) c.VisitExpr(d);
    }
    EXPECT_FALSE(c.vars.count(n.get())) << name << " shares the function's n";
    for (const ir::VarNode* v : c.vars) {
      EXPECT_TRUE(seen.insert(v).second) << name << " shares " << v->name << " with a kernel";
    }
  }
}

TEST(LegalizeOps, UnknownShapesAreLeftAlone) {
  Var x("x", TensorStructInfo(kF32, 2));
  IRModule m = OpModule({x}, [](const std::vector<Var>& p) { return Call("exp", {p[0]}); });
  IRModule legal = transform::LegalizeOps(m);
  EXPECT_TRUE(PrimFuncNames(legal).empty());
  EXPECT_EQ(MainBindings(legal).back().value.as<CallNode>()->op, "exp");
}

TEST(LegalizeOps, ErrorsNameTheFunctionAndBinding) {
  IRModule m = OpModule({TensorParam("x", {4}, DataType::Bool())},
                        [](const std::vector<Var>& p) { return Call("sum", {p[0]}); });
  try {
    transform::LegalizeOps(m);
    FAIL() << "sum of a bool tensor was legalized";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("function main, binding gv: sum: "), std::string::npos)
        << e.what();
  }
}

TEST(LegalizeOps, ChainOutsideDataflowAndAcrossFunctions) {
  BlockBuilder bb;
  PrimVar n = SymbolicDim("n");
  Var x = TensorParam("x", {n, 3}), w = TensorParam("w", {3, 2});
  bb.BeginFunction("helper", {x});
  Var h = bb.Emit(Call("nn.relu", {x}));
  bb.EndFunction(h);
  Var a = TensorParam("a", {n, 3});
  bb.BeginFunction("main", {a, w});
  Var r = bb.Emit(Call("nn.relu", {a}));
  Var mm = bb.Emit(Call("matmul", {r, w}));
  Var sm = bb.Emit(Call("nn.softmax", {mm}));
  Var out = bb.Emit(Call("sum", {sm}, Attrs().Set("axis", {1})));
  bb.EndFunction(out);
  IRModule legal = LegalizeChecked(bb.Finalize());
  EXPECT_EQ(PrimFuncNames(legal),
            (std::vector<std::string>{"relu", "relu1", "matmul", "softmax", "sum"}));
  Value v = RunMain(legal, {Random(kF32, {4, 3}, 1), Random(kF32, {3, 2}, 2)});
  // Rows of a softmax sum to 1.
  ASSERT_EQ(v.tensor().shape(), (Shape{4}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(v.tensor().GetDouble(i), 1.0, 1e-5);
}

TEST(LegalizeOps, GatedMlpExample) {
  std::string text = ir::testing::ReadText(std::filesystem::path(KILN_SOURCE_DIR) / "examples" /
                                           "relax" / "gated_mlp.relax");
  IRModule legal = LegalizeChecked(ParseModule(text, "gated_mlp.relax"));
  EXPECT_EQ(PrimFuncNames(legal),
            (std::vector<std::string>{"residual_add", "rms_norm", "matmul", "matmul1", "silu",
                                      "multiply", "matmul2"}));
  const int64_t n = 3;
  HostTensor x = Random(kF32, {n, 64}, 1), g = Random(kF32, {64}, 2),
             wg = Random(kF32, {64, 128}, 3, -0.2, 0.2), wu = Random(kF32, {64, 128}, 4, -0.2, 0.2),
             wd = Random(kF32, {128, 64}, 5, -0.2, 0.2);
  Value out = RunMain(legal, {x, g, wg, wu, wd});
  HostTensor expected(kF32, {n, 64});
  for (int64_t i = 0; i < n; ++i) {
    double sq = 0;
    for (int64_t k = 0; k < 64; ++k) sq += At(x, {i, k}) * At(x, {i, k});
    std::vector<double> h(64), act(128);
    for (int64_t k = 0; k < 64; ++k) h[k] = At(x, {i, k}) / std::sqrt(sq / 64 + 1e-5) * At(g, {k});
    for (int64_t j = 0; j < 128; ++j) {
      double gate = 0, up = 0;
      for (int64_t k = 0; k < 64; ++k) {
        gate += h[k] * At(wg, {k, j});
        up += h[k] * At(wu, {k, j});
      }
      act[j] = gate / (1 + std::exp(-gate)) * up;
    }
    for (int64_t j = 0; j < 64; ++j) {
      double down = 0;
      for (int64_t k = 0; k < 128; ++k) down += act[k] * At(wd, {k, j});
      SetAt(expected, {i, j}, At(x, {i, j}) + down);
    }
  }
  ExpectClose(expected, out.tensor());
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
