// LegalizeOps: lowers every tensor op of a Relax module to TensorIR. Each op call becomes
// R.call_tir(cls.<kernel>, (args...), out_sinfo=..., [tir_vars=R.shape([...])]) of a PrimFunc
// written with the compute builder and added to the module, as TVM's relax.transform.LegalizeOps
// does. Kernels keep shape variables symbolic: buffer shapes share fresh copies of the call's
// shape variables, and a variable that is no whole dim of any parameter buffer is passed as a
// trailing scalar parameter through tir_vars. Attributes become constants of the kernel;
// constants feeding an op stay Relax constants passed as call_tir arguments.
//
// Ops that are no tensor computation (call_tir, call_dps_packed and the shape ops) stay as
// they are for the executor; nn.dropout (inference) and astype to the same dtype become their
// input. A call whose argument or result shapes are not known statically is left as it is,
// with a warning, since a kernel's buffers need known ranks and dims.
#pragma once

#include <string>
#include <vector>

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

// The module with its Relax functions legalized and the kernels they call added (named as
// TVM names them: "add", "matmul", "conv2d", ..., made unique with IRModule::UniqueName).
// A module without op calls comes back unchanged. Throws kiln::Error(kUnsupported) naming the
// op and the function for an op that has no legalization rule.
IRModule LegalizeOps(const IRModule& module);

// True when `op` has a legalization rule.
bool HasLegalizeRule(const std::string& op);
// The registered ops that LegalizeOps leaves to the executor on purpose (no tensor
// computation: call_tir, call_dps_packed, shape_of, shape_get, ...), sorted.
std::vector<std::string> NonTensorOps();

}  // namespace kiln::ir::relax::transform
