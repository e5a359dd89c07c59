// Counting the arithmetic a TensorIR function performs, for GFLOP/s figures and task tables.
// The count is of operations on values (what is stored), not on indices: every add, subtract,
// multiply, divide, modulo, min, max, comparison, select and intrinsic call (exp, sqrt, ...)
// counts one, so a multiply-add counts two, as TVM's estimate does. Each store counts its
// value's operations times the extents of the loops around it. Loads, casts, constants and
// the index arithmetic of loads and stores count nothing. Guards (block predicates, if) are
// ignored, so the count of a padded or partially split function is an upper bound. A sparse
// kernel, whose loops' extents load from its structure, carries its count as the attribute
// kiln.sparse_flops (ir/sparse/csr_kernel_text.h), which is taken as it is.
#pragma once

#include <map>
#include <string>

#include "ir/function.h"

namespace kiln::ir {

// The operation count of one call of `f` as an int64 expression over its shape variables,
// simplified (an IntImm when every loop extent is constant).
Expr EstimateFlops(const PrimFunc& f);

// The count with shape variables bound; throws kiln::Error(kInvalidIR) naming a variable the
// binding lacks.
double EstimateFlops(const PrimFunc& f, const std::map<std::string, int64_t>& dims);

}  // namespace kiln::ir
