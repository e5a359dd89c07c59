// Element-wise helpers for compute definitions: typed constants, calls to the intrinsics of
// ir/op.h checked at the edge (unknown name, arity, integer argument to a float-only op), and
// the guarded load that padding stages use.
#pragma once

#include <string_view>
#include <vector>

#include "ir/compute/tensor.h"

namespace kiln::ir::compute {

// An immediate of `dtype`: Const(DataType::Float(32), 0.5).
Expr Const(DataType dtype, double value);

// A call to the intrinsic `op`; the result has the arguments' dtype (bool for isnan, isinf,
// isfinite). Throws kiln::Error(kType) for an unknown op, a wrong argument count, differing
// argument dtypes, or an integer argument to a float-only op.
Expr Intrinsic(std::string_view op, std::vector<Expr> args);
Expr Exp(Expr x);
Expr Log(Expr x);
Expr Sqrt(Expr x);
Expr Rsqrt(Expr x);
Expr Tanh(Expr x);
Expr Sigmoid(Expr x);
Expr Erf(Expr x);
Expr Abs(Expr x);
Expr Pow(Expr x, Expr y);

// `tensor` at `indices` where every index is inside the tensor, `pad_value` elsewhere: a
// Select whose loads are clamped into bounds, because both sides of a Select are evaluated.
// A dimension indexed by the stage's own index variable over an equal extent is in bounds
// and left unguarded.
Expr PaddedLoad(const Tensor& tensor, std::vector<Expr> indices, Expr pad_value);

}  // namespace kiln::ir::compute
