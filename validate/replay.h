// Replay per kernel (lockstep): every carved call is run on the device being validated with
// the inputs the reference gave it, and its outputs compared with the reference's, with the
// tolerance of each output's dtype (validate/tensor_diff.h). Every call is checked, so a
// kernel called at several shapes is checked at each; calls with the same function and the
// same inputs are run once. Each call is timed on the device in the same pass. A kernel that
// fails to build, crashes or hangs is that call's finding, and replay goes on.
//
// Replay cannot see errors that build up across calls (each call starts from the reference's
// inputs); progressive offload (validate/offload.h) does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/relax/module.h"
#include "validate/carve.h"
#include "validate/target_device.h"
#include "validate/tensor_diff.h"

namespace kiln::validate {

struct KernelFinding {
  int64_t call = 0;
  std::string task;
  std::string prim_func;
  std::string function;
  std::string binding;
  std::map<std::string, int64_t> bound;
  // "ok", "mismatch", "non_finite" (a NaN or Inf the reference does not have), "build_error",
  // "runtime_error", "timeout", "sandbox_violation" or "not_replayed" (its inputs were beyond
  // the carve's cap).
  std::string status = "ok";
  std::string message;
  int worst_output = 0;  // which output the diff is of
  TensorDiff diff;       // the worst output's
  double device_seconds = 0;
  double reference_seconds = 0;
  std::string schedule;  // the kernel the device ran (TargetRun::schedule)
  bool ok() const { return status == "ok"; }
};

struct ReplayReport {
  std::vector<KernelFinding> calls;  // one per carved call, in order
  int64_t kernels_run = 0;           // distinct (function, inputs) pairs run on the device
  int64_t failed = 0;
  double seconds = 0;
};

// The finding of one call from its outputs on the device (`actual`) against the carve's
// (DiffWithCarved: every element, or the sample of an output beyond the cap).
KernelFinding JudgeOutputs(const CarvedCall& call, const TensorStore& store,
                           const std::vector<ir::HostTensor>& actual, const Tolerances& tolerances);

// `module` is the prepared module the carve was made from (its PrimFuncs are the workloads).
ReplayReport Replay(const ir::relax::IRModule& module, const Carve& carve, const TensorStore& store,
                    TargetDevice& device, const Tolerances& tolerances);

}  // namespace kiln::validate
