// Struct info of elementwise unary and binary ops: dtype rules and numpy broadcasting over
// constant and symbolic dims; scalar shape arithmetic on R.Prim values.
#include <gtest/gtest.h>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

class RelaxElementwiseTest : public ::testing::Test {
 protected:
  PrimVar n = SymbolicDim("n");
  PrimVar m = SymbolicDim("m");
};

TEST_F(RelaxElementwiseTest, UnaryKeepsShapeAndDtype) {
  Var x = Tensor("x", {n, 768});
  for (const char* op : {"exp",      "sqrt", "rsqrt",   "log",          "tanh",    "sigmoid", "erf",
                         "sin",      "cos",  "nn.gelu", "nn.gelu_tanh", "nn.silu", "nn.relu", "abs",
                         "negative", "sign", "square",  "floor",        "ceil",    "round"}) {
    EXPECT_EQ(Info(Call(op, {x})), "R.Tensor((n, 768), \"float32\")") << op;
  }
  EXPECT_EQ(Info(Call("nn.leakyrelu", {x}, Attrs().Set("alpha", 0.2))),
            "R.Tensor((n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("clip", {x}, Attrs().Set("min", 0).Set("max", 6))),
            "R.Tensor((n, 768), \"float32\")");
  for (const char* op : {"isnan", "isinf", "isfinite"}) {
    EXPECT_EQ(Info(Call(op, {x})), "R.Tensor((n, 768), \"bool\")") << op;
  }
  Var i = Tensor("i", {4}, "int32");
  EXPECT_EQ(Info(Call("abs", {i})), "R.Tensor((4,), \"int32\")");
}

TEST_F(RelaxElementwiseTest, AstypeChangesOnlyDtype) {
  Var x = Tensor("x", {n, 3});
  EXPECT_EQ(Info(Call("astype", {x}, Attrs().Set("dtype", DataType::Float(16)))),
            "R.Tensor((n, 3), \"float16\")");
  // A dtype given by name is accepted and normalized.
  Expr c = Call("astype", {x}, Attrs().Set("dtype", "int8"));
  EXPECT_EQ(Info(c), "R.Tensor((n, 3), \"int8\")");
  EXPECT_EQ(c.as<CallNode>()->attrs.GetDType("dtype"), DataType::Int(8));
}

TEST_F(RelaxElementwiseTest, DefaultAttributesAreFilledIn) {
  Expr c = Call("nn.leakyrelu", {Tensor("x", {2})});
  EXPECT_DOUBLE_EQ(c.as<CallNode>()->attrs.GetFloat("alpha"), 0.01);
}

TEST_F(RelaxElementwiseTest, BinaryBroadcastsConstantDims) {
  EXPECT_EQ(Info(Call("add", {Tensor("a", {2, 3, 1}), Tensor("b", {4})})),
            "R.Tensor((2, 3, 4), \"float32\")");
  EXPECT_EQ(Info(Call("multiply", {Tensor("a", {1, 5}), Tensor("b", {7, 1})})),
            "R.Tensor((7, 5), \"float32\")");
  EXPECT_EQ(Info(Call("subtract", {Tensor("a", {}), Tensor("b", {3})})),
            "R.Tensor((3,), \"float32\")");
}

TEST_F(RelaxElementwiseTest, EveryArithmeticOpBroadcasts) {
  for (const char* op : {"add", "subtract", "multiply", "divide", "floor_divide", "power",
                         "maximum", "minimum", "mod", "floor_mod"}) {
    EXPECT_EQ(Info(Call(op, {Tensor("a", {n, 1, 4}), Tensor("b", {m, 1})})),
              "R.Tensor((n, m, 4), \"float32\")")
        << op;
  }
}

TEST_F(RelaxElementwiseTest, BinaryBroadcastsSymbolicDims) {
  EXPECT_EQ(Info(Call("add", {Tensor("a", {n, 768}), Tensor("b", {768})})),
            "R.Tensor((n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("add", {Tensor("a", {n, 1}), Tensor("b", {1, m})})),
            "R.Tensor((n, m), \"float32\")");
  EXPECT_EQ(Info(Call("divide", {Tensor("a", {n * 2, 4}), Tensor("b", {n + n, 1})})),
            "R.Tensor((n * 2, 4), \"float32\")");
  // n and m may differ at run time: only the rank is known.
  EXPECT_EQ(Info(Call("add", {Tensor("a", {n, 768}), Tensor("b", {m, 768})})),
            "R.Tensor(\"float32\", ndim=2)");
  Var unknown("u", TensorStructInfo(DataType::Float(32), 3));
  EXPECT_EQ(Info(Call("add", {unknown, Tensor("b", {n})})), "R.Tensor(\"float32\", ndim=3)");
}

TEST_F(RelaxElementwiseTest, ComparisonsGiveBool) {
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    EXPECT_EQ(Info(Call(op, {Tensor("a", {n, 1}), Tensor("b", {4})})), "R.Tensor((n, 4), \"bool\")")
        << op;
  }
  Var p = Tensor("p", {n}, "bool");
  for (const char* op : {"logical_and", "logical_or", "logical_xor"}) {
    EXPECT_EQ(Info(Call(op, {p, Tensor("q", {1}, "bool")})), "R.Tensor((n,), \"bool\")") << op;
  }
  EXPECT_EQ(Info(Call("logical_not", {p})), "R.Tensor((n,), \"bool\")");
}

TEST_F(RelaxElementwiseTest, WhereBroadcastsAllThree) {
  Var cond = Tensor("c", {n, 1}, "bool");
  EXPECT_EQ(Info(Call("where", {cond, Tensor("x", {1, m}), Tensor("y", {})})),
            "R.Tensor((n, m), \"float32\")");
}

TEST_F(RelaxElementwiseTest, ScalarArithmeticOnShapeValues) {
  Var s("s", ShapeStructInfo({n, m}));
  Expr seq = Call("shape_get", {s}, Attrs().Set("index", 1));
  EXPECT_EQ(Info(seq), "R.Prim(value=m)");
  Expr half = Call("floor_divide", {seq, PrimValue(DimConst(2))});
  EXPECT_EQ(Info(half), "R.Prim(value=m // 2)");
  Expr heads =
      Call("multiply", {Call("shape_get", {s}, Attrs().Set("index", 0)), PrimValue(PrimExpr(12))});
  EXPECT_EQ(Info(heads), "R.Prim(value=n * 12)");
  EXPECT_EQ(Info(Call("less", {seq, half})), "R.Prim(\"bool\")");
  Expr shape = Call("shape_concat", {heads, half, PrimValue(PrimExpr(64))});
  EXPECT_EQ(Info(shape), "R.Shape([n * 12, m // 2, 64])");
}

TEST_F(RelaxElementwiseTest, ScalarBroadcastsAgainstTensor) {
  Expr two = PrimValue(FloatImm(DataType::Float(32), 2.0));
  EXPECT_EQ(Info(Call("power", {Tensor("x", {n, 4}), two})), "R.Tensor((n, 4), \"float32\")");
}

}  // namespace
}  // namespace kiln::ir::relax
