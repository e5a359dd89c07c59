// FoldConstant: evaluates at compile time every call_tir whose inputs are all constants (a
// weight transposed or reshaped once, a mask built from constants), with the TensorIR
// interpreter through the reference executor, and binds the result as a Relax constant, as
// TVM's relax.transform.FoldConstant does. Variables bound to constants count as constants, so
// chains fold; TupleGetItem of a folded tuple folds too. A call is left alone when its output
// shapes are not all static, when its outputs would hold more than `max_output_elements`
// elements in all, or when its kernel performs more than `max_flops` operations (the
// interpreter is slow; a constant matmul of a large weight is better computed at run time).
// The kernels no longer called stay in the module; DeadCodeElimination removes them.
#pragma once

#include <cstdint>

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

struct FoldConstantOptions {
  int64_t max_output_elements = int64_t{1} << 20;
  double max_flops = 1e7;
};

IRModule FoldConstant(const IRModule& module, const FoldConstantOptions& options = {});

}  // namespace kiln::ir::relax::transform
