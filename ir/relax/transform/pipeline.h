// The default pipeline that turns an imported model into tuning-ready kernels, as TVM's
// relax.pipeline before MetaSchedule: DecomposeOpsForInference -> LegalizeOps -> FoldConstant ->
// AnnotateTIROpPattern -> FuseOps -> FuseTIR -> DeadCodeElimination. Each step logs at debug
// level what it left. The input is checked first (CheckWellFormed): a module that is not in
// A-normal form or otherwise malformed is rejected with the checker's message, naming the
// function and binding, before any pass runs.
#pragma once

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

// The whole pipeline; ExtractTasks on the result gives the tuning tasks.
IRModule PrepareModuleForTuning(const IRModule& module);

// The steps after LegalizeOps, for a module whose ops are already call_tir.
IRModule FuseLegalizedModule(const IRModule& module);

}  // namespace kiln::ir::relax::transform
