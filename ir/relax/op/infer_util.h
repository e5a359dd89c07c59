// Helpers shared by the op families' struct info inference: argument access with errors that
// name the op, axis normalization, numpy broadcasting over symbolic dims, and text of shapes
// for messages. Internal to ir/relax/op.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/relax/op/registry.h"

namespace kiln::ir::relax::op_util {

// Throws kType with "<op>: <message>".
[[noreturn]] void Fail(const OpCall& call, const std::string& message);
[[noreturn]] void Fail(const std::string& op, const std::string& message);

// Argument `i` as a tensor; Fail when it is something else.
const TensorStructInfoNode* TensorArg(const OpCall& call, size_t i);
// Argument `i` as a shape; Fail when it is something else.
const ShapeStructInfoNode* ShapeArg(const OpCall& call, size_t i);
// The known dims of argument `i` (a tensor), or nullopt when its shape is unknown.
const std::optional<std::vector<PrimExpr>>& ShapeOf(const OpCall& call, size_t i);

// `axis` in [-ndim, ndim) as an index in [0, ndim); Fail when out of range.
int NormalizeAxis(const OpCall& call, int64_t axis, int ndim);
// Normalized, distinct axes; Fail on a repeated axis.
std::vector<int> NormalizeAxes(const OpCall& call, const std::vector<int64_t>& axes, int ndim);

// Both dtypes known and equal, or Fail: "<op>: dtypes differ: float32 vs float16". Returns
// the common dtype (Void when either is unknown).
DataType CommonDType(const OpCall& call, DataType a, DataType b);
void RequireFloat(const OpCall& call, const TensorStructInfoNode* t, size_t arg);

// Numpy broadcasting of two shapes. Dims that are provably equal, or 1 against anything,
// broadcast; constant dims that differ Fail with
// "<op>: cannot broadcast dims (n, 768) and (n, 512): dim 1 is 768 vs 512"
// (dim counted from the left of the longer shape). Symbolic dims that cannot be proven
// equal make the result shape unknown (nullopt): only its rank is known.
std::optional<std::vector<PrimExpr>> BroadcastShapes(const OpCall& call,
                                                     const std::vector<PrimExpr>& a,
                                                     const std::vector<PrimExpr>& b);

// A tensor with the given shape (or only rank when shape is nullopt) and dtype.
StructInfo MakeTensor(const std::optional<std::vector<PrimExpr>>& shape, int ndim, DataType dtype);

// Text of a list of ints: "(5, -1)".
std::string IntsToString(const std::vector<int64_t>& v);

// The int list attribute `name` with exactly `n` entries, or a single entry repeated n times
// (strides=[2] means [2, 2]); Fail on another length.
std::vector<int64_t> IntsOfLength(const OpCall& call, const std::string& name, size_t n);

}  // namespace kiln::ir::relax::op_util
