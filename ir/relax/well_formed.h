// Checks that a Relax module is well formed beyond what building each expression checks:
// every variable is defined before it is used, dataflow variables stay inside their block,
// call_tir names a PrimFunc of the module with a matching parameter count, calls of GlobalVars
// name Relax functions of the module, and the functions are in A-normal form, as TVM's
// well-formedness check requires: the arguments and callee of a call, the fields of a tuple and
// the tuple of a projection are leaves (Var, DataflowVar, Constant, ShapeExpr, PrimValue,
// GlobalVar, ExternFunc) or tuples of leaves, and a function returns a leaf or a tuple of them.
// A binding's value itself may be a call, tuple or projection of leaves. The block builder and
// the text parser normalize what they build to this form (block_builder.h); passes rely on it.
// Passes and front ends run the check on their output.
#pragma once

#include "ir/relax/module.h"

namespace kiln::ir::relax {

// Throws kInvalidIR naming the function and the binding at fault.
void CheckWellFormed(const IRModule& module);

}  // namespace kiln::ir::relax
