// TensorIR functions built by hand for the codegen tests: small helpers to make blocks, and
// the kernels the golden and end-to-end tests share.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace kiln::codegen::testing {

ir::IterVar Spatial(const ir::Var& v, ir::Expr extent);
ir::IterVar Reduce(const ir::Var& v, ir::Expr extent);

// A BlockRealize of a block `name` with the given iter vars bound to `values`.
ir::Stmt MakeBlock(const std::string& name, std::vector<ir::IterVar> iter_vars,
                   std::vector<ir::Expr> values, ir::Stmt body, ir::Stmt init = ir::Stmt(),
                   ir::Expr predicate = ir::Expr(), std::vector<ir::Buffer> allocs = {});
// The root block realize around `body`.
ir::Stmt Root(ir::Stmt body, std::vector<ir::Buffer> allocs = {});

// A PrimFunc whose parameters are exactly `buffers` (in order) and `scalars` after them.
ir::PrimFunc MakeFunc(const std::string& name, const std::vector<ir::Buffer>& buffers,
                      ir::Stmt body, const std::vector<ir::Var>& scalars = {},
                      ir::Annotations attrs = {});

ir::Expr F32(double v);

// C[i, j] = sum_k A[i, k] * B[k, j] as one block with init, loops i, j, k.
ir::PrimFunc Matmul(int64_t m, int64_t n, int64_t k);

}  // namespace kiln::codegen::testing
