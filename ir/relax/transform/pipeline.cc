// The default tuning pipeline: one readable driver, logging after each step.
#include "ir/relax/transform/pipeline.h"

#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/relax/transform/dead_code_elimination.h"
#include "ir/relax/transform/decompose_ops.h"
#include "ir/relax/transform/fold_constant.h"
#include "ir/relax/transform/fuse_ops.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/relax/well_formed.h"
#include "support/logging.h"

namespace kiln::ir::relax::transform {

namespace {

void LogStep(const char* step, const IRModule& module) {
  size_t prim_funcs = 0;
  for (const std::string& name : module.names())
    prim_funcs += module.LookupPrimFunc(name) != nullptr;
  KILN_LOG_DEBUG("{}: {} Relax functions, {} PrimFuncs", step, module.size() - prim_funcs,
                 prim_funcs);
}

void RequireWellFormed(const char* pass, const IRModule& module) {
  try {
    CheckWellFormed(module);
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(pass) + ": the input module is not well formed: " + e.what());
  }
}

}  // namespace

IRModule FuseLegalizedModule(const IRModule& module) {
  RequireWellFormed("FuseLegalizedModule", module);
  IRModule m = FoldConstant(module);
  LogStep("FoldConstant", m);
  m = AnnotateTIROpPattern(m);
  LogStep("AnnotateTIROpPattern", m);
  m = FuseOps(m);
  LogStep("FuseOps", m);
  m = FuseTIR(m);
  LogStep("FuseTIR", m);
  m = DeadCodeElimination(m);
  LogStep("DeadCodeElimination", m);
  return m;
}

IRModule PrepareModuleForTuning(const IRModule& module, const PipelineOptions& options) {
  RequireWellFormed("PrepareModuleForTuning", module);
  IRModule m = DecomposeOpsForInference(module);
  LogStep("DecomposeOpsForInference", m);
  if (options.winograd.mode != WinogradMode::kOff) {
    m = WinogradConv2d(m, options.winograd);
    LogStep("WinogradConv2d", m);
  }
  m = LegalizeOps(m);
  LogStep("LegalizeOps", m);
  return FuseLegalizedModule(m);
}

}  // namespace kiln::ir::relax::transform
