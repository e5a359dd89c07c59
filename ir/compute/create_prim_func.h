// CreatePrimFunc: a TensorIR function from a compute definition, as TVM's
// te.create_prim_func. Parameters are `args` in order (buffer parameters in buffer_map);
// every compute stage reachable from them becomes, in topological order, a loop nest (one
// serial loop per index variable, then one per reduce axis) around a block named after the
// stage: spatial and reduce iter vars bound to the loops, reads and writes from region
// analysis, and an init statement for a reduction. The body is the "root" block (no iter
// vars, no reads or writes) allocating the stages that are not parameters; attrs are
// {"global_symbol": name, "tir.noalias": true}.
#pragma once

#include <string>
#include <vector>

#include "ir/compute/tensor.h"
#include "ir/function.h"

namespace kiln::ir::compute {

// `scalar_params` are scalar Vars the stages and shapes may use that no argument's shape
// defines (a shape variable passed by value, a scalar operand), appended as scalar
// parameters after the tensors, as te.create_prim_func takes tir.Var arguments.
// Throws kiln::Error(kInvalidIR) when a stage loads a placeholder that is not in `args`,
// uses a variable that is neither its own index, a reduce axis of its reducer, a dimension
// of some argument's shape nor a scalar parameter, when two tensors share a name, or when an
// argument is repeated.
PrimFunc CreatePrimFunc(const std::vector<Tensor>& args, std::string name = "main",
                        const std::vector<Var>& scalar_params = {});

}  // namespace kiln::ir::compute
