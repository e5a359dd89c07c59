// Unary ops: each legalized kernel, run by the interpreter on random inputs of a symbolic
// shape (n, 3), against a reference computed in double; float16 too where TVM computes in
// the tensor's own dtype. Integer variants of the ops that take any dtype.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);
constexpr DataType kF16 = DataType::Float(16);
constexpr DataType kI32 = DataType::Int(32);

struct UnaryCase {
  std::string op;
  std::function<double(double)> ref;
  double lo = -2, hi = 2;
  DataType dtype = kF32;
  DataType out_dtype = kF32;
  Attrs attrs = Attrs();
};

void PrintTo(const UnaryCase& c, std::ostream* os) { *os << c.op << "/" << c.dtype.ToString(); }

class Unary : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(Unary, MatchesReference) {
  const UnaryCase& c = GetParam();
  PrimVar n = SymbolicDim("n");
  IRModule m = OpModule({TensorParam("x", {n, 3}, c.dtype)},
                        [&](const std::vector<Var>& p) { return Call(c.op, {p[0]}, c.attrs); });
  IRModule legal = LegalizeChecked(m);
  ASSERT_EQ(PrimFuncNames(legal).size(), 1u);
  HostTensor x = Random(c.dtype, {5, 3}, 7, c.lo, c.hi);
  Value out = RunMain(legal, {x});
  HostTensor expected(c.out_dtype, {5, 3});
  for (int64_t i = 0; i < x.numel(); ++i) expected.SetDouble(i, c.ref(x.GetDouble(i)));
  ExpectClose(expected, out.tensor());
}

double Gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double GeluTanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double Sign(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

std::vector<UnaryCase> Cases() {
  std::vector<UnaryCase> cases = {
      {"abs", [](double x) { return std::fabs(x); }},
      {"negative", [](double x) { return -x; }},
      {"sign", Sign},
      {"square", [](double x) { return x * x; }},
      {"floor", [](double x) { return std::floor(x); }},
      {"ceil", [](double x) { return std::ceil(x); }},
      // Halves round to even, as numpy and ONNX do: the inputs include 0.5 and 2.5.
      {"round", [](double x) { return std::nearbyint(x); }, -4, 4},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0, 4},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.1, 4},
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }, 0.1, 4},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"sigmoid", Sigmoid},
      {"erf", [](double x) { return std::erf(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }, -1, 1},
      {"asin", [](double x) { return std::asin(x); }, -0.9, 0.9},
      {"acos", [](double x) { return std::acos(x); }, -0.9, 0.9},
      {"atan", [](double x) { return std::atan(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"asinh", [](double x) { return std::asinh(x); }},
      {"acosh", [](double x) { return std::acosh(x); }, 1.1, 4},
      {"atanh", [](double x) { return std::atanh(x); }, -0.9, 0.9},
      {"nn.gelu", Gelu},
      {"nn.gelu_tanh", GeluTanh},
      {"nn.silu", [](double x) { return x * Sigmoid(x); }},
      {"nn.relu", [](double x) { return std::max(x, 0.0); }},
      {"nn.leakyrelu", [](double x) { return x > 0 ? x : 0.2 * x; }, -2, 2, kF32, kF32,
       Attrs().Set("alpha", 0.2)},
      {"clip", [](double x) { return std::clamp(x, -0.5, 1.0); }, -2, 2, kF32, kF32,
       Attrs().Set("min", -0.5).Set("max", 1.0)},
      {"astype", [](double x) { return std::trunc(x); }, -5, 5, kF32, kI32,
       Attrs().Set("dtype", "int32")},
      {"astype", [](double x) { return x; }, -5, 5, kF32, kF16, Attrs().Set("dtype", "float16")},
      {"isfinite", [](double) { return 1.0; }, -2, 2, kF32, DataType::Bool()},
      {"isnan", [](double) { return 0.0; }, -2, 2, kF32, DataType::Bool()},
      {"isinf", [](double) { return 0.0; }, -2, 2, kF32, DataType::Bool()},
      // Bounds past the dtype's range bound nothing.
      {"clip", [](double x) { return std::min(x, 1.0); }, -2, 2, kF32, kF32,
       Attrs().Set("min", -INFINITY).Set("max", 1.0)},
      {"clip", [](double x) { return std::max(x, 0.0); }, -2, 2, kF16, kF16,
       Attrs().Set("min", 0.0).Set("max", 3.4e38)},
      // Integer variants of the ops that take any dtype.
      {"abs", [](double x) { return std::fabs(x); }, -5, 5, kI32, kI32},
      {"negative", [](double x) { return -x; }, -5, 5, kI32, kI32},
      {"sign", Sign, -5, 5, kI32, kI32},
      {"square", [](double x) { return x * x; }, -5, 5, kI32, kI32},
      {"floor", [](double x) { return x; }, -5, 5, kI32, kI32},
      {"nn.relu", [](double x) { return std::max(x, 0.0); }, -5, 5, kI32, kI32},
      {"clip", [](double x) { return std::clamp(x, -2.0, 3.0); }, -5, 5, kI32, kI32,
       Attrs().Set("min", -2.5).Set("max", 3.0)},
      // float16 computes in float16.
      {"exp", [](double x) { return std::exp(x); }, -2, 2, kF16, kF16},
      {"nn.gelu", Gelu, -2, 2, kF16, kF16},
      {"sigmoid", Sigmoid, -2, 2, kF16, kF16},
  };
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Legalize, Unary, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<UnaryCase>& info) {
                           std::string name = info.param.op + "_" + info.param.dtype.ToString() +
                                              "_" + std::to_string(info.index);
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST(LegalizeUnary, LogicalNot) {
  IRModule m = OpModule({TensorParam("x", {4}, DataType::Bool())},
                        [](const std::vector<Var>& p) { return Call("logical_not", {p[0]}); });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(DataType::Bool(), {4}, 3, 0, 1);
  Value out = RunMain(legal, {x});
  HostTensor expected(DataType::Bool(), {4});
  for (int64_t i = 0; i < 4; ++i) expected.SetDouble(i, x.GetDouble(i) == 0 ? 1 : 0);
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeUnary, NanAndInfAreClassified) {
  IRModule m = OpModule({TensorParam("x", {4})}, [](const std::vector<Var>& p) {
    return Tuple({Call("isnan", {p[0]}), Call("isinf", {p[0]}), Call("isfinite", {p[0]})});
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x(kF32, {4});
  x.SetDouble(0, 1.0);
  x.SetDouble(1, std::nan(""));
  x.SetDouble(2, INFINITY);
  x.SetDouble(3, -INFINITY);
  Value out = RunMain(legal, {x});
  ASSERT_EQ(out.fields().size(), 3u);
  const std::vector<std::vector<double>> want = {{0, 1, 0, 0}, {0, 0, 1, 1}, {1, 0, 0, 0}};
  for (size_t k = 0; k < 3; ++k) {
    for (int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(out.fields()[k].tensor().GetDouble(i), want[k][i]) << "output " << k << " at " << i;
    }
  }
}

TEST(LegalizeUnary, RoundHalvesToEven) {
  IRModule m = OpModule({TensorParam("x", {4})},
                        [](const std::vector<Var>& p) { return Call("round", {p[0]}); });
  IRModule legal = LegalizeChecked(m);
  HostTensor x(kF32, {4});
  const double in[] = {0.5, 1.5, 2.5, -2.5};
  const double want[] = {0, 2, 2, -2};
  for (int i = 0; i < 4; ++i) x.SetDouble(i, in[i]);
  Value out = RunMain(legal, {x});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.tensor().GetDouble(i), want[i]);
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
