// The C target's own float32 math: branch-free exp, erf, tanh, sigmoid and log as static
// inline C helpers, in a scalar version and a version on GCC vector types that compute the
// same arithmetic (a vectorized loop and its scalar tail agree). Without -ffast-math, GCC
// never vectorizes a call of libm's expf or erff, so a kernel whose loop calls one runs
// element by element; these helpers inline into vector code instead.
//
// Each function reduces its argument and evaluates a polynomial or rational approximation
// (coefficients fitted for this file by minimax on the reduced range), then fixes up the
// edges with selects: exp overflows to inf and underflows to 0 (through subnormals), log
// gives -inf at 0 and NaN below, erf and tanh saturate to +-1, and NaN propagates. Measured
// against glibc over a sweep of float32 (tests/codegen/c_math_test.cc): exp within 0.99 ulp
// (subnormal results included), log 1.13, sigmoid 2.35, erf 4.48 and tanh 4.21 (both near
// +-1; absolute error below 3e-7).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln::codegen {

// Whether the C target has an inline float32 version of intrinsic `name`.
bool HasInlineMath(std::string_view name);

// One named definition of the generated source.
struct CHelper {
  std::string name;
  std::string definition;
};

// The type a set of helpers works on: float32 (`lanes` 1) or a GCC vector of `lanes`
// float32 lanes, with the type names the emitter declared for it and its int32 twin.
struct CMathType {
  int lanes = 1;
  std::string float_type = "float";
  std::string int_type = "int32_t";
  // The suffix of the helpers' names ("f32", "float32x8").
  std::string suffix = "f32";
};

// The name of the inline helper computing intrinsic `name` on `type`.
std::string InlineMathFunction(std::string_view name, const CMathType& type);

// The definitions that the helper InlineMathFunction(name, type) needs, itself last, in the
// order they must appear. A caller emits each name once. `name` must satisfy HasInlineMath.
std::vector<CHelper> InlineMathHelpers(std::string_view name, const CMathType& type);

}  // namespace kiln::codegen
