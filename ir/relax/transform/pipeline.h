// The default pipeline that turns an imported model into tuning-ready kernels, as TVM's
// relax.pipeline before MetaSchedule: DecomposeOpsForInference -> LegalizeOps -> FoldConstant ->
// AnnotateTIROpPattern -> FuseOps -> FuseTIR -> DeadCodeElimination. Each step logs at debug
// level what it left. The input is checked first (CheckWellFormed): a module that is not in
// A-normal form or otherwise malformed is rejected with the checker's message, naming the
// function and binding, before any pass runs.
//
// PipelineOptions choose the rewrites that change which tasks a model has: with
// options.winograd.mode on or auto, WinogradConv2d (winograd_conv2d.h) runs after
// DecomposeOpsForInference, so that FoldConstant sees its weight transforms as constants and
// FuseOps fuses the convolutions' epilogues into their output transforms. The library default
// is off (the module's tasks as before), as is the CLI's --winograd. `tune run` and
// `tune compile` must be given the same options, or the compiled model's tasks are not the
// ones the database holds records for.
#pragma once

#include "ir/relax/module.h"
#include "ir/relax/transform/winograd_conv2d.h"

namespace kiln::ir::relax::transform {

struct PipelineOptions {
  WinogradOptions winograd;  // mode off by default
};

// The whole pipeline; ExtractTasks on the result gives the tuning tasks.
IRModule PrepareModuleForTuning(const IRModule& module, const PipelineOptions& options = {});

// The steps after LegalizeOps, for a module whose ops are already call_tir.
IRModule FuseLegalizedModule(const IRModule& module);

}  // namespace kiln::ir::relax::transform
