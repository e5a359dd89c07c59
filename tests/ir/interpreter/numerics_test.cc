// Numerics of the interpreter as a device would compute them: float16 accumulation, integer
// wrapping and division, casts, and every intrinsic of ir/op.h against <cmath>.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/interpreter/interpreter.h"
#include "ir/op.h"
#include "support/half.h"
#include "tests/ir/interpreter/ir_builders.h"

namespace kiln::ir::testing {
namespace {

// out[0] = sum of in[0..n) accumulated in the dtype of the buffers.
PrimFunc Sum(DataType t, int64_t n) {
  Buffer a = DeclBuffer("A", t, {IntImm(kI32, n)});
  Buffer s = DeclBuffer("S", t, {1});
  Var k("k"), vk("vk");
  Stmt body = Loop(k, n,
                   MakeBlock({"S",
                              {Axis(vk, n, IterKind::kReduce)},
                              {k},
                              BufferStore(s, BufferLoad(s, {0}) + BufferLoad(a, {vk}), {0}),
                              BufferStore(s, MakeConst(t, 0), {0})}));
  return MakeFunc("sum", {a, s}, body);
}

TEST(NumericsTest, Float16AccumulationRoundsAfterEveryAdd) {
  // 4096 * 0.01 is about 41, but a float16 sum stalls once its spacing outgrows 0.01 / 2,
  // exactly as a device accumulating in float16 does.
  const int64_t n = 4096;
  HostTensor in16(kF16, {n}), in32(kF32, {n});
  for (int64_t e = 0; e < n; ++e) {
    in16.SetDouble(e, 0.01);
    in32.SetDouble(e, in16.GetDouble(e));
  }
  HostTensor out16(kF16, {1}), out32(kF32, {1});
  Interpret(Sum(kF16, n), {in16, out16});
  Interpret(Sum(kF32, n), {in32, out32});
  uint16_t acc = FloatToHalf(0.0f);
  float acc32 = 0;
  for (int64_t e = 0; e < n; ++e) {
    acc = FloatToHalf(HalfToFloat(acc) + static_cast<float>(in16.GetDouble(e)));
    acc32 += static_cast<float>(in32.GetDouble(e));
  }
  EXPECT_EQ(out16.GetDouble(0), HalfToFloat(acc));
  EXPECT_EQ(out32.GetDouble(0), acc32);
  EXPECT_NEAR(out32.GetDouble(0), 40.96, 0.01);
  EXPECT_LT(out16.GetDouble(0), 33.0);  // stalled
}

TEST(NumericsTest, BFloat16RoundsToItsPrecision) {
  HostTensor in(DataType::BFloat16(), {2}), out(DataType::BFloat16(), {1});
  in.SetDouble(0, 256);
  in.SetDouble(1, 1);  // 257 is not a bfloat16: it ties to even, 256
  Interpret(Sum(DataType::BFloat16(), 2), {in, out});
  EXPECT_EQ(out.GetDouble(0), 256.0);
}

TEST(NumericsTest, Int8ArithmeticWraps) {
  DataType i8 = DataType::Int(8);
  PrimFunc f = Unary(i8, i8, 4, [](Expr x) { return x * IntImm(DataType::Int(8), 3) + x; });
  HostTensor a(i8, {4}), b(i8, {4});
  std::vector<int64_t> in = {100, -100, 40, 7};
  for (int64_t e = 0; e < 4; ++e) a.SetInt(e, in[e]);
  Interpret(f, {a, b});
  for (int64_t e = 0; e < 4; ++e) {
    EXPECT_EQ(b.GetInt(e), static_cast<int8_t>(static_cast<uint8_t>(in[e] * 4))) << in[e];
  }
  EXPECT_EQ(b.GetInt(0), -112);  // 400 mod 256
}

TEST(NumericsTest, TruncDivVersusFloorDivOnNegatives) {
  std::vector<std::pair<const char*, std::function<Expr(Expr)>>> ops = {
      {"div", [](Expr x) { return x / -3; }},
      {"mod", [](Expr x) { return x % 3; }},
      {"floordiv", [](Expr x) { return FloorDiv(x, 3); }},
      {"floormod", [](Expr x) { return FloorMod(x, 3); }},
  };
  std::vector<int64_t> in = {-7, -6, -1, 0, 5};
  std::vector<std::vector<int64_t>> want = {
      {2, 2, 0, 0, -1}, {-1, 0, -1, 0, 2}, {-3, -2, -1, 0, 1}, {2, 0, 2, 0, 2}};
  for (size_t o = 0; o < ops.size(); ++o) {
    SCOPED_TRACE(ops[o].first);
    HostTensor a(kI32, {5}), b(kI32, {5});
    for (int64_t e = 0; e < 5; ++e) a.SetInt(e, in[e]);
    Interpret(Unary(kI32, kI32, 5, ops[o].second), {a, b});
    for (int64_t e = 0; e < 5; ++e) EXPECT_EQ(b.GetInt(e), want[o][e]) << in[e];
  }
}

TEST(NumericsTest, CastsTruncateSaturateAndRound) {
  DataType u8 = DataType::UInt(8);
  HostTensor a(kF32, {5}), b(u8, {5});
  std::vector<double> in = {2.9, -3.5, 300, NAN, 255.99};
  for (int64_t e = 0; e < 5; ++e) a.SetDouble(e, in[e]);
  Interpret(Unary(kF32, u8, 5, [&](Expr x) { return Cast(u8, x); }), {a, b});
  std::vector<int64_t> got;
  for (int64_t e = 0; e < 5; ++e) got.push_back(b.GetInt(e));
  EXPECT_EQ(got, (std::vector<int64_t>{2, 0, 255, 0, 255}));

  HostTensor c(kI32, {2}), d(kF16, {2});
  c.SetInt(0, 2049);  // between float16 neighbours 2048 and 2050: ties to even
  c.SetInt(1, 100000);
  Interpret(Unary(kI32, kF16, 2, [&](Expr x) { return Cast(kF16, x); }), {c, d});
  EXPECT_EQ(d.GetDouble(0), 2048);
  EXPECT_EQ(d.GetDouble(1), INFINITY);
}

double Cmath(const std::string& op, double x, double y) {
  if (op == "exp") return std::exp(x);
  if (op == "exp2") return std::exp2(x);
  if (op == "exp10") return std::pow(10.0, x);
  if (op == "log") return std::log(x);
  if (op == "log2") return std::log2(x);
  if (op == "log10") return std::log10(x);
  if (op == "log1p") return std::log1p(x);
  if (op == "sqrt") return std::sqrt(x);
  if (op == "rsqrt") return 1.0 / std::sqrt(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "erf") return std::erf(x);
  if (op == "sin") return std::sin(x);
  if (op == "cos") return std::cos(x);
  if (op == "tan") return std::tan(x);
  if (op == "asin") return std::asin(x);
  if (op == "acos") return std::acos(x);
  if (op == "atan") return std::atan(x);
  if (op == "sinh") return std::sinh(x);
  if (op == "cosh") return std::cosh(x);
  if (op == "asinh") return std::asinh(x);
  if (op == "acosh") return std::acosh(x);
  if (op == "atanh") return std::atanh(x);
  if (op == "floor") return std::floor(x);
  if (op == "ceil") return std::ceil(x);
  if (op == "round") return std::round(x);
  if (op == "trunc") return std::trunc(x);
  if (op == "nearbyint") return std::nearbyint(x);
  if (op == "fabs" || op == "abs") return std::fabs(x);
  if (op == "isnan") return std::isnan(x);
  if (op == "isinf") return std::isinf(x);
  if (op == "isfinite") return std::isfinite(x);
  if (op == "pow") return std::pow(x, y);
  if (op == "fmod") return std::fmod(x, y);
  if (op == "atan2") return std::atan2(x, y);
  if (op == "copysign") return std::copysign(x, y);
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

TEST(NumericsTest, EveryIntrinsicMatchesCmath) {
  // Inputs inside every op's domain (acosh needs >= 1, atanh and asin |x| < 1) plus a half,
  // which separates round (away from zero) from nearbyint (to even), and an inf.
  std::vector<double> xs = {0.25, 0.5, 0.75, 2.5, -0.5, 1.5, 3.0, INFINITY};
  std::vector<double> ys = {2.0, -1.5, 0.5, 3.0, 1.0, -2.0, 0.75, 1.0};
  const int64_t n = static_cast<int64_t>(xs.size());
  for (const IntrinsicInfo& info : Intrinsics()) {
    std::string op(info.name);
    if (op == kIfThenElse) continue;  // a choice, not math: tvm_kernels_test.cc
    SCOPED_TRACE(op);
    bool is_pred = op == "isnan" || op == "isinf" || op == "isfinite";
    for (DataType t : {kF64, kF32}) {
      Buffer a = DeclBuffer("A", t, {IntImm(kI32, n)});
      Buffer y = DeclBuffer("Y", t, {IntImm(kI32, n)});
      Buffer b = DeclBuffer("B", t, {IntImm(kI32, n)});
      Var i("i");
      std::vector<Expr> index = {i};
      std::vector<Expr> args = {BufferLoad(a, index), BufferLoad(y, index)};
      args.resize(info.num_args);
      Expr call = Call(is_pred ? DataType::Bool() : t, op, args);
      if (is_pred) call = Cast(t, call);
      PrimFunc f = MakeFunc("intrinsic", {a, y, b}, Loop(i, n, BufferStore(b, call, {i})));
      HostTensor ta(t, {n}), ty(t, {n}), tb(t, {n});
      for (int64_t e = 0; e < n; ++e) {
        double x = xs[e];
        if (op == "acosh") x += 1;
        if (op == "atanh" || op == "asin" || op == "acos") x = std::isinf(x) ? 0.1 : x / 4;
        ta.SetDouble(e, x);
        ty.SetDouble(e, ys[e]);
      }
      Interpret(f, {ta, ty, tb});
      for (int64_t e = 0; e < n; ++e) {
        double want = Cmath(op, ta.GetDouble(e), ty.GetDouble(e));
        if (t == kF32) want = static_cast<float>(want);
        double got = tb.GetDouble(e);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << "x = " << ta.GetDouble(e);
        } else {
          EXPECT_EQ(got, want) << t.ToString() << " x = " << ta.GetDouble(e)
                               << " y = " << ty.GetDouble(e);
        }
      }
    }
  }
}

TEST(NumericsTest, IntegerAbs) {
  HostTensor a(kI32, {3}), b(kI32, {3});
  a.SetInt(0, -5);
  a.SetInt(1, 7);
  a.SetInt(2, INT32_MIN);
  Interpret(Unary(kI32, kI32, 3, [](Expr x) { return Call(kI32, "abs", {x}); }), {a, b});
  EXPECT_EQ(b.GetInt(0), 5);
  EXPECT_EQ(b.GetInt(1), 7);
  EXPECT_EQ(b.GetInt(2), INT32_MIN);  // wraps, as C's abs does on two's complement
}

}  // namespace
}  // namespace kiln::ir::testing
