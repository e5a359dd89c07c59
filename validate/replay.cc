// Replay: each carved call through the device, judged against the carve.
#include "validate/replay.h"

#include <chrono>
#include <cmath>

#include "support/error.h"

namespace kiln::validate {
namespace {

// What a finding says of its call (which call, its kernel and where it came from), from `base`
// (a fresh finding, or the finding of an identical call run before).
KernelFinding FindingOf(const CarvedCall& call, KernelFinding base = {}) {
  base.call = call.index;
  base.task = call.task;
  base.prim_func = call.prim_func;
  base.function = call.function;
  base.binding = call.binding;
  base.bound = call.bound;
  base.reference_seconds = call.reference_seconds;
  return base;
}

}  // namespace

KernelFinding JudgeOutputs(const CarvedCall& call, const TensorStore& store,
                           const std::vector<ir::HostTensor>& actual,
                           const Tolerances& tolerances) {
  KernelFinding f = FindingOf(call);
  if (call.outputs.size() != actual.size()) {
    f.status = "mismatch";
    f.message = "the device returned " + std::to_string(actual.size()) +
                " outputs, the reference " + std::to_string(call.outputs.size());
    return f;
  }
  double worst = -1;
  for (size_t i = 0; i < actual.size(); ++i) {
    TensorDiff d = DiffWithCarved(store, call.outputs[i], actual[i], tolerances);
    // The worst output: a failing one first, then the largest NMSE.
    double score = (d.ok ? 0 : 1e300) + (std::isnan(d.nmse) ? 1e299 : d.nmse);
    if (score > worst) {
      worst = score;
      f.diff = d;
      f.worst_output = static_cast<int>(i);
    }
  }
  if (!f.diff.ok) {
    f.status = f.diff.non_finite ? "non_finite" : "mismatch";
    f.message = "output " + std::to_string(f.worst_output) + ": " + f.diff.Summary();
  }
  return f;
}

ReplayReport Replay(const ir::relax::IRModule& module, const Carve& carve, const TensorStore& store,
                    TargetDevice& device, const Tolerances& tolerances) {
  ReplayReport report;
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, KernelFinding> done;  // by function and input digests
  for (const CarvedCall& call : carve.calls) {
    std::string key = call.prim_func;
    for (const CallArg& a : call.inputs) {
      key += "|" + (a.is_tensor ? a.tensor.digest : std::to_string(a.int_value));
    }
    for (int64_t v : call.tir_vars) key += "|" + std::to_string(v);
    if (auto it = done.find(key); it != done.end()) {
      KernelFinding f = FindingOf(call, it->second);
      report.calls.push_back(f);
      report.failed += !f.ok();
      continue;
    }
    KernelFinding f = FindingOf(call);
    try {
      const ir::PrimFunc* workload = module.LookupPrimFunc(call.prim_func);
      KILN_CHECK(workload != nullptr, ErrorKind::kInvalidIR,
                 "the model has no PrimFunc " + call.prim_func + " (the carve is of another one)");
      std::vector<CallValue> inputs;
      for (const CallArg& a : call.inputs) {
        CallValue v;
        if (a.is_tensor) {
          v.tensor = store.Get(a.tensor);
        } else {
          v.is_scalar = true;
          v.dtype = a.dtype;
          v.int_value = a.int_value;
          v.float_value = a.float_value;
        }
        inputs.push_back(std::move(v));
      }
      // The device checks and times the kernel against the carve's outputs when all were
      // stored; an output beyond the cap is judged here on its sample, the run untimed.
      std::vector<ir::HostTensor> expected;
      bool all_stored = true;
      for (const TensorRef& r : call.outputs) {
        all_stored = all_stored && r.stored;
        expected.push_back(r.stored ? store.Get(r) : ir::HostTensor(r.dtype, r.shape));
      }
      TargetRun run = device.Run(*workload, call.bound, inputs, expected, call.tir_vars,
                                 all_stored ? &expected : nullptr);
      ++report.kernels_run;
      if (run.status != "ok") {
        f.status = run.status;
        f.message = run.message;
        f.schedule = run.schedule;
      } else {
        KernelFinding judged = JudgeOutputs(call, store, run.outputs, tolerances);
        judged.device_seconds = run.seconds;
        judged.schedule = run.schedule;
        f = judged;
      }
    } catch (const Error& e) {
      f.status = e.kind() == ErrorKind::kIO ? "not_replayed" : "runtime_error";
      f.message = e.what();
    }
    done.emplace(key, f);
    report.calls.push_back(f);
    report.failed += !f.ok();
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kiln::validate
