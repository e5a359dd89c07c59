// The Relax printer's choices: struct info and expression text, exact float attributes,
// function names that are not Python names, the debug dump (metadata left out), and a module
// without functions.
#include "ir/relax/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/relax/op/registry.h"
#include "tests/ir/relax/text/test_util.h"

namespace kiln::ir::relax {
namespace {

Var TensorVar(const std::string& name, std::vector<PrimExpr> shape,
              const std::string& dtype = "float32") {
  return Var(name, TensorStructInfo(std::move(shape), dtype));
}

TEST(RelaxPrinter, StructInfoAsTvmPrintsIt) {
  PrimVar n = SymbolicDim("n");
  EXPECT_EQ(PrintStructInfo(TensorStructInfo({n, DimConst(4)}, "float32")),
            "R.Tensor((n, 4), dtype=\"float32\")");
  EXPECT_EQ(PrintStructInfo(TensorStructInfo({n * DimConst(2)}, DataType::Void())),
            "R.Tensor((n * 2,))");
  EXPECT_EQ(PrintStructInfo(TensorStructInfo(DataType::Float(16), 3)),
            "R.Tensor(dtype=\"float16\", ndim=3)");
  EXPECT_EQ(PrintStructInfo(TensorStructInfo(DataType::Void(), kUnknownNDim)), "R.Tensor");
  EXPECT_EQ(PrintStructInfo(ShapeStructInfo({n, DimConst(4)})), "R.Shape([n, 4])");
  EXPECT_EQ(PrintStructInfo(ShapeStructInfo(kUnknownNDim)), "R.Shape");
  EXPECT_EQ(PrintStructInfo(PrimStructInfo(FloorDiv(n, DimConst(2)))), "R.Prim(value=n // 2)");
  EXPECT_EQ(PrintStructInfo(TupleStructInfo({})), "R.Tuple");
  EXPECT_EQ(PrintStructInfo(FuncStructInfo({ObjectStructInfo()}, PrimStructInfo(DataType::Bool()))),
            "R.Callable((R.Object,), R.Prim(\"bool\"))");
}

TEST(RelaxPrinter, CallsShowEveryAttributeInSchemaOrder) {
  Var x = TensorVar("x", {DimConst(2), DimConst(3)});
  EXPECT_EQ(PrintExpr(Call("sum", {x}, Attrs().Set("keepdims", true))),
            "R.sum(x, axis=None, keepdims=True)");
  EXPECT_EQ(PrintExpr(Call("nn.leakyrelu", {x}, Attrs().Set("alpha", 0.1))),
            "R.nn.leakyrelu(x, alpha=0.1)");
  EXPECT_EQ(PrintExpr(Call("nn.leakyrelu", {x}, Attrs().Set("alpha", std::nan("")))),
            "R.nn.leakyrelu(x, alpha=float(\"nan\"))");
  EXPECT_EQ(PrintExpr(Call("clip", {x}, Attrs().Set("min", -HUGE_VAL).Set("max", 1e-300))),
            "R.clip(x, min=float(\"-inf\"), max=1e-300)");
  EXPECT_EQ(PrintExpr(TupleGetItem(
                Call("split", {x}, Attrs().Set("indices_or_sections", 3).Set("axis", 1)), 2)),
            "R.split(x, indices_or_sections=3, axis=1)[2]");
}

TEST(RelaxPrinter, FloatAttributesAreExact) {
  Var x = TensorVar("x", {DimConst(4)});
  for (double v : {0.1, 1.0 / 3.0, 1e-5, 6.02214076e23, -0.0, 5e-324}) {
    IRModule m;
    m.Add("main",
          testing::ReturnThroughBinding({x}, Call("nn.leakyrelu", {x}, Attrs().Set("alpha", v))));
    IRModule back = ParseModule(PrintModule(m));
    double got = testing::FirstBoundValue(*back.LookupFunction("main"))
                     .as<CallNode>()
                     ->attrs.GetFloat("alpha");
    EXPECT_EQ(std::memcmp(&got, &v, sizeof v), 0) << v;
  }
}

TEST(RelaxPrinter, FunctionNamesBecomePythonNames) {
  Var x = TensorVar("x", {DimConst(4)});
  IRModule m;
  m.Add("fused.add-1", MakeFunction({x}, SeqExpr({}, x)));
  m.Add("fused_add_1", MakeFunction({x}, SeqExpr({}, x)));
  m.Add("lambda", MakeFunction({x}, SeqExpr({}, x)));
  std::string text = PrintModule(m);
  EXPECT_NE(text.find("def fused_add_1("), std::string::npos) << text;
  EXPECT_NE(text.find("def fused_add_1_1("), std::string::npos) << text;
  EXPECT_NE(text.find("def lambda_1("), std::string::npos) << text;
  IRModule back = ParseModule(text);
  EXPECT_EQ(back.names(), (std::vector<std::string>{"fused_add_1", "fused_add_1_1", "lambda_1"}));
}

TEST(RelaxPrinter, DebugPrintLeavesLargeConstantsOut) {
  HostTensor w = HostTensor::Random(DataType::Float(32), {64, 64}, 1);
  Var x = TensorVar("x", {DimConst(64), DimConst(64)});
  IRModule m;
  m.Add("main", testing::ReturnThroughBinding({x}, Call("matmul", {x, Constant(w)})));
  std::string dump = DebugPrint(m);
  EXPECT_NE(dump.find("R.matmul(x, metadata[\"ir.GenericConst\"][0], out_dtype=None)"),
            std::string::npos)
      << dump;
  EXPECT_NE(dump.find("# Metadata omitted (1 constants)"), std::string::npos) << dump;
  EXPECT_LT(dump.size(), 1000u);
  try {
    ParseModule(dump, "dump.relax");
    ADD_FAILURE() << "a dump without metadata parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("show_metadata"), std::string::npos) << e.what();
  }
  // The full text holds the values and reads back exactly.
  testing::ExpectRoundTrip(m);
}

TEST(RelaxPrinter, EmptyModule) {
  std::string text = PrintModule(IRModule());
  EXPECT_NE(text.find("class Module:\n    pass\n"), std::string::npos) << text;
  EXPECT_EQ(ParseModule(text).size(), 0u);
}

TEST(RelaxPrinter, FunctionBodyThatIsNotASeqExprPrintsAsAReturn) {
  Var x = TensorVar("x", {DimConst(4)});
  Function f = MakeFunction({x}, Call("exp", {x}));
  std::string text = PrintFunction(f, "f");
  EXPECT_NE(text.find("@R.function(private=True)\ndef f(x: R.Tensor((4,), dtype=\"float32\")) -> "
                      "R.Tensor((4,), dtype=\"float32\"):\n    return R.exp(x)\n"),
            std::string::npos)
      << text;
}

// As TVM 0.27 prints them: the signature's int64 shape variables above the module as TypeVar,
// a variable the body introduces (R.match_cast) in the body; TVM up to 0.23 declares both in the
// body and quotes the signature's.
TEST(RelaxPrinter, ShapeVariableDeclarationsPerDialect) {
  PrimVar n = SymbolicDim("n"), m = SymbolicDim("m");
  Var x = TensorVar("x", {n, DimConst(4)});
  Var y("y", TensorStructInfo(DataType::Float(32), 1));
  Var z("z", TensorStructInfo({m}, "float32"));
  Var w("w", TensorStructInfo({n, DimConst(4)}, "float32"));
  BindingBlock block{
      {MatchCast(z, y, TensorStructInfo({m}, "float32")), VarBinding(w, Call("add", {x, x}))},
      false};
  IRModule module;
  module.Add("main", MakeFunction({x, y}, SeqExpr({block}, w)));
  std::string text = testing::ExpectRoundTrip(module);
  EXPECT_NE(text.find("\nn = TypeVar(\"n\")\n@I.ir_module\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("TypeVar(\"m\")"), std::string::npos) << text;
  EXPECT_NE(text.find("    def main(x: R.Tensor((n, 4), dtype=\"float32\"), y: "
                      "R.Tensor(dtype=\"float32\", ndim=1)) -> R.Tensor((n, 4), "
                      "dtype=\"float32\"):\n        m = T.int64()\n"),
            std::string::npos)
      << text;
  PrintOptions tvm023;
  tvm023.dialect = TirDialect::kTvm023;
  std::string old_text = PrintModule(module, tvm023);
  EXPECT_EQ(old_text.find("TypeVar"), std::string::npos) << old_text;
  EXPECT_NE(old_text.find("-> R.Tensor((\"n\", 4), dtype=\"float32\"):\n        n = T.int64()\n"
                          "        m = T.int64()\n"),
            std::string::npos)
      << old_text;
}

}  // namespace
}  // namespace kiln::ir::relax
