// The core of FuseTIR: one PrimFunc from the call_tir bindings of a primitive Relax function
// (a group FuseOps made). Parameters are the group's inputs (the Relax function's parameters, in
// order, each a buffer or a scalar) followed by its outputs (the returned values, in order);
// every other value becomes an alloc_buffer of the root block. The callees' bodies are copied in
// binding order with their shape variables mapped through each call (every PrimFunc has shape
// variables of its own: they become the group's dims), their block names kept unique and their
// loop and iteration variables renewed. Shape variables the buffers do not define (they appear
// only inside expressions such as n * 4, or only in intermediate shapes) are appended as int64
// scalar parameters, which the caller passes with call_tir's tir_vars. Internal to
// ir/relax/transform.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

struct MergedPrimFunc {
  ir::PrimFunc func;
  // The trailing scalar parameters, as the Relax function's shape variables.
  std::vector<PrimVar> shape_params;
};

// Merges `primitive` (a Relax function whose body is one dataflow block of call_tir and
// TupleGetItem bindings returning a variable or a tuple of variables) into a PrimFunc named
// `name`. Throws kiln::Error(kUnsupported) naming the function and the binding when it is not
// of that form or a call cannot be merged (see MatchCallTIR).
MergedPrimFunc MergePrimitiveFunction(const IRModule& module, const Function& primitive,
                                      const std::string& name);

}  // namespace kiln::ir::relax::transform
