// The reference executor: runs a whole Relax module on the host, binding by binding, with every
// call_tir executed by the TensorIR interpreter. It is slow and written to be obviously right:
// it is the oracle that end-to-end results (fused, tuned, compiled models) are compared with.
//
// What it runs: dataflow and plain binding blocks in order; call_tir (outputs allocated from
// the declared out_sinfo with symbolic dims bound from the arguments and match_casts, tir_vars
// passed to the PrimFunc's trailing scalar parameters); call_dps_packed through a
// HostKernelRegistry; calls of other Relax functions; tuples and TupleGetItem; constants; shape
// and prim values; match_cast (checked); the shape ops legalization leaves (shape_of,
// shape_get, shape_slice, shape_concat, tensor_to_shape, shape_to_tensor).
//
// What it checks: each argument against its parameter's struct info (dtype, rank, dims, with
// symbolic dims consistent across parameters), each match_cast, each bound value against its
// variable's struct info, and the returned value against the declared return. A failure is a
// kiln::Error whose message starts with "function F, binding V: " (or names the parameter or
// the returned value): kRuntime for a value that does not fit, kUnsupported for an op that was
// not legalized ("run LegalizeOps first") or a packed symbol with no host kernel, kInvalidIR
// for a reference to something the module does not have.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/relax/exec/host_kernels.h"
#include "ir/relax/exec/shape_env.h"
#include "ir/relax/exec/value.h"
#include "ir/relax/module.h"

namespace kiln::ir::relax::exec {

// One call_tir as the executor reaches it.
struct CallTIRSite {
  const CallNode* call = nullptr;
  std::string prim_func;  // the PrimFunc it calls
  std::string function;   // the Relax function it is in
  std::string binding;    // the variable it binds
  int64_t index = 0;      // call_tirs run before it in this run
};

// Runs a call_tir in the executor's place (validation carves and offloads calls through it):
// `inputs` and `tir_vars` are as RunCallTIR takes them, `run_reference` runs the call on the
// interpreter. The returned value must be what the call returns (a tensor, or a tuple of
// tensors); the executor checks it against the binding's struct info.
using CallTIRHook = std::function<Value(const CallTIRSite& site, const std::vector<Value>& inputs,
                                        const std::vector<int64_t>& tir_vars, const ShapeEnv& env,
                                        const std::function<Value()>& run_reference)>;

class ReferenceExecutor {
 public:
  // `kernels` serves call_dps_packed; nullptr means HostKernelRegistry::Global().
  explicit ReferenceExecutor(IRModule module, const HostKernelRegistry* kernels = nullptr);

  // Runs the Relax function `function` on `args` (one per parameter) and returns its result.
  Value Run(const std::string& function, const std::vector<Value>& args) const;
  // The same, with every call_tir run through `hook`.
  Value Run(const std::string& function, const std::vector<Value>& args,
            const CallTIRHook& hook) const;

  const IRModule& module() const { return module_; }

 private:
  IRModule module_;
  const HostKernelRegistry* kernels_;
};

// ReferenceExecutor(module).Run(function, args).
Value Run(const IRModule& module, const std::string& function, const std::vector<Value>& args);

// One call_tir (`call` must be a Call of op call_tir) on argument values already evaluated:
// `inputs` are the values of its argument tuple (tensors or scalars), `tir_vars` the values of
// its shape argument (empty when it has none). Outputs are allocated from the call's
// out_sinfo, whose symbolic dims are evaluated in `env`. Inputs are copied first, so a kernel
// that writes its inputs cannot change the caller's values. Returns a tensor, or a tuple of
// tensors for several outputs.
Value RunCallTIR(const IRModule& module, const CallNode& call, const std::vector<Value>& inputs,
                 const std::vector<int64_t>& tir_vars, const ShapeEnv& env);

}  // namespace kiln::ir::relax::exec
