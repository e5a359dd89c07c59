// Binary ops and where: numpy broadcasting with static and symbolic dims (1 against n, equal
// symbolic dims, rank extension), integer semantics of divide/mod, comparisons and logic,
// and scalar (R.Prim) operands, each against a reference computed in double.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);
constexpr DataType kF16 = DataType::Float(16);
constexpr DataType kI32 = DataType::Int(32);
constexpr DataType kBool = DataType::Bool();

using BinaryRef = std::function<double(double, double)>;

// Runs op(a, b) legalized on tensors of the given concrete shapes (params typed with the
// given dims) and compares with ref applied under numpy broadcasting.
void CheckBinary(const std::string& op, const BinaryRef& ref, std::vector<PrimExpr> a_dims,
                 std::vector<PrimExpr> b_dims, const Shape& a_shape, const Shape& b_shape,
                 const Shape& out_shape, DataType dtype, DataType out_dtype, double lo = -2,
                 double hi = 2) {
  SCOPED_TRACE(op + " " + dtype.ToString());
  IRModule m = OpModule(
      {TensorParam("a", std::move(a_dims), dtype), TensorParam("b", std::move(b_dims), dtype)},
      [&](const std::vector<Var>& p) {
        return Call(op, {p[0], p[1]});
      });
  IRModule legal = LegalizeChecked(m);
  HostTensor a = Random(dtype, a_shape, 1, lo, hi), b = Random(dtype, b_shape, 2, lo, hi);
  if (!dtype.is_float() &&
      (op == "divide" || op == "floor_divide" || op == "mod" || op == "floor_mod")) {
    for (int64_t i = 0; i < b.numel(); ++i) {
      if (b.GetInt(i) == 0) b.SetInt(i, 3);
    }
  }
  Value out = RunMain(legal, {a, b});
  HostTensor expected(out_dtype, out_shape);
  ForEachIndex(out_shape, [&](const Index& i) {
    SetAt(expected, i, ref(At(a, BroadcastIndex(a_shape, i)), At(b, BroadcastIndex(b_shape, i))));
  });
  ExpectClose(expected, out.tensor());
}

struct BinaryCase {
  std::string op;
  BinaryRef ref;
  DataType dtype;
  DataType out_dtype;
};

std::vector<BinaryCase> Cases() {
  auto fdiv = [](double a, double b) { return std::floor(a / b); };
  auto fmod = [](double a, double b) { return a - std::floor(a / b) * b; };
  return {
      {"add", [](double a, double b) { return a + b; }, kF32, kF32},
      {"subtract", [](double a, double b) { return a - b; }, kF32, kF32},
      {"multiply", [](double a, double b) { return a * b; }, kF32, kF32},
      {"divide", [](double a, double b) { return a / b; }, kF32, kF32},
      {"floor_divide", fdiv, kF32, kF32},
      {"power", [](double a, double b) { return std::pow(a, b); }, kF32, kF32},
      {"maximum", [](double a, double b) { return std::max(a, b); }, kF32, kF32},
      {"minimum", [](double a, double b) { return std::min(a, b); }, kF32, kF32},
      {"mod", [](double a, double b) { return std::fmod(a, b); }, kF32, kF32},
      {"floor_mod", fmod, kF32, kF32},
      {"equal", [](double a, double b) { return a == b; }, kI32, kBool},
      {"not_equal", [](double a, double b) { return a != b; }, kI32, kBool},
      {"less", [](double a, double b) { return a < b; }, kF32, kBool},
      {"less_equal", [](double a, double b) { return a <= b; }, kI32, kBool},
      {"greater", [](double a, double b) { return a > b; }, kF32, kBool},
      {"greater_equal", [](double a, double b) { return a >= b; }, kI32, kBool},
      // Integers: divide and mod truncate toward zero, the floor forms round down.
      {"add", [](double a, double b) { return a + b; }, kI32, kI32},
      {"divide", [](double a, double b) { return std::trunc(a / b); }, kI32, kI32},
      {"floor_divide", fdiv, kI32, kI32},
      {"mod", [](double a, double b) { return std::fmod(a, b); }, kI32, kI32},
      {"floor_mod", fmod, kI32, kI32},
      {"power", [](double a, double b) { return std::pow(a, b); }, kI32, kI32},
      {"maximum", [](double a, double b) { return std::max(a, b); }, kI32, kI32},
      // float16 computes in float16.
      {"add", [](double a, double b) { return a + b; }, kF16, kF16},
      {"divide", [](double a, double b) { return a / b; }, kF16, kF16},
  };
}

TEST(LegalizeBinary, EveryOpWithBroadcasting) {
  PrimVar n = SymbolicDim("n");
  for (const BinaryCase& c : Cases()) {
    // (n, 1, 4) against (3, 1): rank extension, 1 against 3 and 1 against 4.
    double lo = c.dtype.is_float() ? -2 : -6, hi = c.dtype.is_float() ? 2 : 6;
    if (c.op == "power") {
      // Keep powers defined and exact: non-negative bases and exponents.
      CheckBinary(c.op, c.ref, {n, 1, 4}, {3, 1}, {2, 1, 4}, {3, 1}, {2, 3, 4}, c.dtype,
                  c.out_dtype, 0, 2);
      continue;
    }
    CheckBinary(c.op, c.ref, {n, 1, 4}, {3, 1}, {2, 1, 4}, {3, 1}, {2, 3, 4}, c.dtype, c.out_dtype,
                lo, hi);
  }
}

TEST(LegalizeBinary, SymbolicDimsEqualAndOneAgainstN) {
  PrimVar n = SymbolicDim("n"), m = SymbolicDim("m");
  auto add = [](double a, double b) { return a + b; };
  // Equal symbolic dims: (n, m) + (n, m).
  CheckBinary("add", add, {n, m}, {n, m}, {3, 5}, {3, 5}, {3, 5}, kF32, kF32);
  // 1 against n: (1, m) + (n, 1).
  CheckBinary("add", add, {1, m}, {n, 1}, {1, 5}, {3, 1}, {3, 5}, kF32, kF32);
  // A 0-d operand.
  CheckBinary(
      "multiply", [](double a, double b) { return a * b; }, {n, 2}, {}, {4, 2}, {}, {4, 2}, kF32,
      kF32);
}

TEST(LegalizeBinary, LogicalOps) {
  const std::vector<std::pair<std::string, BinaryRef>> ops = {
      {"logical_and", [](double a, double b) { return a != 0 && b != 0; }},
      {"logical_or", [](double a, double b) { return a != 0 || b != 0; }},
      {"logical_xor", [](double a, double b) { return (a != 0) != (b != 0); }},
  };
  for (const auto& [op, ref] : ops) {
    CheckBinary(op, ref, {4, 3}, {3}, {4, 3}, {3}, {4, 3}, kBool, kBool, 0, 1);
  }
}

TEST(LegalizeBinary, ScalarOperandIsAKernelParameter) {
  Var x = TensorParam("x", {SymbolicDim("n"), 2});
  Var s("s", PrimStructInfo(kF32));
  IRModule m = OpModule({x, s}, [](const std::vector<Var>& p) {
    return Call("multiply", {p[0], p[1]});
  });
  IRModule legal = LegalizeChecked(m);
  const ir::PrimFunc& f = *legal.LookupPrimFunc("multiply");
  ASSERT_EQ(f->params.size(), 3u);  // x, s, output
  EXPECT_FALSE(f->BufferOf(f->params[1]).has_value());
  HostTensor t = Random(kF32, {3, 2}, 5);
  Value out = RunMain(legal, {t, 2.5});
  HostTensor expected(kF32, {3, 2});
  for (int64_t i = 0; i < 6; ++i) expected.SetDouble(i, t.GetDouble(i) * 2.5);
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeBinary, KnownScalarValueIsInlined) {
  PrimVar n = SymbolicDim("n");
  Var x = TensorParam("x", {n}, DataType::Int(64));
  IRModule m = OpModule({x}, [&](const std::vector<Var>& p) {
    return Call("add", {p[0], PrimValue(n * 2)});
  });
  IRModule legal = LegalizeChecked(m);
  const ir::PrimFunc& f = *legal.LookupPrimFunc("add");
  EXPECT_EQ(f->params.size(), 2u);  // x and the output; n comes from x's shape
  HostTensor t = Random(DataType::Int(64), {3}, 5, -5, 5);
  Value out = RunMain(legal, {t});
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(out.tensor().GetInt(i), t.GetInt(i) + 6);
}

TEST(LegalizeBinary, WhereBroadcastsThreeWays) {
  PrimVar n = SymbolicDim("n");
  IRModule m =
      OpModule({TensorParam("c", {n, 1}, kBool), TensorParam("x", {3}), TensorParam("y", {1, 1})},
               [](const std::vector<Var>& p) {
                 return Call("where", {p[0], p[1], p[2]});
               });
  IRModule legal = LegalizeChecked(m);
  HostTensor c = Random(kBool, {4, 1}, 1, 0, 1), x = Random(kF32, {3}, 2),
             y = Random(kF32, {1, 1}, 3);
  Value out = RunMain(legal, {c, x, y});
  HostTensor expected(kF32, {4, 3});
  ForEachIndex({4, 3}, [&](const Index& i) {
    SetAt(expected, i, At(c, {i[0], 0}) != 0 ? At(x, {i[1]}) : At(y, {0, 0}));
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeBinary, ScalarArithmeticOnPrimsStaysOnTheHost) {
  PrimVar n = SymbolicDim("n");
  Var x = TensorParam("x", {n, 4});
  IRModule m = OpModule({x}, [&](const std::vector<Var>& p) {
    Expr dim = Call("shape_get", {Call("shape_of", {p[0]})}, Attrs().Set("index", 0));
    return Call("multiply", {dim, PrimValue(DimConst(2))});
  });
  IRModule legal = LegalizeChecked(m);
  EXPECT_TRUE(PrimFuncNames(legal).empty());
  // The product's value is known (n * 2): it replaces the call.
  const Function& main = *legal.LookupFunction("main");
  const auto* seq = main->body.as<SeqExprNode>();
  const Expr& value = seq->blocks[0].bindings.back().value;
  ASSERT_NE(value.as<PrimValueNode>(), nullptr);
  EXPECT_EQ(DimToString(value.as<PrimValueNode>()->value), "n * 2");
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
