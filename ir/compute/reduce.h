// Reducers of a compute definition: reduce axes and the Sum, Max, Min and Prod combiners,
// written as the whole value of a compute stage, as te.sum and friends are in TVM:
//   auto k = ReduceAxis(K, "k");
//   Compute({M, N}, [&](Var i, Var j) { return Sum(A(i, k) * B(k, j), {k}); }, "C");
// A reducer is an expression only until Compute takes it apart into a Reduction; anywhere
// but the top of a stage's value it is an error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/compute/tensor.h"

namespace kiln::ir::compute {

// A reduction variable ranging over [0, extent) (or over `dom`).
IterVar ReduceAxis(Expr extent, std::string name = "k");
IterVar ReduceAxis(Range dom, std::string name);

// Combines `source` over every point of `axes` (where `where` holds, when given).
Expr Sum(Expr source, std::vector<IterVar> axes, Expr where = Expr());
Expr Max(Expr source, std::vector<IterVar> axes, Expr where = Expr());
Expr Min(Expr source, std::vector<IterVar> axes, Expr where = Expr());
Expr Prod(Expr source, std::vector<IterVar> axes, Expr where = Expr());

// The combiner's identity in `dtype`: 0, the lowest finite value, the highest finite value,
// 1 (as TVM's min_value/max_value: finite, so that float16 and integers have one too).
Expr ReduceIdentity(ReduceKind kind, DataType dtype);
// acc (+) value.
Expr ReduceCombine(ReduceKind kind, Expr acc, Expr value);
// "Sum", "Max", "Min", "Prod".
const char* ReduceKindName(ReduceKind kind);

// The lowest and highest finite values of a scalar dtype, as immediates.
Expr MinValue(DataType dtype);
Expr MaxValue(DataType dtype);

// The reducer `e` is, or nullopt when `e` is not one.
std::optional<Reduction> AsReduction(const Expr& e);
// True when a reducer occurs anywhere inside `e`.
bool ContainsReduction(const Expr& e);

}  // namespace kiln::ir::compute
