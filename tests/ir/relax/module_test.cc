// IRModule holding Relax functions and PrimFuncs; call_tir, call_dps_packed and calls of
// Relax functions; the well-formedness check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/relax/block_builder.h"
#include "ir/relax/printer.h"
#include "ir/relax/well_formed.h"
#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

// A PrimFunc taking `num_buffers` float32 buffers of shape (n,) (its body is irrelevant here).
ir::PrimFunc Kernel(const std::string& name, int num_buffers) {
  PrimVar n = SymbolicDim("n");
  std::vector<ir::Var> params;
  std::vector<std::pair<ir::Var, ir::Buffer>> buffer_map;
  for (int i = 0; i < num_buffers; ++i) {
    std::string buffer_name(1, static_cast<char>('A' + i));
    ir::Var handle(buffer_name + "_handle", DataType::Handle());
    params.push_back(handle);
    buffer_map.emplace_back(handle, ir::DeclBuffer(buffer_name, DataType::Float(32), {n}));
  }
  return ir::MakePrimFunc(name, params, buffer_map, ir::Evaluate(0));
}

TEST(RelaxModuleTest, HoldsPrimFuncsAndRelaxFunctionsByName) {
  IRModule mod;
  GlobalVar k = mod.Add("add_one", Kernel("add_one", 2));
  Var x = Tensor("x", {4});
  Function f = MakeFunction({x}, Call("exp", {x}));
  GlobalVar g = mod.Add("main", f);
  EXPECT_EQ(mod.names(), (std::vector<std::string>{"add_one", "main"}));
  EXPECT_NE(mod.LookupPrimFunc("add_one"), nullptr);
  EXPECT_EQ(mod.LookupFunction("add_one"), nullptr);
  EXPECT_NE(mod.LookupFunction("main"), nullptr);
  EXPECT_EQ(mod.LookupPrimFunc("main"), nullptr);
  EXPECT_EQ(Info(k), "R.Object");
  EXPECT_EQ(Info(g), "R.Callable((R.Tensor((4,), \"float32\"),), R.Tensor((4,), \"float32\"))");
  EXPECT_THROW(mod.Add("main", f), Error);
  EXPECT_THROW(mod.GetGlobalVar("missing"), Error);
  EXPECT_EQ(mod.UniqueName("main"), "main1");
  EXPECT_EQ(mod.UniqueName("fused"), "fused");

  // Replacing a function with another signature renews its GlobalVar.
  Var y = Tensor("y", {8});
  GlobalVar g2 = mod.Update("main", MakeFunction({y}, y));
  EXPECT_FALSE(g2.same_as(g));
  EXPECT_TRUE(mod.GetGlobalVar("main").same_as(g2));
  mod.Remove("add_one");
  EXPECT_FALSE(mod.Contains("add_one"));
  EXPECT_EQ(mod.size(), 1u);
}

TEST(RelaxModuleTest, CallTirAndCallDpsPacked) {
  PrimVar n = SymbolicDim("n");
  Var x = Tensor("x", {n});
  Var a = Tensor("a", {n, 64});
  Var w = Tensor("w", {64, 10});
  BlockBuilder bb;
  GlobalVar add_one = bb.AddFunction("add_one", Kernel("add_one", 2));
  GlobalVar split2 = bb.AddFunction("split2", Kernel("split2", 3));
  bb.BeginFunction("main", {x, a, w});
  bb.BeginDataflow();
  Var lv = bb.Emit(CallTIR(add_one, {x}, {TensorStructInfo({n}, "float32")}));
  Var pair = bb.Emit(
      CallTIR(split2, {lv}, {TensorStructInfo({n}, "float32"), TensorStructInfo({n}, "float32")}));
  Var mm = bb.Emit(CallDPSPacked("cblas.sgemm", {a, w}, {TensorStructInfo({n, 10}, "float32")}));
  Var out = bb.EmitOutput(Tuple({TupleGetItem(pair, 1), mm}));
  bb.EndDataflow();
  bb.EndFunction(out);
  EXPECT_EQ(Info(lv), "R.Tensor((n,), \"float32\")");
  EXPECT_EQ(Info(pair), "R.Tuple(R.Tensor((n,), \"float32\"), R.Tensor((n,), \"float32\"))");
  EXPECT_EQ(Info(mm), "R.Tensor((n, 10), \"float32\")");
  IRModule mod = bb.Finalize();
  EXPECT_NO_THROW(CheckWellFormed(mod));
  std::string text = DebugPrint(mod);
  // The kernels and the Relax function share the module's TypeVar declaration (TVM 0.24+).
  EXPECT_THAT(text, ::testing::HasSubstr("\nn = TypeVar(\"n\")\n@I.ir_module\nclass Module:\n"
                                         "    @T.prim_func(private=True, s_tir=True)\n"
                                         "    def add_one(A: T.Buffer((n,), \"float32\"), "
                                         "B: T.Buffer((n,), \"float32\")):\n"));
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "lv: R.Tensor((n,), dtype=\"float32\") = R.call_tir(cls.add_one, (x,), "
                        "out_ty=R.Tensor((n,), dtype=\"float32\"))"));
  EXPECT_THAT(text, ::testing::HasSubstr("R.call_dps_packed(\"cblas.sgemm\", (a, w), "
                                         "out_ty=R.Tensor((n, 10), dtype=\"float32\"))"));
}

TEST(RelaxModuleTest, CallTirPassesShapeVariables) {
  PrimVar n = SymbolicDim("n");
  ir::PrimFunc kernel = Kernel("scale", 2);
  std::vector<ir::Var> params = kernel->params;
  params.push_back(ir::Var("n", DataType::Int(64)));
  kernel = ir::MakePrimFunc("scale", params, kernel->buffer_map, kernel->body);
  Var x = Tensor("x", {n});
  BlockBuilder bb;
  GlobalVar k = bb.AddFunction("scale", kernel);
  bb.BeginFunction("main", {x});
  Var y = bb.Emit(CallTIR(k, {x}, {TensorStructInfo({n}, "float32")}, ShapeExpr({n})));
  bb.EndFunction(y);
  EXPECT_EQ(Info(y), "R.Tensor((n,), \"float32\")");
  EXPECT_NO_THROW(CheckWellFormed(bb.Finalize()));
  EXPECT_THAT(DebugPrint(bb.module()),
              ::testing::HasSubstr("R.call_tir(cls.scale, (x,), out_ty=R.Tensor((n,), "
                                   "dtype=\"float32\"), tir_vars=R.shape([n]))"));
}

TEST(RelaxModuleTest, WellFormedRejectsBadCallTir) {
  Var x = Tensor("x", {4});
  BlockBuilder bb;
  GlobalVar k = bb.AddFunction("add_one", Kernel("add_one", 2));
  bb.BeginFunction("main", {x});
  // Two inputs and one output: the kernel takes only two buffers.
  Var y = bb.Emit(CallTIR(k, {x, x}, {TensorStructInfo({4}, "float32")}));
  bb.EndFunction(y);
  try {
    CheckWellFormed(bb.Finalize());
    ADD_FAILURE() << "expected a parameter count error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_THAT(e.what(), ::testing::HasSubstr(
                              "function main, binding of gv: call_tir of add_one passes 2 "
                              "inputs, 1 outputs and 0 shape values, but it takes 2 parameters"));
  }

  IRModule mod;
  GlobalVar missing("absent");
  Var z = Tensor("z", {4});
  mod.Add("main", MakeFunction({z}, CallTIR(missing, {z}, {TensorStructInfo({4}, "float32")})));
  EXPECT_THROW(CheckWellFormed(mod), Error);
}

TEST(RelaxModuleTest, WellFormedRejectsUndefinedAndEscapingVariables) {
  Var x = Tensor("x", {4});
  Var stray = Tensor("stray", {4});
  IRModule mod;
  Var y = Tensor("y", {4});
  mod.Add("f",
          MakeFunction(
              {x}, SeqExpr({BindingBlock{{VarBinding(y, Call("add", {x, stray}))}, false}}, y)));
  try {
    CheckWellFormed(mod);
    ADD_FAILURE() << "expected an undefined variable error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("variable stray is used before it is defined"));
  }

  Var d = DataflowVar("d", x.struct_info());
  BindingBlock block{{VarBinding(d, Call("exp", {x}))}, true};
  IRModule escape;
  escape.Add("g", MakeFunction({x}, SeqExpr({block}, d)));
  EXPECT_THROW(CheckWellFormed(escape), Error);
}

TEST(RelaxModuleTest, CallingARelaxFunctionSubstitutesShapeVariables) {
  BlockBuilder bb;
  PrimVar seq = SymbolicDim("seq");
  Var x = Tensor("x", {1, seq, 768});
  bb.BeginFunction("layer", {x});
  Var y = bb.Emit(Call("nn.gelu", {x}));
  GlobalVar layer = bb.EndFunction(y);

  Var input = Tensor("input", {1, 16, 768});
  bb.BeginFunction("main", {input});
  Var out = bb.Emit(CallFunction(layer, {input}));
  bb.EndFunction(out);
  EXPECT_EQ(Info(out), "R.Tensor((1, 16, 768), \"float32\")");
  IRModule mod = bb.Finalize();
  EXPECT_NO_THROW(CheckWellFormed(mod));
  EXPECT_THAT(DebugPrint(mod), ::testing::HasSubstr("= cls.layer(input)"));
  EXPECT_THROW(CallFunction(layer, {Tensor("bad", {1, 16, 512})}), Error);
  EXPECT_THROW(CallFunction(layer, {}), Error);
}

TEST(RelaxModuleTest, ConstantsCarryTheirShape) {
  HostTensor w(DataType::Float(16), {3, 4});
  for (int i = 0; i < 12; ++i) w.SetDouble(i, i * 0.5);
  Expr c = Constant(w);
  EXPECT_EQ(Info(c), "R.Tensor((3, 4), \"float16\")");
  EXPECT_EQ(DebugPrint(c),
            "R.const([[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]], "
            "\"float16\")");
  // A large constant is elided in dumps.
  EXPECT_EQ(DebugPrint(Constant(HostTensor(DataType::Float(16), {30, 4}))),
            "metadata[\"ir.GenericConst\"][0]");
}

}  // namespace
}  // namespace kiln::ir::relax
