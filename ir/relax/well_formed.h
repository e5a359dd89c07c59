// Checks that a Relax module is well formed beyond what building each expression checks:
// every variable is defined before it is used, dataflow variables stay inside their block,
// call_tir names a PrimFunc of the module with a matching parameter count, and calls of
// GlobalVars name Relax functions of the module. Passes and front ends run it on their output.
#pragma once

#include "ir/relax/module.h"

namespace kiln::ir::relax {

// Throws kInvalidIR naming the function and the binding at fault.
void CheckWellFormed(const IRModule& module);

}  // namespace kiln::ir::relax
