// Progressive offload (migration-based validation): run the whole model with its first k
// kernel calls on the device being validated and the rest on the reference, each call fed the
// live values of the run (not the carve's), and compare every call's outputs and the model's
// outputs with the carve. An error that builds up (a kernel slightly off whose error grows
// downstream, a kernel that corrupts state a later call reads) shows here though each kernel
// passes replay alone.
//
// The search: the run with every call offloaded first; when it disagrees, its first
// disagreeing call j bounds the answer (the run offloading calls 0..j computes those calls
// identically, so it disagrees too); then bisection on k between the carve (k = 0, agrees by
// definition) and that bound, each run's first disagreeing call tightening it again. At most
// ceil(log2 n) + 1 whole-model runs. The answer is the first call whose offload makes the
// model disagree. A reference call whose inputs are exactly the carve's is not recomputed: its
// carved outputs are the reference's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/module.h"
#include "validate/carve.h"
#include "validate/target_device.h"
#include "validate/tensor_diff.h"

namespace kiln::validate {

struct OffloadRun {
  int64_t offloaded = 0;  // calls 0..offloaded-1 ran on the device
  bool agrees = true;
  // The first call (or the model's output) that disagreed: its index (-1: the model's output).
  std::optional<int64_t> first_disagreeing;
  std::string what;  // that call's task and diff, or the device's error
  double seconds = 0;
};

struct OffloadReport {
  bool ok = true;
  int64_t calls = 0;
  std::optional<int64_t> first_bad_call;  // the first call whose offload makes it disagree
  std::string first_bad_task;
  std::string first_bad_prim_func;
  std::vector<OffloadRun> runs;  // in the order made
  double seconds = 0;
};

// The calls not offloaded run on the interpreter, or on `reference` when given (as the carve
// was made).
OffloadReport Offload(const ir::relax::IRModule& module, const Carve& carve,
                      const TensorStore& store, const std::vector<ir::HostTensor>& inputs,
                      TargetDevice& device, const Tolerances& tolerances,
                      TargetDevice* reference = nullptr);

}  // namespace kiln::validate
