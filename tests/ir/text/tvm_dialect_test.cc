// Both TVMScript dialects of TensorIR: what TVM 0.24+ prints (tirx, s_tir=True, T.sblock,
// "tirx.noalias": True, TypeVar and string-named shape variables, T.let annotations) reads to
// the same functions as the older dialect, and the printer writes either on request.
#include <gtest/gtest.h>

#include "ir/op.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"

namespace kiln::ir {
namespace {

const TirPrintOptions kTvm023{TirDialect::kTvm023};

// As TVM 0.27 prints the softmax of a LegalizeOps with a symbolic row count.
constexpr const char* kTvm027Softmax = R"(# from typing import TypeVar
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

n = TypeVar("n")
@T.prim_func(private=True, s_tir=True)
def main(a: T.Buffer((n, T.int64(32)), "float32"), T_softmax_norm: T.Buffer((n, T.int64(32)), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    T_softmax_maxelem = T.sblock_alloc_buffer((n,))
    for i0, k in T.grid(n, T.int64(32)):
        with T.sblock("T_softmax_maxelem"):
            v_i0, v_k = T.axis.remap("SR", [i0, k])
            T.reads(a[v_i0, v_k])
            T.writes(T_softmax_maxelem[v_i0])
            with T.init():
                T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
            T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], a[v_i0, v_k])
    for i0, i1 in T.grid(n, T.int64(32)):
        with T.sblock("T_softmax_norm"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(a[v_i0, v_i1], T_softmax_maxelem[v_i0])
            T.writes(T_softmax_norm[v_i0, v_i1])
            T.sblock_attr({"axis": 1})
            T_softmax_norm[v_i0, v_i1] = T.exp(a[v_i0, v_i1] - T_softmax_maxelem[v_i0])
)";

// The same function in the dialect of TVM up to 0.23, as Kiln printed it.
constexpr const char* kTvm023Softmax = R"(# from tvm.script import tir as T

@T.prim_func(private=True)
def main(var_a: T.handle, var_T_softmax_norm: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int64()
    a = T.match_buffer(var_a, (n, T.int64(32)))
    T_softmax_norm = T.match_buffer(var_T_softmax_norm, (n, T.int64(32)))
    # with T.block("root"):
    T_softmax_maxelem = T.alloc_buffer((n,))
    for i0, k in T.grid(n, T.int64(32)):
        with T.block("T_softmax_maxelem"):
            v_i0, v_k = T.axis.remap("SR", [i0, k])
            T.reads(a[v_i0, v_k])
            T.writes(T_softmax_maxelem[v_i0])
            with T.init():
                T_softmax_maxelem[v_i0] = T.float32(-3.4028234663852886e+38)
            T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], a[v_i0, v_k])
    for i0, i1 in T.grid(n, T.int64(32)):
        with T.block("T_softmax_norm"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(a[v_i0, v_i1], T_softmax_maxelem[v_i0])
            T.writes(T_softmax_norm[v_i0, v_i1])
            T.block_attr({"axis": 1})
            T_softmax_norm[v_i0, v_i1] = T.exp(a[v_i0, v_i1] - T_softmax_maxelem[v_i0])
)";

TEST(TvmDialect, BothDialectsReadToOneFunction) {
  PrimFunc current = ParsePrimFunc(kTvm027Softmax, "softmax_027.tir");
  PrimFunc older = ParsePrimFunc(kTvm023Softmax, "softmax_023.tir");
  EXPECT_TRUE(StructuralEqual(current, older));
  EXPECT_EQ(StructuralHash(current), StructuralHash(older));
  // Kiln keeps the older attribute key; the dialect decides how it is printed.
  EXPECT_EQ(current->attrs.count("tir.noalias"), 1u);
  EXPECT_EQ(current->attrs.count("tirx.noalias"), 0u);
  const Expr& n = current->buffer_map[0].second->shape[0];
  ASSERT_NE(n.as<VarNode>(), nullptr);
  EXPECT_EQ(n.dtype(), DataType::Int(64));  // TypeVar dims are int64, as in TVM
  EXPECT_TRUE(n.same_as(current->buffer_map[1].second->shape[0]));
}

TEST(TvmDialect, PrintsTheCurrentDialectByDefault) {
  PrimFunc f = ParsePrimFunc(kTvm023Softmax);
  std::string printed = PrintPrimFunc(f);
  for (const char* piece :
       {"# from typing import TypeVar\n# from tvm.script import tirx as T\n\nn = TypeVar(\"n\")\n"
        "@T.prim_func(private=True, s_tir=True)\n",
        "def main(a: T.Buffer((n, T.int64(32)), \"float32\"), T_softmax_norm: T.Buffer((n, "
        "T.int64(32)), \"float32\")):\n    T.func_attr({\"tirx.noalias\": True})\n",
        "    # with T.sblock(\"root\"):\n    T_softmax_maxelem = T.sblock_alloc_buffer((n,))\n",
        "        with T.sblock(\"T_softmax_norm\"):",
        "            T.sblock_attr({\"axis\": 1})\n"}) {
    EXPECT_NE(printed.find(piece), std::string::npos) << piece << "\nin:\n" << printed;
  }
  EXPECT_EQ(printed.find("T.block("), std::string::npos) << printed;
  EXPECT_EQ(printed.find("T.bool("), std::string::npos) << printed;
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(printed), f));
  // The older dialect on request reads back to the same function and prints as before.
  EXPECT_EQ(PrintPrimFunc(f, kTvm023), kTvm023Softmax);
  EXPECT_EQ(PrintedTypeVars(f), std::vector<std::string>{"n"});
  EXPECT_TRUE(PrintedTypeVars(f, kTvm023).empty());
}

TEST(TvmDialect, TeStringShapeVariablesAndLetAnnotations) {
  // As TVM 0.27 prints te.create_prim_func with an int32 dim, and a let of LegalizeOps.
  PrimFunc te = ParsePrimFunc(R"(# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer(("n", 64), "float32"), B: T.Buffer((n, 64), "float32")):
    n = T.int32()
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(n, 64):
        with T.sblock("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(B[v_i, v_j])
            v: T.let[T.float32] = A[v_i, v_j] * T.float32(2.0)
            B[v_i, v_j] = v
)");
  const Expr& n = te->buffer_map[0].second->shape[0];
  ASSERT_NE(n.as<VarNode>(), nullptr);
  EXPECT_EQ(n.dtype(), DataType::Int(32));
  EXPECT_TRUE(n.same_as(te->buffer_map[1].second->shape[0]));
  std::string printed = PrintPrimFunc(te);
  EXPECT_NE(printed.find("def main(A: T.Buffer((\"n\", 64), \"float32\"), B: T.Buffer((n, 64), "
                         "\"float32\")):\n    n = T.int32()\n    T.func_attr({\"tirx.noalias\": "
                         "True})\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("v: T.let[T.float32] = A[v_i, v_j] * T.float32(2.0)"), std::string::npos)
      << printed;
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(printed), te));
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(PrintPrimFunc(te, kTvm023)), te));
  // The older dialect's int32 let annotation reads to the same let.
  std::string old_let = PrintPrimFunc(te, kTvm023);
  EXPECT_NE(old_let.find("v: T.float32 = "), std::string::npos) << old_let;
}

TEST(TvmDialect, ModuleLevelTypeVarsServeEveryFunction) {
  std::vector<PrimFunc> funcs = ParsePrimFuncs(R"(# from typing import TypeVar
m = TypeVar("m")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def a(x: T.Buffer((m,), "float32"), y: T.Buffer((m,), "float32")):
        for i in range(m):
            y[i] = x[i]

    @T.prim_func(s_tir=True)
    def b(x: T.Buffer((m, 2), "float32")):
        for i, j in T.grid(m, 2):
            x[i, j] = T.float32(0.0)
)");
  ASSERT_EQ(funcs.size(), 2u);
  for (const PrimFunc& f : funcs) {
    const Expr& m = f->buffer_map[0].second->shape[0];
    ASSERT_NE(m.as<VarNode>(), nullptr);
    EXPECT_EQ(m.dtype(), DataType::Int(64));
  }
  // Each function has its own variable.
  EXPECT_FALSE(
      funcs[0]->buffer_map[0].second->shape[0].same_as(funcs[1]->buffer_map[0].second->shape[0]));
}

TEST(TvmDialect, AParameterMayShadowAModuleTypeVar) {
  std::vector<PrimFunc> funcs = ParsePrimFuncs(R"(n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def fill(x: T.Buffer((n,), "int64"), n: T.int64):
        for i in range(n):
            x[i] = n
)");
  ASSERT_EQ(funcs.size(), 1u);
  const PrimFunc& f = funcs[0];
  // The shape's n is the TypeVar; the loop's is the parameter.
  EXPECT_NE(f->buffer_map[0].second->shape[0].as<VarNode>(), f->params[1].get());
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(PrintPrimFunc(f)), f)) << PrintPrimFunc(f);
}

TEST(TvmDialect, NoaliasWithBothKeysKeepsBoth) {
  PrimFunc f = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": True, "tirx.noalias": True})
    A[0] = T.float32(1.0)
)");
  EXPECT_EQ(f->attrs.count("tir.noalias"), 1u);
  EXPECT_EQ(f->attrs.count("tirx.noalias"), 1u);
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(PrintPrimFunc(f)), f));
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(PrintPrimFunc(f, kTvm023)), f));
}

TEST(TvmDialect, IfThenElseIsACallNotASelect) {
  PrimFunc f = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def pad(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(6),), "float32")):
    for i in range(T.int64(6)):
        with T.sblock("pad"):
            v = T.axis.spatial(T.int64(6), i)
            T.reads(x[v - T.int64(1)])
            T.writes(y[v])
            y[v] = T.if_then_else(T.int64(1) <= v and v < T.int64(5), x[v - T.int64(1)], 0)
)");
  std::string printed = PrintPrimFunc(f);
  EXPECT_NE(printed.find("T.if_then_else(T.int64(1) <= v and v < T.int64(5), x[v - T.int64(1)], "
                         "T.float32(0.0))"),
            std::string::npos)
      << printed;
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(printed), f));
  PrimFunc select = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def pad(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(6),), "float32")):
    for i in range(T.int64(6)):
        with T.sblock("pad"):
            v = T.axis.spatial(T.int64(6), i)
            T.reads(x[v - T.int64(1)])
            T.writes(y[v])
            y[v] = T.Select(T.int64(1) <= v and v < T.int64(5), x[v - T.int64(1)], T.float32(0))
)");
  EXPECT_FALSE(StructuralEqual(select, f));
  EXPECT_THROW(IfThenElseCall(IntImm(DataType::Int(32), 1), FloatImm(DataType::Float(32), 0),
                              FloatImm(DataType::Float(32), 1)),
               Error);
}

TEST(TvmDialect, PragmaAttrsAreReadAndDropped) {
  // As TVM 0.27 prints LegalizeOps' scatter_elements: a T.attr hint over the statements after it.
  PrimFunc hinted = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def f(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(4),), "float32")):
    with T.sblock("copy"):
        T.reads()
        T.writes()
        T.attr({"pragma_scope": "seq"})
        for v in T.parallel(T.int64(4)):
            y[v] = x[v]
)");
  PrimFunc plain = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def f(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(4),), "float32")):
    with T.sblock("copy"):
        T.reads()
        T.writes()
        with T.attr({"pragma_unroll": 1}):
            for v in T.parallel(T.int64(4)):
                y[v] = x[v]
)");
  EXPECT_TRUE(StructuralEqual(hinted, plain));
  try {
    ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def f(y: T.Buffer((4,), "float32")):
    T.attr({"thread_extent": 4})
    y[0] = T.float32(0)
)",
                  "attr.tir");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("attr.tir:3:13: T.attr key 'thread_extent' is not "
                                         "supported"),
              std::string::npos)
        << e.what();
  }
}

TEST(TvmDialect, DialectNames) {
  EXPECT_EQ(ParseTirDialect("tvm-0.23"), TirDialect::kTvm023);
  EXPECT_EQ(ParseTirDialect("tvm-0.24"), TirDialect::kTvm024);
  EXPECT_EQ(ParseTirDialect("tvm-0.27"), TirDialect::kTvm024);
  EXPECT_EQ(TirDialectName(TirDialect::kTvm023), "tvm-0.23");
  try {
    ParseTirDialect("tvm-1.0");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("'tvm-1.0'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tvm-0.23"), std::string::npos) << e.what();
  }
}

TEST(TvmDialect, OldDialectRejectsNothingNewDialectAccepts) {
  // An unknown decorator argument is still an error naming it.
  try {
    ParsePrimFunc("@T.prim_func(fancy=True)\ndef f():\n    T.evaluate(0)\n", "x.tir");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown argument 'fancy'"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::ir
