// The forms the Relax parser accepts beyond what the printer prints, and what it builds from
// them: struct info spellings, shape variables introduced by signatures and shared with the
// body, positional attributes, annotations less specific than the value, dataflow outputs,
// forward references, standalone functions, and nested expressions, which are bound to fresh
// variables first (A-normal form, as TVM's parser makes them).
#include "ir/relax/text/parser.h"

#include <gtest/gtest.h>

#include <sstream>

#include "ir/relax/text/printer.h"
#include "ir/relax/well_formed.h"
#include "tests/ir/relax/text/test_util.h"

namespace kiln::ir::relax {
namespace {

std::string Module(const std::string& body) { return "@I.ir_module\nclass Module:\n" + body; }

const FunctionNode& Main(const IRModule& m) { return *m.LookupFunction("main")->get(); }

std::vector<std::string> ParamInfos(const FunctionNode& f) {
  std::vector<std::string> out;
  for (const Var& p : f.params) out.push_back(PrintStructInfo(p.struct_info()));
  return out;
}

TEST(RelaxParser, StructInfoSpellings) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(a: R.Tensor((n, 4), "float32"), b: R.Tensor(("n", 4), dtype="float32"), c: R.Tensor(ndim=2, dtype="float16"), d: R.Tensor("int8", ndim=3), e: R.Tensor, f: R.Tensor(shape=(2, n)), g: R.Shape([n, 4]), h: R.Shape(ndim=2), i: R.Shape, j: R.Prim("int32"), k: R.Prim(value=n), l: R.Object, m: R.Tuple(R.Tensor, R.Shape), o: R.Tuple([R.Object]), p: R.Tuple(), q: R.Callable([R.Tensor((n,), "float32")], R.Object), r: R.Tensor(None, "float32", ndim=1)):
        return a
)"));
  EXPECT_EQ(
      ParamInfos(Main(m)),
      (std::vector<std::string>{
          "R.Tensor((n, 4), dtype=\"float32\")", "R.Tensor((n, 4), dtype=\"float32\")",
          "R.Tensor(dtype=\"float16\", ndim=2)", "R.Tensor(dtype=\"int8\", ndim=3)", "R.Tensor",
          "R.Tensor((2, n))", "R.Shape([n, 4])", "R.Shape(ndim=2)", "R.Shape", "R.Prim(\"int32\")",
          "R.Prim(value=n)", "R.Object", "R.Tuple(R.Tensor, R.Shape)", "R.Tuple(R.Object)",
          "R.Tuple", "R.Callable((R.Tensor((n,), dtype=\"float32\"),), R.Object)",
          "R.Tensor(dtype=\"float32\", ndim=1)"}));
}

TEST(RelaxParser, ShapeVariablesOfTheSignatureAreTheBodysVariables) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((n, 4), "float32"), y: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        z: R.Tensor((n, 4), "float32") = R.add(x, x)
        s = R.shape([n * 2, m])
        return (z, s)
)"));
  const FunctionNode& f = Main(m);
  std::vector<PrimVar> x_vars = SymbolicVars(f.params[0].struct_info());
  std::vector<PrimVar> y_vars = SymbolicVars(f.params[1].struct_info());
  ASSERT_EQ(x_vars.size(), 1u);
  ASSERT_EQ(y_vars.size(), 2u);
  EXPECT_TRUE(x_vars[0].same_as(y_vars[0]));
  const auto* seq = f.body.as<SeqExprNode>();
  ASSERT_NE(seq, nullptr);
  const Binding& s = seq->blocks[0].bindings[1];
  EXPECT_TRUE(SymbolicVars(s.var.struct_info())[0].same_as(x_vars[0]));
  EXPECT_TRUE(SymbolicVars(s.var.struct_info())[1].same_as(y_vars[1]));
  EXPECT_EQ(PrintStructInfo(s.var.struct_info()), "R.Shape([n * 2, m])");
}

TEST(RelaxParser, DimArithmetic) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((n, "n * 2 + 1", T.floordiv(n, 2), n // 2, T.max(n, 1), n % 3, (n + 1) * 2 - n), "float32")):
        return x
)"));
  EXPECT_EQ(PrintStructInfo(Main(m).params[0].struct_info()),
            "R.Tensor((n, n * 2 + 1, n // 2, n // 2, T.max(n, 1), n % 3, n + 2), "
            "dtype=\"float32\")");
}

TEST(RelaxParser, PositionalAndKeywordAttributesBuildTheSameCall) {
  IRModule positional = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        a = R.sum(x, [1], True)
        b = R.permute_dims(x, [1, 0])
        c = R.astype(b, "float16")
        d = R.reshape(c, (3, 8))
        return (a, d)
)"));
  IRModule keywords = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        a = R.sum(x, axis=[1], keepdims=True)
        b = R.permute_dims(x, axes=[1, 0])
        c = R.astype(b, dtype="float16")
        d = R.reshape(c, R.shape([3, 8]))
        return (a, d)
)"));
  EXPECT_TRUE(StructuralEqual(positional, keywords)) << testing::Differences(positional, keywords);
}

TEST(RelaxParser, AnnotationMayBeLessSpecificThanTheValue) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4, 6), "float32")) -> R.Tensor(ndim=2):
        a: R.Tensor(ndim=2) = R.exp(x)
        b: R.Object = a
        c: R.Tensor(dtype="float32") = x
        return a
)"));
  const auto* seq = Main(m).body.as<SeqExprNode>();
  ASSERT_NE(seq, nullptr);
  const auto& bindings = seq->blocks[0].bindings;
  EXPECT_EQ(PrintStructInfo(bindings[0].var.struct_info()), "R.Tensor(ndim=2)");
  EXPECT_EQ(PrintStructInfo(bindings[1].var.struct_info()), "R.Object");
  EXPECT_EQ(PrintStructInfo(bindings[2].var.struct_info()), "R.Tensor(dtype=\"float32\")");
  EXPECT_EQ(PrintStructInfo(Main(m).ret_struct_info), "R.Tensor(ndim=2)");
}

TEST(RelaxParser, DataflowOutputsAreVarsAndTheRestDataflowVars) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.exp(x)
            b = R.log(a)
            c = R.sqrt(b)
            R.output(b, c)
        d = R.add(b, c)
        return d
)"));
  const auto* seq = Main(m).body.as<SeqExprNode>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  EXPECT_TRUE(seq->blocks[0].is_dataflow);
  EXPECT_TRUE(seq->blocks[0].bindings[0].var.is_dataflow());
  EXPECT_FALSE(seq->blocks[0].bindings[1].var.is_dataflow());
  EXPECT_FALSE(seq->blocks[0].bindings[2].var.is_dataflow());
  EXPECT_FALSE(seq->blocks[1].is_dataflow);
}

TEST(RelaxParser, FunctionsMayBeUsedBeforeTheirDefinition) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4, 8), "float32")):
        y = Module.helper(x)
        z = helper(y)
        k = R.call_tir(cls.kernel, (z,), out_sinfo=R.Tensor((4, 8), "float32"))
        return k

    @R.function
    def helper(a: R.Tensor(("p", "q"), "float32")) -> R.Tensor(("q", "p"), "float32"):
        b = R.permute_dims(a)
        return b

    @T.prim_func
    def kernel(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
)"));
  EXPECT_EQ(m.names(), (std::vector<std::string>{"main", "helper", "kernel"}));
  const auto* seq = Main(m).body.as<SeqExprNode>();
  EXPECT_EQ(PrintStructInfo(seq->blocks[0].bindings[0].var.struct_info()),
            "R.Tensor((8, 4), dtype=\"float32\")");
  EXPECT_EQ(PrintStructInfo(seq->blocks[0].bindings[1].var.struct_info()),
            "R.Tensor((4, 8), dtype=\"float32\")");
}

TEST(RelaxParser, AFunctionWithoutReturnAnnotationCanBeCalledAfterIt) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def first(x: R.Tensor((4,), "float32")):
        return R.exp(x)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        return cls.first(x)
)"));
  EXPECT_EQ(PrintStructInfo(Main(m).ret_struct_info), "R.Tensor((4,), dtype=\"float32\")");
  try {
    ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4,), "float32")):
        return cls.second(x)

    @R.function
    def second(x: R.Tensor((4,), "float32")):
        return R.exp(x)
)"),
                "fwd.relax");
    ADD_FAILURE() << "parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fwd.relax:5:20: function 'second' is used before its "
                                         "definition and has no return annotation"),
              std::string::npos)
        << e.what();
  }
}

TEST(RelaxParser, PrivateAndPublicFunctions) {
  IRModule m = ParseModule(Module(R"(    @R.function(private=True)
    def hidden(x: R.Tensor((4,), "float32")):
        return x

    @R.function(pure=True)
    def main(x: R.Tensor((4,), "float32")):
        return x
)"));
  EXPECT_FALSE((*m.LookupFunction("hidden"))->attrs.Has("global_symbol"));
  EXPECT_EQ((*m.LookupFunction("main"))->attrs.GetString("global_symbol"), "main");
}

TEST(RelaxParser, StandaloneFunction) {
  Function f = ParseRelaxFunction(R"(# from tvm.script import relax as R
@R.function
def f(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    n = T.int64()
    with R.dataflow():
        y = R.nn.relu(x)
        R.output(y)
    return y
)");
  EXPECT_EQ(f->params.size(), 1u);
  EXPECT_EQ(PrintStructInfo(f->ret_struct_info), "R.Tensor((n,), dtype=\"float32\")");
  std::string printed = PrintFunction(f, "f");
  Function again = ParseRelaxFunction(printed);
  EXPECT_TRUE(StructuralEqual(f, again));
  EXPECT_EQ(PrintFunction(again, "f"), printed);
}

TEST(RelaxParser, ShadowingABindingMakesANewVariable) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = R.exp(x)
        y = R.log(y)
        return y
)"));
  const auto* seq = Main(m).body.as<SeqExprNode>();
  const auto& b = seq->blocks[0].bindings;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_FALSE(b[0].var.same_as(b[1].var));
  EXPECT_TRUE(seq->body.same_as(b[1].var));
  EXPECT_NE(PrintModule(m).find("y_1: R.Tensor((4,), dtype=\"float32\") = R.log(y)"),
            std::string::npos);
}

// The bindings of `m` whose value is an R.* call, as printed without annotations: "y = R.exp(x)".
std::vector<std::string> BindingLines(const IRModule& m) {
  std::vector<std::string> lines;
  std::string text = PrintModule(m);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find(" = R.");
    size_t colon = line.find(": R.");
    if (at == std::string::npos || colon == std::string::npos || colon > at) continue;
    size_t start = line.find_first_not_of(' ');
    lines.push_back(line.substr(start, colon - start) + " =" + line.substr(at + 2));
  }
  return lines;
}

TEST(RelaxParser, NestedCallsAreBoundFirstInnermostFirst) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4,), "float32"), up: R.Tensor((4,), "float32")):
        with R.dataflow():
            act = R.multiply(R.nn.silu(x), up)
            y = R.add(R.multiply(x, act), R.nn.relu(R.negative(x)))
            R.output(y)
        return y
)"));
  EXPECT_NO_THROW(CheckWellFormed(m));
  EXPECT_EQ(BindingLines(m),
            (std::vector<std::string>{"lv = R.nn.silu(x)", "act = R.multiply(lv, up)",
                                      "lv1 = R.multiply(x, act)", "lv2 = R.negative(x)",
                                      "lv3 = R.nn.relu(lv2)", "y = R.add(lv1, lv3)"}));
  const auto& bindings = Main(m).body.as<SeqExprNode>()->blocks.at(0).bindings;
  ASSERT_EQ(bindings.size(), 6u);
  for (size_t i = 0; i < 5; ++i) EXPECT_TRUE(bindings[i].var.is_dataflow()) << i;
  EXPECT_FALSE(bindings[5].var.is_dataflow());
  // The normal form is a fixed point: printed and parsed again, nothing more is bound.
  testing::ExpectRoundTrip(m);
}

TEST(RelaxParser, AnItemOfATupleLiteralIsAProjection) {
  // The printer writes a projection of a tuple literal as `(x, lv)[1]`, so the parser reads
  // it back.
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        with R.dataflow():
            b = R.add(x, (x, R.exp(y))[1])
            R.output(b)
        return b
)"));
  EXPECT_NO_THROW(CheckWellFormed(m));
  std::string text = PrintModule(m);
  EXPECT_NE(text.find("lv1: R.Tensor((4,), dtype=\"float32\") = (x, lv)[1]"), std::string::npos)
      << text;
  EXPECT_EQ(BindingLines(m), (std::vector<std::string>{"lv = R.exp(y)", "b = R.add(x, lv1)"}));
  testing::ExpectRoundTrip(m);
}

TEST(RelaxParser, FreshNamesAvoidNamesOfTheText) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            lv = R.exp(x)
            y = R.add(R.exp(lv), lv)
            R.output(y)
        gv = R.log(R.exp(y))
        return (R.sqrt(gv), gv)
)"));
  EXPECT_NO_THROW(CheckWellFormed(m));
  EXPECT_EQ(BindingLines(m),
            (std::vector<std::string>{"lv = R.exp(x)", "lv1 = R.exp(lv)", "y = R.add(lv1, lv)",
                                      "gv1 = R.exp(y)", "gv = R.log(gv1)", "gv2 = R.sqrt(gv)"}));
  // Outside a dataflow block the fresh variables are Vars, and the returned tuple holds them.
  const auto* seq = Main(m).body.as<SeqExprNode>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  for (const Binding& b : seq->blocks[1].bindings) EXPECT_FALSE(b.var.is_dataflow());
  const auto* ret = seq->body.as<TupleNode>();
  ASSERT_NE(ret, nullptr);
  EXPECT_TRUE(ret->fields[0].same_as(seq->blocks[1].bindings.back().var));
}

TEST(RelaxParser, ProjectionsMatchCastsAndReturnedCallsAreNormalized) {
  IRModule m = ParseModule(Module(R"(    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        z = R.split(x, indices_or_sections=2, axis=1)[0]
        w = R.match_cast(R.exp(R.log(z)), R.Tensor((4, 3), "float32"))
        return R.add(w, z)
)"));
  EXPECT_NO_THROW(CheckWellFormed(m));
  std::vector<std::string> lines = BindingLines(m);
  ASSERT_EQ(lines.size(), 4u) << PrintModule(m);
  EXPECT_EQ(lines[0], "gv = R.split(x, indices_or_sections=2, axis=1)");
  // The value of a match_cast may stay a call (as a binding's value); its argument may not.
  EXPECT_EQ(lines[1], "gv1 = R.log(z)");
  EXPECT_EQ(lines[2], "w = R.match_cast(R.exp(gv1), R.Tensor((4, 3), dtype=\"float32\"))");
  EXPECT_EQ(lines[3], "gv2 = R.add(w, z)");
  const auto* seq = Main(m).body.as<SeqExprNode>();
  EXPECT_TRUE(seq->body.same_as(seq->blocks.back().bindings.back().var));
  EXPECT_TRUE(seq->blocks[0].bindings[3].is_match_cast());
}

// TVM 0.24+ declares shape variables above the module, `n = TypeVar("n")` (int64) or
// `n = T.int32()`; each function that names one has its own variable, from its first use.
TEST(RelaxParser, SymbolicVariablesDeclaredAboveTheModule) {
  IRModule m = ParseModule(R"(# from typing import TypeVar
n = TypeVar("n")
m = T.int32()
@I.ir_module
class Module:
    @R.function
    def forward(x: R.Tensor((n, 4), dtype="float32"), y: R.Tensor((m,), "float32")) -> R.Tensor((n, 4), dtype="float32"):
        z: R.Tensor((n, 4), dtype="float32") = R.add(x, x)
        return z

    @R.function
    def other(x: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        return x
)");
  const FunctionNode& f = *m.LookupFunction("forward")->get();
  std::vector<PrimVar> x_vars = SymbolicVars(f.params[0].struct_info());
  std::vector<PrimVar> y_vars = SymbolicVars(f.params[1].struct_info());
  ASSERT_EQ(x_vars.size(), 1u);
  ASSERT_EQ(y_vars.size(), 1u);
  EXPECT_EQ(x_vars[0].dtype(), DataType::Int(64));
  EXPECT_EQ(y_vars[0].dtype(), DataType::Int(32));
  std::vector<PrimVar> other =
      SymbolicVars(m.LookupFunction("other")->get()->params[0].struct_info());
  ASSERT_EQ(other.size(), 1u);
  EXPECT_FALSE(other[0].same_as(x_vars[0]));
}

TEST(RelaxParser, CallTirOutputsAsOutTyOrOutSinfo) {
  const char* kernel = R"(    @T.prim_func(private=True)
    def copy(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.block("B"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
)";
  IRModule a = ParseModule(Module(std::string(kernel) +
                                  "        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), "
                                  "\"float32\"))\n        return y\n"));
  IRModule b = ParseModule(Module(std::string(kernel) +
                                  "        y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((4,), "
                                  "\"float32\"))\n        return y\n"));
  EXPECT_TRUE(StructuralEqual(a, b));
}

TEST(RelaxParser, MetadataOfBothTvmKinds) {
  // A module may come with TVM's metadata section above it; references name its kind.
  std::string text = testing::ReadText(testing::CorpusDir() / "tvm027_meta.relax");
  IRModule m = ParseModule(text, "tvm027_meta.relax");
  const FunctionNode& f = *m.LookupFunction("forward")->get();
  const auto* seq = f.body.as<SeqExprNode>();
  const auto* add = seq->blocks[0].bindings[1].value.as<CallNode>();
  ASSERT_NE(add, nullptr);
  const auto* c = add->args[1].as<ConstantNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->data.GetDouble(0), 0.5);
  EXPECT_EQ(c->data.GetDouble(2), 2.0);
  // The TVM attributes of the calls are read as TVM wrote them.
  const auto* norm = seq->blocks[0].bindings[2].value.as<CallNode>();
  EXPECT_FALSE(norm->attrs.GetBool("scale"));
  EXPECT_TRUE(norm->attrs.GetBool("center"));
  const auto* take = seq->blocks[0].bindings[3].value.as<CallNode>();
  EXPECT_EQ(take->attrs.GetString("mode"), "clip");
}

}  // namespace
}  // namespace kiln::ir::relax
