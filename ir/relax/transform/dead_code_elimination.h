// DeadCodeElimination: removes what a module computes but never uses, as TVM's
// relax.transform.DeadCodeElimination: bindings of dataflow blocks whose variables nothing
// reads (transitively; dataflow blocks are free of side effects, bindings outside them are
// kept), dataflow blocks left empty, and functions no entry point reaches (Relax functions
// through calls, PrimFuncs through call_tir). A match_cast that introduces a shape variable is
// kept even when its variable is unused, since later shapes may depend on the variable.
#pragma once

#include <string>
#include <vector>

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

// `entry_functions` names the functions to keep with everything they reach; empty means every
// Relax function that has a "global_symbol" attribute and is not primitive (the externally
// visible ones). A module with no entry point keeps all its functions.
IRModule DeadCodeElimination(const IRModule& module,
                             const std::vector<std::string>& entry_functions = {});

}  // namespace kiln::ir::relax::transform
