// Malformed Relax text: each input must fail with kiln::Error of the right kind whose message
// starts with "bad.relax:LINE:COL: " at the offending token and names the reason. The place is
// given as the first occurrence of a marker string in the input, so each case states both.
#include <gtest/gtest.h>

#include <string>

#include "ir/relax/text/parser.h"

namespace kiln::ir::relax {
namespace {

// A well-formed module; the cases below edit one line of it.
constexpr const char* kBase = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.add(x, y)
            gv = R.call_tir(cls.scale, (lv,), out_sinfo=R.Tensor((n, 4), "float32"))
            R.output(gv)
        return gv

    @T.prim_func
    def scale(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(4)))
        B = T.match_buffer(var_B, (n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)";

std::string Edit(const std::string& from, const std::string& to) {
  std::string text = kBase;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// Expects the error at the first occurrence of `marker` in `text` (after `after`, if given).
void ExpectError(const std::string& text, const std::string& marker, const std::string& phrase,
                 ErrorKind kind = ErrorKind::kParse, const std::string& after = "") {
  size_t offset = text.find(marker, after.empty() ? 0 : text.find(after) + after.size());
  ASSERT_NE(offset, std::string::npos) << "marker '" << marker << "' is not in the input";
  int line = 1, column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  try {
    ParseModule(text, "bad.relax");
    ADD_FAILURE() << "parsed without error:\n" << text;
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(e.kind(), kind) << message;
    std::string place = "bad.relax:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    EXPECT_EQ(message.rfind(place, 0), 0u) << "want " << place << " in:\n" << message;
    EXPECT_NE(message.find(phrase), std::string::npos) << "want '" << phrase << "' in:\n"
                                                       << message;
  }
}

TEST(RelaxParseError, BaseParses) { EXPECT_EQ(ParseModule(kBase).size(), 2u); }

TEST(RelaxParseError, UnknownOp) {
  ExpectError(Edit("R.add(x, y)", "R.plus(x, y)"), "plus", "unknown Relax op 'R.plus'",
              ErrorKind::kUnsupported);
}

TEST(RelaxParseError, UnknownAttribute) {
  ExpectError(Edit("R.add(x, y)", "R.nn.softmax(x, axs=1)"), "axs",
              "R.nn.softmax has no attribute 'axs' (it takes axis)", ErrorKind::kType);
}

TEST(RelaxParseError, AttributeOfTheWrongType) {
  ExpectError(Edit("R.add(x, y)", "R.nn.softmax(x, axis=\"last\")"), "nn.softmax",
              "nn.softmax: attribute 'axis' must be int, got string", ErrorKind::kType);
}

TEST(RelaxParseError, PythonKeywordsAreNoNames) {
  // They would not print back as names (found by the fuzzer: "def None(...)").
  ExpectError(Edit("def main(", "def None("), "None", "the Python keyword 'None'");
  ExpectError(Edit("y: R.Tensor((\"n\", 4), \"float32\")) ->",
                   "True: R.Tensor((\"n\", 4), \"float32\")) ->"),
              "True", "expected a parameter name, got the Python keyword 'True'");
  ExpectError(Edit("lv = R.add(x, y)", "lambda = R.add(x, y)"), "lambda",
              "the Python keyword 'lambda'");
  ExpectError(Edit("class Module:", "class pass:"), "pass", "expected a module name");
}

TEST(RelaxParseError, UndefinedVariable) {
  ExpectError(Edit("R.add(x, y)", "R.add(x, z)"), "z)", "undefined name 'z'");
}

TEST(RelaxParseError, ShapeMismatchInACall) {
  ExpectError(Edit("y: R.Tensor((\"n\", 4)", "y: R.Tensor((\"n\", 5)"), "add",
              "add: cannot broadcast dims (n, 4) and (n, 5)", ErrorKind::kType);
}

TEST(RelaxParseError, WrongArgumentCount) {
  ExpectError(Edit("R.add(x, y)", "R.add(x)"), "add", "add: takes 2 arguments, got 1",
              ErrorKind::kType);
}

TEST(RelaxParseError, UnknownDtypeInAnnotation) {
  ExpectError(Edit("x: R.Tensor((\"n\", 4), \"float32\")", "x: R.Tensor((\"n\", 4), \"float33\")"),
              "\"float33\"", "unknown dtype \"float33\"");
}

TEST(RelaxParseError, UnknownStructInfo) {
  ExpectError(Edit("x: R.Tensor((\"n\", 4), \"float32\")", "x: R.Tensr((\"n\", 4))"), "Tensr",
              "unknown struct info 'R.Tensr'");
}

TEST(RelaxParseError, AnnotationDisagreesWithTheValue) {
  ExpectError(Edit("lv = R.add(x, y)", "lv: R.Tensor((n, 5), \"float32\") = R.add(x, y)"),
              "R.Tensor((n, 5)",
              "the annotation of 'lv' is R.Tensor((n, 5), dtype=\"float32\"), but its value is "
              "R.Tensor((n, 4), dtype=\"float32\")",
              ErrorKind::kType);
}

TEST(RelaxParseError, ReturnAnnotationDisagreesWithTheBody) {
  ExpectError(Edit("-> R.Tensor((\"n\", 4), \"float32\")", "-> R.Tensor((\"n\", 5), \"float32\")"),
              "main",
              "function main: body is R.Tensor((n, 4), \"float32\"), which cannot be the declared "
              "return R.Tensor((n, 5), \"float32\")",
              ErrorKind::kType);
}

TEST(RelaxParseError, UnclosedParenthesis) {
  ExpectError(Edit("R.add(x, y)", "R.add(x, y"), "(x, y", "'(' was never closed");
}

TEST(RelaxParseError, BadIndentation) {
  ExpectError(Edit("        return gv", "       return gv"), "return gv",
              "unindent does not match any outer indentation level");
}

TEST(RelaxParseError, MissingReturn) {
  ExpectError(Edit("        return gv\n", ""), "main", "function 'main' has no return statement");
}

TEST(RelaxParseError, StatementAfterReturn) {
  ExpectError(Edit("        return gv\n", "        return gv\n        z = R.exp(gv)\n"),
              "z = ", "statement after 'return'");
}

TEST(RelaxParseError, OutputOutsideDataflow) {
  ExpectError(Edit("        return gv", "        R.output(gv)\n        return gv"), "R.output",
              "R.output outside a dataflow block", ErrorKind::kParse, "R.output(gv)\n");
}

TEST(RelaxParseError, OutputOfAnUnboundName) {
  ExpectError(Edit("R.output(gv)", "R.output(gx)"), "gx", "R.output: 'gx' is not bound");
}

TEST(RelaxParseError, DataflowVariableUsedAfterItsBlock) {
  ExpectError(Edit("return gv", "return lv"), "lv\n",
              "'lv' is a dataflow variable of the block at line 7 and is not visible after it",
              ErrorKind::kParse, "return ");
}

TEST(RelaxParseError, DuplicateFunctionName) {
  ExpectError(Edit("def scale(", "def main("), "main(var_A",
              "duplicate function name 'main' (first defined at line 4)");
}

TEST(RelaxParseError, CallTirOfAMissingPrimFunc) {
  ExpectError(Edit("cls.scale", "cls.scael"), "scael", "the module has no function named 'scael'");
}

TEST(RelaxParseError, CallTirOfARelaxFunction) {
  ExpectError(Edit("cls.scale", "cls.main"), "main, (lv",
              "R.call_tir needs a PrimFunc, but 'main' is a Relax function");
}

TEST(RelaxParseError, CallTirArgumentCountIsCheckedAgainstThePrimFunc) {
  // Found by the module's well-formedness check, which names the binding; the place is the
  // function's definition.
  ExpectError(Edit("(lv,), out_sinfo", "(lv, lv), out_sinfo"), "main(x",
              "function main, binding of gv: call_tir of scale passes 2 inputs, 1 outputs and 0 "
              "shape values, but it takes 2 parameters",
              ErrorKind::kInvalidIR);
}

TEST(RelaxParseError, CallTirWithoutOutSinfo) {
  ExpectError(Edit(", out_sinfo=R.Tensor((n, 4), \"float32\"))", ")"), "call_tir",
              "R.call_tir needs out_ty=... (out_sinfo= before TVM 0.24)");
}

TEST(RelaxParseError, CallTirWithOutTyAndOutSinfo) {
  ExpectError(
      Edit(", out_sinfo=R.Tensor((n, 4), \"float32\"))",
           ", out_sinfo=R.Tensor((n, 4), \"float32\"), out_ty=R.Tensor((n, 4), \"float32\"))"),
      "call_tir", "R.call_tir takes one of out_ty= (TVM 0.24+) and out_sinfo= (older TVM)");
}

TEST(RelaxParseError, TypeVarDeclarations) {
  ExpectError("m = TypeVar(\"n\")\n" + std::string(kBase), "\"n\"",
              "TypeVar(\"n\") is bound to 'm': the names must agree");
  ExpectError("m = T.float32()\n" + std::string(kBase), "float32",
              "a symbolic variable above the module is an integer (T.int64() or TypeVar)");
}

TEST(RelaxParseError, MetadataReferences) {
  const std::string section =
      "metadata = tvm.ir.load_json('{\"root_index\": 2, \"nodes\": [{\"type\": \"ffi.String\", "
      "\"data\": \"ir.GenericConst\"}, {\"type\": \"ffi.Array\", \"data\": []}, {\"type\": "
      "\"ffi.Map\", \"data\": [0, 1]}]}')\n";
  std::string uses_legacy =
      Edit("lv = R.add(x, y)", "lv = R.add(x, metadata[\"relax.expr.Constant\"][0])");
  ExpectError(uses_legacy, "metadata",
              "metadata[...] refers to the metadata section, but the text has none");
  ExpectError(section + uses_legacy, "\"relax.expr.Constant\"",
              "the metadata section has no \"relax.expr.Constant\" objects (it has "
              "\"ir.GenericConst\")");
  std::string uses_generic =
      Edit("lv = R.add(x, y)", "lv = R.add(x, metadata[\"ir.GenericConst\"][0])");
  ExpectError(section + uses_generic, "0]",
              "metadata index 0 is out of range: the section holds 0 \"ir.GenericConst\" constants",
              ErrorKind::kParse, "GenericConst");
  // Errors inside the section are placed at its string and name the graph's node.
  ExpectError("metadata = tvm.ir.load_json(\"{\\\"root_index\\\": 4, \\\"nodes\\\": []}\")\n" +
                  std::string(kBase),
              "\"{", "metadata: root 4 is not a node index");
}

TEST(RelaxParseError, CallOfAPrimFuncAsARelaxFunction) {
  ExpectError(Edit("R.call_tir(cls.scale, (lv,), out_sinfo=R.Tensor((n, 4), \"float32\"))",
                   "cls.scale(lv)"),
              "scale(lv)", "'scale' is a PrimFunc: call it with R.call_tir");
}

TEST(RelaxParseError, NonIntegerDim) {
  ExpectError(Edit("x: R.Tensor((\"n\", 4)", "x: R.Tensor((\"n\", 4.5)"), "4.5",
              "expected a dim (an integer or a shape variable), got a float");
}

TEST(RelaxParseError, BadDimStringPointsInsideTheString) {
  // The place is inside the string literal: after "n *", where a value is missing.
  ExpectError(Edit("x: R.Tensor((\"n\", 4)", "x: R.Tensor((\"n * \", 4)"), " \", 4)",
              "expected a value, got end of line");
  ExpectError(Edit("x: R.Tensor((\"n\", 4)", "x: R.Tensor((\"n / 2\", 4)"), "/ 2",
              "'/' is not supported here");
  ExpectError(Edit("x: R.Tensor((\"n\", 4)", "x: R.Tensor((\"n $ 2\", 4)"), "\"n $",
              "bad dim string \"n $ 2\"");
}

TEST(RelaxParseError, ErrorInsideAPrimFunc) {
  ExpectError(Edit("A[vi, vj] * T.float32(2.0)", "A[vi, vj] * C"), "C\n", "undefined name 'C'");
}

TEST(RelaxParseError, ControlFlowIsUnsupported) {
  ExpectError(Edit("        return gv", "        if True:\n            return gv"), "if True",
              "'if' is not supported", ErrorKind::kUnsupported);
}

TEST(RelaxParseError, InlineShapeVariableDeclaration) {
  ExpectError(Edit("R.add(x, y)", "R.reshape(x, R.shape([T.int64(), 4]))"), "int64(),",
              "T.int64() declares a shape variable");
}

TEST(RelaxParseError, ScalarWhereATensorIsExpected) {
  ExpectError(Edit("R.add(x, y)", "R.add(x, 1.5)"), "1.5",
              "expected argument 1 of R.add, got a float");
}

TEST(RelaxParseError, MetadataWithoutASection) {
  ExpectError(Edit("R.add(x, y)", "R.add(x, metadata[\"relax.expr.Constant\"][0])"), "metadata",
              "the text has none");
}

TEST(RelaxParseError, RaggedConstant) {
  ExpectError(Edit("R.add(x, y)", "R.add(x, R.const([[1.0, 2.0], [3.0]], \"float32\"))"), "[3.0]",
              "ragged nested list");
  ExpectError(Edit("R.add(x, y)", "R.add(x, R.const([300, 2], \"int8\"))"), "300",
              "R.const: 300 is out of range for int8");
}

TEST(RelaxParseError, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(500, '(') + "x" + std::string(500, ')');
  try {
    ParseModule(Edit("R.add(x, y)", "R.add(" + deep + ", y)"), "bad.relax");
    ADD_FAILURE() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.relax:8:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("nesting deeper than 100 levels"), std::string::npos);
  }
}

TEST(RelaxParseError, TextAfterTheModule) {
  ExpectError(std::string(kBase) + "x = 1\n", "x = 1", "expected end of input after the module");
}

TEST(RelaxParseError, StandaloneFunctionCannotReferenceOthers) {
  try {
    ParseRelaxFunction("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    return cls.g(x)\n",
                       "f.relax");
    ADD_FAILURE() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("f.relax:3:16: 'g': a standalone function cannot refer "
                                          "to other functions",
                                          0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::relax
