// Index arithmetic shared by the legalization rules: int64 constants (Relax dims are int64,
// so kernel indices are too), numpy broadcasting of an input into an output index, row-major
// ravel/unravel for reshapes, clamped indices for loads on both sides of a Select, and the
// axis lists of reductions. Internal to ir/relax/transform/legalize.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/compute/tensor.h"
#include "ir/relax/transform/legalize/context.h"

namespace kiln::ir::relax::legalize {

// An int64 immediate.
ir::Expr I64(int64_t value);
// `e` cast to `dtype` (itself when it has that dtype already; an integer constant becomes a
// constant of `dtype`).
ir::Expr CastTo(DataType dtype, const ir::Expr& e);
// e + c and e * c, folded when `e` is a constant, leaving out an addition of 0 or a
// multiplication by 1.
ir::Expr AddConst(const ir::Expr& e, int64_t c);
ir::Expr MulConst(const ir::Expr& e, int64_t c);

// Index vars as expressions.
std::vector<ir::Expr> AsExprs(const std::vector<ir::Var>& vars);

// The indices into `input` that numpy broadcasting maps output index `out` (of shape
// `out_shape`, aligned from the right) to: a dim of 1 that the output widens reads index 0.
std::vector<ir::Expr> BroadcastIndices(const Tensor& input, const std::vector<ir::Expr>& out,
                                       const std::vector<ir::Expr>& out_shape);
std::vector<ir::Expr> BroadcastIndices(const std::vector<ir::Expr>& in_shape,
                                       const std::vector<ir::Expr>& out,
                                       const std::vector<ir::Expr>& out_shape);

// Row-major flat index of `index` in `shape`, and back.
ir::Expr Ravel(const std::vector<ir::Expr>& index, const std::vector<ir::Expr>& shape);
std::vector<ir::Expr> Unravel(const ir::Expr& flat, const std::vector<ir::Expr>& shape);

// `index` clamped into [0, extent): a load on the side of a Select that is not taken must
// still be in bounds, as both sides are evaluated.
ir::Expr ClampIndex(const ir::Expr& index, const ir::Expr& extent);

// `axis` in [-ndim, ndim) as an index in [0, ndim); throws kType naming the op.
int NormalizeAxis(const LegalizeContext& ctx, int64_t axis, int ndim);
// Sorted normalized axes of the int-list attribute `name`, or every axis when it is absent.
std::vector<int> ReduceAxesAttr(const LegalizeContext& ctx, const std::string& name, int ndim);

// Block names of multi-stage kernels are made from the op: "T_" + base.
std::string StageName(const std::string& base);

}  // namespace kiln::ir::relax::legalize
