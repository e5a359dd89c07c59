// Malformed TVMScript: each input must fail with kiln::Error(kParse) whose message starts with
// "bad.tir:LINE:COL: " at the offending token and names the reason.
#include <gtest/gtest.h>

#include <string>

#include "ir/text/parser.h"

namespace kiln::ir {
namespace {

// A well-formed function; the cases below edit one line of it.
constexpr const char* kBase = R"(@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(B[vi])
            B[vi] = B[vi] + A[vi, vk]
)";

std::string Edit(const std::string& from, const std::string& to) {
  std::string text = kBase;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void ExpectError(const std::string& text, int line, int column, const std::string& phrase) {
  try {
    ParsePrimFuncs(text, "bad.tir");
    ADD_FAILURE() << "parsed without error:\n" << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    std::string message = e.what();
    std::string place = "bad.tir:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    EXPECT_EQ(message.rfind(place, 0), 0u) << "want " << place << " in:\n" << message;
    EXPECT_NE(message.find(phrase), std::string::npos) << "want '" << phrase << "' in:\n"
                                                       << message;
  }
}

TEST(ParseError, BaseParses) { EXPECT_EQ(ParsePrimFuncs(kBase).size(), 1u); }

TEST(ParseError, UndefinedName) {
  ExpectError(Edit("B[vi] + A[vi, vk]", "B[vi] + C[vi, vk]"), 8, 29, "undefined name 'C'");
}

TEST(ParseError, RemapArity) {
  ExpectError(Edit("\"SR\", [i, k]", "\"S\", [i, k]"), 5, 29, "T.axis.remap binds 2 names");
}

TEST(ParseError, AxisArity) {
  ExpectError(Edit("vi, vk = T.axis.remap(\"SR\", [i, k])",
                   "vi = T.axis.spatial(8)\n            vk = T.axis.reduce(8, k)"),
              5, 25, "T.axis.spatial takes 2 arguments");
}

TEST(ParseError, GridArity) {
  ExpectError(Edit("T.grid(8, 8)", "T.grid(8)"), 3, 17,
              "T.grid has 1 extents but 2 loop variables");
}

TEST(ParseError, StoreDtypeMismatch) {
  ExpectError(Edit("B[vi] = B[vi] + A[vi, vk]", "B[vi] = vi"), 8, 19, "value is int32");
}

TEST(ParseError, OperandDtypeMismatch) {
  ExpectError(Edit("B[vi] + A[vi, vk]", "B[vi] + vk"), 8, 27, "operand dtypes differ");
}

TEST(ParseError, UnknownIntrinsic) {
  ExpectError(Edit("B[vi] + A[vi, vk]", "T.expp(A[vi, vk])"), 8, 23, "unknown intrinsic T.expp");
}

TEST(ParseError, IntrinsicArity) {
  ExpectError(Edit("B[vi] + A[vi, vk]", "T.exp(A[vi, vk], B[vi])"), 8, 23,
              "T.exp takes 1 argument, got 2");
}

TEST(ParseError, IntrinsicNeedsFloat) {
  ExpectError(Edit("B[vi] = B[vi] + A[vi, vk]", "B[vi] = T.Cast(\"float32\", T.sqrt(vi))"), 8, 41,
              "defined on floating-point values");
}

TEST(ParseError, WrongNumberOfIndices) {
  ExpectError(Edit("B[vi] + A[vi, vk]", "B[vi] + A[vi]"), 8, 30,
              "'A' has 2 dimensions, got 1 indices");
}

TEST(ParseError, RegionIndices) {
  ExpectError(Edit("T.writes(B[vi])", "T.writes(B[vi, 0:2])"), 7, 23, "has 1 dimensions, got 2");
}

TEST(ParseError, UnindentMismatch) {
  ExpectError(Edit("            B[vi] = B", "           B[vi] = B"), 8, 12,
              "unindent does not match any outer indentation level");
}

TEST(ParseError, UnexpectedIndent) {
  ExpectError(Edit("            T.writes", "                T.writes"), 7, 17, "unexpected indent");
}

TEST(ParseError, TabIndentation) {
  ExpectError(Edit("    for i, k", "\tfor i, k"), 3, 1, "tabs are not allowed");
}

TEST(ParseError, UnterminatedString) {
  ExpectError(Edit("T.block(\"B\")", "T.block(\"B)"), 4, 22, "unterminated string");
}

TEST(ParseError, UnclosedBracket) {
  ExpectError(Edit("T.reads(A[vi, vk])", "T.reads(A[vi, vk]"), 6, 20, "'(' was never closed");
}

TEST(ParseError, MismatchedBracket) {
  ExpectError(Edit("T.reads(A[vi, vk])", "T.reads(A[vi, vk)]"), 6, 29,
              "closing ')' does not match '['");
}

TEST(ParseError, MissingColon) {
  ExpectError(Edit("T.grid(8, 8):", "T.grid(8, 8)"), 3, 29, "expected ':', got end of line");
}

TEST(ParseError, UnknownDtype) {
  ExpectError(Edit("(8,), \"float32\"", "(8,), \"float31\""), 2, 57, "unknown dtype 'float31'");
}

TEST(ParseError, ReadsOutsideBlock) {
  ExpectError(Edit("        with T.block(\"B\"):\n",
                   "        T.reads(A[i, k])\n        with T.block(\"B\"):\n"),
              4, 11, "T.reads must be directly inside a block");
}

TEST(ParseError, RemapNeedsLoopVariables) {
  ExpectError(Edit("[i, k]", "[i, 3]"), 5, 45, "needs loop variables of enclosing loops");
}

TEST(ParseError, BadDecorator) {
  ExpectError(Edit("@T.prim_func", "@T.prim_fun"), 1, 1,
              "expected '@T.prim_func' or '@I.ir_module'");
}

TEST(ParseError, UnexpectedCharacter) {
  ExpectError(Edit("B[vi] + A", "B[vi] $ A"), 8, 27, "unexpected character '$'");
}

TEST(ParseError, ChainedComparison) {
  ExpectError(Edit("            B[vi] = B[vi] + A[vi, vk]",
                   "            if 0 < vi < 4:\n                B[vi] = A[vi, vk]"),
              8, 23, "chained comparisons are not supported");
}

TEST(ParseError, IntegerOutOfRange) {
  ExpectError(Edit("B[vi] + A[vi, vk]", "B[vi] + T.float32(99999999999999999999)"), 8, 39,
              "out of range");
}

TEST(ParseError, ThreadBindingNeedsThread) {
  ExpectError(
      Edit("for i, k in T.grid(8, 8):", "for i in T.thread_binding(8):\n      for k in range(8):"),
      3, 14, "needs thread=");
}

TEST(ParseError, UnknownBufferArgument) {
  ExpectError(Edit("(8,), \"float32\")", "(8,), \"float32\", scpoe=\"local\")"), 2, 68,
              "unknown buffer argument 'scpoe'");
}

TEST(ParseError, ReadsTwice) {
  ExpectError(Edit("            T.writes(B[vi])", "            T.reads(B[vi])"), 7, 15,
              "T.reads given twice");
}

TEST(ParseError, BlockHeaderAfterLet) {
  ExpectError(Edit("            T.reads(A[vi, vk])",
                   "            x: T.int32 = 1\n            T.reads(A[vi, vk])"),
              7, 15, "T.reads must be directly inside a block");
}

TEST(ParseError, WhereNeedsBool) {
  ExpectError(Edit("            T.writes(B[vi])",
                   "            T.where(vi + 1)\n            T.writes(B[vi])"),
              7, 21, "needs a bool condition");
}

TEST(ParseError, LetDtypeMismatch) {
  ExpectError(Edit("            B[vi] = B",
                   "            x: T.int32 = T.float32(1.0)\n            B[vi] = B"),
              8, 13, "'x' is int32 but its value is float32");
}

TEST(ParseError, EmptyInput) {
  try {
    ParsePrimFunc("# nothing here\n", "bad.tir");
    ADD_FAILURE() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_EQ(std::string(e.what()), "bad.tir:1:1: expected exactly one T.prim_func, got 0");
  }
}

TEST(ParseError, DeepBracketsAreAnErrorNotACrash) {
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  ExpectError(Edit("B[vi] + A[vi, vk]", deep), 8, 216, "nesting deeper than");
}

TEST(ParseError, LongUnaryChainsAreAnErrorNotACrash) {
  ExpectError(Edit("B[vi] + A[vi, vk]", std::string(100000, '+') + "A[vi, vk]"), 8, 216,
              "nesting deeper than");
}

TEST(ParseError, LongChainsAreAnErrorNotACrash) {
  std::string chain = "A[vi, vk]";
  for (int i = 0; i < 3000; ++i) chain += " + A[vi, vk]";
  ExpectError(Edit("B[vi] + A[vi, vk]", chain), 8, 12007, "expression nested deeper than");
}

TEST(ParseError, DeepStatementsAreAnErrorNotACrash) {
  std::string text = "@T.prim_func\ndef f(A: T.Buffer((1,), \"float32\")):\n";
  std::string indent = "    ";
  for (int i = 0; i < 400; ++i) {
    text += indent + "if True:\n";
    indent += " ";
  }
  text += indent + "A[0] = T.float32(1.0)\n";
  try {
    ParsePrimFunc(text, "bad.tir");
    ADD_FAILURE() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("nesting deeper than"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir
